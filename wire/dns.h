/* wire/dns.h: DNS messages on the wire (RFC 1035 section 4, RFC 3596 AAAA,
 * RFC 6891 EDNS(0), RFC 7766 TCP framing).
 *
 * ARCHITECTURE: pure functions over (const uint8_t *, size_t) that neither
 * allocate nor log (docs/design.md, Modules); results are copied into caller
 * structs of fixed size.  Thread-safe: no state.  Part of wire/, so it may
 * use common/ only: addresses are common/addr.h values, and the name limits
 * are RFC 1035's (policy/names.h has the same numbers; dns/ checks that).
 *
 * Truncation contract.  A DNS message has the fixed length its datagram or
 * TCP frame gave it, so the message parsers never wait for more: any proper
 * prefix of a message they accept is DNSD_TRUNCATED, never DNSD_OK and never
 * another status (a check on the bytes that are there gives the same answer
 * in the prefix as in the whole, and compression pointers may only point
 * backwards).  Only the TCP framing helper answers DNSD_NEED_MORE.
 */
#ifndef PORTA_WIRE_DNS_H
#define PORTA_WIRE_DNS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/addr.h"

#define DNSD_HEADER_LEN 12
#define DNSD_NAME_WIRE_MAX 255  /* RFC 1035 3.1, including the root label */
#define DNSD_NAME_TEXT_MAX 253  /* the same name as dotted text, no trailing dot */
#define DNSD_LABEL_MAX 63       /* RFC 1035 2.3.4 */
#define DNSD_UDP_MIN_PAYLOAD 512
#define DNSD_EDNS_PAYLOAD 1232  /* what porta advertises and answers within over UDP
				 * (DNS flag day 2020) */
#define DNSD_TCP_MAX 65535

enum dnsd_status {
	DNSD_OK,
	DNSD_NEED_MORE,    /* TCP framing only: the frame is not complete yet */
	DNSD_TRUNCATED,    /* the message ends before what it announces */
	DNSD_MALFORMED,    /* bad label or pointer, wrong counts, trailing bytes, ... */
	DNSD_NOT_QUERY,    /* QR is set: never answer a response (no loops) */
	DNSD_NOT_RESPONSE, /* QR is clear where a response was expected */
	DNSD_NOTIMP,       /* opcode other than QUERY: answer NOTIMP (header only) */
	DNSD_NO_SPACE,     /* builder: not even the header and question fit */
};

enum dnsd_rcode {
	DNSD_RCODE_NOERROR = 0,
	DNSD_RCODE_FORMERR = 1,
	DNSD_RCODE_SERVFAIL = 2,
	DNSD_RCODE_NXDOMAIN = 3,
	DNSD_RCODE_NOTIMP = 4,
	DNSD_RCODE_REFUSED = 5,
	DNSD_RCODE_BADVERS = 16, /* extended, only with EDNS (RFC 6891 9) */
};

enum dnsd_type {
	DNSD_TYPE_A = 1,
	DNSD_TYPE_CNAME = 5,
	DNSD_TYPE_AAAA = 28,
	DNSD_TYPE_OPT = 41,
	DNSD_TYPE_ANY = 255,
};

#define DNSD_CLASS_IN 1

/* A query, as dnsd_query_parse() read it. */
struct dnsd_query {
	uint16_t id;
	uint8_t opcode;
	bool rd;
	/* QNAME in wire form without compression, byte for byte as received
	 * (case kept: resolvers check that the answer echoes it, RFC 5452 9) */
	uint8_t qname[DNSD_NAME_WIRE_MAX];
	size_t qname_len;
	/* The same name as text, labels joined by '.', no trailing dot.  Only
	 * set when name_is_text: every label byte is a letter, digit, '-' or
	 * '_' (so the text and the wire name are one name and a '.' inside a
	 * label cannot split it differently); then name_len <= 253.  Other
	 * names (and the root) are not host names: answer REFUSED. */
	char name[DNSD_NAME_TEXT_MAX + 1];
	size_t name_len;
	bool name_is_text;
	uint16_t qtype, qclass;
	bool edns;             /* an OPT record was present */
	uint16_t edns_payload; /* its UDP payload size, at least 512 */
	uint8_t edns_version;
	bool edns_do;
};

/* Parses a query msg[0..len): header with QR clear, opcode QUERY, exactly
 * one question, no answer or authority records, additional records of which
 * at most one OPT (with the root name; its options must be well formed and
 * are otherwise ignored), nothing after the last record.  Compression
 * pointers are followed only backwards (loop-safe); labels 1..63 bytes, the
 * name at most 255 bytes.  On DNSD_NOTIMP and on DNSD_MALFORMED after the
 * header, out->id, opcode and rd are set, so a FORMERR or NOTIMP can be
 * sent with dnsd_build_error(). */
enum dnsd_status dnsd_query_parse(const uint8_t *msg, size_t len, struct dnsd_query *out);

/* The largest response to q over UDP: 512 without EDNS, else its payload
 * size capped at DNSD_EDNS_PAYLOAD. */
size_t dnsd_udp_limit(const struct dnsd_query *q);

