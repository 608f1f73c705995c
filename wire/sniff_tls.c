/* wire/sniff_tls.c: the server_name of a TLS ClientHello (sniff.h).
 *
 * The hello is read through a cursor that walks the handshake message across
 * record boundaries, so a hello cut into any number of records (RFC 8446
 * §5.1: "Handshake messages MAY be coalesced into a single TLSPlaintext
 * record or fragmented across several records") is parsed without a copy and
 * without allocating.  The parse is one forward pass: the first byte it
 * lacks makes the answer SNIFF_NEED_MORE, and every check it makes depends
 * only on bytes already read, so a prefix of a good hello is never anything
 * else.
 */
#include "wire/sniff.h"

#include <string.h>

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

/* A cursor over the handshake bytes carried by consecutive records.  st is
 * SNIFF_OK while reading succeeds; the first failure sticks. */
struct hs_reader {
	const uint8_t *buf;
	size_t len;
	size_t pos;      /* next wire byte */
	size_t rec_left; /* handshake bytes left in the current record */
	enum proxy_sniff_status st;
};

/* Moves to the next record when the current one is used up.  What part of
 * a record header has arrived is checked at once, so a wrong type is
 * MALFORMED without waiting for the rest. */
static bool next_record(struct hs_reader *r)
{
	const uint8_t *h = r->buf + r->pos;
	size_t have = r->len - r->pos;

	/* Only handshake records until the hello is whole: an alert, a
	 * ChangeCipherSpec or application data in between is not a hello
	 * any server would reassemble.  legacy_record_version is ignored
	 * (RFC 8446 §5.1) but its major byte is 3 in every TLS version. */
	if ((have >= 1 && h[0] != TLS_CT_HANDSHAKE) || (have >= 2 && h[1] != 3)) {
		r->st = SNIFF_MALFORMED;
		return false;
	}
	if (have < TLS_RECORD_HEADER) {
		/* A record needs its header and at least one byte. */
		r->st = r->pos + TLS_RECORD_HEADER >= PROXY_TLS_WIRE_MAX ? SNIFF_TOO_BIG
									  : SNIFF_NEED_MORE;
		return false;
	}
	size_t n = (size_t)h[3] << 8 | h[4];
	/* RFC 8446 §5.1: zero-length handshake fragments MUST NOT be sent. */
	if (n == 0 || n > TLS_RECORD_MAX) {
		r->st = SNIFF_MALFORMED;
		return false;
	}
	if (r->pos + TLS_RECORD_HEADER + n > PROXY_TLS_WIRE_MAX) {
		r->st = SNIFF_TOO_BIG;
		return false;
	}
	r->pos += TLS_RECORD_HEADER;
	r->rec_left = n;
	return true;
}

/* Copies the next n handshake bytes into dst (may be NULL to skip them). */
static bool rd(struct hs_reader *r, uint8_t *dst, size_t n)
{
	while (n > 0) {
		if (r->st != SNIFF_OK)
			return false;
		if (r->rec_left == 0 && !next_record(r))
			return false;
		size_t avail = r->len - r->pos;
		size_t take = n < r->rec_left ? n : r->rec_left;
		if (take > avail)
			take = avail;
		if (take == 0) {
			r->st = SNIFF_NEED_MORE;
			return false;
		}
		if (dst) {
			memcpy(dst, r->buf + r->pos, take);
			dst += take;
		}
		r->pos += take;
		r->rec_left -= take;
		n -= take;
	}
	return r->st == SNIFF_OK;
}

static bool rd_u8(struct hs_reader *r, size_t *v)
{
	uint8_t b;
	if (!rd(r, &b, 1))
		return false;
	*v = b;
	return true;
}

static bool rd_u16(struct hs_reader *r, size_t *v)
{
	uint8_t b[2];
	if (!rd(r, b, 2))
		return false;
	*v = (size_t)b[0] << 8 | b[1];
	return true;
}

static bool rd_u24(struct hs_reader *r, size_t *v)
{
	uint8_t b[3];
	if (!rd(r, b, 3))
		return false;
	*v = (size_t)b[0] << 16 | (size_t)b[1] << 8 | b[2];
	return true;
}

