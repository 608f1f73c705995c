/* wire/socks5.c: SOCKS5 greeting, request and replies (socks5.h). */
#include "wire/socks5.h"

#include <stdbool.h>
#include <string.h>

#include "wire/cursor.h"

/* A cursor failure as an answer: a byte still to come is NEED_MORE (the
 * stream cursor has no declared end, so nothing else can fail). */
static enum proxy_socks5_status short_or(const struct wire_cursor *c, enum proxy_socks5_status st)
{
	return c->st == WIRE_SHORT ? PROXY_SOCKS5_NEED_MORE : st;
}

enum proxy_socks5_status proxy_socks5_parse_greeting(const uint8_t *buf, size_t len,
						     size_t *greeting_len)
{
	struct wire_cursor c = wire_stream(buf, len);
	const uint8_t *methods;
	uint8_t ver, n;

	if (!wire_u8(&c, &ver))
		return short_or(&c, PROXY_SOCKS5_MALFORMED);
	if (ver != PROXY_SOCKS5_VERSION)
		return PROXY_SOCKS5_NOT_SOCKS5;
	if (!wire_u8(&c, &n))
		return short_or(&c, PROXY_SOCKS5_MALFORMED);
	/* RFC 1928 §3: NMETHODS is 1 to 255. */
	if (n == 0)
		return PROXY_SOCKS5_MALFORMED;
	if (!wire_take(&c, n, &methods))
		return short_or(&c, PROXY_SOCKS5_MALFORMED);
	*greeting_len = c.pos;
	if (memchr(methods, PROXY_SOCKS5_METHOD_NONE, n))
		return PROXY_SOCKS5_OK;
	return PROXY_SOCKS5_NO_METHOD;
}

static bool name_byte_ok(uint8_t c)
{
	return c != '\0' && c != '\r' && c != '\n';
}

enum proxy_socks5_status proxy_socks5_parse_request(const uint8_t *buf, size_t len,
						    struct proxy_socks5_request *out)
{
	struct wire_cursor c = wire_stream(buf, len);
	uint8_t ver, cmd, rsv, atyp, n;

	memset(out, 0, sizeof(*out));
	/* RFC 1928 §4, checked byte by byte as the bytes arrive. */
	if (!wire_u8(&c, &ver))
		return short_or(&c, PROXY_SOCKS5_MALFORMED);
	if (ver != PROXY_SOCKS5_VERSION)
		return PROXY_SOCKS5_MALFORMED;
	if (!wire_u8(&c, &cmd))
		return short_or(&c, PROXY_SOCKS5_MALFORMED);
	if (cmd != PROXY_SOCKS5_CMD_CONNECT)
		return PROXY_SOCKS5_CMD_UNSUPPORTED; /* BIND and UDP ASSOCIATE included */
	if (!wire_u8(&c, &rsv))
		return short_or(&c, PROXY_SOCKS5_MALFORMED);
	if (rsv != 0)
		return PROXY_SOCKS5_MALFORMED;
	if (!wire_u8(&c, &atyp))
		return short_or(&c, PROXY_SOCKS5_MALFORMED);
	out->cmd = cmd;
	out->dst.atyp = atyp;
	switch (atyp) {
	case PROXY_SOCKS5_ATYP_IPV4:
		if (!wire_copy(&c, out->dst.ip, 4))
			return short_or(&c, PROXY_SOCKS5_MALFORMED);
		break;
	case PROXY_SOCKS5_ATYP_IPV6:
		if (!wire_copy(&c, out->dst.ip, 16))
			return short_or(&c, PROXY_SOCKS5_MALFORMED);
		break;
	case PROXY_SOCKS5_ATYP_DOMAIN: {
		if (!wire_u8(&c, &n))
			return short_or(&c, PROXY_SOCKS5_MALFORMED);
		if (n == 0)
			return PROXY_SOCKS5_MALFORMED;
		/* A name is refused at its first NUL, CR or LF even before it
		 * is whole: whatever follows, it could be logged or compared
		 * as two different strings (escape corpus row 36). */
		struct wire_cursor name = c;
		if (wire_take_while(&name, name_byte_ok, n, NULL) < n && wire_avail(&name) > 0)
			return PROXY_SOCKS5_NAME_REFUSED;
		if (!wire_take(&c, n, &out->dst.name.p))
			return short_or(&c, PROXY_SOCKS5_MALFORMED);
		out->dst.name.n = n;
		break;
	}
	default:
		return PROXY_SOCKS5_ATYP_UNSUPPORTED;
	}
	if (!wire_u16(&c, &out->dst.port))
		return short_or(&c, PROXY_SOCKS5_MALFORMED);
	if (out->dst.port == 0)
		return PROXY_SOCKS5_MALFORMED; /* nothing listens on port 0 */
	out->len = c.pos;
	return PROXY_SOCKS5_OK;
}

uint8_t proxy_socks5_reply_code(enum proxy_socks5_status st)
{
	switch (st) {
	case PROXY_SOCKS5_OK:
		return PROXY_SOCKS5_REP_SUCCEEDED;
	case PROXY_SOCKS5_CMD_UNSUPPORTED:
		return PROXY_SOCKS5_REP_CMD_UNSUPPORTED;
	case PROXY_SOCKS5_ATYP_UNSUPPORTED:
		return PROXY_SOCKS5_REP_ATYP_UNSUPPORTED;
	case PROXY_SOCKS5_NAME_REFUSED:
		/* The same answer a name the policy refuses gets. */
		return PROXY_SOCKS5_REP_NOT_ALLOWED;
	case PROXY_SOCKS5_NEED_MORE:
	case PROXY_SOCKS5_NOT_SOCKS5:
	case PROXY_SOCKS5_MALFORMED:
	case PROXY_SOCKS5_NO_METHOD:
		break;
	}
	return PROXY_SOCKS5_REP_GENERAL_FAILURE;
}

size_t proxy_socks5_build_method(uint8_t *out, size_t cap, uint8_t method)
{
	if (cap < 2)
		return 0;
	out[0] = PROXY_SOCKS5_VERSION;
	out[1] = method;
	return 2;
}

size_t proxy_socks5_build_reply(uint8_t *out, size_t cap, uint8_t rep,
				const struct proxy_socks5_addr *bnd)
{
	static const struct proxy_socks5_addr zero = { .atyp = PROXY_SOCKS5_ATYP_IPV4 };
	size_t alen, n;

	if (!bnd)
		bnd = &zero;
	switch (bnd->atyp) {
	case PROXY_SOCKS5_ATYP_IPV4:
		alen = 4;
		break;
	case PROXY_SOCKS5_ATYP_IPV6:
		alen = 16;
		break;
	case PROXY_SOCKS5_ATYP_DOMAIN:
		if (bnd->name.n < 1 || bnd->name.n > 255 || !bnd->name.p)
			return 0;
		alen = 1 + bnd->name.n;
		break;
	default:
		return 0;
	}
	n = 4 + alen + 2;
	if (cap < n)
		return 0;
	out[0] = PROXY_SOCKS5_VERSION;
	out[1] = rep;
	out[2] = 0;
	out[3] = bnd->atyp;
	if (bnd->atyp == PROXY_SOCKS5_ATYP_DOMAIN) {
		out[4] = (uint8_t)bnd->name.n;
		memcpy(out + 5, bnd->name.p, bnd->name.n);
	} else {
		memcpy(out + 4, bnd->ip, alen);
	}
	out[4 + alen] = (uint8_t)(bnd->port >> 8);
	out[4 + alen + 1] = (uint8_t)(bnd->port & 0xff);
	return n;
}
