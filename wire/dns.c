/* wire/dns.c: see dns.h. */
#include "wire/dns.h"

#include <string.h>

#include "common/ascii.h"

#define FLAG_QR 0x8000u
#define FLAG_TC 0x0200u
#define FLAG_AA 0x0400u
#define FLAG_RD 0x0100u
#define FLAG_RA 0x0080u
#define MAX_CNAME_LINKS 8
#define MAX_POINTERS 127 /* backward-only pointers already terminate; belt and braces */

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void put16(uint8_t *p, unsigned v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void put32(uint8_t *p, uint32_t v)
{
	put16(p, v >> 16);
	put16(p + 2, v & 0xffff);
}

/* Reads the (possibly compressed) name at *off into out in uncompressed
 * wire form and moves *off past it.  RFC 1035 4.1.4: a pointer refers to a
 * prior occurrence, so every pointer must point before the label run it
 * ends and after the header; the positions visited then strictly decrease
 * with each jump, which bounds the walk whatever the message holds.  The
 * 0x40 and 0x80 label types (RFC 6891 5, obsolete) are malformed. */
static enum dnsd_status read_name(const uint8_t *msg, size_t len, size_t *off,
				  uint8_t out[DNSD_NAME_WIRE_MAX], size_t *out_len)
{
	size_t pos = *off, run_start = *off, total = 0;
	bool jumped = false;
	int jumps = 0;

	for (;;) {
		if (pos >= len)
			return DNSD_TRUNCATED;
		uint8_t c = msg[pos];
		if (c == 0) {
			out[total++] = 0;
			if (!jumped)
				*off = pos + 1;
			*out_len = total;
			return DNSD_OK;
		}
		if ((c & 0xc0) == 0xc0) {
			if (pos + 1 >= len)
				return DNSD_TRUNCATED;
			size_t target = (size_t)(c & 0x3f) << 8 | msg[pos + 1];
			if (target < DNSD_HEADER_LEN || target >= run_start || ++jumps > MAX_POINTERS)
				return DNSD_MALFORMED;
			if (!jumped)
				*off = pos + 2;
			jumped = true;
			pos = run_start = target;
			continue;
		}
		if (c & 0xc0)
			return DNSD_MALFORMED;
		/* room for this label and the root label after it */
		if (total + 1 + c + 1 > DNSD_NAME_WIRE_MAX)
			return DNSD_MALFORMED;
		if (pos + 1 + c > len)
			return DNSD_TRUNCATED;
		memcpy(out + total, msg + pos, 1 + (size_t)c);
		total += 1 + (size_t)c;
		pos += 1 + (size_t)c;
	}
}

static bool host_byte(uint8_t c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '-' || c == '_';
}

/* The wire name as dotted text, when every byte is a host name byte. */
static bool name_text(const uint8_t *w, size_t wl, char out[DNSD_NAME_TEXT_MAX + 1], size_t *ol)
{
	size_t o = 0;

	out[0] = '\0';
	*ol = 0;
	if (wl < 2)
		return false; /* the root */
	for (size_t i = 0; w[i] != 0; i += 1 + w[i]) {
		if (o)
			out[o++] = '.';
		for (size_t k = 1; k <= w[i]; k++) {
			if (!host_byte(w[i + k]))
				return false;
			out[o++] = (char)w[i + k];
		}
	}
	/* wl <= 255 gives at most 253 text bytes */
	out[o] = '\0';
	*ol = o;
	return true;
}

bool dnsd_name_equal(const uint8_t *a, size_t al, const uint8_t *b, size_t bl)
{
	return ascii_eq_nocase(a, al, b, bl);
}

/* The fixed part of a resource record after its name. */
struct rr {
	uint16_t type, klass;
	uint32_t ttl;
	size_t rdata, rdlen; /* offset and length of RDATA */
};

static enum dnsd_status read_rr(const uint8_t *msg, size_t len, size_t *off,
				uint8_t owner[DNSD_NAME_WIRE_MAX], size_t *owner_len,
				struct rr *rr)
{
	enum dnsd_status st = read_name(msg, len, off, owner, owner_len);
	if (st != DNSD_OK)
		return st;
	if (len - *off < 10)
		return DNSD_TRUNCATED;
	rr->type = get16(msg + *off);
	rr->klass = get16(msg + *off + 2);
	rr->ttl = get32(msg + *off + 4);
	rr->rdlen = get16(msg + *off + 8);
	rr->rdata = *off + 10;
	if (len - rr->rdata < rr->rdlen)
		return DNSD_TRUNCATED;
	*off = rr->rdata + rr->rdlen;
	return DNSD_OK;
}

/* EDNS options (RFC 6891 6.1.2): OPTION-CODE, OPTION-LENGTH, data, exactly
 * filling RDATA.  porta forwards none of them; they only have to be sound. */
static bool opt_options_ok(const uint8_t *p, size_t n)
{
	size_t i = 0;
	while (i < n) {
		if (n - i < 4)
			return false;
		size_t ol = get16(p + i + 2);
		if (n - i - 4 < ol)
			return false;
		i += 4 + ol;
	}
	return true;
}

enum dnsd_status dnsd_query_parse(const uint8_t *msg, size_t len, struct dnsd_query *out)
{
	uint8_t owner[DNSD_NAME_WIRE_MAX];
	size_t owner_len, off = DNSD_HEADER_LEN;
	enum dnsd_status st;

	memset(out, 0, sizeof(*out));
	if (len < DNSD_HEADER_LEN)
		return DNSD_TRUNCATED;
	uint16_t flags = get16(msg + 2);
	out->id = get16(msg);
	out->opcode = (uint8_t)((flags >> 11) & 0xf);
	out->rd = (flags & FLAG_RD) != 0;
	if (flags & FLAG_QR)
		return DNSD_NOT_QUERY;
	if (out->opcode != 0)
		return DNSD_NOTIMP;
	uint16_t qd = get16(msg + 4), an = get16(msg + 6), ns = get16(msg + 8),
		 ar = get16(msg + 10);
	/* RFC 9619: QDCOUNT is 1 in a QUERY; a query carries no answers */
	if (qd != 1 || an != 0 || ns != 0)
		return DNSD_MALFORMED;

	st = read_name(msg, len, &off, out->qname, &out->qname_len);
	if (st != DNSD_OK)
		return st;
	if (len - off < 4)
		return DNSD_TRUNCATED;
	out->qtype = get16(msg + off);
	out->qclass = get16(msg + off + 2);
	off += 4;

	for (unsigned i = 0; i < ar; i++) {
		struct rr rr;
		st = read_rr(msg, len, &off, owner, &owner_len, &rr);
		if (st != DNSD_OK)
			return st;
		if (rr.type != DNSD_TYPE_OPT)
			continue; /* e.g. TSIG: porta verifies no signatures */
		/* RFC 6891 6.1.1: one OPT, owned by the root */
		if (out->edns || owner_len != 1 || !opt_options_ok(msg + rr.rdata, rr.rdlen))
			return DNSD_MALFORMED;
		out->edns = true;
		out->edns_payload = rr.klass < DNSD_UDP_MIN_PAYLOAD ? DNSD_UDP_MIN_PAYLOAD : rr.klass;
		out->edns_version = (uint8_t)(rr.ttl >> 16);
		out->edns_do = (rr.ttl & 0x8000u) != 0;
	}
	if (off != len)
		return DNSD_MALFORMED;
	out->name_is_text = name_text(out->qname, out->qname_len, out->name, &out->name_len);
	return DNSD_OK;
}

size_t dnsd_udp_limit(const struct dnsd_query *q)
{
	if (!q->edns)
		return DNSD_UDP_MIN_PAYLOAD;
	return q->edns_payload < DNSD_EDNS_PAYLOAD ? q->edns_payload : DNSD_EDNS_PAYLOAD;
}

enum dnsd_status dnsd_build_response(const struct dnsd_query *q, enum dnsd_rcode rcode,
				     const struct policy_addr *addrs, size_t n_addrs,
				     uint32_t ttl, size_t limit, uint8_t *out, size_t cap,
				     size_t *out_len)
{
	size_t room = cap < limit ? cap : limit;
	size_t opt_len = q->edns ? 11 : 0;
	size_t fixed = DNSD_HEADER_LEN + q->qname_len + 4 + opt_len;
	unsigned rc = (unsigned)rcode;

	*out_len = 0;
	if (rc > 0xfff || (rc > 15 && !q->edns) || q->qname_len == 0 ||
	    q->qname_len > DNSD_NAME_WIRE_MAX)
		return DNSD_MALFORMED;
	if (room > DNSD_TCP_MAX)
		room = DNSD_TCP_MAX;
	if (fixed > room)
		return DNSD_NO_SPACE;

	/* which records: A for A, AAAA for AAAA, with addresses of that family */
	enum policy_addr_family fam = q->qtype == DNSD_TYPE_AAAA ? POLICY_ADDR_V6 : POLICY_ADDR_V4;
	size_t rdlen = fam == POLICY_ADDR_V4 ? 4 : 16, n_ans = 0;
	bool want = rcode == DNSD_RCODE_NOERROR && q->qclass == DNSD_CLASS_IN &&
		    (q->qtype == DNSD_TYPE_A || q->qtype == DNSD_TYPE_AAAA);
	for (size_t i = 0; want && i < n_addrs; i++)
		n_ans += addrs[i].family == fam;
	bool tc = false;
	if (n_ans > (room - fixed) / (12 + rdlen)) {
		n_ans = 0; /* no partial RRset (RFC 2181 9) */
		tc = true;
	}

	unsigned flags = FLAG_QR | FLAG_RA | (q->rd ? FLAG_RD : 0) | (tc ? FLAG_TC : 0) | (rc & 0xf);
	put16(out, q->id);
	put16(out + 2, flags);
	put16(out + 4, 1);
	put16(out + 6, (unsigned)n_ans);
	put16(out + 8, 0);
	put16(out + 10, q->edns ? 1 : 0);
	size_t o = DNSD_HEADER_LEN;
	memcpy(out + o, q->qname, q->qname_len);
	o += q->qname_len;
	put16(out + o, q->qtype);
	put16(out + o + 2, q->qclass);
	o += 4;
	for (size_t i = 0; n_ans && i < n_addrs; i++) {
		if (addrs[i].family != fam)
			continue;
		put16(out + o, 0xc000 | DNSD_HEADER_LEN); /* the question's name */
		put16(out + o + 2, q->qtype);
		put16(out + o + 4, DNSD_CLASS_IN);
		put32(out + o + 6, ttl & 0x7fffffffu); /* RFC 2181 8 */
		put16(out + o + 10, (unsigned)rdlen);
		memcpy(out + o + 12, addrs[i].b, rdlen);
		o += 12 + rdlen;
	}
	if (q->edns) {
		/* RFC 6891 6.1.2-6.1.3: root owner, our payload size, extended
		 * rcode in the top 8 bits of TTL, version 0, no DO, no options */
		out[o] = 0;
		put16(out + o + 1, DNSD_TYPE_OPT);
		put16(out + o + 3, DNSD_EDNS_PAYLOAD);
		put32(out + o + 5, (uint32_t)(rc >> 4) << 24);
		put16(out + o + 9, 0);
		o += 11;
	}
	*out_len = o;
	return DNSD_OK;
}

enum dnsd_status dnsd_build_error(const uint8_t *msg, size_t len, enum dnsd_rcode rcode,
				  uint8_t *out, size_t cap, size_t *out_len)
{
	*out_len = 0;
	if (len < DNSD_HEADER_LEN)
		return DNSD_TRUNCATED;
	if (get16(msg + 2) & FLAG_QR)
		return DNSD_NOT_QUERY;
	if ((unsigned)rcode > 15)
		return DNSD_MALFORMED;
	if (cap < DNSD_HEADER_LEN)
		return DNSD_NO_SPACE;
	unsigned flags = get16(msg + 2);
	memcpy(out, msg, 2);
	put16(out + 2, FLAG_QR | FLAG_RA | (flags & 0x7800u) | (flags & FLAG_RD) | (unsigned)rcode);
	memset(out + 4, 0, 8);
	*out_len = DNSD_HEADER_LEN;
	return DNSD_OK;
}

enum dnsd_status dnsd_response_parse(const uint8_t *msg, size_t len, struct dnsd_response *out,
				     struct dnsd_addr_rr *addrs, size_t cap)
{
	uint8_t owner[DNSD_NAME_WIRE_MAX];
	size_t owner_len, off = DNSD_HEADER_LEN;
	enum dnsd_status st;

	memset(out, 0, sizeof(*out));
	if (len < DNSD_HEADER_LEN)
		return DNSD_TRUNCATED;
	uint16_t flags = get16(msg + 2);
	out->id = get16(msg);
	out->rcode = flags & 0xf;
	out->tc = (flags & FLAG_TC) != 0;
	out->aa = (flags & FLAG_AA) != 0;
	if (!(flags & FLAG_QR))
		return DNSD_NOT_RESPONSE;
	uint16_t qd = get16(msg + 4), an = get16(msg + 6), ns = get16(msg + 8),
		 ar = get16(msg + 10);
	if (qd != 1)
		return DNSD_MALFORMED;
	st = read_name(msg, len, &off, out->qname, &out->qname_len);
	if (st != DNSD_OK)
		return st;
	if (len - off < 4)
		return DNSD_TRUNCATED;
	out->qtype = get16(msg + off);
	out->qclass = get16(msg + off + 2);
	off += 4;

	/* First pass: every record is sound; remember where answers start. */
	size_t answers = off;
	bool opt_seen = false;
	for (unsigned i = 0; i < (unsigned)an + ns + ar; i++) {
		struct rr rr;
		st = read_rr(msg, len, &off, owner, &owner_len, &rr);
		if (st != DNSD_OK)
			return st;
		if (rr.klass == DNSD_CLASS_IN && ((rr.type == DNSD_TYPE_A && rr.rdlen != 4) ||
						  (rr.type == DNSD_TYPE_AAAA && rr.rdlen != 16)))
			return DNSD_MALFORMED;
		if (rr.type == DNSD_TYPE_CNAME && i < an) {
			/* the CNAME target fills RDATA exactly */
			uint8_t t[DNSD_NAME_WIRE_MAX];
			size_t tl, p = rr.rdata;
			st = read_name(msg, rr.rdata + rr.rdlen, &p, t, &tl);
			if (st == DNSD_TRUNCATED || (st == DNSD_OK && p != rr.rdata + rr.rdlen))
				return DNSD_MALFORMED;
			if (st != DNSD_OK)
				return st;
		}
		if (rr.type == DNSD_TYPE_OPT && i >= (unsigned)an + ns) {
			if (opt_seen || owner_len != 1)
				return DNSD_MALFORMED;
			opt_seen = true;
			out->rcode |= (rr.ttl >> 24) << 4;
		}
	}
	if (off != len)
		return DNSD_MALFORMED;

	/* Second pass: follow the CNAME chain from the question name. */
	memcpy(out->target, out->qname, out->qname_len);
	out->target_len = out->qname_len;
	uint32_t chain_ttl = 0x7fffffffu;
	for (int link = 0; link <= MAX_CNAME_LINKS; link++) {
		bool moved = false;
		off = answers;
		for (unsigned i = 0; i < an && !moved; i++) {
			struct rr rr;
			(void)read_rr(msg, len, &off, owner, &owner_len, &rr); /* checked above */
			if (rr.type != DNSD_TYPE_CNAME || rr.klass != DNSD_CLASS_IN ||
			    !dnsd_name_equal(owner, owner_len, out->target, out->target_len))
				continue;
			if (link == MAX_CNAME_LINKS)
				return DNSD_MALFORMED; /* too long a chain, or a loop */
			size_t p = rr.rdata;
			(void)read_name(msg, rr.rdata + rr.rdlen, &p, out->target, &out->target_len);
			uint32_t t = rr.ttl & 0x80000000u ? 0 : rr.ttl;
			if (t < chain_ttl)
				chain_ttl = t;
			moved = true;
		}
		if (!moved)
			break;
	}

	off = answers;
	for (unsigned i = 0; i < an; i++) {
		struct rr rr;
		(void)read_rr(msg, len, &off, owner, &owner_len, &rr);
		if (rr.klass != DNSD_CLASS_IN ||
		    (rr.type != DNSD_TYPE_A && rr.type != DNSD_TYPE_AAAA) ||
		    !dnsd_name_equal(owner, owner_len, out->target, out->target_len))
			continue;
		out->n_addrs_found++;
		if (out->n_addrs >= cap)
			continue;
		struct dnsd_addr_rr *a = &addrs[out->n_addrs++];
		memset(a, 0, sizeof(*a));
		a->addr.family = rr.type == DNSD_TYPE_A ? POLICY_ADDR_V4 : POLICY_ADDR_V6;
		memcpy(a->addr.b, msg + rr.rdata, rr.rdlen);
		uint32_t t = rr.ttl & 0x80000000u ? 0 : rr.ttl;
		a->ttl = t < chain_ttl ? t : chain_ttl;
	}
	return DNSD_OK;
}

enum dnsd_status dnsd_name_from_text(const char *name, size_t len,
				     uint8_t out[DNSD_NAME_WIRE_MAX], size_t *out_len)
{
	size_t o = 0, start = 0;

	*out_len = 0;
	if (len == 0 || len > DNSD_NAME_TEXT_MAX)
		return DNSD_MALFORMED;
	for (size_t i = 0; i <= len; i++) {
		if (i < len && name[i] != '.') {
			if (!host_byte((uint8_t)name[i]))
				return DNSD_MALFORMED;
			continue;
		}
		size_t l = i - start;
		if (l == 0 || l > DNSD_LABEL_MAX)
			return DNSD_MALFORMED;
		out[o++] = (uint8_t)l;
		memcpy(out + o, name + start, l);
		o += l;
		start = i + 1;
	}
	out[o++] = 0; /* len <= 253 gives o <= 255 */
	*out_len = o;
	return DNSD_OK;
}

enum dnsd_status dnsd_tcp_frame(const uint8_t *buf, size_t len, size_t *msg_len)
{
	*msg_len = 0;
	if (len < 2)
		return DNSD_NEED_MORE;
	size_t n = get16(buf);
	if (n < DNSD_HEADER_LEN)
		return DNSD_MALFORMED;
	if (len - 2 < n)
		return DNSD_NEED_MORE;
	*msg_len = n;
	return DNSD_OK;
}

enum dnsd_status dnsd_tcp_prefix(size_t msg_len, uint8_t out[2])
{
	if (msg_len > DNSD_TCP_MAX)
		return DNSD_MALFORMED;
	put16(out, (unsigned)msg_len);
	return DNSD_OK;
}
