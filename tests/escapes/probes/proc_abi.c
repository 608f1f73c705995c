/*
 * Rows 73 and 74: ways around a seccomp filter that reads only x86_64
 * syscall numbers and registers, and personality(2) flags.
 *
 * usage: proc_abi [show-persona]
 *
 * Each attempt runs in its own child (a filter may kill the process):
 *   int80-unshare    unshare(CLONE_NEWUSER) through int $0x80, the i386 ABI
 *                    (i386 number 310)
 *   x32-unshare      unshare(CLONE_NEWUSER) as an x32 syscall (bit 30 set)
 *   highnr-unshare   unshare(CLONE_NEWUSER) with garbage in the upper half of
 *                    rax (the kernel uses the low 32 bits)
 *   clone-highbits   clone(CLONE_NEWUSER | SIGCHLD | 1 << 32): the kernel
 *                    ignores the upper half of the flags; ok only when the
 *                    child really is in a new user namespace
 *   personality-rie  personality(READ_IMPLIES_EXEC), then mmap(PROT_READ):
 *                    ok only when the mapping came out executable
 *   personality-aslr personality(ADDR_NO_RANDOMIZE), then execve of itself:
 *                    ok only when the new image runs without ASLR
 * A successful unshare leaves the child in a namespace of its own, which
 * ends with it.
 */
#include "probe.h"

#include <fcntl.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/syscall.h>

#define I386_NR_UNSHARE 310
#define X32_SYSCALL_BIT 0x40000000UL

static long int80_1(long nr, long a1)
{
	long ret;
	__asm__ volatile("int $0x80"
			 : "=a"(ret)
			 : "a"(nr), "b"(a1)
			 : "r8", "r9", "r10", "r11", "memory");
	return (int)ret;
}

static long syscall_raw1(unsigned long nr, long a1)
{
	long ret;
	__asm__ volatile("syscall" : "=a"(ret) : "a"(nr), "D"(a1) : "rcx", "r11", "memory");
	return ret;
}

static void report_raw(const char *name, long rc)
{
	if (rc < 0 && rc > -4096)
		probe_fail(name, (int)-rc);
	else
		probe_ok(name, rc);
}

static void do_int80(const char *name)
{
	report_raw(name, int80_1(I386_NR_UNSHARE, CLONE_NEWUSER));
}

static void do_x32(const char *name)
{
	report_raw(name, syscall_raw1(X32_SYSCALL_BIT | SYS_unshare, CLONE_NEWUSER));
}

static void do_highnr(const char *name)
{
	report_raw(name, syscall_raw1((1UL << 32) | SYS_unshare, CLONE_NEWUSER));
}

static void user_ns(char *buf, size_t len)
{
	ssize_t l = readlink("/proc/self/ns/user", buf, len - 1);
	buf[l > 0 ? l : 0] = '\0';
}

static void do_clone_high(const char *name)
{
	char mine[64];
	user_ns(mine, sizeof mine);
	long pid = syscall(SYS_clone, (1UL << 32) | CLONE_NEWUSER | SIGCHLD, 0, 0, 0, 0);
	int err = errno;
	if (pid == 0) {
		char theirs[64];
		user_ns(theirs, sizeof theirs);
		_exit(strcmp(mine, theirs) != 0 ? 0 : 1);
	}
	if (pid < 0) {
		probe_fail(name, err);
		return;
	}
	int status;
	waitpid((pid_t)pid, &status, 0);
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		probe_ok(name, 0);
	else
		dprintf(STDOUT_FILENO, "RESULT %s fail NOCHANGE\n", name);
}

static void do_rie(const char *name)
{
	if (personality(READ_IMPLIES_EXEC) < 0) {
		probe_fail(name, errno);
		return;
	}
	/* personality(2) returns the old persona; read the new one back. */
	if (!(personality(0xffffffff) & READ_IMPLIES_EXEC)) {
		probe_fail(name, EPERM);
		return;
	}
	void *p = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char line[512], want[32];
	snprintf(want, sizeof want, "%lx-", (unsigned long)p);
	FILE *maps = fopen("/proc/self/maps", "re");
	while (maps && fgets(line, sizeof line, maps)) {
		if (strncmp(line, want, strlen(want)) == 0) {
			char *perm = strchr(line, ' ');
			if (perm && perm[3] == 'x') {
				probe_ok(name, 0);
				fclose(maps);
				return;
			}
		}
	}
	if (maps)
		fclose(maps);
	dprintf(STDOUT_FILENO, "RESULT %s fail NOEXEC\n", name);
}

static void do_aslr(const char *name)
{
	if (personality(ADDR_NO_RANDOMIZE) < 0 ||
	    !(personality(0xffffffff) & ADDR_NO_RANDOMIZE)) {
		probe_fail(name, errno ? errno : EPERM);
		return;
	}
	char *argv[] = { "proc_abi", "show-persona", NULL };
	execv("/proc/self/exe", argv);
	dprintf(STDOUT_FILENO, "RESULT %s setup-fail %s\n", name, probe_errname(errno));
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "show-persona") == 0) {
		/* The image execve'd by do_aslr: does it run without ASLR? */
		int p = personality(0xffffffff);
		if (p >= 0 && (p & ADDR_NO_RANDOMIZE))
			probe_ok("personality-aslr", p);
		else
			dprintf(STDOUT_FILENO, "RESULT personality-aslr fail RANDOMIZED\n");
		return 0;
	}
	probe_started();
	probe_isolated("int80-unshare", do_int80);
	probe_isolated("x32-unshare", do_x32);
	probe_isolated("highnr-unshare", do_highnr);
	probe_isolated("clone-highbits", do_clone_high);
	probe_isolated("personality-rie", do_rie);
	probe_isolated("personality-aslr", do_aslr);
	return 0;
}
