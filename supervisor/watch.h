/* supervisor/watch.h: the supervisor's side of the connect(2)
 * notification in network policy mode and under --no-net.
 *
 * ARCHITECTURE (docs/design.md, Network): the payload runs under
 * POLICY_SECCOMP_NOTIFY_CONNECT, whose listener fd it sends to the supervisor
 * (sandbox_seccomp_install_listener(), sandbox_fdpass_send()).  The
 * supervisor's event loop watches that fd for reading and calls
 * supervisor_connect_watch_handle() once per readiness: it receives one
 * notification, reads the destination from the caller's memory (and, for
 * a call it refuses or makes on the caller's behalf, the caller's pid and
 * command name, which the record names), and answers at once:
 *   - an AF_INET/AF_INET6 destination whose port is not in the allowed set:
 *     ECONNREFUSED, without running the call (nothing reaches any listener);
 *   - everything else (allowed ports, AF_UNIX, AF_NETLINK, AF_UNSPEC, an
 *     address that could not be read or is malformed): CONTINUE, the kernel
 *     runs the call as if no filter were there.
 * A CONTINUE is never an allow: the kernel reads the address again when it
 * runs the call, after the supervisor looked (another thread of the caller
 * can rewrite it in between, seccomp_unotify(2), NOTES), so what the
 * supervisor saw is a record, not a decision.  The network namespace and
 * porta's listeners enforce.  A refusal, on the other hand, cannot be undone
 * by rewriting the address: the call never runs.
 *
 * Reading the caller's memory: process_vm_readv(2) (falling back to
 * /proc/TID/mem where the kernel lacks CONFIG_CROSS_MEMORY_ATTACH).  Both ask
 * for PTRACE_MODE_ATTACH over the caller, which the supervisor has twice
 * over: the payload runs with porta's own uid through the identity map, and
 * the supervisor created the sandbox's user namespace, so it holds
 * CAP_SYS_PTRACE in it even when the payload made itself non-dumpable (with
 * Yama, it is also the payload's ancestor).  The payload's own seccomp
 * refusal of ptrace and process_vm_readv binds the payload, not a reader
 * outside it.  Every value read through the caller's pid is checked
 * afterwards with SECCOMP_IOCTL_NOTIF_ID_VALID (the pid may have been reused)
 * before it is recorded or acted on; a call let go on keeps nothing read, and
 * its answer fails (ENOENT) when the call is gone, so it needs no check.
 */
#ifndef PORTA_SUPERVISOR_WATCH_H
#define PORTA_SUPERVISOR_WATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

#include "policy/portset.h"

/* The notified call. */
enum supervisor_connect_call {
	SUPERVISOR_CONNECT_CALL_CONNECT,
	SUPERVISOR_CONNECT_CALL_SENDTO,   /* with a destination */
	SUPERVISOR_CONNECT_CALL_SENDMSG,  /* with MSG_FASTOPEN */
	SUPERVISOR_CONNECT_CALL_SENDMMSG, /* with MSG_FASTOPEN; the first message's address */
	SUPERVISOR_CONNECT_CALL_OTHER,    /* not one the filter notifies: let through */
};

/* What became of reading the destination. */
enum supervisor_connect_addr {
	SUPERVISOR_CONNECT_ADDR_OK,         /* sa[0..sa_len) read; family (and port) set */
	SUPERVISOR_CONNECT_ADDR_NONE,       /* the call names no address (msg_name NULL) */
	SUPERVISOR_CONNECT_ADDR_BAD_LEN,    /* a length the kernel refuses itself (negative,
					  * 0, over sizeof(struct sockaddr_storage), or
					  * short for the family): EINVAL follows */
	SUPERVISOR_CONNECT_ADDR_UNREADABLE, /* the caller's memory could not be read:
					  * addr_err (EFAULT: the kernel fails the call
					  * the same way; EPERM/EACCES: no access) */
};

/* What the supervisor answered. */
enum supervisor_connect_verdict {
	SUPERVISOR_CONNECT_CONTINUE, /* the kernel runs the call; the netns decides */
	SUPERVISOR_CONNECT_REFUSE,   /* the call returned -1/ECONNREFUSED without running */
	SUPERVISOR_CONNECT_ON_BEHALF, /* degraded hosts: the supervisor connected the
				    * caller's socket itself to the address it read
				    * and answered with that call's result */
};

/* One notification, as seen by the supervisor.  Every string and address is
 * program-controlled: escape before printing (log_escape()). */
