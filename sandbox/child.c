/* sandbox/child.c: init and the payload (see child.h).
 *
 * init runs on a copy of the supervisor's memory (clone with fork
 * semantics), which already holds the plan, the Landlock ruleset fd and the
 * seccomp program, so nothing is parsed or compiled after the clone
 * (docs/design.md, Performance); the payload runs on init's own memory
 * until its execve (spawn_payload()).
 */
#include "sandbox/child.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/kernel.h"
#include "common/log.h"
#include "common/trace.h"
#include "sandbox/control.h"
#include "sandbox/degraded.h"
#include "sandbox/fdpass.h"
#include "sandbox/internal.h"
#include "sandbox/netinit.h"
#include "sandbox/seccomp.h"
#include "sandbox/trust.h"
#include "sandbox/why.h"

void sandbox_ctl_send(int fd, enum sandbox_ctl type, int value, const struct porta_error *e)
{
	struct sandbox_ctl_msg m = { .value = value };

	if (e)
		m.error = *e;
	/* A peer that is gone has nothing left to learn (no SIGPIPE either).
	 * Not sendmsg(2): the payload's, once its filter is on, would wait for
	 * the watch porta may not hold yet (sandbox/netinit.h). */
	(void)sandbox_fdpass_write(fd, type, &m, sizeof(m));
}

/* Reports a set-up failure from init or the payload and ends the process;
 * one that means "no capabilities in this user namespace" as such, so the
 * supervisor can run the command degraded instead. */
static __attribute__((noreturn)) void child_die(int ctl, const struct porta_error *e)
{
	sandbox_ctl_send(ctl, sandbox_ctl_ns_refused(e) ? SANDBOX_CTL_NS_REFUSED
							: SANDBOX_CTL_SETUP_ERROR,
			 0, e);
	_exit(125);
}

static int write_file(const char *path, const char *data)
{
	_cleanup_fd_ int fd = open(path, O_WRONLY | O_CLOEXEC);
	size_t len = strlen(data);

	if (fd < 0)
		return -errno;
	if (write(fd, data, len) != (ssize_t)len)
		return errno ? -errno : -EIO;
	return 0;
}

/* Identity maps for the caller's uid and gid (user_namespaces(7)): a process
 * in a new user namespace may map its own creator's ids, once setgroups is
 * denied; writing them here saves a round trip with the supervisor. */
static int map_ids(uid_t uid, gid_t gid, struct porta_error *e)
{
	char map[64];
	int r;

	if ((r = write_file("/proc/self/setgroups", "deny")))
		return porta_fail(e, "write", "/proc/self/setgroups", -r, NULL);
	snprintf(map, sizeof(map), "%u %u 1\n", uid, uid);
	if ((r = write_file("/proc/self/uid_map", map)))
		return porta_fail(e, "write", "/proc/self/uid_map", -r, NULL);
	snprintf(map, sizeof(map), "%u %u 1\n", gid, gid);
	if ((r = write_file("/proc/self/gid_map", map)))
		return porta_fail(e, "write", "/proc/self/gid_map", -r, NULL);
	return 0;
}

/* execvp(3)'s search, but over the sandbox's own PATH rather than porta's. */
static int exec_command(char *const argv[], char *const envp[])
{
	const char *path = "/usr/local/bin:/usr/bin:/bin";
	int first_err = ENOENT;

	if (strchr(argv[0], '/')) {
		execve(argv[0], argv, envp);
		return errno;
	}
	for (size_t i = 0; envp[i]; i++) {
		if (strncmp(envp[i], "PATH=", 5) == 0)
			path = envp[i] + 5;
	}
	size_t alen = strlen(argv[0]);
	while (path) {
		const char *colon = strchr(path, ':');
		size_t dlen = colon ? (size_t)(colon - path) : strlen(path);
		char full[4096];
		if (dlen + alen + 2 <= sizeof(full)) {
			/* An empty PATH entry means the current directory. */
			int n = dlen ? snprintf(full, sizeof(full), "%.*s/%s", (int)dlen, path, argv[0])
				     : snprintf(full, sizeof(full), "%s", argv[0]);
			(void)n;
			execve(full, argv, envp);
			int err = errno;
			if (err != ENOENT && err != ENOTDIR && err != ESTALE) {
				if (err != EACCES)
					return err;
				first_err = EACCES;
			}
		}
		path = colon ? colon + 1 : NULL;
	}
	return first_err;
}