/* Reads a length prefix of width w (1 or 2 bytes) and checks it against the
 * bytes left in its container (*left), which it charges; lengths outside
 * min..max, or that overrun, are malformed. */
static bool rd_vec(struct hs_reader *r, size_t w, size_t *left, size_t min, size_t max, size_t *n)
{
	if (*left < w) {
		r->st = SNIFF_MALFORMED;
		return false;
	}
	if (!(w == 1 ? rd_u8(r, n) : rd_u16(r, n)))
		return false;
	*left -= w;
	if (*n < min || *n > max || *n > *left) {
		r->st = SNIFF_MALFORMED;
		return false;
	}
	return true;
}

static bool fail(struct hs_reader *r)
{
	r->st = SNIFF_MALFORMED;
	return false;
}

/* RFC 6066 §3: ServerNameList server_name_list<1..2^16-1>, each entry
 * NameType (host_name = 0) then HostName opaque<1..2^16-1>.  Exactly one
 * entry, a host_name, as OpenSSL accepts it (ssl/statem/extensions_srvr.c):
 * with two names, which one a server uses is its own business. */
static bool parse_sni(struct hs_reader *r, size_t ext_len, struct proxy_tls_hello *out)
{
	size_t left = ext_len, list, type, n;

	if (!rd_vec(r, 2, &left, 1, 0xffff, &list) || list != left)
		return r->st == SNIFF_OK ? fail(r) : false;
	if (!rd_u8(r, &type))
		return false;
	left--; /* list >= 1 == left */
	if (type != SNI_HOST_NAME)
		return fail(r);
	if (!rd_vec(r, 2, &left, 1, PROXY_TLS_SNI_MAX, &n))
		return false;
	if (n != left)
		return fail(r); /* a second entry follows, or bytes are left */
	if (!rd(r, (uint8_t *)out->sni, n))
		return false;
	if (memchr(out->sni, '\0', n))
		return fail(r);
	out->sni[n] = '\0';
	out->sni_len = n;
	return true;
}

/* RFC 7301 §3.1: ProtocolNameList protocol_name_list<2..2^16-1>, each
 * ProtocolName opaque<1..2^8-1>. */
static bool parse_alpn(struct hs_reader *r, size_t ext_len)
{
	size_t left = ext_len, list, n;

	if (!rd_vec(r, 2, &left, 2, 0xffff, &list) || list != left)
		return r->st == SNIFF_OK ? fail(r) : false;
	while (left > 0) {
		if (!rd_vec(r, 1, &left, 1, 0xff, &n) || !rd(r, NULL, n))
			return false;
		left -= n;
	}
	return true;
}

/* RFC 8446 §4.2.1: ProtocolVersion versions<2..254> in a ClientHello. */
static bool parse_versions(struct hs_reader *r, size_t ext_len, unsigned *flags)
{
	size_t left = ext_len, list, v;

	if (!rd_vec(r, 1, &left, 2, 254, &list) || list != left || list % 2)
		return r->st == SNIFF_OK ? fail(r) : false;
	while (left > 0) {
		if (!rd_u16(r, &v))
			return false;
		left -= 2;
		if (v == 0x0304)
			*flags |= PROXY_TLS_13;
	}
	return true;
}

enum proxy_sniff_status proxy_sniff_tls(const uint8_t *buf, size_t len,
					struct proxy_tls_hello *out)
{
	struct hs_reader r = { buf, len, 0, 0, SNIFF_OK };
	size_t type, body, n, v;
	bool have_sni = false;
	/* One bit per extension type, for RFC 8446 §4.2 "There MUST NOT be
	 * more than one extension of the same type": 8 KiB of stack, no
	 * allocation, constant time per extension. */
	uint64_t seen[65536 / 64];

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

