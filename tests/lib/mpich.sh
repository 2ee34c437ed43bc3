# tests/lib/mpich.sh: a private MPICH for tests, next to the system OpenMPI.
#
# Source it (bash) from a test or benchmark:
#     . "$MPP_SRC/tests/lib/mpich.sh" || exit 1
# Needs MPP_SRC and MPP_BUILD (the test runner exports both); uses
# MPP_TEST_CFLAGS (sanitizer flags) when set. On first use it
#   - extracts the Debian packages mpich, libmpich-dev and libmpich12 into
#     $MPP_BUILD/mpich/root with `apt-get download` + `dpkg -x` (never
#     installed system-wide: that would move OpenMPI's mpirun/mpicc
#     alternatives); their other dependencies (hwloc, ucx, gfortran runtime)
#     come with OpenMPI;
#   - writes $MPP_BUILD/mpich/bin/mpicc, a compiler wrapper for that MPICH;
#   - builds libmpipredict against MPICH into $MPP_BUILD/mpich/lib/ (.so and
#     .a), rebuilt whenever a collector source is newer.
# A lock file serialises concurrent first uses. It then exports:
#   MPICH_ROOT    the extracted tree
#   MPICH_CC      compiler command for MPICH programs ("$MPICH_CC -o p p.c";
#                 "$MPICH_CC -show" prints the flags it adds)
#   MPICH_RUN     launcher command ("$MPICH_RUN -np 4 ./p"), hydra with the
#                 fork launcher, which also sets the library path
#   MPICH_LIBDIR  the MPICH build of libmpipredict (set MPIPREDICT_LIBDIR to
#                 it for mpipredict-cc, or link -L$MPICH_LIBDIR -lmpipredict
#                 -Wl,-rpath,$MPICH_LIBDIR before MPICH's -lmpich)
#   MPICH_INCDIR  MPICH's mpi.h folder
# and returns 0; on failure it prints one line naming the step and returns 1.

mpp_mpich_setup() {
	[ -n "${MPP_SRC:-}" ] && [ -n "${MPP_BUILD:-}" ] ||
		{ echo "mpich.sh: MPP_SRC and MPP_BUILD must be set"; return 1; }
	local dir=$MPP_BUILD/mpich
	local root=$dir/root
	local inc=$root/usr/include/x86_64-linux-gnu/mpich
	local lib=$root/usr/lib/x86_64-linux-gnu
	local src f need missing
	mkdir -p "$dir/bin" "$dir/lib" "$dir/obj" || { echo "mpich.sh: cannot create $dir"; return 1; }
	(
		flock 9
		if [ ! -f "$inc/mpi.h" ] || [ ! -x "$root/usr/bin/mpiexec.hydra" ]; then
			rm -rf "$dir/debs" "$root" && mkdir -p "$dir/debs" || exit 1
			(cd "$dir/debs" && apt-get download mpich libmpich-dev libmpich12 >/dev/null 2>&1) ||
				(cd "$dir/debs" && apt-get update -qq >/dev/null 2>&1 &&
					apt-get download mpich libmpich-dev libmpich12 >/dev/null 2>&1) ||
				{ echo "mpich.sh: apt-get download mpich libmpich-dev libmpich12 failed"; exit 1; }
			for f in "$dir"/debs/*.deb; do
				dpkg -x "$f" "$root" || { echo "mpich.sh: dpkg -x $f failed"; exit 1; }
			done
		fi
		missing=$(ldd "$lib/libmpich.so.12" "$root/usr/bin/mpiexec.hydra" 2>/dev/null |
			awk '/not found/ { print $1 }' | sort -u | tr '\n' ' ')
		[ -z "$missing" ] ||
			{ echo "mpich.sh: MPICH needs libraries this machine lacks: $missing"; exit 1; }
		cat >"$dir/bin/mpicc.new" <<-EOF
		#!/bin/sh
		# MPICH compiler wrapper for the private MPICH in $root
		# (-show prints the command, like MPICH's own mpicc).
		if [ "\$1" = -show ]; then
			echo "\${CC:-cc} -I$inc -L$lib -Wl,-rpath,$lib -lmpich"
			exit 0
		fi
		exec \${CC:-cc} -I$inc "\$@" -L$lib -Wl,-rpath,$lib -lmpich
		EOF
		chmod +x "$dir/bin/mpicc.new" && mv "$dir/bin/mpicc.new" "$dir/bin/mpicc" || exit 1
		need=0
		for src in "$MPP_SRC"/collector/*.c "$MPP_SRC"/collector/*.h "$MPP_SRC"/collector/*.def "$MPP_SRC"/tests/lib/mpich.sh; do
			[ "$src" -nt "$dir/lib/libmpipredict.so" ] && need=1
		done
		[ -f "$dir/lib/libmpipredict.so" ] || need=1
		[ "${MPP_TEST_CFLAGS:-}" = "$(cat "$dir/lib/cflags" 2>/dev/null)" ] || need=1
		if [ $need = 1 ]; then
			rm -f "$dir/lib/libmpipredict.so" "$dir/lib/libmpipredict.a"
			for f in pmpi runtime row runfile trace topo mpitime forward progress interpose; do
				"$dir/bin/mpicc" -c -std=c11 -O2 -g -fPIC -D_GNU_SOURCE \
					-DMPP_VERSION="\"$(sed -n 's/^MPP_VERSION := //p' "$MPP_SRC/Makefile")\"" \
					${MPP_TEST_CFLAGS:-} -I"$MPP_SRC" \
					"$MPP_SRC/collector/$f.c" -o "$dir/obj/$f.o" ||
					{ echo "mpich.sh: compiling collector/$f.c against MPICH failed"; exit 1; }
			done
			"$dir/bin/mpicc" -shared -Wl,-soname,libmpipredict.so ${MPP_TEST_CFLAGS:-} \
				-o "$dir/lib/libmpipredict.so.new" "$dir"/obj/{pmpi,runtime,row,runfile,trace,topo,mpitime,forward,progress,interpose}.o -lhwloc -lpthread &&
				ar rcs "$dir/lib/libmpipredict.a.new" "$dir"/obj/{pmpi,runtime,row,runfile,trace,topo,mpitime,forward,progress,interpose}.o &&
				mv "$dir/lib/libmpipredict.a.new" "$dir/lib/libmpipredict.a" &&
				mv "$dir/lib/libmpipredict.so.new" "$dir/lib/libmpipredict.so" ||
				{ echo "mpich.sh: linking the MPICH libmpipredict failed"; exit 1; }
			printf '%s' "${MPP_TEST_CFLAGS:-}" >"$dir/lib/cflags"
		fi
	) 9>"$dir/.lock" || return 1
	export MPICH_ROOT=$root
	export MPICH_INCDIR=$inc
	export MPICH_CC=$dir/bin/mpicc
	export MPICH_RUN="$root/usr/bin/mpiexec.hydra -launcher fork -genv LD_LIBRARY_PATH $lib"
	export MPICH_LIBDIR=$dir/lib
	return 0
}

mpp_mpich_setup
