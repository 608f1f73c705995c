/* wire/socks5.c: SOCKS5 greeting, request and replies (socks5.h). */
#include "wire/socks5.h"

#include <string.h>

enum proxy_socks5_status proxy_socks5_parse_greeting(const uint8_t *buf, size_t len,
						     size_t *greeting_len)
{
	if (len < 1)
		return PROXY_SOCKS5_NEED_MORE;
	if (buf[0] != PROXY_SOCKS5_VERSION)
		return PROXY_SOCKS5_NOT_SOCKS5;
	if (len < 2)
		return PROXY_SOCKS5_NEED_MORE;
	size_t n = buf[1];
	/* RFC 1928 §3: NMETHODS is 1 to 255. */
	if (n == 0)
		return PROXY_SOCKS5_MALFORMED;
	if (len < 2 + n)
		return PROXY_SOCKS5_NEED_MORE;
	*greeting_len = 2 + n;
	if (memchr(buf + 2, PROXY_SOCKS5_METHOD_NONE, n))
		return PROXY_SOCKS5_OK;
	return PROXY_SOCKS5_NO_METHOD;
}

enum proxy_socks5_status proxy_socks5_parse_request(const uint8_t *buf, size_t len,
						    struct proxy_socks5_request *out)
{
	size_t i;

	memset(out, 0, sizeof(*out));
	/* RFC 1928 §4, checked byte by byte as the bytes arrive. */
	if (len < 1)
		return PROXY_SOCKS5_NEED_MORE;
	if (buf[0] != PROXY_SOCKS5_VERSION)
		return PROXY_SOCKS5_MALFORMED;
	if (len < 2)
		return PROXY_SOCKS5_NEED_MORE;
	if (buf[1] != PROXY_SOCKS5_CMD_CONNECT)
		return PROXY_SOCKS5_CMD_UNSUPPORTED; /* BIND and UDP ASSOCIATE included */
	if (len < 3)
		return PROXY_SOCKS5_NEED_MORE;
	if (buf[2] != 0)
		return PROXY_SOCKS5_MALFORMED;
	if (len < 4)
		return PROXY_SOCKS5_NEED_MORE;
	out->cmd = buf[1];
	out->dst.atyp = buf[3];
	switch (buf[3]) {
	case PROXY_SOCKS5_ATYP_IPV4:
		if (len < 4 + 4)
			return PROXY_SOCKS5_NEED_MORE;
		memcpy(out->dst.ip, buf + 4, 4);
		i = 8;
		break;
	case PROXY_SOCKS5_ATYP_IPV6:
		if (len < 4 + 16)
			return PROXY_SOCKS5_NEED_MORE;
		memcpy(out->dst.ip, buf + 4, 16);
		i = 20;
		break;
	case PROXY_SOCKS5_ATYP_DOMAIN: {
		if (len < 5)
			return PROXY_SOCKS5_NEED_MORE;
		size_t n = buf[4];
		if (n == 0)
			return PROXY_SOCKS5_MALFORMED;
		/* A name is refused at its first NUL, CR or LF even before it
		 * is whole: whatever follows, it could be logged or compared
		 * as two different strings (escape corpus row 36). */
		size_t have = len - 5 < n ? len - 5 : n;
		for (size_t k = 0; k < have; k++) {
			uint8_t c = buf[5 + k];
			if (c == '\0' || c == '\r' || c == '\n')
				return PROXY_SOCKS5_NAME_REFUSED;
		}
		if (have < n)
			return PROXY_SOCKS5_NEED_MORE;
		out->dst.name.p = buf + 5;
		out->dst.name.n = n;
		i = 5 + n;
		break;
	}
	default:
		return PROXY_SOCKS5_ATYP_UNSUPPORTED;
	}
	if (len < i + 2)
		return PROXY_SOCKS5_NEED_MORE;
	out->dst.port = (uint16_t)(buf[i] << 8 | buf[i + 1]);
	if (out->dst.port == 0)
		return PROXY_SOCKS5_MALFORMED; /* nothing listens on port 0 */
	out->len = i + 2;
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
