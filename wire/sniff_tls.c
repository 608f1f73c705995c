/* wire/sniff_tls.c: the server_name of a TLS ClientHello (sniff.h).
 *
 * The handshake message is gathered from as many records as carry it (RFC
 * 8446 §5.1: "Handshake messages MAY be coalesced into a single
 * TLSPlaintext record or fragmented across several records") into a buffer
 * on the stack, without allocating, and parsed with one cursor whatever the
 * records were.  Gathering stops at the first record it cannot use and
 * remembers why; the parse reads in wire order and answers that reason only
 * when it needs a byte gathering did not reach, so every check depends only
 * on bytes already read and a prefix of a good hello is never anything but
 * SNIFF_NEED_MORE.
 */
#include "wire/sniff.h"

#include <string.h>

#include "wire/cursor.h"

enum {
	TLS_RECORD_HEADER = 5,
	TLS_CT_HANDSHAKE = 22,
	TLS_RECORD_MAX = 1 << 14, /* RFC 8446 §5.1: length MUST NOT exceed 2^14 */
	TLS_HT_CLIENT_HELLO = 1,
	TLS_HS_HEADER = 4,

	EXT_SERVER_NAME = 0,
	EXT_ALPN = 16,
	EXT_PRE_SHARED_KEY = 41,
	EXT_EARLY_DATA = 42,
	EXT_SUPPORTED_VERSIONS = 43,
	EXT_ECH = 0xfe0d, /* draft-ietf-tls-esni */
	SNI_HOST_NAME = 0,
};

/* The handshake message gathered from consecutive records.  The record
 * layer is read with a stream cursor over the wire bytes; each record's
 * fragment is a sub-cursor whose end is its length field.  The message
 * bytes are copied into msg (at most PROXY_TLS_HELLO_MAX, on the stack), so
 * the hello itself is parsed with one plain cursor whatever the records
 * were.  st says why gathering stopped short of what was asked for. */
struct gather {
	struct wire_cursor wire; /* the records */
	struct wire_cursor frag; /* the current record's fragment */
	uint8_t msg[PROXY_TLS_HELLO_MAX];
	size_t have;
	enum proxy_sniff_status st;
};

/* Moves to the next record.  What part of a record header has arrived is
 * checked at once, so a wrong type is MALFORMED without waiting for the
 * rest. */
static bool next_record(struct gather *g)
{
	struct wire_cursor *w = &g->wire;
	size_t start = w->pos;
	uint8_t type, major, minor;
	uint16_t n;

	/* Only handshake records until the hello is whole: an alert, a
	 * ChangeCipherSpec or application data in between is not a hello
	 * any server would reassemble.  legacy_record_version is ignored
	 * (RFC 8446 §5.1) but its major byte is 3 in every TLS version. */
	if (wire_u8(w, &type) && type != TLS_CT_HANDSHAKE)
		goto malformed;
	if (wire_u8(w, &major) && major != 3)
		goto malformed;
	if (!wire_u8(w, &minor) || !wire_u16(w, &n)) {
		/* A record needs its header and at least one byte. */
		g->st = start + TLS_RECORD_HEADER >= PROXY_TLS_WIRE_MAX ? SNIFF_TOO_BIG
									: SNIFF_NEED_MORE;
		return false;
	}
	/* RFC 8446 §5.1: zero-length handshake fragments MUST NOT be sent. */
	if (n == 0 || n > TLS_RECORD_MAX)
		goto malformed;
	if (w->pos + n > PROXY_TLS_WIRE_MAX) {
		g->st = SNIFF_TOO_BIG;
		return false;
	}
	return wire_sub(w, n, &g->frag);
malformed:
	g->st = SNIFF_MALFORMED;
	return false;
}

/* Gathers handshake bytes until g->have is want; false with g->st set when
 * the records stop first. */
static bool gather(struct gather *g, size_t want)
{
	while (g->have < want) {
		if (wire_at_end(&g->frag) && !next_record(g))
			return false;
		size_t take = want - g->have;
		if (take > wire_left(&g->frag))
			take = wire_left(&g->frag);
		if (take > wire_avail(&g->frag))
			take = wire_avail(&g->frag);
		if (take == 0) {
			g->st = SNIFF_NEED_MORE;
			return false;
		}
		wire_copy(&g->frag, g->msg + g->have, take);
		g->have += take;
	}
	return true;
}