/* Builds the response to q into out[0..cap), at most limit bytes
 * (dnsd_udp_limit() over UDP, DNSD_TCP_MAX over TCP); *out_len is its length.
 * Header: q's ID, QR, opcode QUERY, q's RD, RA, rcode; the question copied
 * as received.  With DNSD_RCODE_NOERROR the answer holds one A (for an A
 * question) or AAAA (for an AAAA question) record per address of that family
 * in addrs[0..n_addrs) with the given ttl, owner a pointer to the question
 * name; other types and families give an empty answer (docs/design.md).  With
 * any other rcode, addrs are ignored.  When q had EDNS an OPT record is
 * added (payload DNSD_EDNS_PAYLOAD, version 0; an rcode above 15 goes in its
 * extended bits; without EDNS such an rcode is DNSD_MALFORMED).  When the
 * answers do not all fit, none is sent and TC is set (RFC 2181 9).
 * DNSD_NO_SPACE when header, question and OPT alone do not fit. */
enum dnsd_status dnsd_build_response(const struct dnsd_query *q, enum dnsd_rcode rcode,
				     const struct policy_addr *addrs, size_t n_addrs,
				     uint32_t ttl, size_t limit, uint8_t *out, size_t cap,
				     size_t *out_len);

/* A header-only answer (FORMERR, NOTIMP, SERVFAIL) to the raw message
 * msg[0..len), for when dnsd_query_parse() could not give a struct: its ID,
 * opcode and RD copied, QR and RA set, every count zero.  DNSD_TRUNCATED if
 * msg is shorter than a header, DNSD_NOT_QUERY if it is a response (never
 * answer those), DNSD_NO_SPACE if cap < 12.  rcode must be below 16. */
enum dnsd_status dnsd_build_error(const uint8_t *msg, size_t len, enum dnsd_rcode rcode,
				  uint8_t *out, size_t cap, size_t *out_len);

/* One address record read from an upstream response. */
struct dnsd_addr_rr {
	struct policy_addr addr;
	uint32_t ttl; /* the record's TTL, lowered to the lowest CNAME TTL on the way */
};

struct dnsd_response {
	uint16_t id;
	unsigned rcode; /* with the EDNS extended bits when an OPT was present */
	bool tc, aa;
	uint8_t qname[DNSD_NAME_WIRE_MAX]; /* the question, decompressed */
	size_t qname_len;
	uint16_t qtype, qclass;
	/* wire form of the name the addresses belong to: qname, or the end of
	 * the CNAME chain that starts at qname */
	uint8_t target[DNSD_NAME_WIRE_MAX];
	size_t target_len;
	size_t n_addrs;       /* records written to addrs */
	size_t n_addrs_found; /* records found; more than n_addrs when cap was short */
};

/* Parses an upstream response msg[0..len): QR set, exactly one question,
 * every record of every section bounds-checked (names with backward-only
 * compression, RDLENGTH within the message, A records of 4 bytes and AAAA
 * of 16, nothing after the last record).  Follows the CNAME chain from the
 * question name through the answer section (at most 8 links, compared
 * without regard to ASCII case) and writes the class IN A and AAAA records
 * owned by its end into addrs[0..cap).  TTLs with the top bit set count as 0
 * (RFC 2181 8).  Records owned by other names are ignored: an upstream
 * cannot smuggle an address for a name that was not asked.  The caller
 * checks that out->id, qname (dnsd_name_equal) and qtype are what it asked. */
enum dnsd_status dnsd_response_parse(const uint8_t *msg, size_t len, struct dnsd_response *out,
				     struct dnsd_addr_rr *addrs, size_t cap);

/* ASCII case-insensitive equality of two uncompressed wire names (RFC 4343):
 * an upstream may echo the question in another case (RFC 5452 9). */
bool dnsd_name_equal(const uint8_t *a, size_t al, const uint8_t *b, size_t bl);

/* Writes the text name name[0..len) (a canonical name: labels of letters,
 * digits, '-' and '_', 1..63 bytes, 253 in all, no trailing dot) in wire form
 * into out; DNSD_MALFORMED for anything else. */
enum dnsd_status dnsd_name_from_text(const char *name, size_t len,
				     uint8_t out[DNSD_NAME_WIRE_MAX], size_t *out_len);

/* TCP (RFC 7766 8; RFC 1035 4.2.2): finds the first message in a stream
 * buffer buf[0..len): DNSD_NEED_MORE until the 2-byte length and that many
 * bytes are there; DNSD_MALFORMED when the length is below a header's 12;
 * DNSD_OK with *msg_len (the message starts at buf + 2, and 2 + *msg_len
 * bytes are consumed). */
enum dnsd_status dnsd_tcp_frame(const uint8_t *buf, size_t len, size_t *msg_len);

/* Writes the 2-byte length prefix for a message of msg_len bytes;
 * DNSD_MALFORMED when msg_len is above 65535. */
enum dnsd_status dnsd_tcp_prefix(size_t msg_len, uint8_t out[2]);

#endif /* PORTA_WIRE_DNS_H */
