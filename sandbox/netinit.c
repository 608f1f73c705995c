/* sandbox/netinit.c: see netinit.h. */
#include "sandbox/netinit.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/kernel.h"
#include "common/log.h"
#include "sandbox/control.h"
#include "sandbox/fdpass.h"
#include "sandbox/internal.h"
#include "sandbox/netns.h"
#include "sandbox/seccomp.h"

/* A listening TCP socket on [::]:port, dual-stack (IPv4 arrives mapped), or
 * on 127.0.0.1 with port 0 when loopback_only (the proxy front ends). */
int sandbox_net_tcp_listener(uint16_t port, bool loopback_only, uint16_t *bound)
{
	int one = 1, zero = 0;
	_cleanup_fd_ int fd = -1;

	if (loopback_only) {
		struct sockaddr_in sa = { .sin_family = AF_INET,
					  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
		socklen_t len = sizeof(sa);
		fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
		if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
		    getsockname(fd, (struct sockaddr *)&sa, &len) < 0)
			return -errno;
		*bound = ntohs(sa.sin_port);
	} else {
		struct sockaddr_in6 sa = { .sin6_family = AF_INET6, .sin6_port = htons(port),
					   .sin6_addr = IN6ADDR_ANY_INIT };
		fd = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
		if (fd < 0 || setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero)) < 0 ||
		    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
		    bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
			return -errno;
		*bound = port;
	}
	if (listen(fd, 1024) < 0)
		return -errno;
	return steal_fd(&fd);
}

/* UDP [::]:53, dual-stack: every resolver address the program names lands
 * here (AnyIP); the responder answers from the address asked. */
static int udp_dns(void)
{
	int zero = 0;
	struct sockaddr_in6 sa = { .sin6_family = AF_INET6, .sin6_port = htons(53),
				   .sin6_addr = IN6ADDR_ANY_INIT };
	_cleanup_fd_ int fd = socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);

	if (fd < 0 || setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero)) < 0 ||
	    bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		return -errno;
	return steal_fd(&fd);
}

/* A netlink socket answers for the network namespace it was made in
 * (sock_diag(7)): the supervisor, outside, asks through this one which
 * socket of the sandbox a connection came from.  Non-blocking: the kernel
 * answers inside sendmsg(2), so the supervisor never waits on it. */
static int sock_diag_socket(void)
{
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK, NETLINK_SOCK_DIAG);
	return fd < 0 ? -errno : fd;
}

/* Sends what is batched (at most SANDBOX_FDPASS_MAX_FDS) and closes init's
 * copies whatever happens: the supervisor owns them from here. */
static int flush_batch(int ctl, struct sandbox_net_listener *what, int *fds, size_t *n)
{
	int rc = 0;

	if (*n && ctl >= 0)
		rc = sandbox_fdpass_send(ctl, SANDBOX_CTL_NET_LISTENERS, what, *n * sizeof(*what),
					 fds, *n);
	for (size_t i = 0; i < *n; i++)
		close(fds[i]);
	*n = 0;
	return rc;
}

int sandbox_net_init(const struct policy_plan *plan, int ctl, struct sandbox_net_ports *ports,
		     struct porta_error *e)
{
	struct sandbox_net_listener what[SANDBOX_FDPASS_MAX_FDS];
	int fds[SANDBOX_FDPASS_MAX_FDS];
	size_t n = 0;
	int r;

	if ((r = sandbox_netns_lo_up()))
		return porta_fail(e, "bring up lo", NULL, -r, NULL);
	if ((r = sandbox_netns_anyip()))
		return porta_fail(e, "route every address to lo", NULL, -r, NULL);

	/* Transparent ports first, then DNS (UDP, TCP), then the proxies. */
	size_t total = plan->n_listen_ports + 4;
	for (size_t i = 0; i < total; i++) {
		size_t extra = i < plan->n_listen_ports ? 0 : i - plan->n_listen_ports + 1;
		enum sandbox_net_kind kind = extra == 0 ? SANDBOX_NET_TRANSPARENT
					     : extra == 1 ? SANDBOX_NET_DNS_UDP
					     : extra == 2 ? SANDBOX_NET_DNS_TCP
					     : extra == 3 ? SANDBOX_NET_HTTP_PROXY
							  : SANDBOX_NET_SOCKS_PROXY;
		uint16_t want = extra == 0 ? plan->listen_ports[i] : extra <= 2 ? 53 : 0;
		uint16_t bound = want;
		int fd = kind == SANDBOX_NET_DNS_UDP ? udp_dns()
						     : sandbox_net_tcp_listener(want, want == 0, &bound);
		if (fd < 0) {
			char port[16];
			flush_batch(-1, what, fds, &n); /* closes what is batched */
			snprintf(port, sizeof(port), "%u", (unsigned)want);
			return porta_fail(e, want ? "listen on port" : "listen on a loopback port",
					    want ? port : NULL, -fd, NULL);
		}
		if (kind == SANDBOX_NET_HTTP_PROXY)
			ports->http = bound;
		else if (kind == SANDBOX_NET_SOCKS_PROXY)
			ports->socks = bound;
		what[n] = (struct sandbox_net_listener){ (uint16_t)kind, bound };
		fds[n++] = fd;
		if (n == SANDBOX_FDPASS_MAX_FDS && (r = flush_batch(ctl, what, fds, &n)))
			return porta_fail(e, "pass listeners to porta", NULL, -r, NULL);
	}
	/* Attribution only: a kernel without sock_diag costs the audit its
	 * pid and comm on proxied and DNS records, not the run. */
	int diag = sock_diag_socket();
	if (diag >= 0 && n == SANDBOX_FDPASS_MAX_FDS && (r = flush_batch(ctl, what, fds, &n))) {
		close(diag);
		return porta_fail(e, "pass listeners to porta", NULL, -r, NULL);
	}
	if (diag >= 0) {
		what[n] = (struct sandbox_net_listener){ SANDBOX_NET_SOCK_DIAG, 0 };
		fds[n++] = diag;
	}
	if ((r = flush_batch(ctl, what, fds, &n)) ||
	    (r = sandbox_fdpass_send(ctl, SANDBOX_CTL_NET_DONE, NULL, 0, NULL, 0)))
		return porta_fail(e, "pass listeners to porta", NULL, -r, NULL);
	return 0;
}