/* RFC 6066 §3: ServerNameList server_name_list<1..2^16-1>, each entry
 * NameType (host_name = 0) then HostName opaque<1..2^16-1>.  Exactly one
 * entry, a host_name, as OpenSSL accepts it (ssl/statem/extensions_srvr.c):
 * with two names, which one a server uses is its own business. */
static bool parse_sni(struct wire_cursor *ext, struct proxy_tls_hello *out)
{
	struct wire_cursor list, name;
	uint8_t type;

	if (!wire_vec(ext, 2, 1, 0xffff, &list))
		return false;
	if (!wire_at_end(ext))
		return wire_fail(ext);
	if (!wire_u8(&list, &type))
		return wire_join(ext, &list);
	if (type != SNI_HOST_NAME)
		return wire_fail(ext);
	if (!wire_vec(&list, 2, 1, PROXY_TLS_SNI_MAX, &name))
		return wire_join(ext, &list);
	if (!wire_at_end(&list))
		return wire_fail(ext); /* a second entry follows, or bytes are left */
	if (!wire_copy(&name, out->sni, name.end))
		return wire_join(ext, &name);
	if (memchr(out->sni, '\0', name.end))
		return wire_fail(ext);
	out->sni[name.end] = '\0';
	out->sni_len = name.end;
	return true;
}

/* RFC 7301 §3.1: ProtocolNameList protocol_name_list<2..2^16-1>, each
 * ProtocolName opaque<1..2^8-1>. */
static bool parse_alpn(struct wire_cursor *ext)
{
	struct wire_cursor list, name;

	if (!wire_vec(ext, 2, 2, 0xffff, &list))
		return false;
	if (!wire_at_end(ext))
		return wire_fail(ext);
	while (!wire_at_end(&list)) {
		if (!wire_vec(&list, 1, 1, 0xff, &name))
			return wire_join(ext, &list);
		if (!wire_skip(&name, name.end))
			return wire_join(ext, &name);
	}
	return true;
}

/* RFC 8446 §4.2.1: ProtocolVersion versions<2..254> in a ClientHello. */
static bool parse_versions(struct wire_cursor *ext, unsigned *flags)
{
	struct wire_cursor list;
	uint16_t v;

	if (!wire_vec(ext, 1, 2, 254, &list))
		return false;
	if (!wire_at_end(ext) || list.end % 2)
		return wire_fail(ext);
	while (!wire_at_end(&list)) {
		if (!wire_u16(&list, &v))
			return wire_join(ext, &list);
		if (v == 0x0304)
			*flags |= PROXY_TLS_13;
	}
	return true;
}

/* One extension's body: false with ext's status set when it is not sound. */
static bool parse_extension(uint16_t type, struct wire_cursor *ext, struct proxy_tls_hello *out,
			    bool *have_sni)
{
	switch (type) {
	case EXT_SERVER_NAME:
		if (!parse_sni(ext, out))
			return false;
		*have_sni = true;
		return true;
	case EXT_ALPN:
		if (!parse_alpn(ext))
			return false;
		out->flags |= PROXY_TLS_ALPN;
		return true;
	case EXT_SUPPORTED_VERSIONS:
		return parse_versions(ext, &out->flags);
	case EXT_EARLY_DATA:
		/* RFC 8446 §4.2.10: empty in a ClientHello. */
		if (ext->end != 0)
			return wire_fail(ext);
		out->flags |= PROXY_TLS_EARLY_DATA;
		return true;
	case EXT_ECH:
		out->flags |= PROXY_TLS_ECH;
		break;
	}
	return wire_skip(ext, wire_left(ext));
}

/* RFC 8446 §4.1.2 ClientHello body: legacy_version, random[32],
 * legacy_session_id<0..32>, cipher_suites<2..2^16-2>,
 * legacy_compression_methods<1..2^8-1>, extensions<8..2^16-1>.
 * TLS 1.2 (RFC 5246 §7.4.1.2) lets the extensions be absent. */
