/* tests/unit/wire/test_rtaddr.c: the addresses of an rtnetlink RTM_GETADDR
 * dump (wire/rtaddr.h), from dumps built here byte by byte. */
#include <criterion/criterion.h>
#include <errno.h>
#include <linux/if_addr.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "wire/rtaddr.h"

struct dump {
	uint8_t b[4096];
	size_t len;
	size_t msg; /* the message being built */
};

static void put(struct dump *d, const void *p, size_t n)
{
	cr_assert_leq(d->len + n, sizeof(d->b));
	memcpy(d->b + d->len, p, n);
	d->len += n;
}

static void align(struct dump *d)
{
	static const uint8_t zero[4];
	put(d, zero, ((d->len + 3) & ~(size_t)3) - d->len);
}

/* Starts a message; end() fills in its length. */
static void begin(struct dump *d, uint16_t type, uint16_t flags, uint32_t seq)
{
	struct nlmsghdr h = { .nlmsg_type = type, .nlmsg_flags = flags, .nlmsg_seq = seq };
	align(d);
	d->msg = d->len;
	put(d, &h, sizeof(h));
}

static void end(struct dump *d)
{
	uint32_t len = (uint32_t)(d->len - d->msg);
	memcpy(d->b + d->msg, &len, sizeof(len));
}

static void ifa(struct dump *d, uint8_t family)
{
	struct ifaddrmsg m = { .ifa_family = family, .ifa_prefixlen = 24, .ifa_index = 2 };
	put(d, &m, sizeof(m));
}

static void attr(struct dump *d, uint16_t type, const void *p, size_t n)
{
	struct rtattr a = { .rta_len = (unsigned short)(sizeof(a) + n), .rta_type = type };
	align(d);
	put(d, &a, sizeof(a));
	put(d, p, n);
}

static void addr4(struct dump *d, uint32_t seq, const uint8_t local[4], const uint8_t address[4])
{
	begin(d, RTM_NEWADDR, NLM_F_MULTI, seq);
	ifa(d, AF_INET);
	if (address)
		attr(d, IFA_ADDRESS, address, 4);
	if (local)
		attr(d, IFA_LOCAL, local, 4);
	attr(d, IFA_LABEL, "eth0", 5);
	end(d);
}

static void done(struct dump *d, uint32_t seq, uint16_t flags, int err)
{
	begin(d, NLMSG_DONE, NLM_F_MULTI | flags, seq);
	put(d, &err, sizeof(err));
	end(d);
}

/* Every address of d (seq 7) as text, "4:a.b.c.d" or "6:xx..", joined by
 * '|', and the status that ended the walk. */
static enum wire_rtaddr_status walk(const struct dump *d, char *out, size_t cap, int *err)
{
	size_t pos = 0, o = 0;
	bool intr = false;
	struct wire_rtaddr a;
	enum wire_rtaddr_status st;

	out[0] = '\0';
	while ((st = wire_rtaddr_next(d->b, d->len, &pos, 7, &intr, &a, err)) == WIRE_RTADDR_ADDR) {
		cr_assert_leq(pos, d->len);
		if (a.family == AF_INET)
			o += (size_t)snprintf(out + o, cap - o, "%s4:%u.%u.%u.%u", o ? "|" : "",
					      a.addr[0], a.addr[1], a.addr[2], a.addr[3]);
		else
			o += (size_t)snprintf(out + o, cap - o, "%s6:%02x%02x..%02x", o ? "|" : "",
					      a.addr[0], a.addr[1], a.addr[15]);
	}
	return st;
}

static const uint8_t A[4] = { 192, 0, 2, 10 }, B[4] = { 198, 51, 100, 1 };

Test(rtaddr, an_address_is_its_local_one_or_else_its_address)
{
	struct dump d = { .len = 0 };
	char got[256];
	int err = 0;

	addr4(&d, 7, A, A);    /* an ordinary interface: both the same */
	addr4(&d, 7, A, B);    /* point-to-point: B is the peer */
	addr4(&d, 7, NULL, B); /* no IFA_LOCAL */
	done(&d, 7, 0, 0);
	cr_assert_eq(walk(&d, got, sizeof(got), &err), WIRE_RTADDR_DONE);
	cr_assert_str_eq(got, "4:192.0.2.10|4:192.0.2.10|4:198.51.100.1");
}

Test(rtaddr, ipv6_and_families_without_addresses)
{
	struct dump d = { .len = 0 };
	uint8_t v6[16] = { 0x20, 0x01, 0x0d, 0xb8 };
	char got[256];
	int err = 0;

	v6[15] = 0x42;
	begin(&d, RTM_NEWADDR, NLM_F_MULTI, 7);
	ifa(&d, AF_INET6);
	attr(&d, IFA_ADDRESS, v6, 16);
	end(&d);
	begin(&d, RTM_NEWADDR, NLM_F_MULTI, 7); /* another family: skipped */
	ifa(&d, AF_PACKET);
	attr(&d, IFA_ADDRESS, "abcdef", 6);
	end(&d);
	begin(&d, RTM_NEWADDR, NLM_F_MULTI, 7); /* no address at all: skipped */
	ifa(&d, AF_INET);
	end(&d);
	done(&d, 7, 0, 0);
	cr_assert_eq(walk(&d, got, sizeof(got), &err), WIRE_RTADDR_DONE);
	cr_assert_str_eq(got, "6:2001..42");
}

