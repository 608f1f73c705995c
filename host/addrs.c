/* host/addrs.c: see addrs.h. */
#include "host/addrs.h"

#include <errno.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "wire/rtaddr.h"

/* One receive of the dump: the kernel sizes its dump messages to the
 * largest receive seen (at least a page), never beyond 32 KiB
 * (netlink_dump()). */
#define DUMP_BUF 32768
#define DUMP_TRIES 3

/* Appends a to *v (growing it), 0 or -ENOMEM. */
static int append(struct policy_addr **v, size_t *n, size_t *cap, const struct wire_rtaddr *a)
{
	if (*n == *cap) {
		size_t ncap = *cap ? *cap * 2 : 16;
		struct policy_addr *nv = realloc(*v, ncap * sizeof(**v));
		if (!nv)
			return -ENOMEM;
		*v = nv;
		*cap = ncap;
	}
	struct policy_addr *p = &(*v)[(*n)++];
	memset(p, 0, sizeof(*p));
	p->family = a->family == AF_INET ? POLICY_ADDR_V4 : POLICY_ADDR_V6;
	memcpy(p->b, a->addr, a->family == AF_INET ? 4 : 16);
	return 0;
}

/* One dump on fd into *v (appended from *n): 0, -EAGAIN (the kernel flagged
 * it interrupted), or -errno. */
static int dump_once(int fd, uint32_t seq, uint8_t *buf, struct policy_addr **v, size_t *n,
		     size_t *cap)
{
	struct {
		struct nlmsghdr h;
		struct ifaddrmsg m;
	} req;
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	bool intr = false;

	memset(&req, 0, sizeof(req));
	req.h.nlmsg_len = sizeof(req);
	req.h.nlmsg_type = RTM_GETADDR;
	req.h.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	req.h.nlmsg_seq = seq;
	req.m.ifa_family = AF_UNSPEC; /* every family; only IPv4 and IPv6 are kept */
	while (sendto(fd, &req, sizeof(req), 0, (struct sockaddr *)&kernel, sizeof(kernel)) < 0) {
		if (errno != EINTR)
			return -errno;
	}
	for (;;) {
		ssize_t got = recv(fd, buf, DUMP_BUF, MSG_TRUNC);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return -errno;
		if (got == 0)
			return -EBADMSG; /* the dump ended without NLMSG_DONE */
		if ((size_t)got > DUMP_BUF)
			return -EMSGSIZE;
		size_t pos = 0;
		struct wire_rtaddr a;
		int err = 0, r;
		for (;;) {
			switch (wire_rtaddr_next(buf, (size_t)got, &pos, seq, &intr, &a, &err)) {
			case WIRE_RTADDR_ADDR:
				if ((r = append(v, n, cap, &a)) < 0)
					return r;
				continue;
			case WIRE_RTADDR_END:
				break;
			case WIRE_RTADDR_DONE:
				return 0;
			case WIRE_RTADDR_INTERRUPTED:
				return -EAGAIN;
			case WIRE_RTADDR_ERROR:
				return -err;
			case WIRE_RTADDR_MALFORMED:
				return -EBADMSG;
			}
			break;
		}
	}
}

int host_own_addrs(struct policy_addr **out, size_t *n)
{
	struct policy_addr *v = NULL;
	size_t cap = 0;
	int r = -EAGAIN;

	*out = NULL;
	*n = 0;
	_cleanup_free_ uint8_t *buf = malloc(DUMP_BUF);
	if (!buf)
		return -ENOMEM;
	_cleanup_fd_ int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (fd < 0)
		return -errno;
	for (uint32_t seq = 1; seq <= DUMP_TRIES && r == -EAGAIN; seq++) {
		*n = 0;
		r = dump_once(fd, seq, buf, &v, n, &cap);
	}
	if (r == 0 && !v)
		v = calloc(1, sizeof(*v)); /* none: still an array to free */
	if (r == 0 && !v)
		r = -ENOMEM;
	if (r < 0) {
		free(v);
		*n = 0;
		return r;
	}
	*out = v;
	return 0;
}