	if (!rd_u8(&r, &type))
		goto out;
	if (type != TLS_HT_CLIENT_HELLO) {
		r.st = SNIFF_MALFORMED;
		goto out;
	}
	if (!rd_u24(&r, &body))
		goto out;
	if (body + TLS_HS_HEADER > PROXY_TLS_HELLO_MAX) {
		r.st = SNIFF_TOO_BIG;
		goto out;
	}

	/* RFC 8446 §4.1.2 ClientHello: legacy_version, random[32],
	 * legacy_session_id<0..32>, cipher_suites<2..2^16-2>,
	 * legacy_compression_methods<1..2^8-1>, extensions<8..2^16-1>.
	 * TLS 1.2 (RFC 5246 §7.4.1.2) lets the extensions be absent. */
	size_t left = body;
	if (left < 2 + 32) {
		r.st = SNIFF_MALFORMED;
		goto out;
	}
	if (!rd_u16(&r, &v))
		goto out;
	if (v >> 8 != 3) {
		r.st = SNIFF_MALFORMED;
		goto out;
	}
	out->legacy_version = (uint16_t)v;
	if (!rd(&r, NULL, 32))
		goto out;
	left -= 2 + 32;
	if (!rd_vec(&r, 1, &left, 0, 32, &n) || !rd(&r, NULL, n))
		goto out;
	left -= n;
	if (!rd_vec(&r, 2, &left, 2, 0xfffe, &n))
		goto out;
	if (n % 2) {
		r.st = SNIFF_MALFORMED;
		goto out;
	}
	if (!rd(&r, NULL, n))
		goto out;
	left -= n;
	if (!rd_vec(&r, 1, &left, 1, 0xff, &n) || !rd(&r, NULL, n))
		goto out;
	left -= n;
	if (left == 0)
		goto done; /* no extensions: a TLS 1.2 hello without SNI */

	size_t ext_total;
	if (!rd_vec(&r, 2, &left, 0, 0xffff, &ext_total))
		goto out;
	if (ext_total != left) {
		r.st = SNIFF_MALFORMED;
		goto out;
	}
	memset(seen, 0, sizeof(seen));
	bool psk_seen = false;
	while (left > 0) {
		size_t et, el;
		if (left < 4) {
			r.st = SNIFF_MALFORMED;
			goto out;
		}
		if (!rd_u16(&r, &et))
			goto out;
		left -= 2;
		if (!rd_vec(&r, 2, &left, 0, 0xffff, &el))
			goto out;
		/* RFC 8446 §4.2.11: pre_shared_key MUST be the last extension. */
		if (psk_seen || (seen[et / 64] >> (et % 64) & 1)) {
			r.st = SNIFF_MALFORMED;
			goto out;
		}
		seen[et / 64] |= (uint64_t)1 << (et % 64);
		left -= el;
		switch (et) {
		case EXT_SERVER_NAME:
			if (!parse_sni(&r, el, out))
				goto out;
			have_sni = true;
			break;
		case EXT_ALPN:
			if (!parse_alpn(&r, el))
				goto out;
			out->flags |= PROXY_TLS_ALPN;
			break;
		case EXT_SUPPORTED_VERSIONS:
			if (!parse_versions(&r, el, &out->flags))
				goto out;
			break;
		case EXT_EARLY_DATA:
			/* RFC 8446 §4.2.10: empty in a ClientHello. */
			if (el != 0) {
				r.st = SNIFF_MALFORMED;
				goto out;
			}
			out->flags |= PROXY_TLS_EARLY_DATA;
			break;
		case EXT_ECH:
			out->flags |= PROXY_TLS_ECH;
			if (!rd(&r, NULL, el))
				goto out;
			break;
		case EXT_PRE_SHARED_KEY:
			psk_seen = true;
			if (!rd(&r, NULL, el))
				goto out;
			break;
		default:
			if (!rd(&r, NULL, el))
				goto out;
			break;
		}
	}
done:
	/* The message is whole.  Bytes left in its last record would be a
	 * second handshake message, which a client does not send before the
	 * ServerHello; they are not looked at. */
	out->wire_len = r.pos;
	return have_sni ? SNIFF_OK : SNIFF_NO_SNI;
out:
	return r.st;
}