int sandbox_net_init_offline(const struct policy_plan *plan, int ctl, struct porta_error *e)
{
	struct sandbox_net_listener what[3] = { { SANDBOX_NET_DNS_UDP, 53 },
						{ SANDBOX_NET_DNS_TCP, 53 },
						{ SANDBOX_NET_SOCK_DIAG, 0 } };
	int fds[3];
	uint16_t bound;
	int r;

	if ((r = sandbox_netns_lo_up()))
		return porta_fail(e, "bring up lo", NULL, -r, NULL);
	for (size_t i = 0; i < plan->n_resolvers; i++) {
		const struct policy_addr *a = &plan->resolvers[i];
		if ((r = sandbox_netns_local_addr(a->b, a->family == POLICY_ADDR_V6))) {
			char text[POLICY_ADDR_STRLEN];
			policy_addr_format(a, text);
			return porta_fail(e, "make the resolver local", text, -r, NULL);
		}
	}
	if ((fds[0] = udp_dns()) < 0)
		return porta_fail(e, "listen on port", "53", -fds[0], "DNS over UDP");
	if ((fds[1] = sandbox_net_tcp_listener(53, false, &bound)) < 0) {
		r = fds[1];
		close(fds[0]);
		return porta_fail(e, "listen on port", "53", -r, "DNS over TCP");
	}
	size_t n = 2;
	/* who asked a name, for the audit's pid and comm (as in policy mode) */
	if ((fds[2] = sock_diag_socket()) >= 0)
		n = 3;
	if ((r = flush_batch(ctl, what, fds, &n)) ||
	    (r = sandbox_fdpass_send(ctl, SANDBOX_CTL_NET_DONE, NULL, 0, NULL, 0)))
		return porta_fail(e, "pass listeners to porta", NULL, -r, NULL);
	return 0;
}

/* ---- payload ---------------------------------------------------------- */

char **sandbox_net_payload_env(char *const envp[], const struct sandbox_net_ports *ports)
{
	static const char *const names[] = { "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY",
					     "http_proxy", "https_proxy", "all_proxy", "no_proxy" };
	size_t n = 0;

	while (envp[n])
		n++;
	char **out = calloc(n + ARRAY_LEN(names) + 1, sizeof(char *));
	if (!out)
		return NULL;
	size_t o = 0;
	for (size_t i = 0; i < n; i++) {
		bool replaced = false;
		for (size_t k = 0; k < ARRAY_LEN(names); k++) {
			size_t l = strlen(names[k]);
			replaced |= strncmp(envp[i], names[k], l) == 0 && envp[i][l] == '=';
		}
		if (!replaced)
			out[o++] = envp[i];
	}
	for (size_t k = 0; k < ARRAY_LEN(names); k++) {
		char buf[96];
		const char *lower = names[k];
		bool all = strcasecmp(lower, "ALL_PROXY") == 0, no = strcasecmp(lower, "NO_PROXY") == 0;
		if (no)
			snprintf(buf, sizeof(buf), "%s=localhost,127.0.0.1,::1", names[k]);
		else if (all)
			snprintf(buf, sizeof(buf), "%s=socks5h://127.0.0.1:%u", names[k],
				 (unsigned)ports->socks);
		else
			snprintf(buf, sizeof(buf), "%s=http://127.0.0.1:%u", names[k],
				 (unsigned)ports->http);
		out[o] = strdup(buf);
		if (!out[o++])
			return NULL;
	}
	out[o] = NULL;
	return out;
}

