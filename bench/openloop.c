/* bench/openloop.c: the cost of one open, timed inside the sandbox.
 *
 *   openloop [--passes N] [--stat] DIR
 *
 * Lists every regular file beneath DIR (by absolute path, as DIR is given),
 * then makes N timed passes (default 20) over the list after one untimed
 * one.  A pass opens each file, reads it and closes it; with --stat it
 * only stats each (the path walk without the open, which Landlock does not
 * see).  Prints one line per pass: "pass I NS_PER_FILE".
 *
 * bench/filecost runs it bare and under every variant in interleaved
 * rounds.  Timing the loop inside the process leaves out start-up and the
 * spawn of find and cat, which make read10k's figures move by ±10 ms on
 * this VM: what is left is the per-file cost the sandbox's Landlock
 * ruleset, its mounts and its seccomp filter add to every open.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

struct list {
	char **path;
	size_t n, cap;
};

static int push(struct list *l, const char *dir, const char *name)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 1024;
		char **p = realloc(l->path, cap * sizeof *p);
		if (!p)
			return -1;
		l->path = p;
		l->cap = cap;
	}
	size_t len = strlen(dir) + 1 + strlen(name) + 1;
	char *s = malloc(len);
	if (!s)
		return -1;
	snprintf(s, len, "%s/%s", dir, name);
	l->path[l->n++] = s;
	return 0;
}

/* Every regular file beneath DIR, depth first; -1 with errno on failure. */
static int collect(struct list *l, const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		return -1;
	struct dirent *e;
	int rc = 0;
	while (rc == 0 && (e = readdir(d))) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (e->d_type == DT_REG) {
			rc = push(l, dir, e->d_name);
		} else if (e->d_type == DT_DIR) {
			size_t len = strlen(dir) + 1 + strlen(e->d_name) + 1;
			char *sub = malloc(len);
			if (!sub) {
				rc = -1;
				break;
			}
			snprintf(sub, len, "%s/%s", dir, e->d_name);
			rc = collect(l, sub);
			free(sub);
		}
	}
	closedir(d);
	return rc;
}

static long long now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* One pass; -1 (errno set, the path named) on the first failure. */
static int pass(const struct list *l, bool stat_only)
{
	char buf[4096];
	struct stat st;
	for (size_t i = 0; i < l->n; i++) {
		if (stat_only) {
			if (stat(l->path[i], &st) < 0)
				goto fail;
			continue;
		}
		int fd = open(l->path[i], O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			goto fail;
		ssize_t got = read(fd, buf, sizeof buf);
		close(fd);
		if (got < 0)
			goto fail;
		continue;
fail:
		fprintf(stderr, "openloop: %s: %s\n", l->path[i], strerror(errno));
		return -1;
	}
	return 0;
}

int main(int argc, char *argv[])
{
	int passes = 20, i = 1;
	bool stat_only = false;

	for (; i < argc && strncmp(argv[i], "--", 2) == 0; i++) {
		if (strcmp(argv[i], "--stat") == 0) {
			stat_only = true;
		} else if (strcmp(argv[i], "--passes") == 0 && i + 1 < argc) {
			char *end;
			long v = strtol(argv[++i], &end, 10);
			if (*end || v < 1 || v > 100000)
				goto usage;
			passes = (int)v;
		} else {
			goto usage;
		}
	}
	if (i != argc - 1)
		goto usage;

	struct list l = { 0 };
	if (collect(&l, argv[i]) < 0) {
		fprintf(stderr, "openloop: %s: %s\n", argv[i], strerror(errno));
		return 1;
	}
	if (l.n == 0) {
		fprintf(stderr, "openloop: %s: no regular file beneath it\n", argv[i]);
		return 1;
	}
	if (pass(&l, stat_only) < 0)
		return 1;
	for (int p = 0; p < passes; p++) {
		long long t0 = now_ns();
		if (pass(&l, stat_only) < 0)
			return 1;
		printf("pass %d %.1f\n", p, (double)(now_ns() - t0) / (double)l.n);
	}
	return 0;

usage:
	fprintf(stderr, "usage: openloop [--passes N] [--stat] DIR\n");
	return 125;
}
