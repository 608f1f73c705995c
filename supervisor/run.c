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
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/log.h"
#include "common/safeopen.h"
#include "common/trace.h"
#include "sandbox/child.h"
#include "sandbox/control.h"
#include "sandbox/fdpass.h"
#include "sandbox/landlock.h"
#include "supervisor/ceiling.h"
#include "supervisor/cgroup.h"
#include "supervisor/degraded.h"
#include "supervisor/guard.h"
#include "supervisor/net.h"
#include "supervisor/term.h"
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
	bool ns_refused; /* the error is init's sandbox_ctl_ns_refused() */
	bool exec_failed;
	int exec_code;
	struct porta_error error;
	struct supervisor_net *net; /* every mode: at least the connect watch */
	struct supervisor_cgroup *cg; /* the run's (struct run's) */
	bool degraded; /* init is the payload itself (sandbox/degraded.h) */
	struct supervisor_why *why;    /* --why */
	struct supervisor_guard *guard; /* absent protected names and links, or NULL */
	bool stopped;                /* the guard stopped the run */
	struct supervisor_ceiling *ceiling; /* --max-cpu, a polled --max-memory-mb, or NULL */
	bool ceiling_ended;          /* porta ended the run at one of them */
	int payload_cpu_ms;          /* SANDBOX_CTL_CPU, or -1 */
	/* Set: the run ends at init's exit even after SANDBOX_CTL_EMPTY, for
	 * what needs init gone (its cgroups removed, --why's tracing of it). */
	bool await_init_exit;
};

/* Records the first set-up failure (the cause; later ones are echoes). */
static void setup_failed(struct supervisor *s, const struct porta_error *e)
{
	if (!s->have_error)
		s->error = *e;
	s->have_error = true;
}

/* Serving the network failed at its first use (supervisor/net.h): without
 * its proxy the command cannot run as asked, as in drain_ctl(). */
static void net_failed(void *arg, const struct porta_error *e)
{
	struct supervisor *s = arg;

	setup_failed(s, e);
	if (s->init > 0)
		kill(s->init, SIGKILL);
}

/* What init sends for the network (supervisor/net.h), and the connect
 * watch's listener, from init or (degraded) the payload's helper
 * (sandbox/netinit.h). */
