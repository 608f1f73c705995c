/* wire/dns.c: see dns.h. */
#include "wire/dns.h"

#include <string.h>

#include "common/ascii.h"
#include "wire/cursor.h"

#define FLAG_QR 0x8000u
#define FLAG_TC 0x0200u
#define FLAG_AA 0x0400u
#define FLAG_RD 0x0100u
#define FLAG_RA 0x0080u
#define MAX_CNAME_LINKS 8
#define MAX_POINTERS 127 /* backward-only pointers already terminate; belt and braces */

/* A DNS message has a fixed length, so running past it is truncation; the
 * cursors here are streams over the message and WIRE_SHORT means that. */
static enum dnsd_status status_of(const struct wire_cursor *c)
{
	switch (c->st) {
	case WIRE_OK: return DNSD_OK;
	case WIRE_SHORT: return DNSD_TRUNCATED;
	case WIRE_MALFORMED: break;
	}
	return DNSD_MALFORMED;
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
	struct wire_cursor c = wire_stream(msg, len);
	size_t run_start = *off, total = 0;
	bool jumped = false;
	int jumps = 0;

	c.pos = *off;
	for (;;) {
		uint8_t l;
		const uint8_t *label;
		if (!wire_u8(&c, &l))
			return DNSD_TRUNCATED;
		if (l == 0) {
			out[total++] = 0;
			if (!jumped)
				*off = c.pos;
			*out_len = total;
			return DNSD_OK;
		}
		if ((l & 0xc0) == 0xc0) {
			uint8_t lo;
			if (!wire_u8(&c, &lo))
				return DNSD_TRUNCATED;
			size_t target = (size_t)(l & 0x3f) << 8 | lo;
			if (target < DNSD_HEADER_LEN || target >= run_start || ++jumps > MAX_POINTERS)
				return DNSD_MALFORMED;
			if (!jumped)
				*off = c.pos;
			jumped = true;
			c.pos = run_start = target;
			continue;
		}
		if (l & 0xc0)
			return DNSD_MALFORMED;
		/* room for this label and the root label after it */
		if (total + 1 + l + 1 > DNSD_NAME_WIRE_MAX)
			return DNSD_MALFORMED;
		if (!wire_take(&c, l, &label))
			return DNSD_TRUNCATED;
		out[total] = l;
		memcpy(out + total + 1, label, l);
		total += 1 + (size_t)l;
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
	struct wire_cursor c = wire_stream(msg, len);
	uint16_t rdlen;
	c.pos = *off;
	if (!wire_u16(&c, &rr->type) || !wire_u16(&c, &rr->klass) || !wire_u32(&c, &rr->ttl) ||
	    !wire_u16(&c, &rdlen) || !wire_skip(&c, rdlen))
		return status_of(&c);
	rr->rdlen = rdlen;
	rr->rdata = c.pos - rdlen;
	*off = c.pos;
	return DNSD_OK;
}

/* EDNS options (RFC 6891 6.1.2): OPTION-CODE, OPTION-LENGTH, data, exactly
 * filling RDATA.  porta forwards none of them; they only have to be sound. */
static bool opt_options_ok(const uint8_t *p, size_t n)
{
	struct wire_cursor c = wire_whole(p, n);
	uint16_t code, ol;

	while (!wire_at_end(&c)) {
		if (!wire_u16(&c, &code) || !wire_u16(&c, &ol) || !wire_skip(&c, ol))
			return false;
	}
	return true;
}

/* The 12-byte header (RFC 1035 4.1.1). */
struct header {
	uint16_t id, flags, qd, an, ns, ar;
};

static bool read_header(struct wire_cursor *c, struct header *h)
{
	return wire_u16(c, &h->id) && wire_u16(c, &h->flags) && wire_u16(c, &h->qd) &&
	       wire_u16(c, &h->an) && wire_u16(c, &h->ns) && wire_u16(c, &h->ar);
}

/* The question's type and class after its name at *off. */
static enum dnsd_status read_qtail(const uint8_t *msg, size_t len, size_t *off, uint16_t *type,
				   uint16_t *klass)
{
	struct wire_cursor c = wire_stream(msg, len);
	uint16_t t, k;
	c.pos = *off;
	if (!wire_u16(&c, &t) || !wire_u16(&c, &k))
		return status_of(&c); /* both or neither, as the parsers document */
	*type = t;
	*klass = k;
	*off = c.pos;
	return DNSD_OK;
}

enum dnsd_status dnsd_query_parse(const uint8_t *msg, size_t len, struct dnsd_query *out)
{
	uint8_t owner[DNSD_NAME_WIRE_MAX];
	size_t owner_len, off = DNSD_HEADER_LEN;
	enum dnsd_status st;

	struct wire_cursor c = wire_stream(msg, len);
	struct header h;

	memset(out, 0, sizeof(*out));
	if (!read_header(&c, &h))
		return DNSD_TRUNCATED;
	out->id = h.id;
	out->opcode = (uint8_t)((h.flags >> 11) & 0xf);
	out->rd = (h.flags & FLAG_RD) != 0;
	if (h.flags & FLAG_QR)
		return DNSD_NOT_QUERY;
	if (out->opcode != 0)
		return DNSD_NOTIMP;
	/* RFC 9619: QDCOUNT is 1 in a QUERY; a query carries no answers */
	if (h.qd != 1 || h.an != 0 || h.ns != 0)
		return DNSD_MALFORMED;

	st = read_name(msg, len, &off, out->qname, &out->qname_len);
	if (st != DNSD_OK)
		return st;
	st = read_qtail(msg, len, &off, &out->qtype, &out->qclass);
	if (st != DNSD_OK)
		return st;

	for (unsigned i = 0; i < h.ar; i++) {
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
	struct wire_cursor c = wire_stream(msg, len);
	struct header h;

	*out_len = 0;
	if (!read_header(&c, &h))
		return DNSD_TRUNCATED;
	if (h.flags & FLAG_QR)
		return DNSD_NOT_QUERY;
	if ((unsigned)rcode > 15)
		return DNSD_MALFORMED;
	if (cap < DNSD_HEADER_LEN)
		return DNSD_NO_SPACE;
	unsigned flags = h.flags;
	put16(out, h.id);
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

	struct wire_cursor c = wire_stream(msg, len);
	struct header h;

	memset(out, 0, sizeof(*out));
	if (!read_header(&c, &h))
		return DNSD_TRUNCATED;
	out->id = h.id;
	out->rcode = h.flags & 0xf;
	out->tc = (h.flags & FLAG_TC) != 0;
	out->aa = (h.flags & FLAG_AA) != 0;
	if (!(h.flags & FLAG_QR))
		return DNSD_NOT_RESPONSE;
	uint16_t an = h.an, ns = h.ns, ar = h.ar;
	if (h.qd != 1)
		return DNSD_MALFORMED;
	st = read_name(msg, len, &off, out->qname, &out->qname_len);
	if (st != DNSD_OK)
		return st;
	st = read_qtail(msg, len, &off, &out->qtype, &out->qclass);
	if (st != DNSD_OK)
		return st;

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
		/* the pass above read every record already: one that fails
		 * now would be a bug, not input */
		if (read_rr(msg, len, &off, owner, &owner_len, &rr) != DNSD_OK)
			return DNSD_MALFORMED;
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
	struct wire_cursor c = wire_stream(buf, len);
	uint16_t n;

	*msg_len = 0;
	if (!wire_u16(&c, &n))
		return DNSD_NEED_MORE;
	if (n < DNSD_HEADER_LEN)
		return DNSD_MALFORMED;
	if (!wire_skip(&c, n))
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
