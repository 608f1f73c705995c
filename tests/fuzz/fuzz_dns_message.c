/* tests/fuzz/fuzz_dns_message.c: DNS messages (wire/dns.h) on the whole
 * input: as a query (and, when accepted, the responses porta builds for it,
 * which must parse back), as an upstream response, as a TCP stream and as
 * the header of an error answer.  Invariants: a response built from a
 * parsed query parses back with the same ID, question and addresses. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "policy/names.h"
#include "tests/fuzz/fuzz.h"
#include "wire/dns.h"

static const struct policy_addr addrs[] = {
	{ .family = POLICY_ADDR_V4, .b = { 93, 184, 216, 34 } },
	{ .family = POLICY_ADDR_V6, .b = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 } },
	{ .family = POLICY_ADDR_V4, .b = { 93, 184, 216, 35 } },
};

static void check_built(const struct dnsd_query *q, enum dnsd_rcode rcode, size_t limit)
{
	uint8_t out[DNSD_TCP_MAX];
	size_t len;
	struct dnsd_response r;
	struct dnsd_addr_rr got[4];

	enum dnsd_status st = dnsd_build_response(q, rcode, addrs, 3, 77, limit, out, sizeof(out), &len);
	if (st == DNSD_MALFORMED && (unsigned)rcode > 15 && !q->edns)
		return;
	if (st == DNSD_NO_SPACE && DNSD_HEADER_LEN + q->qname_len + 4 + (q->edns ? 11 : 0) > limit)
		return;
	if (st != DNSD_OK || len > limit)
		abort();
	if (dnsd_response_parse(out, len, &r, got, 4) != DNSD_OK)
		abort();
	if (r.id != q->id || r.rcode != (unsigned)rcode || r.qname_len != q->qname_len ||
	    memcmp(r.qname, q->qname, q->qname_len) != 0 || r.qtype != q->qtype ||
	    r.qclass != q->qclass)
		abort();
	size_t want = 0;
	if (rcode == DNSD_RCODE_NOERROR && q->qclass == DNSD_CLASS_IN && !r.tc) {
		if (q->qtype == DNSD_TYPE_A)
			want = 2;
		else if (q->qtype == DNSD_TYPE_AAAA)
			want = 1;
	}
	/* an A or AAAA question only gets its own family back */
	if (r.n_addrs != want)
		abort();
	for (size_t i = 0; i < r.n_addrs; i++)
		if (got[i].ttl != 77 ||
		    got[i].addr.family != (q->qtype == DNSD_TYPE_A ? POLICY_ADDR_V4 : POLICY_ADDR_V6))
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dnsd_query q;
	enum dnsd_status st = dnsd_query_parse(data, size, &q);

	if (st == DNSD_OK) {
		if (q.qname_len == 0 || q.qname_len > DNSD_NAME_WIRE_MAX || q.qname[q.qname_len - 1] != 0)
			abort();
		if (q.name_is_text) {
			char canon[POLICY_NAME_MAX + 1];
			size_t cl;
			if (q.name_len != q.qname_len - 2 || strlen(q.name) != q.name_len ||
			    policy_name_canonical((const uint8_t *)q.name, q.name_len, canon, &cl) ==
				    POLICY_NAME_MALFORMED)
				abort();
			/* the text is the wire name, byte for byte */
			uint8_t w[DNSD_NAME_WIRE_MAX];
			size_t wl;
			if (dnsd_name_from_text(q.name, q.name_len, w, &wl) != DNSD_OK ||
			    wl != q.qname_len || memcmp(w, q.qname, wl) != 0)
				abort();
		}
		check_built(&q, DNSD_RCODE_NOERROR, dnsd_udp_limit(&q));
		check_built(&q, DNSD_RCODE_NOERROR, DNSD_TCP_MAX);
		check_built(&q, DNSD_RCODE_REFUSED, dnsd_udp_limit(&q));
		check_built(&q, DNSD_RCODE_BADVERS, DNSD_TCP_MAX);
		check_built(&q, DNSD_RCODE_NOERROR, 40);
	}

	struct dnsd_response r;
	struct dnsd_addr_rr got[2];
	if (dnsd_response_parse(data, size, &r, got, 2) == DNSD_OK) {
		if (r.n_addrs > 2 || r.n_addrs > r.n_addrs_found || r.qname_len == 0 ||
		    r.target_len == 0 || r.target_len > DNSD_NAME_WIRE_MAX)
			abort();
		for (size_t i = 0; i < r.n_addrs; i++)
			if (got[i].ttl > 0x7fffffffu)
				abort();
	}

	size_t off = 0, ml;
	while (dnsd_tcp_frame(data + off, size - off, &ml) == DNSD_OK) {
		if (ml < DNSD_HEADER_LEN || 2 + ml > size - off)
			abort();
		off += 2 + ml;
	}

	uint8_t err[DNSD_HEADER_LEN];
	size_t el;
	if (dnsd_build_error(data, size, DNSD_RCODE_FORMERR, err, sizeof(err), &el) == DNSD_OK &&
	    (el != DNSD_HEADER_LEN || memcmp(err, data, 2) != 0 || !(err[2] & 0x80)))
		abort();
	return 0;
}