struct supervisor_connect_event {
	uint64_t id;        /* the notification's cookie */
	pid_t tid;          /* calling thread, in the supervisor's pid namespace */
	pid_t pid;          /* its process (thread group), same namespace; 0 when
			     * /proc did not say or was not read: pid, ns_pid
			     * and comm are read for a verdict other than
			     * CONTINUE (a CONTINUE is recorded nowhere) */
	pid_t ns_pid;       /* that process's pid in its own, innermost pid
			     * namespace (as the program sees itself: NStgid's
			     * last field), 0 when /proc did not say */
	char comm[16];      /* the thread's command name (/proc/TID/comm, raw bytes,
			     * NUL-terminated), "" when unknown */
	enum supervisor_connect_call call;
	int sockfd;         /* the socket, as a number in the caller's fd table */
	int sock_type;      /* SOCK_STREAM, SOCK_DGRAM, ... read through pidfd_getfd(2);
			     * 0 when it could not be read */
	enum supervisor_connect_addr addr_status;
	int addr_err;       /* errno for SUPERVISOR_CONNECT_ADDR_UNREADABLE, else 0 */
	struct sockaddr_storage sa; /* the bytes read; zero past sa_len */
	socklen_t sa_len;
	int family;         /* sa's family when at least its 2 bytes were read, else AF_UNSPEC */
	uint16_t port;      /* host order; AF_INET/AF_INET6 with ADDR_OK, else 0 */
	enum supervisor_connect_verdict verdict; /* what was sent */
	bool withdrawn;     /* the call went away before the answer landed (the
			     * caller was killed, or a signal interrupted it; an
			     * interrupted call that restarts notifies again): the
			     * fields read through its pid are cleared and nothing
			     * should be recorded */
};

/* The fast refusal, as a pure function: SUPERVISOR_CONNECT_REFUSE when ev's
 * destination was read whole (SUPERVISOR_CONNECT_ADDR_OK), is AF_INET or
 * AF_INET6 and not loopback (the sandbox's own), and either its port is not
 * in *allowed or the socket is UDP to a port other than 53 (porta forwards
 * no UDP but DNS: such a datagram would reach nothing);
 * SUPERVISOR_CONNECT_CONTINUE in every other case.  Never returns an allow: CONTINUE only means "not
 * refused here".  Pure. */
enum supervisor_connect_verdict supervisor_connect_decide(const struct supervisor_connect_event *ev,
						    const struct policy_port_set *allowed);

/* What the watch keeps between calls: a pidfd of the last process whose
 * socket type it read, so that a process connecting again costs no
 * pidfd_open(2) and close(2) (5.6 us together on the machine of
 * docs/benchmarks/relay.md, on the path of every allowed connect()).  Only a
 * process's own (its first thread's) id is kept: while the process lives no
 * thread of another has that id, and once it is gone its pidfd copies no
 * fd (ESRCH) and is replaced.  The caller owns it: starts it as
 * SUPERVISOR_CONNECT_CACHE_INIT and closes it with
 * supervisor_connect_cache_clear(); NULL keeps nothing. */
struct supervisor_connect_cache {
	pid_t pid;
	int pidfd; /* -1: none */
};
#define SUPERVISOR_CONNECT_CACHE_INIT { 0, -1 }
void supervisor_connect_cache_clear(struct supervisor_connect_cache *cache);

/* Handles one notification on listener_fd (the seccomp listener; the caller
 * keeps ownership) and sends exactly one answer for it: ECONNREFUSED or
 * CONTINUE as supervisor_connect_decide() says.  Fills *ev (zeroed first).
 * Never blocks: it polls listener_fd first, so a read callback woken by
 * POLLHUP (every sandboxed process gone) returns instead of waiting.
 * Supervisor side, one thread per listener (the event loop's).  Returns:
 *   0        a notification was received and answered; *ev describes it
 *            (ev->withdrawn: the answer found no caller, nothing to record);
 *   -EAGAIN  nothing pending;
 *   -EPIPE   nothing pending and nothing left to notify (POLLHUP): stop
 *            watching and close the listener;
 *   -ENOENT  the notification vanished between the poll and its receipt
 *            (caller killed): nothing to answer, keep watching;
 *   -EINVAL  NULL allowed or ev;
 *   -E2BIG   the kernel's seccomp_notif is larger than this build knows;
 *   else poll(2) or ioctl(2)'s errno (-EBADF, -ENOTTY for a listener_fd that
 *            is not a seccomp listener).
 * On any error other than -EAGAIN and -ENOENT the caller should stop watching
 * and close the listener: closing it answers every waiting call, and every
 * later one, with ENOSYS, so no sandboxed process is ever left hanging. */
