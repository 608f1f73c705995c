/* sandbox/fdpass.h: file descriptors over the control channel (SCM_RIGHTS).
 *
 * ARCHITECTURE: init and the payload hand fds to the supervisor (listeners
 * created inside the network namespace, the seccomp notification listener)
 * over the AF_UNIX SOCK_SEQPACKET control channel (sandbox.h).  One message is
 * one sendmsg(2): a small typed header, an optional payload of bytes, and up
 * to SANDBOX_FDPASS_MAX_FDS fds as one SCM_RIGHTS control message (unix(7)).
 * The receiver checks everything the header promises and, on any failure,
 * closes every fd the kernel installed, so a bad or truncated message never
 * leaks an fd into the supervisor.
 *
 * Wire format (host byte order: both ends are the same binary):
 *   struct sandbox_fdpass_hdr, then hdr.len payload bytes; hdr.n_fds fds ride
 *   in the control data.  A message carries exactly what its header says.
 */
#ifndef PORTA_SANDBOX_FDPASS_H
#define PORTA_SANDBOX_FDPASS_H

#include <stddef.h>
#include <stdint.h>

/* At most this many fds in one message (sizes the control buffer on the
 * stack: no allocation, no VLA). */
#define SANDBOX_FDPASS_MAX_FDS 16
/* At most this many payload bytes in one message. */
#define SANDBOX_FDPASS_MAX_DATA 65536

struct sandbox_fdpass_hdr {
	uint32_t type;     /* the caller's message type (0 is fine) */
	uint32_t n_fds;    /* fds in the SCM_RIGHTS control message */
	uint32_t len;      /* payload bytes after this header */
	uint32_t reserved; /* 0 */
};

/* What sandbox_fdpass_recv() received. */
struct sandbox_fdpass_msg {
	uint32_t type;
	size_t len;                      /* payload bytes stored in the caller's buffer */
	size_t n_fds;                    /* valid entries of fds[] */
	int fds[SANDBOX_FDPASS_MAX_FDS]; /* O_CLOEXEC, owned by the caller; the rest -1 */
};

/* Sends one message on sock (a connected SOCK_SEQPACKET socket): type, len
 * bytes at data (data may be NULL when len is 0) and the n_fds fds at fds
 * (NULL when n_fds is 0), which stay open and owned by the caller: the
 * receiver gets duplicates.  MSG_NOSIGNAL (a vanished peer is -EPIPE, not
 * SIGPIPE); EINTR is retried.  Blocks while the socket's buffer is full
 * unless sock is non-blocking (-EAGAIN).  No allocation or logging,
 * async-signal-safe: meant for init and the payload before execve too.
 * Returns 0 or -errno: -EINVAL for n_fds > SANDBOX_FDPASS_MAX_FDS, len >
 * SANDBOX_FDPASS_MAX_DATA or a NULL pointer with a count; -EBADF for a
 * closed fd in fds; else sendmsg(2)'s errno. */
int sandbox_fdpass_send(int sock, uint32_t type, const void *data, size_t len, const int *fds,
			size_t n_fds);

/* The same message without fds, by sendto(2) without an address, which
 * the connect watch's filter does not stop (its sendmsg(2) would wait for
 * porta, which may not hold the watch yet: sandbox/netinit.h).  For init's
 * and the payload's reports; len at most SANDBOX_FDPASS_WRITE_MAX less the
 * header (-EINVAL above).  0 or -errno, as sandbox_fdpass_send(). */
#define SANDBOX_FDPASS_WRITE_MAX 4096
int sandbox_fdpass_write(int sock, uint32_t type, const void *data, size_t len);

/* Receives one message from sock into *m, its payload into data[0..cap).
 * flags: 0 or MSG_DONTWAIT.  The fds arrive O_CLOEXEC (MSG_CMSG_CLOEXEC)
 * and belong to the caller.  EINTR is retried.  Returns 0, or -errno with
 * every fd of the message closed and m->n_fds == 0:
 *   -EPIPE     the peer closed (end of stream);
 *   -EAGAIN    MSG_DONTWAIT and nothing queued;
 *   -EMSGSIZE  more fds than max_fds (or the kernel truncated the control
 *              data, MSG_CTRUNC, as when the receiver is out of fds), or a
 *              payload longer than cap (MSG_TRUNC);
 *   -EBADMSG   a message shorter than the header, or one whose header does
 *              not match what arrived (fd count, payload length, reserved);
 *   -EINVAL    max_fds > SANDBOX_FDPASS_MAX_FDS, bad flags, NULL m, or a NULL
 *              data with cap > 0;
 *   else recvmsg(2)'s errno.
 * Control messages other than SCM_RIGHTS are ignored, except that a pidfd
 * (SCM_PIDFD, sent when the receiver set SO_PASSPIDFD) is closed.
 * Supervisor side; no allocation or logging; any thread. */
int sandbox_fdpass_recv(int sock, int flags, void *data, size_t cap, size_t max_fds,
			struct sandbox_fdpass_msg *m);

#endif /* PORTA_SANDBOX_FDPASS_H */
