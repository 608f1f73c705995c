/* sandbox/spawn.c: supervisor, init and payload (see sandbox.h for the map).
 *
 * The clone is a raw clone(2) with fork semantics (no separate stack): the
 * child continues here with a copy of the supervisor's memory, which already
 * holds the plan, the Landlock ruleset fd and the seccomp program, so nothing
 * is parsed or compiled after the clone (DESIGN.md, Performance).
 */
#include <errno.h>
#include <event2/event.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
#include "sandbox/degraded.h"
#include "sandbox/cgroup.h"
#include "sandbox/fdpass.h"
#include "sandbox/guard.h"
#include "sandbox/internal.h"
#include "sandbox/netpolicy.h"
#include "sandbox/seccomp.h"
#include "sandbox/why.h"

/* Control messages: one sandbox_fdpass message each (type, payload, fds), so
 * that boundaries are kept and passed fds can never be silently dropped.
 * Types 16 and up are network policy mode's (sandbox/netpolicy.h). */
enum ctl_type {
	CTL_SETUP_ERROR = 1, /* init or payload -> supervisor: error */
	CTL_EXEC_ERROR,      /* payload -> supervisor: value = exit code, error */
	CTL_STATUS,          /* init -> supervisor: value = the payload's wait status */
	CTL_SIGNAL,          /* supervisor -> init: value = signal to forward */
};

struct ctl_msg {
	int32_t value;
	struct porta_error error;
};

static void ctl_send(int fd, enum ctl_type type, int value, const struct porta_error *e)
{
	struct ctl_msg m = { .value = value };

	if (e)
		m.error = *e;
	/* A peer that is gone has nothing left to learn (no SIGPIPE either). */
	(void)sandbox_fdpass_send(fd, type, &m, sizeof(m), NULL, 0);
}

