/*
 * interpose.c: binding the program's MPI calls to this library's wrappers
 * when it was loaded late, by dlopen from a rewritten unit's constructor
 * (mpp_abi.h: a program linked by $(LD) = mpicc, without -lmpipredict).
 *
 * Linked or preloaded, the library comes before libmpi in the dynamic
 * loader's search order and its MPI_* definitions win by themselves. A
 * library opened by dlopen comes after libmpi, so the program's references
 * stay bound to libmpi's. __mpp_interpose rebinds them: in every loaded
 * object but this one, each relocation against an MPI_* symbol this
 * library defines (a PLT slot, a GOT entry, a function pointer in data)
 * gets this library's address, as the loader would have given with the
 * library preloaded. The earlier way, running the program again with
 * LD_PRELOAD from the constructor, broke valgrind (it cannot exec
 * /proc/self/exe: that is valgrind itself), callgrind with
 * --trace-children=yes, and confused gdb; this needs no second exec.
 *
 * Not covered: objects opened by dlopen after the program started (a
 * plugin making MPI calls of its own) keep libmpi's functions; link with
 * mpipredict-mpicc (or add -lmpipredict) to have them counted.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "collector/mpp_abi.h"

#if defined(__x86_64__) && defined(__LP64__)
#define SLOT_RELOC(t) ((t) == R_X86_64_JUMP_SLOT || (t) == R_X86_64_GLOB_DAT)
#define ABS_RELOC(t)  ((t) == R_X86_64_64)
#elif defined(__aarch64__)
#define SLOT_RELOC(t) ((t) == R_AARCH64_JUMP_SLOT || (t) == R_AARCH64_GLOB_DAT)
#define ABS_RELOC(t)  ((t) == R_AARCH64_ABS64)
#endif

#ifdef SLOT_RELOC
static const void *self_base; /* this library's load address (dladdr) */

/* This library's definition of `name`, or NULL when it has none (dlsym
 * on our own handle also searches libmpi, our dependency: the address
 * must be ours). */
static void *own(void *self, const char *name)
{
	Dl_info di;
	void *p = dlsym(self, name);
	if (!p || !dladdr(p, &di) || di.dli_fbase != self_base)
		return NULL;
	return p;
}

/* A dynamic-section address: glibc has already added the load bias to
 * most of them, other loaders (and the vDSO) leave them as offsets. */
static uintptr_t dyn_addr(uintptr_t base, uintptr_t v)
{
	return v < base ? base + v : v;
}

struct walk {
	void *self;
	int patched;
};

static void patch_relocs(struct dl_phdr_info *info, const ElfW(Rela) * r,
			 size_t n, const ElfW(Sym) * sym, const char *str,
			 struct walk *w)
{
	for (size_t i = 0; i < n; i++) {
		unsigned t = (unsigned)ELF64_R_TYPE(r[i].r_info);
		const ElfW(Sym) *s = &sym[ELF64_R_SYM(r[i].r_info)];
		const char *name = str + s->st_name;
		if (!ELF64_R_SYM(r[i].r_info) || s->st_shndx != SHN_UNDEF ||
		    strncmp(name, "MPI_", 4) != 0 ||
		    !(SLOT_RELOC(t) || ABS_RELOC(t)))
			continue;
		char *p = own(w->self, name);
		if (!p)
			continue;
		void **slot = (void **)(info->dlpi_addr + r[i].r_offset);
		void *want = ABS_RELOC(t) ? p + r[i].r_addend : p;
		if (*slot != want) {
			*slot = want;
			w->patched++;
		}
	}
}

static int patch_object(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct walk *w = arg;
	const ElfW(Dyn) *dyn = NULL;
	uintptr_t relro = 0, relro_len = 0;
	(void)size;
	if ((const void *)info->dlpi_addr == self_base)
		return 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type == PT_DYNAMIC)
			dyn = (const void *)(info->dlpi_addr + ph->p_vaddr);
		else if (ph->p_type == PT_GNU_RELRO) {
			relro = info->dlpi_addr + ph->p_vaddr;
			relro_len = ph->p_memsz;
		}
	}
	if (!dyn)
		return 0;
	uintptr_t base = info->dlpi_addr, rela = 0, jmprel = 0;
	size_t relasz = 0, pltsz = 0;
	const ElfW(Sym) *sym = NULL;
	const char *str = NULL;
	int pltrela = 1;
	for (; dyn->d_tag != DT_NULL; dyn++) {
		uintptr_t v = dyn->d_un.d_ptr;
		switch (dyn->d_tag) {
		case DT_SYMTAB:
			sym = (const void *)dyn_addr(base, v);
			break;
		case DT_STRTAB:
			str = (const void *)dyn_addr(base, v);
			break;
		case DT_RELA:
			rela = dyn_addr(base, v);
			break;
		case DT_RELASZ:
			relasz = dyn->d_un.d_val;
			break;
		case DT_JMPREL:
			jmprel = dyn_addr(base, v);
			break;
		case DT_PLTRELSZ:
			pltsz = dyn->d_un.d_val;
			break;
		case DT_PLTREL:
			pltrela = dyn->d_un.d_val == DT_RELA;
			break;
		}
	}
	if (!sym || !str || !pltrela)
		return 0;
	/* Full RELRO (-z now) makes the GOT read-only after relocation:
	 * open it for the writes, close it again. */
	long pg = sysconf(_SC_PAGESIZE);
	uintptr_t lo = relro & ~(uintptr_t)(pg - 1);
	size_t len = relro + relro_len - lo;
	if (relro_len && mprotect((void *)lo, len, PROT_READ | PROT_WRITE))
		return 0;
	if (rela)
		patch_relocs(info, (const void *)rela,
			     relasz / sizeof(ElfW(Rela)), sym, str, w);
	if (jmprel)
		patch_relocs(info, (const void *)jmprel,
			     pltsz / sizeof(ElfW(Rela)), sym, str, w);
	if (relro_len)
		mprotect((void *)lo, len, PROT_READ);
	return 0;
}

/* Returns 0 when the program's MPI calls now reach this library (already
 * so when it was linked or preloaded), -1 when they cannot. Idempotent:
 * every unit's constructor may call it. */
int __mpp_interpose(void)
{
	static int done;
	Dl_info di;
	struct walk w = {0};
	if (done)
		return 0;
	if (!dladdr((void *)__mpp_interpose, &di) || !di.dli_fname)
		return -1;
	self_base = di.dli_fbase;
	/* Linked or preloaded: the default search already finds us first. */
	void *cur = dlsym(RTLD_DEFAULT, "MPI_Init");
	if (cur && dladdr(cur, &di) && di.dli_fbase == self_base)
		return 0;
	if (!dladdr((void *)__mpp_interpose, &di) ||
	    !(w.self = dlopen(di.dli_fname, RTLD_NOW | RTLD_NOLOAD)))
		return -1;
	dl_iterate_phdr(patch_object, &w);
	dlclose(w.self);
	done = 1;
	return 0;
}
#else
int __mpp_interpose(void)
{
	return -1;
}
#endif