Test(rtaddr, other_requests_and_other_messages_are_skipped)
{
	struct dump d = { .len = 0 };
	char got[256];
	int err = 0;

	addr4(&d, 6, A, A);          /* an earlier request's answer */
	begin(&d, RTM_NEWLINK, NLM_F_MULTI, 7);
	ifa(&d, AF_INET);            /* any body: not an address message */
	end(&d);
	begin(&d, NLMSG_ERROR, 0, 7); /* an acknowledgement */
	int zero = 0;
	put(&d, &zero, sizeof(zero));
	end(&d);
	addr4(&d, 7, B, B);
	cr_assert_eq(walk(&d, got, sizeof(got), &err), WIRE_RTADDR_END, "no NLMSG_DONE yet");
	cr_assert_str_eq(got, "4:198.51.100.1");
}

Test(rtaddr, the_end_of_a_buffer_is_not_the_end_of_the_dump)
{
	struct dump d = { .len = 0 };
	size_t pos = 0;
	bool intr = false;
	struct wire_rtaddr a;
	int err = 0;

	addr4(&d, 7, A, A);
	cr_assert_eq(wire_rtaddr_next(d.b, d.len, &pos, 7, &intr, &a, &err), WIRE_RTADDR_ADDR);
	cr_assert_eq(pos, d.len);
	cr_assert_eq(wire_rtaddr_next(d.b, d.len, &pos, 7, &intr, &a, &err), WIRE_RTADDR_END);
	cr_assert_eq(wire_rtaddr_next(d.b, 0, &pos, 7, &intr, &a, &err), WIRE_RTADDR_END);
}

Test(rtaddr, an_interrupted_dump_says_so_at_its_end)
{
	struct dump one = { .len = 0 }, two = { .len = 0 };
	size_t pos = 0;
	bool intr = false;
	struct wire_rtaddr a;
	int err = 0;

	/* the flag on a message of the first buffer, NLMSG_DONE in the second */
	begin(&one, RTM_NEWADDR, NLM_F_MULTI | NLM_F_DUMP_INTR, 7);
	ifa(&one, AF_INET);
	attr(&one, IFA_LOCAL, A, 4);
	end(&one);
	done(&two, 7, 0, 0);
	cr_assert_eq(wire_rtaddr_next(one.b, one.len, &pos, 7, &intr, &a, &err), WIRE_RTADDR_ADDR);
	cr_assert_eq(wire_rtaddr_next(one.b, one.len, &pos, 7, &intr, &a, &err), WIRE_RTADDR_END);
	cr_assert(intr);
	pos = 0;
	cr_assert_eq(wire_rtaddr_next(two.b, two.len, &pos, 7, &intr, &a, &err),
		     WIRE_RTADDR_INTERRUPTED);
}

Test(rtaddr, errors_of_the_request_and_of_the_dump)
{
	struct dump d = { .len = 0 }, e = { .len = 0 };
	char got[64];
	int err = 0;

	begin(&d, NLMSG_ERROR, 0, 7);
	int eperm = -EPERM;
	put(&d, &eperm, sizeof(eperm));
	end(&d);
	cr_assert_eq(walk(&d, got, sizeof(got), &err), WIRE_RTADDR_ERROR);
	cr_assert_eq(err, EPERM);
	done(&e, 7, 0, -EINTR); /* a dump that failed part way */
	err = 0;
	cr_assert_eq(walk(&e, got, sizeof(got), &err), WIRE_RTADDR_ERROR);
	cr_assert_eq(err, EINTR);
}

Test(rtaddr, lengths_that_do_not_hold_are_malformed)
{
	char got[64];
	int err = 0;

	/* a message longer than the buffer */
	struct dump d = { .len = 0 };
	addr4(&d, 7, A, A);
	d.len -= 4;
	cr_assert_eq(walk(&d, got, sizeof(got), &err), WIRE_RTADDR_MALFORMED);

	/* a message shorter than its header */
	struct dump s = { .len = 0 };
	begin(&s, RTM_NEWADDR, 0, 7);
	end(&s);
	uint32_t short_len = 8;
	memcpy(s.b, &short_len, 4);
	cr_assert_eq(walk(&s, got, sizeof(got), &err), WIRE_RTADDR_MALFORMED);

	/* a trailing piece too short for a header */
	struct dump t = { .len = 0 };
	addr4(&t, 7, A, A);
	t.len += 6;
	cr_assert_eq(walk(&t, got, sizeof(got), &err), WIRE_RTADDR_MALFORMED);
	cr_assert_str_eq(got, "4:192.0.2.10", "what came before is still read");

	/* an attribute past its message */
	struct dump a = { .len = 0 };
	begin(&a, RTM_NEWADDR, 0, 7);
	ifa(&a, AF_INET);
	struct rtattr big = { .rta_len = 64, .rta_type = IFA_LOCAL };
	put(&a, &big, sizeof(big));
	put(&a, A, 4);
	end(&a);
	cr_assert_eq(walk(&a, got, sizeof(got), &err), WIRE_RTADDR_MALFORMED);

	/* an address of the wrong size for its family */
	struct dump w = { .len = 0 };
	begin(&w, RTM_NEWADDR, 0, 7);
	ifa(&w, AF_INET);
	attr(&w, IFA_LOCAL, "0123456789abcdef", 16);
	end(&w);
	cr_assert_eq(walk(&w, got, sizeof(got), &err), WIRE_RTADDR_MALFORMED);

	/* a body too short for its struct ifaddrmsg, and an NLMSG_DONE
	 * without its int */
	struct dump b = { .len = 0 };
	begin(&b, RTM_NEWADDR, 0, 7);
	put(&b, "ab", 2);
	end(&b);
	cr_assert_eq(walk(&b, got, sizeof(got), &err), WIRE_RTADDR_MALFORMED);
	struct dump n = { .len = 0 };
	begin(&n, NLMSG_DONE, 0, 7);
	end(&n);
	cr_assert_eq(walk(&n, got, sizeof(got), &err), WIRE_RTADDR_MALFORMED);
}
