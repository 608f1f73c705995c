/* supervisor/run.c: one run as the parent process sees it (see supervisor.h).
 *
 * The clone is a raw clone(2) with fork semantics (no separate stack): the
 * child continues in sandbox_child_main() with a copy of this process's
 * memory, which already holds the plan, the Landlock ruleset fd and the
 * seccomp program, so nothing is parsed or compiled after the clone
 * (docs/design.md, Performance).
 */
#include "supervisor/supervisor.h"

#include <errno.h>
#include <event2/event.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/log.h"
#include "common/trace.h"
#include "sandbox/child.h"
#include "sandbox/control.h"
#include "sandbox/fdpass.h"
#include "sandbox/landlock.h"
#include "supervisor/cgroup.h"
#include "supervisor/degraded.h"
#include "supervisor/guard.h"
#include "supervisor/net.h"
#include "supervisor/why.h"

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
	struct supervisor_net *net; /* policy mode */
	bool degraded; /* init is the payload itself (sandbox/degraded.h) */
	struct supervisor_why *why;    /* --why */
	struct supervisor_guard *guard; /* absent protected names and links, or NULL */
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
		struct sandbox_ctl_msg m;
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
		if (fm.type >= SANDBOX_CTL_NET_LISTENERS) {
			struct porta_error e;
			if (!s->net) {
				for (size_t i = 0; i < fm.n_fds; i++)
					close(fm.fds[i]);
				continue;
			}
			if (supervisor_net_take(s->net, &fm, &buf, &e) < 0) {
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
		case SANDBOX_CTL_STATUS:
			s->have_status = true;
			s->payload_status = buf.m.value;
			break;
		case SANDBOX_CTL_EXEC_ERROR:
			s->exec_failed = true;
			s->exec_code = buf.m.value;
			s->error = buf.m.error;
			break;
		case SANDBOX_CTL_SETUP_ERROR:
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
			if (s->why ? supervisor_why_on_sigchld(s->why, s->init, &status)
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
			sandbox_ctl_send(s->ctl, SANDBOX_CTL_SIGNAL, (int)si.ssi_signo, NULL);
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
	int n = supervisor_guard_check(s->guard, false);
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
	struct event *ev_grd = s->guard ? event_new(s->base, supervisor_guard_fd(s->guard),
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

int supervisor_run(const struct policy_plan *plan, char *const argv[], struct supervisor_result *r)
{
	const struct policy_options *o = plan->opts;
	struct sandbox_child c = { .plan = plan, .argv = argv, .uid = getuid(), .gid = getgid(),
			       .supervisor = getpid(), .why_gate = -1 };
	struct supervisor_degraded dg = { 0 };
	struct supervisor_cgroup *cg = NULL;
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
		s.net = supervisor_net_create(s.base, plan, audit, o->quiet);
		if (!s.net) {
			rc = porta_fail(&r->error, "network policy", NULL, ENOMEM, NULL);
			goto out;
		}
	}

	if (o->why) {
		int gate[2];
		s.why = supervisor_why_create(plan);
		if (!s.why || pipe2(gate, O_CLOEXEC) < 0) {
			rc = porta_fail(&r->error, "--why", NULL, s.why ? errno : ENOMEM, NULL);
			goto out;
		}
		gate_r = gate[0];
		gate_w = gate[1];
	}
	/* Watched before anything of the command runs (sandbox/guard.h). */
	if ((rc = supervisor_guard_create(plan, &s.guard, &r->error)))
		goto out;
	/* The last thing made before clone: every path from here on passes
	 * through out:, which removes it once init is gone. */
	if ((rc = supervisor_cgroup_create(o, &cg, &r->error)))
		goto out;
	c.n_cg_fds = supervisor_cgroup_procs_fds(cg, c.cg_fds, ARRAY_LEN(c.cg_fds));

	unsigned long flags = CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC |
			      CLONE_NEWUTS | SIGCHLD;
	if (o->net_mode != POLICY_NET_OPEN)
		flags |= CLONE_NEWNET;
	pid_t pid = (pid_t)syscall(SYS_clone, flags, NULL, NULL, NULL, NULL);
	if (pid < 0 && supervisor_degraded_errno(errno)) {
		/* No user namespace here: Landlock and seccomp alone, the
		 * payload porta's own child (sandbox/degraded.h). */
		trace_mark("user namespaces refused: degraded");
		close(steal_fd(&ruleset));
		if ((rc = supervisor_degraded_prepare(plan, s.net, &c.net_ports, &dg, &ruleset, &c.masks,
						   &r->error)))
			goto out;
		c.degraded = true;
		c.degraded_envp = dg.envp;
		s.degraded = true;
		/* Without mounts nothing protected is pinned: the names stay the
		 * stated loss of a degraded host (policy/degrade.c). */
		supervisor_guard_destroy(steal_ptr(&s.guard));
		if ((rc = supervisor_cgroup_without_init(cg, &r->error)))
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
		sandbox_child_main(&c);
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
		int err = supervisor_why_seize(s.why, pid, gate_w);
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
	if (s.guard && rc == 0 && supervisor_guard_check(s.guard, false) != 0)
		s.stopped = true;
	if (s.degraded) {
		/* What the command left running ends with it. */
		supervisor_degraded_sweep();
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
		r->outcome = SUPERVISOR_SETUP_FAILED;
		r->error = s.error;
	} else if (s.stopped) {
		r->outcome = SUPERVISOR_STOPPED;
		r->code = 128 + SIGKILL;
	} else if (s.timed_out) {
		r->outcome = SUPERVISOR_TIMED_OUT;
		r->code = 124;
	} else if (s.exec_failed) {
		r->outcome = SUPERVISOR_EXEC_FAILED;
		r->code = s.exec_code;
		r->error = s.error;
	} else if (s.have_status && WIFEXITED(s.payload_status)) {
		r->outcome = SUPERVISOR_EXITED;
		r->code = WEXITSTATUS(s.payload_status);
	} else if (s.have_status && WIFSIGNALED(s.payload_status)) {
		r->outcome = SUPERVISOR_SIGNALED;
		r->code = WTERMSIG(s.payload_status);
	} else {
		r->outcome = SUPERVISOR_SETUP_FAILED;
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
	supervisor_cgroup_finish(cg);
	/* Before the loop goes: the proxy's relays live on it.  Prints the
	 * summary of refused destinations. */
	supervisor_net_why(s.net, s.why);
	supervisor_net_destroy(s.net);
	if (s.why && rc == 0 && r->outcome != SUPERVISOR_SETUP_FAILED)
		supervisor_why_report(s.why, plan->argc, plan->argv, stderr);
	supervisor_why_destroy(s.why);
	supervisor_guard_destroy(s.guard);
	supervisor_degraded_cleanup(&dg);
	if (audit)
		fclose(audit);
	if (s.base)
		event_base_free(s.base);
	/* The forwarded signals stay blocked: one still pending (a second
	 * Ctrl-C) must not end porta before it reports the command's status. */
	return rc;
}