/* Reports a set-up failure from init or the payload and ends the process. */
static __attribute__((noreturn)) void child_die(int ctl, const struct porta_error *e)
{
	ctl_send(ctl, CTL_SETUP_ERROR, 0, e);
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

struct child_ctx {
	const struct policy_plan *plan;
	char *const *argv;
	int ctl;
	int ruleset_fd;
	struct policy_landlock_masks masks;
	uid_t uid;
	gid_t gid;
	sigset_t old_mask;
	struct sandbox_net_ports net_ports; /* policy mode: set by init before the fork */
	const struct sandbox_degraded *degraded; /* a host without user namespaces:
						  * the payload is porta's own child */
	pid_t supervisor;
	struct sandbox_cgroup *cg;          /* the ceilings' cgroups, or NULL */
	int why_gate; /* --why: init forks the payload once this reads a byte; else -1 */
};

static __attribute__((noreturn)) void payload_main(const struct child_ctx *c)
{
	struct porta_error e;
	int r;

	trace_mark("payload started");
	if (c->degraded) {
		/* No PID namespace to end it with porta: it dies with porta
		 * (what it starts does not; a stated loss). */
		if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0 || getppid() != c->supervisor)
			_exit(125);
		/* No init: the payload joins the ceilings' cgroups itself,
		 * before it can start anything. */
		if (sandbox_cgroup_join(c->cg, &e))
			child_die(c->ctl, &e);
		/* --why: traced before anything of the command runs. */
		if (c->why_gate >= 0 && sandbox_why_init_wait(c->why_gate) < 0) {
			porta_fail(&e, "--why", NULL, 0, "porta could not trace the command");
			child_die(c->ctl, &e);
		}
	}
	sigprocmask(SIG_SETMASK, &c->old_mask, NULL);
	signal(SIGPIPE, SIG_DFL); /* as porta's caller had it, not as the proxy needs it */
	if (chdir(c->plan->cwd) < 0) {
		log_msg(LOG_LEVEL_WARN, "the working directory %s is not visible in the sandbox; starting in /",
			c->plan->cwd);
		if (chdir("/") < 0)
			child_die(c->ctl, &(struct porta_error){ .step = "chdir /", .err = errno });
	}
	if (sandbox_limits_apply(c->plan->opts, &e) ||
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
	char *const *envp = c->degraded ? c->degraded->envp : c->plan->envp;
	/* --why: the tracing filter goes under porta's own, which then decides
	 * first (stacked filters: the most restrictive verdict wins). */
	if (c->plan->opts->why && (r = sandbox_why_payload_install())) {
		porta_fail(&e, "seccomp (--why)", NULL, -r, NULL);
		child_die(c->ctl, &e);
	}
	if (c->plan->opts->net_mode == POLICY_NET_POLICY) {
		envp = sandbox_net_payload_env(envp, &c->net_ports);
		if (!envp) {
			porta_fail(&e, "environment", NULL, ENOMEM, NULL);
			child_die(c->ctl, &e);
		}
	}
	if (c->degraded) {
		if (sandbox_degraded_payload_seccomp(c->plan, c->ctl, &e))
			child_die(c->ctl, &e);
	} else if (c->plan->opts->net_mode == POLICY_NET_POLICY) {
		/* The seccomp program that notifies connect(), its listener
		 * sent to the supervisor; the last step before execve. */
		if (sandbox_net_payload_watch(c->ctl, &e))
			child_die(c->ctl, &e);
	} else if ((r = sandbox_seccomp_install(POLICY_SECCOMP_BASE))) {
		porta_fail(&e, "seccomp", NULL, -r, NULL);
		child_die(c->ctl, &e);
	}
	trace_mark("payload confined, exec");
	int err = exec_command(c->argv, envp);
	int code = (err == ENOENT || err == ENOTDIR) ? 127 : 126;
	porta_fail(&e, "execute", c->argv[0], err, NULL);
	ctl_send(c->ctl, CTL_EXEC_ERROR, code, &e);
	_exit(code);
}

static __attribute__((noreturn)) void init_main(const struct child_ctx *c)
{
	struct porta_error e;
	int r;

	/* Into the ceilings' cgroups before anything else, so that every
	 * process of the sandbox is born inside them (sandbox/cgroup.h). */
	if (sandbox_cgroup_join(c->cg, &e))
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
	struct child_ctx cc = *c; /* the payload inherits the proxy ports through it */
	if (c->plan->opts->net_mode == POLICY_NET_NONE && (r = sandbox_netns_lo_up())) {
		porta_fail(&e, "bring up lo", NULL, -r, NULL);
		child_die(c->ctl, &e);
	}
	if (c->plan->opts->net_mode == POLICY_NET_POLICY &&
	    sandbox_net_init(c->plan, c->ctl, &cc.net_ports, &e))
		child_die(c->ctl, &e);
	trace_mark("ids mapped, network ready");
	if (sandbox_mounts_apply(c->plan, &e) ||
	    sandbox_landlock_add_after_mounts(c->plan, c->ruleset_fd, &c->masks, &e))
		child_die(c->ctl, &e);
	trace_mark("mounts done");
	/* --why: every process of the command must be born traced. */
	if (c->why_gate >= 0 && sandbox_why_init_wait(c->why_gate) < 0) {
		porta_fail(&e, "--why", NULL, 0, "porta could not trace the sandbox");
		child_die(c->ctl, &e);
	}

	pid_t payload = fork();
	if (payload < 0) {
		porta_fail(&e, "fork the command", NULL, errno, NULL);
		child_die(c->ctl, &e);
	}
	if (payload == 0)
		payload_main(&cc);
	close(c->ruleset_fd);

	/* SIGCHLD stays blocked (inherited) and is read through a signalfd. */
	sigset_t chld;
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	int sfd = signalfd(-1, &chld, SFD_CLOEXEC | SFD_NONBLOCK);
	if (sfd < 0) {
		porta_fail(&e, "signalfd", NULL, errno, NULL);
		child_die(c->ctl, &e);
	}
	for (;;) {
		struct pollfd pfd[2] = { { c->ctl, POLLIN, 0 }, { sfd, POLLIN, 0 } };
		if (poll(pfd, 2, -1) < 0 && errno != EINTR)
			_exit(125);
		if (pfd[0].revents) {
			struct ctl_msg m;
			struct sandbox_fdpass_msg fm;
			int n = sandbox_fdpass_recv(c->ctl, MSG_DONTWAIT, &m, sizeof(m), 0, &fm);
			if (n == -EPIPE)
				_exit(125); /* porta is gone: take the sandbox down */
			if (n == 0 && fm.type == CTL_SIGNAL && fm.len == sizeof(m))
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
			while ((p = waitpid(-1, &status, WNOHANG)) > 0) {
				if (p == payload) {
					trace_mark("init reaped the payload");
					ctl_send(c->ctl, CTL_STATUS, status, NULL);
					_exit(0);
				}
			}
		}
	}
}

/* The supervisor's view of one run. */
struct supervisor {
	struct event_base *base;
	int ctl;
	pid_t init;
	bool init_done;
	int init_status;
	bool timed_out;
	bool have_status;
	int payload_status;
	bool have_error;
	bool exec_failed;
	int exec_code;
	struct porta_error error;
	struct sandbox_netsup *net; /* policy mode */
	bool degraded; /* init is the payload itself (sandbox/degraded.h) */
	struct sandbox_why *why;    /* --why */
	struct sandbox_guard *guard; /* absent protected names and links, or NULL */
	bool stopped;                /* the guard stopped the run */
};

/* Records the first set-up failure (the cause; later ones are echoes). */
static void setup_failed(struct supervisor *s, const struct porta_error *e)
{
	if (!s->have_error)
		s->error = *e;
	s->have_error = true;
}

static void drain_ctl(struct supervisor *s)
{
	union {
		struct ctl_msg m;
		struct sandbox_net_listener l[SANDBOX_FDPASS_MAX_FDS];
	} buf;
	struct sandbox_fdpass_msg fm;
	int r;

	while ((r = sandbox_fdpass_recv(s->ctl, MSG_DONTWAIT, &buf, sizeof(buf),
					SANDBOX_FDPASS_MAX_FDS, &fm)) != -EAGAIN && r != -EPIPE) {
		if (r < 0) {
			struct porta_error e;
			porta_fail(&e, "control channel", NULL, -r, NULL);
			setup_failed(s, &e);
			kill(s->init, SIGKILL);
			return;
		}
		if (fm.type >= SANDBOX_NET_MSG_LISTENERS) {
			struct porta_error e;
			if (!s->net) {
				for (size_t i = 0; i < fm.n_fds; i++)
					close(fm.fds[i]);
				continue;
			}
			if (sandbox_netsup_take(s->net, &fm, &buf, &e) < 0) {
				/* Without its proxy the command cannot run as asked. */
				setup_failed(s, &e);
				kill(s->init, SIGKILL);
			}
			continue;
		}
		for (size_t i = 0; i < fm.n_fds; i++) /* none expected */
			close(fm.fds[i]);
		if (fm.len != sizeof(buf.m))
			continue;
		switch (fm.type) {
		case CTL_STATUS:
			s->have_status = true;
			s->payload_status = buf.m.value;
			break;
		case CTL_EXEC_ERROR:
			s->exec_failed = true;
			s->exec_code = buf.m.value;
			s->error = buf.m.error;
			break;
		case CTL_SETUP_ERROR:
			setup_failed(s, &buf.m.error);
			break;
		default:
			break;
		}
	}
}

static void on_ctl(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	drain_ctl(arg);
}

static void on_signal(evutil_socket_t fd, short what, void *arg)
{
	struct supervisor *s = arg;
	struct signalfd_siginfo si;

	(void)what;
	while (read(fd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		if (si.ssi_signo == SIGCHLD) {
			int status;
			trace_mark("SIGCHLD");
			/* Under --why every process of the sandbox reports here. */
			if (s->why ? sandbox_why_on_sigchld(s->why, s->init, &status)
				   : waitpid(s->init, &status, WNOHANG) == s->init) {
				s->init_done = true;
				s->init_status = status;
				event_base_loopbreak(s->base);
			}
			continue;
		}
		/* A signal from the terminal (SI_KERNEL) already reached the
		 * command, which shares porta's process group; forwarding it
		 * again would deliver it twice. */
		if (si.ssi_code == SI_KERNEL)
			continue;
		if (s->degraded)
			kill(s->init, (int)si.ssi_signo);
		else
			ctl_send(s->ctl, CTL_SIGNAL, (int)si.ssi_signo, NULL);
	}
}

/* Something was made on the way to a guarded protected name: the guard
 * checks, refuses what appeared, and the run ends at once (killing pid 1 of
 * the namespace kills every process in it). */
static void on_guard(evutil_socket_t fd, short what, void *arg)
{
	struct supervisor *s = arg;

	(void)fd;
	(void)what;
	int n = sandbox_guard_check(s->guard, false);
	if (n < 0)
		log_msg(LOG_LEVEL_ERROR, "stopping the run: porta can no longer watch the absent "
					 "protected names (%s)", strerror(-n));
	if (n != 0 && !s->stopped) {
		s->stopped = true;
		kill(s->init, SIGKILL);
	}
}

static void on_timeout(evutil_socket_t fd, short what, void *arg)
{
	struct supervisor *s = arg;

	(void)fd;
	(void)what;
	s->timed_out = true;
	/* Killing pid 1 of the namespace kills every process in it. */
	kill(s->init, SIGKILL);
}

/* The supervisor's loop, made before clone: after it the supervisor should
 * only sleep while init sets up, not compete with it for a CPU. */
static struct event_base *new_base(void)
{
	struct event_config *cfg = event_config_new();
	struct event_base *base = NULL;

	if (cfg) {
		event_config_set_flag(cfg, EVENT_BASE_FLAG_NOLOCK);
		base = event_base_new_with_config(cfg);
		event_config_free(cfg);
	}
	return base;
}

/* Runs s->base (which the caller owns) until init has exited. */
static int supervise(struct supervisor *s, const struct policy_options *o, int sfd)
{
	struct event *ev_ctl = event_new(s->base, s->ctl, EV_READ | EV_PERSIST, on_ctl, s);
	struct event *ev_sig = event_new(s->base, sfd, EV_READ | EV_PERSIST, on_signal, s);
	struct event *ev_tmo = o->timeout_ms.set ? evtimer_new(s->base, on_timeout, s) : NULL;
	struct event *ev_grd = s->guard ? event_new(s->base, sandbox_guard_fd(s->guard),
						    EV_READ | EV_PERSIST, on_guard, s)
					: NULL;
	int rc = 0;
	if (!ev_ctl || !ev_sig || (o->timeout_ms.set && !ev_tmo) || (s->guard && !ev_grd)) {
		rc = -ENOMEM;
		goto out;
	}
	trace_mark("event loop ready");
	event_add(ev_ctl, NULL);
	event_add(ev_sig, NULL);
	if (ev_grd)
		event_add(ev_grd, NULL);
	if (ev_tmo) {
		struct timeval tv = { (time_t)(o->timeout_ms.value / 1000),
				      (suseconds_t)(o->timeout_ms.value % 1000) * 1000 };
		event_add(ev_tmo, &tv);
	}
	/* init may already have exited before the loop started. */
	on_signal(sfd, EV_READ, s);
	if (!s->init_done)
		event_base_dispatch(s->base);
	drain_ctl(s);
	trace_mark("init reaped");
out:
	if (ev_grd)
		event_free(ev_grd);
	if (ev_tmo)
		event_free(ev_tmo);
	if (ev_sig)
		event_free(ev_sig);
	if (ev_ctl)
		event_free(ev_ctl);
	return rc;
}

int sandbox_run(const struct policy_plan *plan, char *const argv[], struct sandbox_result *r)
{
	const struct policy_options *o = plan->opts;
	struct child_ctx c = { .plan = plan, .argv = argv, .uid = getuid(), .gid = getgid(),
			       .supervisor = getpid(), .why_gate = -1 };
	struct sandbox_degraded dg = { 0 };
	struct supervisor s = { .ctl = -1 };
	FILE *audit = NULL;
	_cleanup_fd_ int ruleset = -1, sfd = -1, ctl = -1, child_ctl = -1, gate_r = -1, gate_w = -1;
	int sv[2], rc;

	memset(r, 0, sizeof(*r));
	if ((rc = sandbox_landlock_prepare(plan, &ruleset, &c.masks, &r->error)))
		return rc;
	trace_mark("Landlock ruleset built");
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		return porta_fail(&r->error, "control channel", NULL, errno, NULL);
	ctl = sv[0];
	child_ctl = sv[1];

	/* Blocked before clone so no signal is lost between clone and the
	 * event loop; read through a signalfd afterwards. */
	sigset_t mask;
	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, SIGQUIT);
	sigaddset(&mask, SIGUSR1);
	sigaddset(&mask, SIGUSR2);
	sigaddset(&mask, SIGCHLD);
	sigprocmask(SIG_BLOCK, &mask, &c.old_mask);
	sfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	if (sfd < 0) {
		rc = porta_fail(&r->error, "signalfd", NULL, errno, NULL);
		goto out;
	}

	s.ctl = ctl;
	s.base = new_base();
	if (!s.base) {
		rc = porta_fail(&r->error, "event loop", NULL, ENOMEM, NULL);
		goto out;
	}
	if (o->net_mode == POLICY_NET_POLICY) {
		/* The audit file is porta's, opened before anything runs (its
		 * path was checked to lie outside every writable mount). */
		if (o->audit_path && !(audit = fopen(o->audit_path, "ae"))) {
			rc = porta_fail(&r->error, "--audit", o->audit_path, errno, NULL);
			goto out;
		}
		s.net = sandbox_netsup_create(s.base, plan, audit, o->quiet);
		if (!s.net) {
			rc = porta_fail(&r->error, "network policy", NULL, ENOMEM, NULL);
			goto out;
		}
	}

	if (o->why) {
		int gate[2];
		s.why = sandbox_why_create(plan);
		if (!s.why || pipe2(gate, O_CLOEXEC) < 0) {
			rc = porta_fail(&r->error, "--why", NULL, s.why ? errno : ENOMEM, NULL);
			goto out;
		}
		gate_r = gate[0];
		gate_w = gate[1];
	}
	/* Watched before anything of the command runs (sandbox/guard.h). */
	if ((rc = sandbox_guard_create(plan, &s.guard, &r->error)))
		goto out;
	/* The last thing made before clone: every path from here on passes
	 * through out:, which removes it once init is gone. */
	if ((rc = sandbox_cgroup_create(o, &c.cg, &r->error)))
		goto out;

	unsigned long flags = CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC |
			      CLONE_NEWUTS | SIGCHLD;
	if (o->net_mode != POLICY_NET_OPEN)
		flags |= CLONE_NEWNET;
	pid_t pid = (pid_t)syscall(SYS_clone, flags, NULL, NULL, NULL, NULL);
	if (pid < 0 && sandbox_degraded_errno(errno)) {
		/* No user namespace here: Landlock and seccomp alone, the
		 * payload porta's own child (sandbox/degraded.h). */
		trace_mark("user namespaces refused: degraded");
		close(steal_fd(&ruleset));
		if ((rc = sandbox_degraded_prepare(plan, s.net, &c.net_ports, &dg, &ruleset, &c.masks,
						   &r->error)))
			goto out;
		c.degraded = &dg;
		s.degraded = true;
		/* Without mounts nothing protected is pinned: the names stay the
		 * stated loss of a degraded host (policy/degrade.c). */
		sandbox_guard_destroy(steal_ptr(&s.guard));
		if ((rc = sandbox_cgroup_without_init(c.cg, &r->error)))
			goto out;
		if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) < 0) {
			rc = porta_fail(&r->error, "become the subreaper of the command", NULL, errno,
					  NULL);
			goto out;
		}
		pid = fork();
	}
	if (pid < 0) {
		rc = porta_fail(&r->error, "clone", NULL, errno,
				  "creating user, mount and PID namespaces failed; see 'porta check'");
		goto out;
	}
	if (pid == 0) {
		close(ctl);
		close(sfd);
		c.ctl = child_ctl;
		c.ruleset_fd = ruleset;
		if (gate_w >= 0)
			close(gate_w);
		c.why_gate = gate_r;
		if (c.degraded)
			payload_main(&c);
		init_main(&c);
	}
	trace_mark("cloned");
	close(steal_fd(&child_ctl));
	close(steal_fd(&ruleset));
	if (s.net) {
		signal(SIGPIPE, SIG_IGN); /* the relay's splice(2) to a reset peer */
		/* Each relayed connection holds six of the supervisor's fds (two
		 * sockets, a splice pipe each way): its own soft limit goes up
		 * to the hard one (epoll and c-ares' socket callbacks have no
		 * FD_SETSIZE); the sandbox, cloned already, keeps the caller's. */
		struct rlimit nf;
		if (getrlimit(RLIMIT_NOFILE, &nf) == 0 && nf.rlim_cur < nf.rlim_max) {
			nf.rlim_cur = nf.rlim_max;
			(void)setrlimit(RLIMIT_NOFILE, &nf);
		}
	}
	if (s.why) {
		close(steal_fd(&gate_r));
		int err = sandbox_why_seize(s.why, pid, gate_w);
		close(steal_fd(&gate_w)); /* without its byte, init gives up */
		if (err) {
			struct porta_error e;
			porta_fail(&e, "--why: trace the sandbox (ptrace)", NULL, -err, NULL);
			setup_failed(&s, &e);
		}
	}

	s.init = pid;
	rc = supervise(&s, o, sfd);
	/* Every process of the sandbox is gone, and every creation it made is
	 * queued (inotify queues an event for each, or an overflow, which
	 * checks everything): one last reading of the queue, which nothing can
	 * race any more. */
	if (s.guard && rc == 0 && sandbox_guard_check(s.guard, false) != 0)
		s.stopped = true;
	if (s.degraded) {
		/* What the command left running ends with it. */
		sandbox_degraded_sweep();
		if (s.init_done && !s.have_status) {
			s.have_status = true;
			s.payload_status = s.init_status;
		}
	}
	if (rc) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		porta_fail(&r->error, "event loop", NULL, -rc, NULL);
		goto out;
	}
	if (s.have_error) {
		r->outcome = SANDBOX_SETUP_FAILED;
		r->error = s.error;
	} else if (s.stopped) {
		r->outcome = SANDBOX_STOPPED;
		r->code = 128 + SIGKILL;
	} else if (s.timed_out) {
		r->outcome = SANDBOX_TIMED_OUT;
		r->code = 124;
	} else if (s.exec_failed) {
		r->outcome = SANDBOX_EXEC_FAILED;
		r->code = s.exec_code;
		r->error = s.error;
	} else if (s.have_status && WIFEXITED(s.payload_status)) {
		r->outcome = SANDBOX_EXITED;
		r->code = WEXITSTATUS(s.payload_status);
	} else if (s.have_status && WIFSIGNALED(s.payload_status)) {
		r->outcome = SANDBOX_SIGNALED;
		r->code = WTERMSIG(s.payload_status);
	} else {
		r->outcome = SANDBOX_SETUP_FAILED;
		if (WIFSIGNALED(s.init_status))
			porta_fail(&r->error, "sandbox init", NULL, 0, "ended by signal %d before the command finished",
				     WTERMSIG(s.init_status));
		else
			porta_fail(&r->error, "sandbox init", NULL, 0, "exited %d before the command finished",
				     WEXITSTATUS(s.init_status));
	}
out:
	/* init has been reaped (or never ran): report a ceiling that was
	 * reached, remove the cgroups. */
	sandbox_cgroup_finish(c.cg);
	/* Before the loop goes: the proxy's relays live on it.  Prints the
	 * summary of refused destinations. */
	sandbox_netsup_why(s.net, s.why);
	sandbox_netsup_destroy(s.net);
	if (s.why && rc == 0 && r->outcome != SANDBOX_SETUP_FAILED)
		sandbox_why_report(s.why, plan->argc, plan->argv, stderr);
	sandbox_why_destroy(s.why);
	sandbox_guard_destroy(s.guard);
	sandbox_degraded_cleanup(&dg);
	if (audit)
		fclose(audit);
	if (s.base)
		event_base_free(s.base);
	/* The forwarded signals stay blocked: one still pending (a second
	 * Ctrl-C) must not end porta before it reports the command's status. */
	return rc;
}
