/*
 * Row 22: go past a resource ceiling. One mode per ceiling:
 *
 *   limits fork DIR N           fork N children, each creating DIR/forked.I
 *   limits fsize FILE           write 2 MiB to FILE (SIGXFSZ ignored), and
 *                               grow FILE.trunc to 16 MiB with ftruncate()
 *   limits cpu FILE SECS [ignore-xcpu]
 *                               burn SECS of CPU, recording the CPU time used
 *                               so far in FILE as it goes
 *   limits mem FILE MIB         allocate and touch MIB MiB, recording the
 *                               MiB touched so far in FILE
 *
 * Every piece of evidence is a file the runner reads on the host after the
 * run: how many children existed, how large the files grew, how much CPU
 * and memory the program really got before it was stopped. Control: without
 * a ceiling the probe gets all it asks for.
 */
#include "probe.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <time.h>

static void record(int fd, int decimals, double value)
{
	char line[64];
	int n = snprintf(line, sizeof line, "%.*f", decimals, value);
	/* Overwrite in place, padded, so a kill mid-way leaves a clean number. */
	memset(line + n, ' ', sizeof line - (size_t)n - 1);
	line[sizeof line - 1] = '\n';
	(void)!pwrite(fd, line, sizeof line, 0);
}

static int do_fork(const char *dir, int n)
{
	int made = 0;
	for (int i = 0; i < n; i++) {
		pid_t pid = fork();
		if (pid < 0) {
			probe_fail("fork", errno);
			break;
		}
		if (pid == 0) {
			char path[4096];
			snprintf(path, sizeof path, "%s/forked.%d", dir, i);
			int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
			if (fd >= 0)
				close(fd);
			_exit(0);
		}
		made++;
	}
	while (wait(NULL) > 0)
		;
	probe_ok("fork", made);
	return 0;
}

static int do_fsize(const char *file)
{
	signal(SIGXFSZ, SIG_IGN);
	int fd = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		probe_fail("open", errno);
		return 0;
	}
	static char chunk[65536];
	memset(chunk, 'x', sizeof chunk);
	long total = 0;
	while (total < 2L << 20) {
		ssize_t w = write(fd, chunk, sizeof chunk);
		if (w <= 0) {
			probe_fail("write", errno);
			break;
		}
		total += w;
	}
	close(fd);
	probe_ok("write-bytes", total);
	char path[4096];
	snprintf(path, sizeof path, "%s.trunc", file);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd >= 0) {
		PROBE_TRY("ftruncate", ftruncate(fd, 16L << 20));
		close(fd);
	}
	return 0;
}

static double cpu_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int do_cpu(const char *file, double secs, int ignore)
{
	if (ignore)
		signal(SIGXCPU, SIG_IGN);
	int fd = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		probe_fail("open", errno);
		return 0;
	}
	double used = 0, last = 0;
	volatile unsigned long spin = 0;
	while (used < secs) {
		for (int i = 0; i < 100000; i++)
			spin++;
		used = cpu_seconds();
		if (used - last >= 0.05) {
			record(fd, 3, used);
			last = used;
		}
	}
	record(fd, 3, used);
	probe_ok("cpu-ms", (long)(used * 1000));
	return 0;
}

static int do_mem(const char *file, long mib)
{
	int fd = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		probe_fail("open", errno);
		return 0;
	}
	long got = 0;
	while (got < mib) {
		char *p = mmap(NULL, 4L << 20, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED) {
			probe_fail("mmap", errno);
			break;
		}
		memset(p, 1, 4L << 20); /* touch: count resident memory, not promises */
		got += 4;
		record(fd, 0, (double)got);
	}
	probe_ok("mem-mib", got);
	return 0;
}

int main(int argc, char **argv)
{
	probe_started();
	if (argc >= 4 && strcmp(argv[1], "fork") == 0)
		return do_fork(argv[2], atoi(argv[3]));
	if (argc >= 3 && strcmp(argv[1], "fsize") == 0)
		return do_fsize(argv[2]);
	if (argc >= 4 && strcmp(argv[1], "cpu") == 0)
		return do_cpu(argv[2], atof(argv[3]), argc > 4);
	if (argc >= 4 && strcmp(argv[1], "mem") == 0)
		return do_mem(argv[2], atol(argv[3]));
	dprintf(STDOUT_FILENO, "usage: limits fork DIR N | fsize FILE | cpu FILE SECS [ignore-xcpu] | mem FILE MIB\n");
	return 2;
}