/* Every sendmsg(2) of the filtered thread stops for the supervisor, which
 * has no listener yet: sent by the payload itself, the listener would wait
 * on its own notification.  So it leaves one of two ways.
 *
 * Through init (full): the payload runs on init's memory and descriptor
 * table until its execve (sandbox/child.c), so the listener it leaves open
 * stays in init's table when the exec gives the command a copy of its own
 * without it (close-on-exec); init, which the filter does not cover, sends
 * it then.  The payload waits for nothing: a call of the command that the
 * filter stops waits in the kernel until porta reads the listener.
 *
 * Through a helper (degraded: no init): a helper sharing the payload's
 * descriptors (CLONE_FILES), made before the filter exists and before the
 * payload joins the ceilings' cgroups (sandbox_watch_handover_start() runs
 * first in the payload, so the helper never counts against the command's
 * processes), sends it; the payload waits for the helper's end, so nothing
 * unfiltered outlives the step. */
#define HELPER_STACK (64 * 1024)

struct listener_helper {
	int ctl;
	int from; /* the pipe the listener's number arrives on */
};

static int helper_main(void *arg)
{
	const struct listener_helper *h = arg;
	int fd;

	if (read(h->from, &fd, sizeof(fd)) != (ssize_t)sizeof(fd))
		_exit(2);
	_exit(sandbox_fdpass_send(h->ctl, SANDBOX_CTL_NET_WATCH, NULL, 0, &fd, 1) ? 1 : 0);
}

int sandbox_watch_handover_start(int ctl, int to_init, struct sandbox_watch_handover *out)
{
	static struct listener_helper h;
	int p[2];

	*out = (struct sandbox_watch_handover){ .ctl = ctl, .to_init = to_init,
						 .pid = -1, .from = -1, .to = -1 };
	if (to_init >= 0)
		return 0;
	if (pipe2(p, O_CLOEXEC) < 0)
		return -errno;
	h = (struct listener_helper){ .ctl = ctl, .from = p[0] };
#if defined(__SANITIZE_ADDRESS__)
	/* AddressSanitizer takes a stack it did not make for a broken one
	 * and says so on the command's stderr: under it, the helper is a
	 * fork that shares the descriptor table */
	pid_t hp = (pid_t)syscall(SYS_clone, CLONE_FILES | SIGCHLD, 0, NULL, NULL, 0);
	if (hp == 0)
		helper_main(&h);
#else
	static _Alignas(16) unsigned char stack[HELPER_STACK];
	pid_t hp = clone(helper_main, stack + sizeof(stack), CLONE_VM | CLONE_FILES | SIGCHLD, &h);
#endif
	if (hp < 0) {
		int err = errno;
		close(p[0]);
		close(p[1]);
		return -err;
	}
	/* the descriptor table is shared: both ends stay open until the
	 * helper ended (sandbox_watch_install()) */
	out->pid = hp;
	out->from = p[0];
	out->to = p[1];
	return 0;
}

int sandbox_watch_install(struct sandbox_watch_handover *h, enum policy_seccomp_variant set)
{
	int lfd = -1, st = 0;
	int r = sandbox_seccomp_install_listener(set, &lfd);

	if (h->to_init >= 0) {
		/* the listener stays open in the table init shares */
		if (r == 0 && write(h->to_init, &lfd, sizeof(lfd)) != (ssize_t)sizeof(lfd))
			r = -EPIPE;
		return r;
	}
	if (r == 0 && write(h->to, &lfd, sizeof(lfd)) != (ssize_t)sizeof(lfd))
		r = -EPIPE;
	close(h->to); /* without the number, the helper ends */
	h->to = -1;
	while (waitpid(h->pid, &st, 0) < 0 && errno == EINTR)
		;
	h->pid = -1;
	close(h->from);
	h->from = -1;
	if (lfd >= 0)
		close(lfd);
	if (r == 0 && !(WIFEXITED(st) && WEXITSTATUS(st) == 0))
		r = -EPIPE;
	return r;
}

int sandbox_watch_pass_on(int ctl, int from)
{
	int fd;
	ssize_t n;

	do
		n = read(from, &fd, sizeof(fd));
	while (n < 0 && errno == EINTR);
	if (n == 0)
		return 0;
	if (n != (ssize_t)sizeof(fd))
		return n < 0 ? -errno : -EPIPE;
	int r = sandbox_fdpass_send(ctl, SANDBOX_CTL_NET_WATCH, NULL, 0, &fd, 1);
	close(fd);
	return r;
}

int sandbox_net_payload_watch(struct sandbox_watch_handover *h, struct porta_error *e)
{
	int r = sandbox_watch_install(h, POLICY_SECCOMP_NOTIFY_CONNECT);

	if (r == -EBUSY)
		/* porta itself runs under another supervisor's listener (one
		 * per thread): without its own, nothing would keep the command
		 * from a Unix socket bound after the start. */
		return porta_fail(e, "seccomp", NULL, EBUSY,
				  "another seccomp listener is in use (porta runs under another "
				  "supervisor, porta included), and without one of its own porta "
				  "cannot decide the command's Unix-socket connections; run porta "
				  "outside that supervisor");
	if (r == -EPIPE)
		return porta_fail(e, "pass the connect watch to porta", NULL, EPIPE, NULL);
	return r ? porta_fail(e, "seccomp", NULL, -r, NULL) : 0;
}