int supervisor_connect_watch_handle(int listener_fd, const struct policy_port_set *allowed,
				    struct supervisor_connect_cache *cache,
				    struct supervisor_connect_event *ev);

/* Asks the kernel to wake the supervisor on the CPU of the call that
 * notifies it, and the caller on the CPU that answers
 * (SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP, Linux 6.6): the caller waits anyway,
 * so the two wake-ups of every watched call need no other CPU.  A
 * scheduling hint only, nothing is decided differently; it made a relayed
 * connection's p50 about 0.8x and p90 about 0.9x what they were without it
 * (docs/benchmarks/relay.md, tenth pass).  0, or -errno: -EINVAL on a
 * kernel without it (the watch works as before), -ENOTTY or -EBADF for an
 * fd that is not a seccomp listener. */
int supervisor_connect_watch_sync_wake(int listener_fd);

/* --no-net: supervisor_connect_watch_handle() whose refusals return
 * ENETUNREACH ("the network is unreachable", what the empty namespace
 * answers anyway) rather than ECONNREFUSED.  allowed holds 53 alone: a
 * question to a resolver continues to porta's responder, or fails
 * unrouted.  The same contract otherwise. */
int supervisor_connect_watch_handle_offline(int listener_fd, const struct policy_port_set *allowed,
					    struct supervisor_connect_cache *cache,
					    struct supervisor_connect_event *ev);

/* Hosts without user namespaces (policy/degrade.h), network policy mode:
 * there is no network namespace, so the supervisor's reading IS the
 * decision, and a CONTINUE would let the kernel re-read an address another
 * thread may have rewritten.  So: an AF_INET/AF_INET6 connect(2) to
 * 127.0.0.1 (the proxy's address, also as ::ffff:127.0.0.1) at one of
 * proxy_ports on a stream socket is
 * SUPERVISOR_CONNECT_ON_BEHALF (the supervisor connects a copy of the caller's
 * socket to the address it read, pidfd_getfd(2), so no later rewrite
 * matters); any other IP destination, and any call whose address could not
 * be read whole (its family unknown), is SUPERVISOR_CONNECT_REFUSE; calls that
 * name no address or another family (AF_UNIX, AF_NETLINK) CONTINUE.  Pure. */
enum supervisor_connect_verdict supervisor_connect_decide_local(const struct supervisor_connect_event *ev,
							  const struct policy_port_set *proxy_ports);

/* supervisor_connect_watch_handle() with supervisor_connect_decide_local(): the
 * same contract, and for SUPERVISOR_CONNECT_ON_BEHALF the answer carries the
 * result of the supervisor's own connect(2) (0, or -errno such as
 * EINPROGRESS for a non-blocking socket). */
int supervisor_connect_watch_handle_local(int listener_fd, const struct policy_port_set *proxy_ports,
					  struct supervisor_connect_cache *cache,
					  struct supervisor_connect_event *ev);

struct supervisor_unix;
struct supervisor_unix_result;

/* Which IP rule a run's watch applies; every mode applies the Unix rule
 * when ux is given (unixsock.h). */
enum supervisor_watch_mode {
	SUPERVISOR_WATCH_OPEN,    /* the network open: no IP call is refused */
	SUPERVISOR_WATCH_POLICY,  /* supervisor_connect_watch_handle() */
	SUPERVISOR_WATCH_OFFLINE, /* supervisor_connect_watch_handle_offline() */
	SUPERVISOR_WATCH_LOCAL,   /* supervisor_connect_watch_handle_local() */
};

/* One notification, as the handlers above, with the Unix rule: a call on a
 * Unix socket is made on the caller's behalf (or refused) and *ures says
 * what became of it (ures->looked: a name was decided).  With ux NULL,
 * exactly the handler of mode. */
int supervisor_connect_watch_handle_mode(int listener_fd, enum supervisor_watch_mode mode,
					 const struct policy_port_set *allowed,
					 struct supervisor_unix *ux,
					 struct supervisor_connect_cache *cache,
					 struct supervisor_connect_event *ev,
					 struct supervisor_unix_result *ures);

/* Writes ev's destination as "192.0.2.1:443" or "[2001:db8::1]:443" (the
 * audit record's `dst`) into out[cap].  Returns false and writes "" when ev
 * has no IP destination read whole.  Pure. */
bool supervisor_connect_event_dst(const struct supervisor_connect_event *ev, char *out, size_t cap);

/* "connect", "sendto", "sendmsg", "sendmmsg" or "other".  Pure. */
const char *supervisor_connect_call_name(enum supervisor_connect_call c);

#endif /* PORTA_SUPERVISOR_WATCH_H */
