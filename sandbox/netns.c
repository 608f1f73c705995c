/* sandbox/netns.c: the network namespace's loopback (rtnetlink(7)).
 *
 * A new network namespace has only lo, and it is down.  One RTM_NEWLINK with
 * IFF_UP on ifindex 1 (lo is always the first device of a namespace) brings
 * it up; in policy mode two RTM_NEWROUTE make every address local.  No
 * ip(8), no libmnl.
 */
#include <errno.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "sandbox/internal.h"
#include "sandbox/netns.h"

/* Sends one request on a NETLINK_ROUTE socket and reads its ACK: an
 * NLMSG_ERROR whose error is 0 on success (netlink(7)).  0 or -errno. */
static int nl_request(void *req, size_t len)
{
	_cleanup_fd_ int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };

	if (fd < 0)
		return -errno;
	if (sendto(fd, req, len, 0, (struct sockaddr *)&kernel, sizeof(kernel)) < 0)
		return -errno;
	union {
		struct nlmsghdr nh;
		char buf[512];
	} ack;
	ssize_t n;
	do
		n = recv(fd, &ack, sizeof(ack), 0);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	if ((size_t)n < sizeof(struct nlmsghdr) || !NLMSG_OK(&ack.nh, (size_t)n) ||
	    ack.nh.nlmsg_type != NLMSG_ERROR)
		return -EPROTO;
	const struct nlmsgerr *err = NLMSG_DATA(&ack.nh);
	if ((size_t)n < NLMSG_LENGTH(sizeof(*err)))
		return -EPROTO;
	return err->error; /* 0 or -errno */
}

int sandbox_netns_lo_up(void)
{
	struct {
		struct nlmsghdr nh;
		struct ifinfomsg ifi;
	} req;

	memset(&req, 0, sizeof(req));
	req.nh.nlmsg_len = sizeof(req);
	req.nh.nlmsg_type = RTM_NEWLINK;
	req.nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	req.nh.nlmsg_seq = 1;
	req.ifi.ifi_family = AF_UNSPEC;
	req.ifi.ifi_index = 1;
	req.ifi.ifi_flags = IFF_UP;
	req.ifi.ifi_change = IFF_UP;
	return nl_request(&req, sizeof(req));
}

/* `ip route add local ADDR/BITS dev lo table local`: ADDR/BITS become local
 * addresses, so a connect() or sendto() to any of them reaches a listener
 * bound to the wildcard address.  0.0.0.0/0 and ::/0 are the "AnyIP" of
 * docs/design.md; a single address (/32, /128) is how --no-net makes the
 * resolvers of resolv.conf answer inside.  addr holds 4 or 16 bytes (only
 * the first BITS matter); family AF_INET or AF_INET6. */
static int local_route(unsigned char family, const uint8_t *addr, unsigned char bits)
{
	struct {
		struct nlmsghdr nh;
		struct rtmsg rt;
		struct rtattr oif_attr;
		uint32_t oif;
		struct rtattr table_attr;
		uint32_t table;
		struct rtattr dst_attr;
		uint8_t dst[16];
	} req;
	size_t alen = family == AF_INET ? 4 : 16;

	memset(&req, 0, sizeof(req));
	req.nh.nlmsg_len = sizeof(req);
	req.nh.nlmsg_type = RTM_NEWROUTE;
	req.nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | NLM_F_CREATE | NLM_F_REPLACE;
	req.nh.nlmsg_seq = 2;
	req.rt.rtm_family = family;
	req.rt.rtm_dst_len = bits;
	req.rt.rtm_table = RT_TABLE_LOCAL;
	req.rt.rtm_protocol = RTPROT_BOOT;
	req.rt.rtm_scope = RT_SCOPE_HOST;
	req.rt.rtm_type = RTN_LOCAL;
	req.oif_attr.rta_len = RTA_LENGTH(sizeof(uint32_t));
	req.oif_attr.rta_type = RTA_OIF;
	req.oif = 1; /* lo is always ifindex 1 in a new namespace */
	req.table_attr.rta_len = RTA_LENGTH(sizeof(uint32_t));
	req.table_attr.rta_type = RTA_TABLE;
	req.table = RT_TABLE_LOCAL;
	req.dst_attr.rta_len = (unsigned short)RTA_LENGTH(alen);
	req.dst_attr.rta_type = RTA_DST;
	memcpy(req.dst, addr, alen);
	/* the message ends after the address: an IPv4 one is 12 bytes
	 * shorter (attributes are 4-byte aligned, and 4 and 16 both are) */
	req.nh.nlmsg_len = (uint32_t)(offsetof(__typeof__(req), dst) + alen);
	return nl_request(&req, req.nh.nlmsg_len);
}

int sandbox_netns_anyip(void)
{
	static const uint8_t any[16];
	int r = local_route(AF_INET, any, 0);
	return r ? r : local_route(AF_INET6, any, 0);
}

int sandbox_netns_local_addr(const uint8_t *addr, bool v6)
{
	return v6 ? local_route(AF_INET6, addr, 128) : local_route(AF_INET, addr, 32);
}
