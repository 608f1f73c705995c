/* sandbox/netns.c: the network namespace's loopback (rtnetlink(7)).
 *
 * A new network namespace has only lo, and it is down.  One RTM_NEWLINK with
 * IFF_UP on ifindex 1 (lo is always the first device of a namespace) brings
 * it up; no ip(8), no libmnl.
 */
#include <errno.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "sandbox/internal.h"

int sandbox_netns_lo_up(void)
{
	struct {
		struct nlmsghdr nh;
		struct ifinfomsg ifi;
	} req;
	_cleanup_fd_ int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);

	if (fd < 0)
		return -errno;
	memset(&req, 0, sizeof(req));
	req.nh.nlmsg_len = sizeof(req);
	req.nh.nlmsg_type = RTM_NEWLINK;
	req.nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	req.nh.nlmsg_seq = 1;
	req.ifi.ifi_family = AF_UNSPEC;
	req.ifi.ifi_index = 1;
	req.ifi.ifi_flags = IFF_UP;
	req.ifi.ifi_change = IFF_UP;

	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	if (sendto(fd, &req, sizeof(req), 0, (struct sockaddr *)&kernel, sizeof(kernel)) < 0)
		return -errno;

	/* The ACK is an NLMSG_ERROR whose error is 0 on success. */
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