static void take_net(struct supervisor *s, struct sandbox_fdpass_msg *fm, void *buf)
{
	struct porta_error e;

	if (!s->net) {
		for (size_t i = 0; i < fm->n_fds; i++)
			close(fm->fds[i]);
		return;
	}
	if (supervisor_net_take(s->net, fm, buf, &e) < 0) {
		/* Without its proxy the command cannot run as asked. */
		setup_failed(s, &e);
		kill(s->init, SIGKILL);
	}
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
			take_net(s, &fm, &buf);
			continue;
		}
		for (size_t i = 0; i < fm.n_fds; i++) /* none expected */
			close(fm.fds[i]);
		if (fm.len != sizeof(buf.m))
			continue;
		switch (fm.type) {
		case SANDBOX_CTL_CPU:
			s->payload_cpu_ms = buf.m.value;
			break;
		case SANDBOX_CTL_STATUS:
			s->have_status = true;
			s->payload_status = buf.m.value;
			break;
		case SANDBOX_CTL_EMPTY:
			/* Nothing of the sandbox runs any more: the run is over
			 * without waiting for init's exit, the namespaces'
			 * teardown, unless something needs init gone
			 * (sandbox/child.c, end_sandbox()).  loopexit, not
			 * loopbreak: the events already active (the dead
			 * processes' connections ending, their last bytes) are
			 * served first, as they were while porta waited for
			 * init's exit. */
			trace_mark("sandbox empty");
			if (s->have_status && !s->await_init_exit)
				event_base_loopexit(s->base, NULL);
			break;
		case SANDBOX_CTL_EXEC_ERROR:
			s->exec_failed = true;
			s->exec_code = buf.m.value;
			s->error = buf.m.error;
			break;
		case SANDBOX_CTL_SETUP_ERROR:
			setup_failed(s, &buf.m.error);
			break;
		case SANDBOX_CTL_NS_REFUSED:
			s->ns_refused = !s->have_error;
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
			struct rusage ru;
			/* Under --why every process of the sandbox reports here. */
			if (s->why ? supervisor_why_on_sigchld(s->why, s->init, &status)
				   : wait4(s->init, &status, WNOHANG, &ru) == s->init) {
				/* degraded, init is the command itself */
				if (!s->why && s->degraded)
					s->payload_cpu_ms = sandbox_ctl_cpu_ms(&ru);
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

/* A ceiling porta counts was passed (ceiling.h said which): the whole run
 * ends as at --timeout, unless the command has ended already (init is
 * ending what it left). */
static void on_ceiling(void *arg)
{
	struct supervisor *s = arg;

	if (s->have_status || s->timed_out || s->stopped)
		return;
	s->ceiling_ended = true;
	kill(s->init, SIGKILL);
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

/* Runs s->base (which the caller owns) until init has exited, or has said
 * the sandbox is empty after the payload's status (SANDBOX_CTL_EMPTY). */
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
	if ((rc = supervisor_ceiling_start(s->ceiling, s->base, s->init, s->degraded, on_ceiling, s)))
		goto out;
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
	trace_mark("loop ended");
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

/* ---- one run, step by step ---------------------------------------------
 *
 * supervisor_run() reads as the story of a run: each step below makes one
 * thing, records it in struct run, and returns 0 or -errno with r->error
 * filled; run_teardown() undoes whatever was made, in reverse. */

/* Everything one run owns, so every step and the teardown see it. */
struct run {
	const struct policy_plan *plan;
	const struct policy_options *o;
	struct supervisor_result *r;
	struct supervisor s;
	struct sandbox_child c; /* what the clone hands to init (sandbox/child.h) */
	struct supervisor_degraded dg;
	struct policy_plan dplan; /* degraded: the payload's copy of the plan */
	struct supervisor_cgroup *cg;
	FILE *audit;
	struct supervisor_term *term; /* --secret, --allow-http: what is terminated */
	/* Set: a first attempt's init found no capabilities in its user
	 * namespace (sandbox_ctl_ns_refused()); this attempt runs degraded
	 * without trying the clone again. */
	const struct porta_error *ns_refused;
	char **term_env;              /* the command's environment with the placeholders */
	int ruleset, sfd, ctl, child_ctl, gate_r, gate_w;
	pid_t pid;
};

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(steal_fd(fd));
}

/* The Landlock ruleset, built in full before anything else can fail late. */
static int prepare_landlock(struct run *u)
{
	int rc = sandbox_landlock_prepare(u->plan, &u->ruleset, &u->c.masks, &u->r->error);

	if (rc == 0)
		trace_mark("Landlock ruleset built");
	return rc;
}

/* The control channel: init's reports (sandbox/control.h) come back on it. */
static int open_control_channel(struct run *u)
{
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		return porta_fail(&u->r->error, "control channel", NULL, errno, NULL);
	u->ctl = sv[0];
	u->child_ctl = sv[1];
	u->s.ctl = u->ctl;
	return 0;
}

/* Blocked before clone so no signal is lost between clone and the event
 * loop; read through a signalfd afterwards.  They stay blocked after the
 * run (supervisor.h). */
static int block_signals(struct run *u)
{
	sigset_t mask;

	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, SIGQUIT);
	sigaddset(&mask, SIGUSR1);
	sigaddset(&mask, SIGUSR2);
	sigaddset(&mask, SIGCHLD);
	sigprocmask(SIG_BLOCK, &mask, &u->c.old_mask);
	u->sfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	if (u->sfd < 0)
		return porta_fail(&u->r->error, "signalfd", NULL, errno, NULL);
	return 0;
}

static int create_event_loop(struct run *u)
{
	u->s.base = new_base();
	if (!u->s.base)
		return porta_fail(&u->r->error, "event loop", NULL, ENOMEM, NULL);
	return 0;
}

/* TLS termination (term.h): the placeholders and the run CA, made before
 * the clone so that init gets the CA for the trust bundles and the
 * command its environment with placeholders, never the values. */
static int prepare_termination(struct run *u)
{
	extern char **environ;
	int rc = supervisor_term_create(u->o, environ, &u->term, &u->r->error);

	if (rc || !u->term)
		return rc;
	u->term_env = supervisor_term_env(u->term, u->plan->envp);
	if (!u->term_env)
		return porta_fail(&u->r->error, "TLS termination", NULL, ENOMEM, NULL);
	u->c.term_envp = u->term_env;
	u->c.trust_pem = supervisor_term_ca_pem(u->term);
	return 0;
}

static bool term_params(void *arg, const struct policy_net_target *host, uint16_t port,
			struct proxy_term_params *out)
{
	return supervisor_term_params(arg, host, port, out);
}

/* The audit file, through what host_resolve() resolved before the command
 * starts: a real path opened without following any link on the way (a
 * link made since fails with ELOOP, it never redirects porta's appends),
 * which must be a regular file of the user's; or learn's memory file. */
static int open_audit(struct run *u)
{
	const struct policy_options *o = u->o;
	int fd;

	if (o->audit_fd >= 0) {
		fd = fcntl(o->audit_fd, F_DUPFD_CLOEXEC, 3);
		if (fd < 0)
			fd = -errno;
	} else if (u->plan->audit_real) {
		fd = porta_open_nofollow(u->plan->audit_real, O_WRONLY | O_APPEND | O_CREAT, 0600);
	} else {
		fd = -EINVAL;
	}
	if (fd < 0)
		return porta_fail(&u->r->error, "--audit", o->audit_path, -fd,
				  fd == -ELOOP ? "a symbolic link appeared on the way since porta "
						 "resolved it; nothing was written"
					       : NULL);
	struct stat st;
	if (o->audit_fd < 0 && (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
				st.st_uid != geteuid())) {
		close(fd);
		return porta_fail(&u->r->error, "--audit", o->audit_path, 0,
				  "not a regular file of yours");
	}
	if (!(u->audit = fdopen(fd, "a"))) {
		int err = errno;
		close(fd);
		return porta_fail(&u->r->error, "--audit", o->audit_path, err, NULL);
	}
	return 0;
}

/* Network policy mode: the audit file, the proxy, the DNS responder and
 * the connect watch's supervisor side (net.h).  --no-net: the audit file
 * and the responder that answers every name "no such host".  The network
 * open: the connect watch alone (the Unix rule, unixsock.h). */
static int start_network(struct run *u)
{
	const struct policy_options *o = u->o;
	int rc;

	/* The audit file is porta's, opened before anything runs (its path
	 * was checked to lie outside every writable mount).  With the network
	 * open only the connect watch is served, for the Unix rule. */
	if (o->net_mode != POLICY_NET_OPEN && o->audit_path && (rc = open_audit(u)))
		return rc;
	u->s.net = supervisor_net_create(u->s.base, u->plan, u->audit, o->quiet);
	if (!u->s.net)
		return porta_fail(&u->r->error, "network policy", NULL, ENOMEM, NULL);
	supervisor_net_on_failure(u->s.net, net_failed, &u->s);
	if (u->term) {
		size_t n;
		const struct proxy_secret *all = supervisor_term_secrets(u->term, &n);
		supervisor_net_terminate(u->s.net, term_params, u->term, all, n);
	}
	return 0;
}

/* --why: the tracer, and the gate init waits on until it is traced. */
static int prepare_why(struct run *u)
{
	int gate[2];

	if (!u->o->why)
		return 0;
	u->s.why = supervisor_why_create(u->plan);
	if (!u->s.why || pipe2(gate, O_CLOEXEC) < 0)
		return porta_fail(&u->r->error, "--why", NULL, u->s.why ? errno : ENOMEM, NULL);
	u->gate_r = gate[0];
	u->gate_w = gate[1];
	return 0;
}

/* The protected names, watched before anything of the command runs
 * (guard.h). */
static int watch_protected_names(struct run *u)
{
	return supervisor_guard_create(u->plan, &u->s.guard, &u->r->error);
}

/* The ceilings' cgroups: the last thing made before clone, since every
 * path from here on passes through the teardown, which removes them once
 * init is gone. */
static int create_cgroup(struct run *u)
{
	int rc = supervisor_cgroup_create(u->o, &u->cg, &u->r->error);

	if (rc == 0) {
		u->c.n_cg_fds = supervisor_cgroup_procs_fds(u->cg, u->c.cg_fds,
							    ARRAY_LEN(u->c.cg_fds));
	}
	return rc;
}

/* The ceilings porta counts itself (ceiling.h): decided before the clone,
 * started on the loop. */
static int count_ceilings(struct run *u)
{
	return supervisor_ceiling_create(u->plan, u->cg, &u->s.ceiling, &u->r->error);
}

/* Degraded, the default process ceiling: no RLIMIT_NPROC in the host's user
 * namespace (it would count the user's other processes: the payload's plan
 * says so), a pids cgroup where one can be made, else one line saying
 * there is none.  --max-procs is refused here without one (step 1). */
static int default_process_ceiling(struct run *u)
{
	int rc = 0;

	u->dplan = *u->plan;
	u->dplan.host_user_ns = true;
	u->c.plan = &u->dplan;
	if (!u->o->max_procs.set &&
	    (rc = supervisor_cgroup_add_pids(&u->cg, POLICY_DEFAULT_MAX_PROCS, &u->r->error)) == 0)
		log_msg(LOG_LEVEL_WARN,
			"no process ceiling: without a user namespace RLIMIT_NPROC would count your "
			"other processes too, and no pids cgroup can be made here (porta explain "
			"says why)");
	if (rc < 0)
		return rc;
	u->c.n_cg_fds = supervisor_cgroup_procs_fds(u->cg, u->c.cg_fds, ARRAY_LEN(u->c.cg_fds));
	return 0;
}

/* No user namespace here: Landlock and seccomp alone, the payload porta's
 * own child (degraded.h).  Forks; the caller goes on as after a clone. */
static int fork_degraded(struct run *u)
{
	int rc;

	trace_mark(u->ns_refused ? "no capabilities in the user namespace: degraded"
				 : "user namespaces refused: degraded");
	if (u->c.trust_pem)
		return porta_fail(&u->r->error, "TLS termination", NULL, 0,
				  "needs a private mount namespace for porta's CA in the trust "
				  "bundles, and this host refuses user namespaces (see 'porta check'); "
				  "drop --secret and --allow-http here");
	close_fd(&u->ruleset);
	if ((rc = supervisor_degraded_prepare(u->plan, u->s.net, u->ns_refused, &u->c.net_ports,
					      &u->dg, &u->ruleset, &u->c.masks, &u->r->error)))
		return rc;
	u->c.degraded = true;
	u->c.degraded_envp = u->dg.envp;
	u->s.degraded = true;
	/* Without mounts nothing protected is pinned: the names stay the
	 * stated loss of a degraded host (policy/degrade.c). */
	supervisor_guard_destroy(steal_ptr(&u->s.guard));
	if ((rc = supervisor_cgroup_without_init(u->cg, &u->r->error)) ||
	    (rc = default_process_ceiling(u)))
		return rc;
	if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) < 0)
		return porta_fail(&u->r->error, "become the subreaper of the command", NULL, errno,
				  NULL);
	u->pid = fork();
	return 0;
}