/* The working directory is not there for the command: refused rather than
 * started elsewhere, since a build or an install run from / does its work,
 * or its damage, in the wrong place.  Names the option that would show it. */
static __attribute__((noreturn)) void refuse_cwd(const struct sandbox_child *c, int err)
{
	struct porta_error e;
	char shown[256];
	bool in_tmp = strncmp(c->plan->cwd, "/tmp/", 5) == 0 && !c->plan->opts->share_tmp;

	log_escape(c->plan->cwd, strlen(c->plan->cwd), shown, sizeof(shown));
	porta_fail(&e, "enter the working directory", c->plan->cwd, err,
		   "%s: mount it with -v %s%s, or run porta from a directory the sandbox shows",
		   in_tmp ? "the sandbox has its own /tmp" : "it is not visible in the sandbox", shown,
		   in_tmp ? " or share the host's /tmp with --share-tmp" : "");
	child_die(c->ctl, &e);
}

/* The payload's filters before porta's base program: --why's tracing one
 * first, under porta's own, which then decides first (stacked filters: the
 * most restrictive verdict wins); then the connect watch, which notifies
 * connect() and the sends that name a destination, its listener handed
 * to porta.  Every mode: porta makes the command's Unix-socket calls
 * (supervisor/unixsock.h); under --no-net it also names what the command
 * tried to reach.  Degraded, the filters that stand in for the missing
 * namespaces follow. */
static void install_filters(const struct sandbox_child *c, struct sandbox_watch_handover *watch)
{
	struct porta_error e;
	int r;

	if (c->plan->opts->why && (r = sandbox_why_payload_install())) {
		porta_fail(&e, "seccomp (--why)", NULL, -r, NULL);
		child_die(c->ctl, &e);
	}
	if (c->degraded ? sandbox_degraded_payload_seccomp(c->plan, watch, &e)
			: sandbox_net_payload_watch(watch, &e))
		child_die(c->ctl, &e);
}

