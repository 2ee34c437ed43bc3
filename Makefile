# mpipredict: top-level build.
#
# Everything is built out of tree under $(BUILD) (default: build/, or
# build-san/ with SANITIZE=1): objects in $(BUILD)/obj/<part>/, programs in
# $(BUILD)/bin/, libraries in $(BUILD)/lib/, compiled tests in
# $(BUILD)/tests/. The install layout is mirrored so that a program can find
# its siblings (mpipredict-cc finds the runtime in ../lib and ../include).
#
# Each part (instrument, collector, regress, schema, server, contrib) keeps
# its own rules in <part>/module.mk and appends to the lists below; this file
# holds only what is common. `make <part>` builds one part.
#
# Targets: all (default), check, check-slurm, check-long, demo, bench,
# install, deps, format, format-check, compdb, clean. See README.md.

MPP_VERSION := 0.1.0

SANITIZE ?= 0
WERROR   ?= 0
# FUZZ=1 (set by `make fuzz`, fuzz/module.mk): clang-14 with libFuzzer's
# coverage and the sanitizers, in build-fuzz/.
FUZZ     ?= 0
ifeq ($(FUZZ),1)
BUILD ?= build-fuzz
CC    := clang-14
endif
ifeq ($(SANITIZE),1)
BUILD ?= build-san
else
BUILD ?= build
endif
PREFIX  ?= /usr/local
DESTDIR ?=

CC      ?= cc
MPICC   ?= mpicc
LLVM_DIR ?= /usr/lib/llvm-14

# Flags shared by every part. -D_GNU_SOURCE: we target glibc (Debian).
CSTD      := -std=c11
WARN      := -Wall -Wextra -Wshadow -Wformat=2
ifeq ($(WERROR),1)
WARN      += -Werror
endif
OPT       ?= -O2 -g
SAN_FLAGS :=
ifeq ($(SANITIZE),1)
SAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
OPT       := -O1 -g
endif
ifeq ($(FUZZ),1)
SAN_FLAGS := -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
OPT       := -O1 -g
endif
CPPFLAGS  += -D_GNU_SOURCE -DMPP_VERSION=\"$(MPP_VERSION)\" -I.
CFLAGS    += $(CSTD) $(OPT) $(WARN) $(SAN_FLAGS) -fPIC
LDFLAGS   += $(SAN_FLAGS)

OBJ := $(BUILD)/obj

# Lists the parts append to.
PROGRAMS   :=   # $(BUILD)/bin/...    installed to bin/
LIBRARIES  :=   # $(BUILD)/lib/...    installed to lib/
HEADERS    :=   # source paths        installed to include/mpipredict/
SHARE      :=   # source paths        installed to share/mpipredict/
PKGCONFIG  :=   # *.pc.in templates   installed to lib/pkgconfig/ (@PREFIX@, @VERSION@)
TEST_BINS  :=   # $(BUILD)/tests/...  built before `make check`
BENCHES    :=   # phony bench-* targets run by `make bench`
FORMAT_SRC :=   # files `make format` may rewrite

.PHONY: all
all:

# One place that lists every Debian package the project uses (Debian 12).
# DEPS: build, `make check` and `make demo`; DEPS_SLURM: `make check-slurm`;
# DEPS_BENCH: `make bench`; DEPS_DEV: `make format`, `make compdb`.
# Beyond the libraries docs/design.md names: clang-14 and clang (the
# rewriter's output is also compiled with clang in tests, which call it by
# that name), csmith + libcsmith-dev (differential
# tests of the rewriter), xxd (embeds schema.sql), sqlite3, curl, jq
# (tests read the store, call the daemon, read JSON), gdb (kills a training
# inside its save; instrumented programs run under it), valgrind and
# linux-perf (instrumented programs run under memcheck, callgrind and perf
# stat: tests/instrument/t-tool-*.sh), bsdextrautils (`column` in the demo), libfuzzer-14-dev
# (`make fuzz`: clang-14's libFuzzer runtime), xz-utils (the KTH-SP2 trace
# of history/ is shipped xz-compressed), libhwloc-dev (the collector's
# peer levels: which package a rank runs on), chromium (the staff page loaded
# in a real headless browser), python3 (drives it over the DevTools pipe; the
# slow DNS server of the plugin's resolver test), iproute2 (`ip link` in
# that test's private network namespace), autoconf and cmake (a configure
# and a CMake build through mpipredict-mpicc are tested); for benchmarks
# hyperfine, wrk, valgrind (callgrind), time (/usr/bin/time -v), python3
# and gnuplot-nox (bench-accuracy's tables and plots). libinih-dev: the
# INI parser of the daemon's and the clients' configuration files; help2man:
# the manual pages, from each command's --help (docs/module.mk); groff-base:
# tests/cli/t-convention.sh renders them (a new Debian 12 has no groff);
# bc: the simulation tests' expected times (a new Debian 12 has none).
# libsimgrid-dev: SimGrid 3.32 (smpicc, smpirun, trace replay) for
# mpipredict-simulate; Debian 12 has no separate `simgrid` binary package.
DEPS := build-essential pkg-config clang-14 clang libclang-14-dev libomp-14-dev \
        libgsl-dev libsqlite3-dev sqlite3 libmicrohttpd-dev libyajl-dev libjansson-dev \
        libcurl4-openssl-dev libinih-dev help2man groff-base libopenmpi-dev openmpi-bin csmith libcsmith-dev \
        libslurm-dev curl jq xxd gdb valgrind linux-perf bsdextrautils libfuzzer-14-dev xz-utils \
        chromium python3 iproute2 libsimgrid-dev libhwloc-dev autoconf cmake bc
DEPS_SLURM := slurmctld slurmd slurm-client munge
DEPS_BENCH := hyperfine wrk valgrind time python3 gnuplot-nox
DEPS_DEV   := clang-format bear

# Install the missing ones when root; otherwise print the apt-get line.
# Quiet when everything is there.
define install_debs
	@missing=$$(for p in $(1); do \
	  dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q 'ok installed' || echo $$p; \
	done | tr '\n' ' '); \
	[ -z "$$missing" ] && exit 0; \
	if [ "$$(id -u)" = 0 ]; then \
	  echo "deps: installing $$missing"; \
	  export DEBIAN_FRONTEND=noninteractive; \
	  apt-get update -qq >/dev/null && \
	  apt-get install -y -qq --no-install-recommends $$missing >/dev/null || \
	  { echo "deps: apt-get install failed for: $$missing" >&2; exit 1; }; \
	else \
	  echo "deps: missing Debian packages; run as root:" >&2; \
	  echo "  apt-get install --no-install-recommends $$missing" >&2; exit 1; \
	fi
endef

.PHONY: deps deps-slurm deps-bench deps-dev
deps:
	$(call install_debs,$(DEPS))
deps-slurm:
	$(call install_debs,$(DEPS_SLURM))
deps-bench:
	$(call install_debs,$(DEPS_BENCH))
deps-dev:
	$(call install_debs,$(DEPS_DEV))

# Generic compile rule: per-part flags come from target-specific variables
# set in each module.mk (e.g. `$(OBJ)/server/%.o: CPPFLAGS += ...`).
$(OBJ)/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -MMD -MP -c $< -o $@

# Archives that parts link against each other's, named here because a rule's
# prerequisites are expanded as the file is read, before a later module.mk
# could define them.
REGRESS_LIB := $(OBJ)/regress/libregress.a
STORE_LIB   := $(OBJ)/schema/libstore.a
HISTORY_LIB := $(OBJ)/history/libhistory.a
CLI_PROGS   := $(BUILD)/bin/mpipredict-train $(BUILD)/bin/mpipredict-predict \
               $(BUILD)/bin/mpipredict-model

# The parts read their compiler flags from pkg-config while make reads
# these files, so on a new machine the packages must exist before that. The
# stamp is an included makefile: when it is missing or older than this
# file, make remakes it by installing $(DEPS) (as `make deps` does), then
# reads every makefile again, now with the packages in place (GNU make's
# "how makefiles are remade"). Goals that need no build skip it.
# Until the stamp exists the flags read on the first pass are thrown away,
# so pkg-config's complaints about packages not yet installed are too.
PKG_CONFIG := pkg-config$(if $(wildcard $(BUILD)/.deps.mk),, 2>/dev/null)
NO_DEPS_GOALS := deps deps-slurm deps-bench deps-dev clean format format-check
ifneq ($(filter-out $(NO_DEPS_GOALS),$(or $(MAKECMDGOALS),all)),)
include $(BUILD)/.deps.mk
endif
$(BUILD)/.deps.mk: Makefile
	$(call install_debs,$(DEPS))
	@mkdir -p $(@D) && echo '# make deps passed; see the top Makefile' > $@