/* The clone into new user, mount, PID, IPC, UTS (and, unless the network is
 * open, network) namespaces.  The child never returns from here: it goes on
 * in sandbox_child_main() as init. */
static int clone_sandbox(struct run *u)
{
	unsigned long flags = CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC |
			      CLONE_NEWUTS | SIGCHLD;
	int rc;

	if (u->o->net_mode != POLICY_NET_OPEN)
		flags |= CLONE_NEWNET;
	if (u->ns_refused) {
		if ((rc = fork_degraded(u)))
			return rc;
	} else {
		u->pid = (pid_t)syscall(SYS_clone, flags, NULL, NULL, NULL, NULL);
		if (u->pid < 0 && supervisor_degraded_errno(errno) && (rc = fork_degraded(u)))
			return rc;
	}
	if (u->pid < 0)
		return porta_fail(&u->r->error, "clone", NULL, errno,
				  "creating user, mount and PID namespaces failed; see 'porta check'");
	if (u->pid == 0) {
		close(u->ctl);
		close(u->sfd);
		u->c.ctl = u->child_ctl;
		u->c.ruleset_fd = u->ruleset;
		if (u->gate_w >= 0)
			close(u->gate_w);
		u->c.why_gate = u->gate_r;
		sandbox_child_main(&u->c);
	}
	trace_mark("cloned");
	return 0;
}