static __attribute__((noreturn)) void payload_main(const struct sandbox_child *c)
{
	struct porta_error e;
	int r;

	trace_mark("payload started");
	/* The connect watch's handover starts before anything counts
	 * processes (degraded, the cgroup joined below; RLIMIT_NPROC): the
	 * helper it may need never counts against the command's (netinit.h). */
	struct sandbox_watch_handover watch;
	if ((r = sandbox_watch_handover_start(c->ctl, c->watch_to_init, &watch))) {
		porta_fail(&e, "start handing the connect watch to porta", NULL, -r, NULL);
		child_die(c->ctl, &e);
	}
	/* In full, the filters go on first, with the capabilities init gave
	 * the payload standing in for no_new_privs (degraded, the filters
	 * need no_new_privs first): nothing of the payload's own set-up is
	 * stopped by them (its reports go by sendto(2), sandbox_ctl_send()). */
	if (!c->degraded) {
		install_filters(c, &watch);
	} else {
		/* No PID namespace to end it with porta: it dies with porta
		 * (what it starts does not; a stated loss). */
		if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0 || getppid() != c->supervisor)
			_exit(125);
		/* No init: the payload joins the ceilings' cgroups itself,
		 * before it can start anything. */
		if (sandbox_cgroup_join(c->cg_fds, c->n_cg_fds, &e))
			child_die(c->ctl, &e);
		/* --why: traced before anything of the command runs. */
		if (c->why_gate >= 0 && sandbox_why_init_wait(c->why_gate) < 0) {
			porta_fail(&e, "--why", NULL, 0, "porta could not trace the command");
			child_die(c->ctl, &e);
		}
	}
	sigprocmask(SIG_SETMASK, &c->old_mask, NULL);
	signal(SIGPIPE, SIG_DFL); /* as porta's caller had it, not as the proxy needs it */
	if (chdir(c->plan->cwd) < 0)
		refuse_cwd(c, errno);
	if (sandbox_limits_apply(c->plan, &e) ||
	    ((!c->degraded || sandbox_caps_held()) && sandbox_caps_drop(&e)))
		child_die(c->ctl, &e);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) {
		porta_fail(&e, "no_new_privs", NULL, errno, NULL);
		child_die(c->ctl, &e);
	}
	if ((r = sandbox_landlock_enforce(c->ruleset_fd, c->masks.restrict_flags))) {
		porta_fail(&e, "Landlock restrict_self", NULL, -r, NULL);
		child_die(c->ctl, &e);
	}
	close(c->ruleset_fd);
	/* Whatever porta's caller left open (fds 3 and up) ends at execve. */
	if (syscall(SYS_close_range, 3, ~0U, CLOSE_RANGE_CLOEXEC) < 0) {
		porta_fail(&e, "close_range", NULL, errno, NULL);
		child_die(c->ctl, &e);
	}
	char *const *envp = c->degraded ? c->degraded_envp :
			    c->term_envp ? c->term_envp : c->plan->envp;
	if (c->plan->opts->net_mode == POLICY_NET_POLICY) {
		envp = sandbox_net_payload_env(envp, &c->net_ports);
		if (!envp) {
			porta_fail(&e, "environment", NULL, ENOMEM, NULL);
			child_die(c->ctl, &e);
		}
	}
	/* the runtimes with stores of their own are pointed at the bundle
	 * that holds porta's CA */
	if (c->trust_bundle && !(envp = sandbox_trust_env(envp, c->trust_bundle))) {
		porta_fail(&e, "environment", NULL, ENOMEM, NULL);
		child_die(c->ctl, &e);
	}
	if (c->degraded)
		install_filters(c, &watch);
	if (c->plan->core_target != POLICY_CORE_FILES &&
	    (r = sandbox_seccomp_install(POLICY_SECCOMP_CORE_PINNED))) {
		porta_fail(&e, "seccomp", NULL, -r, "RLIMIT_CORE pinned");
		child_die(c->ctl, &e);
	}
	trace_mark("payload confined, exec");
	int err = exec_command(c->argv, envp);
	int code = (err == ENOENT || err == ENOTDIR) ? 127 : 126;
	porta_fail(&e, "execute", c->argv[0], err, NULL);
	sandbox_ctl_send(c->ctl, SANDBOX_CTL_EXEC_ERROR, code, &e);
	_exit(code);
}

#if defined(__SANITIZE_ADDRESS__)
/* AddressSanitizer takes a stack it did not make for a broken one and says
 * so on the command's stderr: under it, the payload is forked, sharing
 * init's descriptor table until its execve and init waiting for that, as
 * below (the connect watch's listener stays in the table). */
static pid_t spawn_payload(const struct sandbox_child *cc)
{
	pid_t p = (pid_t)syscall(SYS_clone, CLONE_VFORK | CLONE_FILES | SIGCHLD, 0, NULL, NULL, 0);
	if (p == 0)
		payload_main(cc);
	return p;
}
#else
/* The payload runs on init's memory until its execve (CLONE_VM |
 * CLONE_VFORK, as posix_spawn(3) does) while init waits in the kernel: no
 * page table is copied, no page faulted in copy-on-write, no copy torn down
 * by the exec.  On a virtual machine whose page faults are costly that is
 * most of a fork (docs/benchmarks/startup.md).  Nothing of init runs
 * meanwhile, and what the payload changes that is neither memory nor a
 * descriptor (its mask, dispositions, credentials, filters, directory,
 * limits) is its own: CLONE_SIGHAND, CLONE_FS and CLONE_THREAD are not
 * given.  The descriptor table is shared (CLONE_FILES) until the execve
 * gives the command a copy of its own: what the payload leaves open there
 * is init's, the connect watch's listener (sandbox/netinit.h); what it
 * closes or marks close-on-exec is closed or marked for init too, which
 * never executes anything.  What it allocates (the command's environment)
 * stays in init's heap, unused. */
#define PAYLOAD_STACK (512 * 1024)

static int payload_entry(void *arg)
{
	payload_main(arg);
}

