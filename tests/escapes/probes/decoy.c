/*
 * The decoy: a process outside every sandbox that a probe must not be able
 * to see, read, trace or signal (rows 10, 16, 21).
 *
 * usage: decoy READY-FILE SECRET-FILE SIGNAL-LOG MARKER...
 *
 * Its argv carries the marker (row 10 reads /proc/PID/cmdline) and the
 * runner puts it in its environment (/proc/PID/environ). It keeps two
 * marked buffers in memory (ptrace PEEKDATA and process_vm_readv read them)
 * and SECRET-FILE open (pidfd_getfd steals the fd), and appends every
 * signal it receives, with the sender's pid and command line, to SIGNAL-LOG
 * (row 21). It
 * allows any ptracer (PR_SET_PTRACER_ANY) so that the unsandboxed control
 * works on hosts with Yama ptrace_scope=1: the sandbox must refuse even so.
 * When everything is in place it writes "pid addr1 addr2 fd" to READY-FILE.
 */
#include "probe.h"

#include <fcntl.h>
#include <sys/prctl.h>

static char ptrace_secret[64] = "MUST-NOT-LEAK/ptrace-peekdata........";
static char vmread_secret[64] = "MUST-NOT-LEAK/process_vm_readv.......";
static int siglog = -1;

/* Filled by the handler, logged by main(): only async-signal-safe work here. */
static volatile sig_atomic_t pending_sig[64], pending_pid[64];
static volatile sig_atomic_t head, tail;

static void on_signal(int sig, siginfo_t *si, void *ctx)
{
	(void)ctx;
	if (head - tail < 64) {
		pending_sig[head % 64] = sig;
		pending_pid[head % 64] = si->si_pid;
		head = head + 1;
	}
}

/* "signal N from pid P: CMDLINE" -- the sender's command line lets the
 * runner tell its own probe from anything else on the host. */
static void log_pending(void)
{
	while (tail != head) {
		int sig = pending_sig[tail % 64], pid = pending_pid[tail % 64];
		tail = tail + 1;
		char path[64], cmd[512] = "";
		snprintf(path, sizeof path, "/proc/%d/cmdline", pid);
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd >= 0) {
			ssize_t n = read(fd, cmd, sizeof cmd - 1);
			close(fd);
			for (ssize_t i = 0; i < n; i++)
				if (!cmd[i])
					cmd[i] = ' ';
			cmd[n > 0 ? n : 0] = '\0';
		}
		dprintf(siglog, "signal %d from pid %d: %s\n", sig, pid, cmd);
	}
}

int main(int argc, char **argv)
{
	if (argc < 4)
		return 2;
	prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
	siglog = open(argv[3], O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
	int secret = open(argv[2], O_RDONLY | O_CLOEXEC);
	if (siglog < 0 || secret < 0)
		return 1;
	struct sigaction sa = { .sa_sigaction = on_signal, .sa_flags = SA_SIGINFO | SA_RESTART };
	sigemptyset(&sa.sa_mask);
	for (int sig = 1; sig < 32; sig++)
		if (sig != SIGKILL && sig != SIGSTOP && sig != SIGCHLD && sig != SIGCONT)
			sigaction(sig, &sa, NULL);
	char tmp[4096];
	snprintf(tmp, sizeof tmp, "%s.tmp", argv[1]);
	FILE *f = fopen(tmp, "w");
	if (!f)
		return 1;
	fprintf(f, "%d %p %p %d\n", (int)getpid(), (void *)ptrace_secret,
		(void *)vmread_secret, secret);
	fclose(f);
	rename(tmp, argv[1]);
	for (;;) {
		pause();
		log_pending();
	}
}