static bool parse_hello(struct wire_cursor *c, struct proxy_tls_hello *out, bool *have_sni)
{
	struct wire_cursor v, exts, ext;
	uint16_t version, et;
	/* One bit per extension type, for RFC 8446 §4.2 "There MUST NOT be
	 * more than one extension of the same type": 8 KiB of stack, no
	 * allocation, constant time per extension. */
	uint64_t seen[65536 / 64];
	bool psk_seen = false;

	if (wire_left(c) < 2 + 32)
		return wire_fail(c);
	if (!wire_u16(c, &version))
		return false;
	if (version >> 8 != 3)
		return wire_fail(c);
	out->legacy_version = version;
	if (!wire_skip(c, 32))
		return false;
	if (!wire_vec(c, 1, 0, 32, &v) || !wire_skip(&v, v.end))
		return wire_join(c, &v);
	if (!wire_vec(c, 2, 2, 0xfffe, &v))
		return false;
	if (v.end % 2)
		return wire_fail(c);
	if (!wire_skip(&v, v.end) || !wire_vec(c, 1, 1, 0xff, &v) || !wire_skip(&v, v.end))
		return wire_join(c, &v);
	if (wire_at_end(c))
		return true; /* no extensions: a TLS 1.2 hello without SNI */

	if (!wire_vec(c, 2, 0, 0xffff, &exts))
		return false;
	if (!wire_at_end(c))
		return wire_fail(c);
	memset(seen, 0, sizeof(seen));
	while (!wire_at_end(&exts)) {
		if (wire_left(&exts) < 4)
			return wire_fail(c);
		if (!wire_u16(&exts, &et) || !wire_vec(&exts, 2, 0, 0xffff, &ext))
			return wire_join(c, &exts);
		/* RFC 8446 §4.2.11: pre_shared_key MUST be the last extension. */
		if (psk_seen || (seen[et / 64] >> (et % 64) & 1))
			return wire_fail(c);
		seen[et / 64] |= (uint64_t)1 << (et % 64);
		psk_seen = et == EXT_PRE_SHARED_KEY;
		if (!parse_extension(et, &ext, out, have_sni))
			return wire_join(c, &ext);
	}
	return true;
}

enum proxy_sniff_status proxy_sniff_tls(const uint8_t *buf, size_t len,
					struct proxy_tls_hello *out)
{
	struct gather g;
	struct wire_cursor c;
	uint8_t type;
	uint32_t body = 0;
	bool have_sni = false;

	/* The first record header decides whether this is TLS at all: a
	 * handshake record (22) with major version 3.  SSLv2-format hellos
	 * (first byte 0x80) carry no extensions and are not TLS here. */
	if (len >= 1 && buf[0] != TLS_CT_HANDSHAKE)
		return SNIFF_NOT_TLS;
	if (len >= 2 && buf[1] != 3)
		return SNIFF_NOT_TLS;

	out->sni[0] = '\0';
	out->sni_len = 0;
	out->flags = 0;
	out->legacy_version = 0;
	out->wire_len = 0;

	g.wire = wire_stream(buf, len);
	g.frag = wire_whole(buf, 0);
	g.have = 0;
	g.st = SNIFF_OK;

	/* The handshake header: msg_type client_hello (1), uint24 length. */
	bool whole = gather(&g, TLS_HS_HEADER);
	c = wire_stream(g.msg, g.have);
	if (wire_u8(&c, &type) && type != TLS_HT_CLIENT_HELLO)
		return SNIFF_MALFORMED;
	if (!whole)
		return g.st;
	wire_u24(&c, &body);
	if (body + TLS_HS_HEADER > PROXY_TLS_HELLO_MAX)
		return SNIFF_TOO_BIG;

	/* The body, as far as the records carry it: a read past what arrived is
	 * answered with why gathering stopped. */
	whole = gather(&g, TLS_HS_HEADER + body);
	c = (struct wire_cursor){ g.msg, g.have, TLS_HS_HEADER + body, TLS_HS_HEADER, WIRE_OK };
	if (!parse_hello(&c, out, &have_sni))
		return c.st == WIRE_SHORT ? g.st : SNIFF_MALFORMED;
	if (!whole)
		return g.st; /* not reached: the parse reads every byte */

	/* The message is whole.  Bytes left in its last record would be a
	 * second handshake message, which a client does not send before the
	 * ServerHello; they are not looked at. */
	out->wire_len = (size_t)(g.frag.p - buf) + g.frag.pos;
	return have_sni ? SNIFF_OK : SNIFF_NO_SNI;
}