static pid_t spawn_payload(const struct sandbox_child *cc)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t len = PAYLOAD_STACK + (size_t)page;
	char *map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK,
			 -1, 0);

	if (map == MAP_FAILED)
		return -1;
	/* a guard page below it: an overflow faults instead of writing init's data */
	if (mprotect(map, (size_t)page, PROT_NONE) < 0) {
		int err = errno;
		munmap(map, len);
		errno = err;
		return -1;
	}
	pid_t p = clone(payload_entry, map + len, CLONE_VM | CLONE_VFORK | CLONE_FILES | SIGCHLD,
			(void *)cc);
	int err = errno;
	/* CLONE_VFORK: the payload has executed its command or exited by now,
	 * and runs on this stack no more. */
	munmap(map, len);
	errno = err;
	return p;
}
#endif

/* The command's standard streams are its own once it runs: init lets go of
 * its copies of them (for /dev/null, so no later descriptor of init takes
 * their numbers), so that a reader of porta's output sees its end when the
 * command's last process ends, not after init's exit and the namespaces'
 * teardown, which close init's descriptors last.  Tracing keeps stderr for
 * init's marks. */
static void release_stdio(void)
{
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);

	for (int fd = 0; fd <= (trace_enabled() ? 1 : 2); fd++) {
		if (null < 0 || dup2(null, fd) < 0)
			close(fd);
	}
	if (null > 2)
		close(null);
}

/* The payload has ended, and with it the run.  init kills and reaps every
 * other process of the PID namespace itself, tells porta the sandbox is
 * empty, and exits.
 *
 * The kernel would kill them at init's exit too (pid_namespaces(7)), but
 * porta would learn of it from SIGCHLD only once init's exit had taken the
 * namespaces down (the mounts unmounted, an RCU grace period waited for)
 * and released its descriptors: 0.6-1 ms from the payload's end on this
 * project's machine, against 0.3 ms for the message
 * (docs/benchmarks/startup.md).  Told instead, porta finishes while that
 * teardown goes on, as bubblewrap's monitor does.
 *
 * kill(-1) from pid 1 reaches every process of the namespace and of the
 * namespaces nested in it, init excepted (kill(2)); a fork racing it fails
 * with the signal pending, so nothing is born after it.  Every process
 * ends as a child of init or of a process killed with it, whose children
 * come to init when it dies: once wait4 answers ECHILD (every kind of
 * child: __WALL), none is left. */
static __attribute__((noreturn)) void end_sandbox(int ctl)
{
	kill(-1, SIGKILL);
	while (wait4(-1, NULL, __WALL, NULL) > 0 || errno == EINTR)
		;
	if (errno == ECHILD)
		sandbox_ctl_send(ctl, SANDBOX_CTL_EMPTY, 0, NULL);
	_exit(0);
}

