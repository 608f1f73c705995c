/* tests/fuzz/fuzz_socks5.c: the SOCKS5 greeting, then the request behind
 * it (wire/socks5.h), with the invariants checked: lengths inside the
 * input, a CONNECT name without NUL, CR or LF, no prefix deciding
 * differently from the whole, and a reply built from a parsed address
 * parsing back as that address. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "wire/socks5.h"
#include "tests/fuzz/fuzz.h"

static void check_request(const uint8_t *data, size_t size)
{
	struct proxy_socks5_request r, r2;
	enum proxy_socks5_status st = proxy_socks5_parse_request(data, size, &r), st2;

	switch (st) {
	case PROXY_SOCKS5_OK: {
		if (r.len < 8 || r.len > size || r.cmd != PROXY_SOCKS5_CMD_CONNECT ||
		    r.dst.port == 0)
			abort();
		if (r.dst.atyp == PROXY_SOCKS5_ATYP_DOMAIN) {
			if (r.dst.name.p != data + 5 || r.dst.name.n < 1 || r.dst.name.n > 255 ||
			    5 + r.dst.name.n + 2 != r.len)
				abort();
			for (size_t k = 0; k < r.dst.name.n; k++) {
				uint8_t c = r.dst.name.p[k];
				if (c == '\0' || c == '\r' || c == '\n')
					abort();
			}
		} else if (r.dst.atyp == PROXY_SOCKS5_ATYP_IPV4) {
			if (r.len != 10 || r.dst.name.n != 0)
				abort();
		} else if (r.dst.atyp == PROXY_SOCKS5_ATYP_IPV6) {
			if (r.len != 22 || r.dst.name.n != 0)
				abort();
		} else {
			abort();
		}
		if (proxy_socks5_parse_request(data, r.len - 1, &r2) != PROXY_SOCKS5_NEED_MORE)
			abort();
		/* round trip: the reply for this address, as a request, is it */
		uint8_t out[PROXY_SOCKS5_REPLY_MAX];
		size_t n = proxy_socks5_build_reply(out, sizeof(out), 0, &r.dst);
		if (n != r.len)
			abort();
		out[1] = PROXY_SOCKS5_CMD_CONNECT;
		if (proxy_socks5_parse_request(out, n, &r2) != PROXY_SOCKS5_OK ||
		    r2.dst.atyp != r.dst.atyp || r2.dst.port != r.dst.port ||
		    memcmp(r2.dst.ip, r.dst.ip, 16) != 0 || r2.dst.name.n != r.dst.name.n ||
		    (r.dst.name.n && memcmp(r2.dst.name.p, r.dst.name.p, r.dst.name.n) != 0))
			abort();
		if (proxy_socks5_reply_code(st) != PROXY_SOCKS5_REP_SUCCEEDED)
			abort();
		break;
	}
	case PROXY_SOCKS5_NEED_MORE:
		if (size >= 4 + 1 + 255 + 2)
			abort();
		break;
	case PROXY_SOCKS5_MALFORMED:
	case PROXY_SOCKS5_CMD_UNSUPPORTED:
	case PROXY_SOCKS5_ATYP_UNSUPPORTED:
	case PROXY_SOCKS5_NAME_REFUSED:
		if (proxy_socks5_reply_code(st) == PROXY_SOCKS5_REP_SUCCEEDED)
			abort();
		break;
	default:
		abort(); /* NOT_SOCKS5 and NO_METHOD are the greeting's */
	}
	if (size > 0) {
		st2 = proxy_socks5_parse_request(data, size / 2, &r2);
		if (st2 != PROXY_SOCKS5_NEED_MORE && st2 != st)
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t glen = 0, g2;
	enum proxy_socks5_status st = proxy_socks5_parse_greeting(data, size, &glen);

	switch (st) {
	case PROXY_SOCKS5_OK:
	case PROXY_SOCKS5_NO_METHOD:
		if (glen < 3 || glen > size || glen != 2 + (size_t)data[1])
			abort();
		if ((st == PROXY_SOCKS5_OK) != (memchr(data + 2, 0, glen - 2) != NULL))
			abort();
		if (proxy_socks5_parse_greeting(data, glen - 1, &g2) != PROXY_SOCKS5_NEED_MORE)
			abort();
		check_request(data + glen, size - glen);
		break;
	case PROXY_SOCKS5_NEED_MORE:
		if (size >= 2 + 255)
			abort();
		break;
	case PROXY_SOCKS5_NOT_SOCKS5:
	case PROXY_SOCKS5_MALFORMED:
		break;
	default:
		abort();
	}
	/* every input is also tried as a request on its own */
	check_request(data, size);
	return 0;
}