include common/module.mk
include instrument/module.mk
include collector/module.mk
include regress/module.mk
include schema/module.mk
include history/module.mk
include cli/module.mk
include calibrate/module.mk
include report/module.mk
include server/module.mk
include contrib/module.mk
include simulate/module.mk
include fuzz/module.mk
include tests/module.mk
include docs/module.mk

all: $(PROGRAMS) $(LIBRARIES)

# Every benchmark installs what benchmarks use first (`make bench-x` alone).
$(BENCHES): deps deps-bench

-include $(shell find $(OBJ) -name '*.d' 2>/dev/null)

# Tests: every tests/**/t-*.sh and every compiled $(BUILD)/tests/**/t-*.
# `make check T=tests/regress/t-x.sh` runs one folder or file;
# `make check PART=server` builds only that part (its phony target, which
# includes its test programs) and runs tests/server. A part whose tests
# drive other parts' commands names them in TEST_USES_<part> (its
# module.mk), so that the part's own target keeps its own dependencies.
CHECK_PREREQS := $(if $(PART),$(PART) $(TEST_USES_$(PART)),all $(TEST_BINS))
T ?= $(if $(PART),tests/$(PART),tests)
.PHONY: check check-long
check: deps $(CHECK_PREREQS)
	@MPP_BUILD=$(abspath $(BUILD)) MPP_SANITIZE=$(SANITIZE) \
	  MPP_TEST_CFLAGS="$(SAN_FLAGS)" tests/run-tests.sh $(T)
check-long: deps $(CHECK_PREREQS)
	@MPP_LONG=1 MPP_BUILD=$(abspath $(BUILD)) MPP_SANITIZE=$(SANITIZE) \
	  MPP_TEST_CFLAGS="$(SAN_FLAGS)" tests/run-tests.sh $(T)

.PHONY: bench
bench: deps deps-bench all $(BENCHES)

# Install: bin/, lib/ (+ pkgconfig), include/mpipredict/, share/mpipredict/;
# the manual pages come from docs/module.mk (install-man).
.PHONY: install
install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/pkgconfig \
	  $(DESTDIR)$(PREFIX)/include/mpipredict $(DESTDIR)$(PREFIX)/share/mpipredict
	$(if $(PROGRAMS),install -m 755 $(PROGRAMS) $(DESTDIR)$(PREFIX)/bin/)
	$(if $(LIBRARIES),cp -P $(LIBRARIES) $(DESTDIR)$(PREFIX)/lib/)
	$(if $(HEADERS),install -m 644 $(HEADERS) $(DESTDIR)$(PREFIX)/include/mpipredict/)
	$(if $(SHARE),cp -R $(SHARE) $(DESTDIR)$(PREFIX)/share/mpipredict/)
	@for pc in $(PKGCONFIG); do \
	  sed 's|@PREFIX@|$(PREFIX)|g; s|@VERSION@|$(MPP_VERSION)|g' $$pc \
	    > $(DESTDIR)$(PREFIX)/lib/pkgconfig/$$(basename $$pc .in); done

# compile_commands.json for clangd/clang-tidy, recorded by bear.
.PHONY: compdb
compdb: deps-dev
	bear --output $(abspath $(BUILD))/compile_commands.json -- $(MAKE) -B all
	ln -sf $(BUILD)/compile_commands.json compile_commands.json

.PHONY: format format-check
format: deps-dev
	clang-format -i $(FORMAT_SRC)
# Fails (and names the files) when a C file drifts from .clang-format;
# CI runs it. Files are only read.
format-check: deps-dev
	@bad=$$(for f in $(FORMAT_SRC); do \
	  clang-format $$f | cmp -s - $$f || echo $$f; done); \
	if [ -n "$$bad" ]; then \
	  echo "format-check: not clang-formatted (run make format):" $$bad >&2; \
	  exit 1; fi; echo "format-check: $(words $(FORMAT_SRC)) files clean"

.PHONY: clean
clean:
	rm -rf build build-san compile_commands.json