static __attribute__((noreturn)) void init_main(const struct sandbox_child *c)
{
	struct porta_error e;

	/* Into the ceilings' cgroups before anything else, so that every
	 * process of the sandbox is born inside them (supervisor/cgroup.h). */
	if (sandbox_cgroup_join(c->cg_fds, c->n_cg_fds, &e))
		child_die(c->ctl, &e);
	/* The sandbox dies with porta: init's death kills every process of
	 * the PID namespace (pid_namespaces(7)). */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0)
		_exit(125);
	struct pollfd alive = { .fd = c->ctl, .events = 0 };
	if (poll(&alive, 1, 0) == 1 && (alive.revents & (POLLHUP | POLLERR)))
		_exit(125); /* porta died before PDEATHSIG was armed */

	trace_mark("init started");
	if (map_ids(c->uid, c->gid, &e))
		child_die(c->ctl, &e);
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0) {
		porta_fail(&e, "make / private", NULL, errno, NULL);
		child_die(c->ctl, &e);
	}
	struct sandbox_child cc = *c; /* the payload inherits the proxy ports through it */
	/* --no-net: lo, and porta's DNS responder at the resolvers' addresses,
	 * so that a lookup fails at once as "no such host" and is reported */
	if (c->plan->opts->net_mode == POLICY_NET_NONE && sandbox_net_init_offline(c->plan, c->ctl, &e))
		child_die(c->ctl, &e);
	if (c->plan->opts->net_mode == POLICY_NET_POLICY &&
	    sandbox_net_init(c->plan, c->ctl, &cc.net_ports, &e))
		child_die(c->ctl, &e);
	trace_mark("ids mapped, network ready");
	if (sandbox_mounts_apply(c->plan, &e) ||
	    sandbox_landlock_add_after_mounts(c->plan, c->ruleset_fd, &c->masks, &e))
		child_die(c->ctl, &e);
	/* after the plan's mounts, so that the copies cover whatever /etc
	 * became; the files stay under the rules that cover their paths */
	if (c->trust_pem &&
	    sandbox_trust_install(c->trust_pem, strlen(c->trust_pem), c->term_envp, &cc.trust_bundle,
				  &e))
		child_die(c->ctl, &e);
	trace_mark("mounts done");
	/* --why: every process of the command must be born traced. */
	if (c->why_gate >= 0 && sandbox_why_init_wait(c->why_gate) < 0) {
		porta_fail(&e, "--why", NULL, 0, "porta could not trace the sandbox");
		child_die(c->ctl, &e);
	}

	/* the connect watch's listener comes back through this pipe and the
	 * shared descriptor table (sandbox/netinit.h) */
	int watch[2];
	if (pipe2(watch, O_CLOEXEC) < 0) {
		porta_fail(&e, "pipe", NULL, errno, NULL);
		child_die(c->ctl, &e);
	}
	cc.watch_to_init = watch[1];
	pid_t payload = spawn_payload(&cc);
	if (payload < 0) {
		porta_fail(&e, "fork the command", NULL, errno, NULL);
		child_die(c->ctl, &e);
	}
	/* the payload executed its command or ended: the table is init's
	 * alone again (the ruleset closed by the payload already, or left
	 * by one that ended first) */
	close(c->ruleset_fd);
	close(watch[1]);
	int wr = sandbox_watch_pass_on(c->ctl, watch[0]);
	close(watch[0]);
	if (wr < 0) {
		porta_fail(&e, "pass the connect watch to porta", NULL, -wr, NULL);
		child_die(c->ctl, &e);
	}

	/* SIGCHLD stays blocked (inherited) and is read through a signalfd. */
	sigset_t chld;
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	int sfd = signalfd(-1, &chld, SFD_CLOEXEC | SFD_NONBLOCK);
	if (sfd < 0) {
		porta_fail(&e, "signalfd", NULL, errno, NULL);
		child_die(c->ctl, &e);
	}
	release_stdio();
	for (;;) {
		struct pollfd pfd[2] = { { c->ctl, POLLIN, 0 }, { sfd, POLLIN, 0 } };
		if (poll(pfd, 2, -1) < 0 && errno != EINTR)
			_exit(125);
		if (pfd[0].revents) {
			struct sandbox_ctl_msg m;
			struct sandbox_fdpass_msg fm;
			int n = sandbox_fdpass_recv(c->ctl, MSG_DONTWAIT, &m, sizeof(m), 0, &fm);
			if (n == -EPIPE)
				_exit(125); /* porta is gone: take the sandbox down */
			if (n == 0 && fm.type == SANDBOX_CTL_SIGNAL && fm.len == sizeof(m))
				kill(payload, m.value);
		}
		if (pfd[1].revents) {
			struct signalfd_siginfo si;
			while (read(sfd, &si, sizeof(si)) > 0)
				;
			int status;
			pid_t p;
			/* Reap every orphan re-parented to us; the payload's
			 * status is the run's, and its end is the sandbox's. */
			struct rusage ru;
			while ((p = wait4(-1, &status, WNOHANG, &ru)) > 0) {
				if (p == payload) {
					trace_mark("init reaped the payload");
					/* what --max-cpu counted, so porta can say it ended it */
					sandbox_ctl_send(c->ctl, SANDBOX_CTL_CPU, sandbox_ctl_cpu_ms(&ru), NULL);
					sandbox_ctl_send(c->ctl, SANDBOX_CTL_STATUS, status, NULL);
					end_sandbox(c->ctl);
				}
			}
		}
	}
}


void sandbox_child_main(const struct sandbox_child *c)
{
	if (c->degraded)
		payload_main(c);
	init_main(c);
}
