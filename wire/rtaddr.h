/* wire/rtaddr.h: the addresses an rtnetlink RTM_GETADDR dump names
 * (rtnetlink(7), netlink(7)).
 *
 * Pure like the rest of wire/: the bytes of one recv(2) of the dump in, one
 * address at a time out, no system call, no allocation, any thread.
 * host/addrs.c sends the request and receives; this reads what the kernel
 * sent.  Netlink's integers are in the host's order, not the network's, so
 * this reads them with memcpy, not through wire/cursor.h.
 *
 * An address is what getifaddrs(3) would give as ifa_addr: IFA_LOCAL when
 * the message has one (on a point-to-point link IFA_ADDRESS is the peer),
 * else IFA_ADDRESS.
 */
#ifndef PORTA_WIRE_RTADDR_H
#define PORTA_WIRE_RTADDR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum wire_rtaddr_status {
	WIRE_RTADDR_ADDR,        /* *out holds the address of the next RTM_NEWADDR */
	WIRE_RTADDR_END,         /* buf is read; the dump goes on: receive again */
	WIRE_RTADDR_DONE,        /* NLMSG_DONE: the dump is complete */
	WIRE_RTADDR_INTERRUPTED, /* NLMSG_DONE of a dump the kernel flagged
				  * NLM_F_DUMP_INTR (the addresses changed while
				  * it ran, some may be missing): ask again */
	WIRE_RTADDR_ERROR,       /* NLMSG_ERROR with an error: *err is its errno */
	WIRE_RTADDR_MALFORMED,   /* a length that does not hold */
};

struct wire_rtaddr {
	uint8_t family;   /* AF_INET or AF_INET6 */
	uint8_t addr[16]; /* the first 4 bytes for AF_INET */
};

/* Reads buf[0..len) from *pos (0 for a new buffer) up to the next address of
 * the dump that answers request seq, and leaves *pos past it.  Messages of
 * another seq, of another type, and addresses of another family or without
 * an address are skipped.  *intr remembers, across the buffers of one dump
 * (false before the first), that a message carried NLM_F_DUMP_INTR.  *err
 * is set for WIRE_RTADDR_ERROR only.  Any bytes: a message whose length
 * runs past len, or an attribute past its message, is MALFORMED. */
enum wire_rtaddr_status wire_rtaddr_next(const uint8_t *buf, size_t len, size_t *pos, uint32_t seq,
					 bool *intr, struct wire_rtaddr *out, int *err);

#endif /* PORTA_WIRE_RTADDR_H */
