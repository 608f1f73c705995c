/*
 * Row 69: regain privilege inside the sandbox: capabilities after execve
 * (as uid 0 the kernel would grant them all unless SECBIT_NOROOT is locked),
 * an ambient capability, another uid, supplementary groups.
 *
 * usage: proc_caps [show-caps]
 *
 *   exec-capeff   execve of itself, then CapEff from /proc/self/status:
 *                 ok only when non-zero
 *   ambient       capset(inheritable = permitted), then PR_CAP_AMBIENT_RAISE
 *                 of CAP_NET_RAW
 *   setresuid     setresuid(65534, 65534, 65534), in a child
 *   setgroups     setgroups({0}), in a child
 * The process's own credentials leave no trace outside: RESULT lines.
 */
#include "probe.h"

#include <grp.h>
#include <linux/capability.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

static unsigned long long cap_eff(void)
{
	FILE *f = fopen("/proc/self/status", "re");
	char line[256];
	unsigned long long v = 0;
	while (f && fgets(line, sizeof line, f))
		if (strncmp(line, "CapEff:", 7) == 0)
			sscanf(line + 7, "%llx", &v);
	if (f)
		fclose(f);
	return v;
}

static void do_exec(const char *name)
{
	char *argv[] = { "proc_caps", "show-caps", NULL };
	execv("/proc/self/exe", argv);
	dprintf(STDOUT_FILENO, "RESULT %s setup-fail %s\n", name, probe_errname(errno));
}

static void do_ambient(const char *name)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];
	if (syscall(SYS_capget, &h, d) == 0) {
		d[0].inheritable = d[0].permitted;
		d[1].inheritable = d[1].permitted;
		syscall(SYS_capset, &h, d);
	}
	PROBE_TRY(name, prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, CAP_NET_RAW, 0, 0));
}

static void do_setresuid(const char *name)
{
	PROBE_TRY(name, setresuid(65534, 65534, 65534));
}

static void do_setgroups(const char *name)
{
	gid_t g = 0;
	PROBE_TRY(name, setgroups(1, &g));
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "show-caps") == 0) {
		unsigned long long v = cap_eff();
		if (v)
			dprintf(STDOUT_FILENO, "RESULT exec-capeff ok %llx\n", v);
		else
			dprintf(STDOUT_FILENO, "RESULT exec-capeff fail ZERO\n");
		return 0;
	}
	probe_started();
	dprintf(STDOUT_FILENO, "IDS uid=%d euid=%d capeff=%llx\n", (int)getuid(), (int)geteuid(), cap_eff());
	probe_isolated("exec-capeff", do_exec);
	probe_isolated("ambient", do_ambient);
	probe_isolated("setresuid", do_setresuid);
	probe_isolated("setgroups", do_setgroups);
	return 0;
}
