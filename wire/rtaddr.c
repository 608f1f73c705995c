/* wire/rtaddr.c: see rtaddr.h. */
#include "wire/rtaddr.h"

#include <limits.h>
#include <linux/if_addr.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <string.h>
#include <sys/socket.h>

/* NLMSG_ALIGN and RTA_ALIGN, for a size_t that may be near its maximum:
 * the aligned length, or len itself when aligning would pass limit. */
static size_t align4(size_t n, size_t limit)
{
	size_t a = (n + 3u) & ~(size_t)3u;
	return a < n || a > limit ? limit : a;
}

/* The address of the RTM_NEWADDR body b[0..n): WIRE_RTADDR_ADDR (in *out),
 * WIRE_RTADDR_END (nothing to give: skip the message) or MALFORMED. */
static enum wire_rtaddr_status read_addr(const uint8_t *b, size_t n, struct wire_rtaddr *out)
{
	struct ifaddrmsg ifa;
	const uint8_t *local = NULL, *address = NULL;
	size_t alen;

	if (n < sizeof(ifa))
		return WIRE_RTADDR_MALFORMED;
	memcpy(&ifa, b, sizeof(ifa));
	if (ifa.ifa_family == AF_INET)
		alen = 4;
	else if (ifa.ifa_family == AF_INET6)
		alen = 16;
	else
		return WIRE_RTADDR_END;
	for (size_t off = align4(sizeof(ifa), n); n - off >= sizeof(struct rtattr);) {
		struct rtattr rta;
		memcpy(&rta, b + off, sizeof(rta));
		if (rta.rta_len < sizeof(rta) || rta.rta_len > n - off)
			return WIRE_RTADDR_MALFORMED;
		size_t plen = rta.rta_len - sizeof(rta);
		if (rta.rta_type == IFA_LOCAL || rta.rta_type == IFA_ADDRESS) {
			if (plen != alen)
				return WIRE_RTADDR_MALFORMED;
			if (rta.rta_type == IFA_LOCAL)
				local = b + off + sizeof(rta);
			else
				address = b + off + sizeof(rta);
		}
		off = align4(off + rta.rta_len, n);
	}
	if (!local && !address)
		return WIRE_RTADDR_END;
	memset(out, 0, sizeof(*out));
	out->family = ifa.ifa_family;
	memcpy(out->addr, local ? local : address, alen);
	return WIRE_RTADDR_ADDR;
}

enum wire_rtaddr_status wire_rtaddr_next(const uint8_t *buf, size_t len, size_t *pos, uint32_t seq,
					 bool *intr, struct wire_rtaddr *out, int *err)
{
	while (*pos < len) {
		struct nlmsghdr h;
		if (len - *pos < sizeof(h))
			return WIRE_RTADDR_MALFORMED;
		memcpy(&h, buf + *pos, sizeof(h));
		if (h.nlmsg_len < sizeof(h) || h.nlmsg_len > len - *pos)
			return WIRE_RTADDR_MALFORMED;
		const uint8_t *body = buf + *pos + sizeof(h);
		size_t n = h.nlmsg_len - sizeof(h);
		*pos += align4(h.nlmsg_len, len - *pos);
		if (h.nlmsg_seq != seq)
			continue; /* not an answer to this request */
		if (h.nlmsg_flags & NLM_F_DUMP_INTR)
			*intr = true;
		if (h.nlmsg_type == NLMSG_DONE || h.nlmsg_type == NLMSG_ERROR) {
			/* both carry an int: NLMSG_DONE the dump's own error
			 * (negative) when it failed part way, NLMSG_ERROR the
			 * request's (0: an acknowledgement) */
			int e;
			if (n < sizeof(e))
				return WIRE_RTADDR_MALFORMED;
			memcpy(&e, body, sizeof(e));
			if (e < 0) {
				*err = e == INT_MIN ? INT_MAX : -e;
				return WIRE_RTADDR_ERROR;
			}
			if (h.nlmsg_type == NLMSG_ERROR)
				continue;
			return *intr ? WIRE_RTADDR_INTERRUPTED : WIRE_RTADDR_DONE;
		}
		if (h.nlmsg_type != RTM_NEWADDR)
			continue;
		enum wire_rtaddr_status st = read_addr(body, n, out);
		if (st != WIRE_RTADDR_END)
			return st;
	}
	return WIRE_RTADDR_END;
}
