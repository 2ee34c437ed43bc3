/*
 * replay.c: runs a fuzz harness over files without libFuzzer, so that the
 * seed corpora and every input a fuzzer once crashed on are checked by
 * `make check` with the ordinary compiler (and by SANITIZE=1 under the
 * sanitizers). Linked with one harness.
 *
 *   replay-NAME FILE|DIR...    prints "replayed N inputs"
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz/check.h"

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (f == NULL) {
		perror(path);
		return -1;
	}
	size_t cap = 1 << 16, n = 0;
	unsigned char *buf = malloc(cap);
	size_t got;
	while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
		n += got;
		if (n == cap) {
			unsigned char *b = realloc(buf, cap *= 2);
			if (b == NULL) {
				free(buf);
				buf = NULL;
			}
			buf = b;
		}
	}
	fclose(f);
	if (buf == NULL)
		return -1;
	/* An exact-size copy, so that ASan sees reads past the input. */
	unsigned char *exact = malloc(n ? n : 1);
	memcpy(exact, buf, n);
	free(buf);
	LLVMFuzzerTestOneInput(exact, n);
	free(exact);
	return 0;
}

int main(int argc, char **argv)
{
	long count = 0;
	LLVMFuzzerInitialize(&argc, &argv);
	for (int i = 1; i < argc; i++) {
		struct stat st;
		if (stat(argv[i], &st) != 0) {
			perror(argv[i]);
			return 2;
		}
		if (!S_ISDIR(st.st_mode)) {
			if (run_file(argv[i]) != 0)
				return 2;
			count++;
			continue;
		}
		DIR *d = opendir(argv[i]);
		struct dirent *e;
		while (d && (e = readdir(d)) != NULL) {
			if (e->d_name[0] == '.')
				continue;
			char path[4096];
			snprintf(path, sizeof path, "%s/%s", argv[i],
				 e->d_name);
			if (run_file(path) != 0)
				return 2;
			count++;
		}
		if (d)
			closedir(d);
	}
	printf("replayed %ld inputs\n", count);
	return 0;
}
