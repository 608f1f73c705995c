/* tests/fuzz/replay.c: runs every file of a corpus directory through the
 * target's LLVMFuzzerTestOneInput, so each saved input is an ordinary test in
 * every build (docs/style.md §15).  Usage: replay_<target> DIR.  Exits non-zero when
 * DIR is missing, unreadable or empty; a crash or sanitizer report in the
 * target fails the test by itself. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/fuzz/fuzz.h"

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Reads the whole file into an exact-size heap buffer, so a target that reads
 * one byte past the input is caught by ASan as it would be by libFuzzer. */
static int run_file(int dirfd, const char *name, size_t *ran)
{
	int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		int err = errno;
		fprintf(stderr, "replay: %s: %s\n", name, strerror(err));
		return -1;
	}
	struct stat st;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return 0; /* subdirectories and the like are not inputs */
	}
	size_t size = (size_t)st.st_size;
	uint8_t *buf = malloc(size ? size : 1);
	if (!buf) {
		close(fd);
		return -1;
	}
	size_t got = 0;
	while (got < size) {
		ssize_t n = read(fd, buf + got, size - got);
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	if (got != size) {
		fprintf(stderr, "replay: %s: short read\n", name);
		free(buf);
		return -1;
	}
	LLVMFuzzerTestOneInput(buf, size);
	free(buf);
	(*ran)++;
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s CORPUS_DIR\n", argv[0]);
		return 2;
	}
	DIR *d = opendir(argv[1]);
	if (!d) {
		int err = errno;
		fprintf(stderr, "replay: %s: %s\n", argv[1], strerror(err));
		return 1;
	}
	/* Sorted, so a failure names the same first input on every run. */
	char **names = NULL;
	size_t n = 0, cap = 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			char **nn = realloc(names, cap * sizeof(*names));
			if (!nn)
				return 1;
			names = nn;
		}
		names[n] = strdup(e->d_name);
		if (!names[n])
			return 1;
		n++;
	}
	if (n)
		qsort(names, n, sizeof(*names), cmp_names);

	size_t ran = 0;
	int rc = 0;
	for (size_t i = 0; i < n; i++) {
		if (run_file(dirfd(d), names[i], &ran) < 0)
			rc = 1;
		free(names[i]);
	}
	free(names);
	closedir(d);
	printf("replay: %zu inputs from %s\n", ran, argv[1]);
	if (ran == 0) {
		fprintf(stderr, "replay: %s holds no inputs\n", argv[1]);
		return 1;
	}
	return rc;
}