/* The parent's side after the clone: drop the child's ends, raise the
 * supervisor's own fd limit for the relays, start tracing for --why. */
static void after_clone(struct run *u)
{
	close_fd(&u->child_ctl);
	close_fd(&u->ruleset);
	if (u->s.net) {
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
	if (u->s.why) {
		close_fd(&u->gate_r);
		int err = supervisor_why_seize(u->s.why, u->pid, u->gate_w);
		close_fd(&u->gate_w); /* without its byte, init gives up */
		if (err) {
			struct porta_error e;
			porta_fail(&e, "--why: trace the sandbox (ptrace)", NULL, -err, NULL);
			setup_failed(&u->s, &e);
		}
	}
	u->s.init = u->pid;
	u->s.cg = u->cg;
	u->s.await_init_exit = u->cg || u->s.why;
	if (u->s.net && supervisor_net_set_init_unix(u->s.net, u->pid, u->s.degraded) < 0) {
		struct porta_error e;
		porta_fail(&e, "Unix sockets", NULL, ENOMEM, NULL);
		setup_failed(&u->s, &e);
	}
}

/* After the loop: every process of the sandbox is gone, and every creation
 * it made is queued (inotify queues an event for each, or an overflow,
 * which checks everything): one last reading of the guard's queue, which
 * nothing can race any more; degraded, what the command left running ends
 * with it. */
static void after_loop(struct run *u, int rc)
{
	struct supervisor *s = &u->s;

	if (s->guard && rc == 0 && supervisor_guard_check(s->guard, false) != 0)
		s->stopped = true;
	if (s->degraded) {
		supervisor_degraded_sweep();
		if (s->init_done && !s->have_status) {
			s->have_status = true;
			s->payload_status = s->init_status;
		}
	}
}

/* The command itself passed its RLIMIT_CPU, a second above --max-cpu
 * (sandbox/process.c), before porta's count of the run ended it: said like
 * the other ceilings, since the command's own death by SIGXCPU or SIGKILL
 * names no option. */
static void report_cpu_ceiling(const struct policy_options *o, const struct supervisor_result *r)
{
	if (!o->max_cpu_s.set || r->outcome != SUPERVISOR_SIGNALED)
		return;
	if (r->code == SIGXCPU)
		log_msg(LOG_LEVEL_WARN,
			"--max-cpu %llu reached: the command used %llu s of CPU by itself and was "
			"ended by SIGXCPU (RLIMIT_CPU)",
			(unsigned long long)o->max_cpu_s.value,
			(unsigned long long)o->max_cpu_s.value + 1);
	else if (r->code == SIGKILL && r->cpu_ms >= 0 &&
		 (unsigned long long)r->cpu_ms >= (o->max_cpu_s.value + 1) * 1000ULL)
		log_msg(LOG_LEVEL_WARN,
			"--max-cpu %llu reached: the command went on past SIGXCPU and was killed a "
			"second later",
			(unsigned long long)o->max_cpu_s.value);
}

/* What the run came to, from what the loop saw. */
static void fill_result(const struct supervisor *s, struct supervisor_result *r)
{
	r->cpu_ms = s->payload_cpu_ms;
	if (s->have_error) {
		r->outcome = SUPERVISOR_SETUP_FAILED;
		r->error = s->error;
		r->ns_refused = s->ns_refused;
	} else if (s->stopped) {
		r->outcome = SUPERVISOR_STOPPED;
		r->code = 128 + SIGKILL;
	} else if (s->ceiling_ended) {
		r->outcome = SUPERVISOR_CEILING;
		r->code = 128 + SIGKILL;
	} else if (s->timed_out) {
		r->outcome = SUPERVISOR_TIMED_OUT;
		r->code = 124;
	} else if (s->exec_failed) {
		r->outcome = SUPERVISOR_EXEC_FAILED;
		r->code = s->exec_code;
		r->error = s->error;
	} else if (s->have_status && WIFEXITED(s->payload_status)) {
		r->outcome = SUPERVISOR_EXITED;
		r->code = WEXITSTATUS(s->payload_status);
	} else if (s->have_status && WIFSIGNALED(s->payload_status)) {
		r->outcome = SUPERVISOR_SIGNALED;
		r->code = WTERMSIG(s->payload_status);
	} else {
		r->outcome = SUPERVISOR_SETUP_FAILED;
		if (WIFSIGNALED(s->init_status))
			porta_fail(&r->error, "sandbox init", NULL, 0,
				   "ended by signal %d before the command finished",
				   WTERMSIG(s->init_status));
		else
			porta_fail(&r->error, "sandbox init", NULL, 0,
				   "exited %d before the command finished",
				   WEXITSTATUS(s->init_status));
	}
}

/* init has been reaped (or never ran): undoes what the steps made.  rc is
 * the run's own status so far. */
static void run_teardown(struct run *u, int rc)
{
	/* report a ceiling that was reached, remove the cgroups (the counted
	 * ceilings read them: gone first) */
	supervisor_ceiling_destroy(u->s.ceiling);
	supervisor_cgroup_finish(u->cg);
	/* Before the loop goes: the proxy's relays live on it.  Prints the
	 * summary of refused destinations. */
	supervisor_net_why(u->s.net, u->s.why);
	u->r->net_refused = supervisor_net_refused(u->s.net);
	supervisor_net_destroy(u->s.net);
	/* after the proxy: its relays borrow the TLS configurations */
	supervisor_term_env_free(u->term, u->term_env);
	supervisor_term_destroy(u->term);
	if (u->s.why && rc == 0 && u->r->outcome != SUPERVISOR_SETUP_FAILED &&
	    u->o->command == POLICY_CMD_LEARN) {
		if (supervisor_why_answers(u->s.why, &u->r->learn_options, &u->r->n_learn_options,
					   &u->r->learn_closed, &u->r->n_learn_closed) < 0)
			log_msg(LOG_LEVEL_ERROR, "learn: out of memory collecting the file refusals");
	} else if (u->s.why && rc == 0 && u->r->outcome != SUPERVISOR_SETUP_FAILED) {
		supervisor_why_report(u->s.why, u->plan->argc, u->plan->argv, stderr);
	}
	supervisor_why_destroy(u->s.why);
	supervisor_guard_destroy(u->s.guard);
	supervisor_degraded_cleanup(&u->dg);
	if (u->audit)
		fclose(u->audit);
	if (u->s.base)
		event_base_free(u->s.base);
	close_fd(&u->ruleset);
	close_fd(&u->sfd);
	close_fd(&u->ctl);
	close_fd(&u->child_ctl);
	close_fd(&u->gate_r);
	close_fd(&u->gate_w);
	/* The forwarded signals stay blocked: one still pending (a second
	 * Ctrl-C) must not end porta before it reports the command's status. */
}

/* One attempt at the run: in full (the clone, or degraded where the clone
 * is refused), or, ns_refused set, degraded from the start. */
static int run_once(const struct policy_plan *plan, char *const argv[], struct supervisor_result *r,
		    const struct porta_error *ns_refused)
{
	struct run u = {
		.plan = plan, .o = plan->opts, .r = r, .s = { .ctl = -1, .payload_cpu_ms = -1 },
		.ns_refused = ns_refused,
		.c = { .plan = plan, .argv = argv, .uid = getuid(), .gid = getgid(),
		       .supervisor = getpid(), .why_gate = -1, .watch_to_init = -1 },
		.ruleset = -1, .sfd = -1, .ctl = -1, .child_ctl = -1, .gate_r = -1, .gate_w = -1,
	};
	int rc;

	memset(r, 0, sizeof(*r));
	if ((rc = prepare_landlock(&u)) || (rc = open_control_channel(&u)) || (rc = block_signals(&u)) ||
	    (rc = create_event_loop(&u)) || (rc = prepare_termination(&u)) ||
	    (rc = start_network(&u)) || (rc = prepare_why(&u)) ||
	    (rc = watch_protected_names(&u)) || (rc = create_cgroup(&u)) ||
	    (rc = count_ceilings(&u)) || (rc = clone_sandbox(&u)))
		goto out;
	after_clone(&u);
	rc = supervise(&u.s, u.o, u.sfd);
	after_loop(&u, rc);
	if (rc) {
		kill(u.pid, SIGKILL);
		waitpid(u.pid, NULL, 0);
		porta_fail(&r->error, "event loop", NULL, -rc, NULL);
		goto out;
	}
	fill_result(&u.s, r);
	report_cpu_ceiling(u.o, r);
out:
	run_teardown(&u, rc);
	return rc;
}

/* Where the host makes the user namespace but refuses porta the
 * capabilities inside it (Ubuntu's AppArmor restriction, a container's
 * masked /proc), init fails on its first steps and nothing of the command
 * has run: that attempt is taken down whole and the run made again,
 * degraded, as on a host that refuses user namespaces outright.  Nothing
 * is probed before the clone, so a host that gives the full sandbox pays
 * nothing for the check. */
int supervisor_run(const struct policy_plan *plan, char *const argv[], struct supervisor_result *r)
{
	sigset_t callers;
	struct porta_error cause;

	sigprocmask(SIG_SETMASK, NULL, &callers);
	int rc = run_once(plan, argv, r, NULL);
	if (rc || r->outcome != SUPERVISOR_SETUP_FAILED || !r->ns_refused)
		return rc;
	cause = r->error;
	supervisor_result_release(r);
	/* the command's signal mask is the caller's, not the first attempt's */
	sigprocmask(SIG_SETMASK, &callers, NULL);
	return run_once(plan, argv, r, &cause);
}

void supervisor_result_release(struct supervisor_result *r)
{
	for (size_t i = 0; i < r->n_learn_options; i++)
		free(r->learn_options[i]);
	for (size_t i = 0; i < r->n_learn_closed; i++)
		free(r->learn_closed[i]);
	free(r->learn_options);
	free(r->learn_closed);
	r->learn_options = r->learn_closed = NULL;
	r->n_learn_options = r->n_learn_closed = 0;
}
