/*
 * Row 19: socket families and types that reach kernel code a sandboxed
 * program does not need, or that bypass the network namespace's policy:
 * raw IP, packet, vsock (talks to the hypervisor host, no netns applies),
 * bluetooth, MPTCP, and netlink families other than NETLINK_ROUTE.
 *
 * Each socket() runs in its own child, once directly and once as NAME+userns
 * after becoming root in a user and network namespace of its own (the
 * "root-in-namespace" case: raw and packet sockets need CAP_NET_RAW there).
 * Outside a sandbox that is the control: the family exists and this user can
 * open it. Inside, both must fail. NETLINK_ROUTE is reported too, as
 * the one netlink family that stays allowed.
 */
#include "nsutil.h"

#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <linux/netlink.h>
#include <sys/socket.h>

#ifndef IPPROTO_MPTCP
#define IPPROTO_MPTCP 262
#endif
#ifndef AF_VSOCK
#define AF_VSOCK 40
#endif

static const struct sock {
	const char *name;
	int family, type, proto;
} socks[] = {
	{ "raw:inet", AF_INET, SOCK_RAW, IPPROTO_ICMP },
	{ "raw:inet6", AF_INET6, SOCK_RAW, IPPROTO_ICMPV6 },
	{ "raw:inet-tcp", AF_INET, SOCK_RAW, IPPROTO_TCP },
	{ "packet:raw", AF_PACKET, SOCK_RAW, 0x0300 /* htons(ETH_P_ALL) */ },
	{ "packet:dgram", AF_PACKET, SOCK_DGRAM, 0x0300 },
	{ "vsock:stream", AF_VSOCK, SOCK_STREAM, 0 },
	{ "vsock:dgram", AF_VSOCK, SOCK_DGRAM, 0 },
	{ "bluetooth:hci", AF_BLUETOOTH, SOCK_RAW, 1 /* BTPROTO_HCI */ },
	{ "bluetooth:l2cap", AF_BLUETOOTH, SOCK_SEQPACKET, 0 /* BTPROTO_L2CAP */ },
	{ "mptcp:inet", AF_INET, SOCK_STREAM, IPPROTO_MPTCP },
	{ "mptcp:inet6", AF_INET6, SOCK_STREAM, IPPROTO_MPTCP },
	{ "netlink:sock_diag", AF_NETLINK, SOCK_RAW, NETLINK_SOCK_DIAG },
	{ "netlink:audit", AF_NETLINK, SOCK_RAW, NETLINK_AUDIT },
	{ "netlink:kobject_uevent", AF_NETLINK, SOCK_RAW, NETLINK_KOBJECT_UEVENT },
	{ "netlink:generic", AF_NETLINK, SOCK_RAW, NETLINK_GENERIC },
	{ "netlink:netfilter", AF_NETLINK, SOCK_RAW, NETLINK_NETFILTER },
	{ "netlink:xfrm", AF_NETLINK, SOCK_RAW, NETLINK_XFRM },
	{ "netlink:connector", AF_NETLINK, SOCK_RAW, NETLINK_CONNECTOR },
	{ "netlink:route", AF_NETLINK, SOCK_RAW, NETLINK_ROUTE },
};

static const struct sock *cur;

static void try_socket(const char *name)
{
	int fd = socket(cur->family, cur->type | SOCK_CLOEXEC, cur->proto);
	probe_report(name, fd, errno);
}

static void try_socket_in_ns(const char *name)
{
	if (enter_userns(CLONE_NEWNET) < 0) {
		dprintf(STDOUT_FILENO, "RESULT %s fail %s (unshare)\n", name, probe_errname(errno));
		return;
	}
	try_socket(name);
}

int main(void)
{
	probe_started();
	for (size_t i = 0; i < sizeof socks / sizeof socks[0]; i++) {
		cur = &socks[i];
		char name[64];
		probe_isolated(cur->name, try_socket);
		snprintf(name, sizeof name, "%s+userns", cur->name);
		probe_isolated(name, try_socket_in_ns);
	}
	return 0;
}
