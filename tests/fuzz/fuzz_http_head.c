/* tests/fuzz/fuzz_http_head.c: proxy_http_parse_head() and
 * proxy_parse_authority() on the whole input, with the invariants of
 * wire/sniff.h checked: spans inside the input, a head that ends in
 * CRLF CRLF without a bare LF or a NUL, a target form that fits the method,
 * and no prefix deciding differently from the whole. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "wire/sniff.h"
#include "tests/fuzz/fuzz.h"

static int inside(struct proxy_span s, const uint8_t *buf, size_t len)
{
	if (s.n == 0)
		return 1;
	return s.p >= buf && s.n <= len && (size_t)(s.p - buf) <= len - s.n;
}

static void check_authority(const uint8_t *p, size_t n, int port_required)
{
	struct proxy_authority a;
	if (proxy_parse_authority(p, n, port_required, &a) != PROXY_AUTHORITY_OK)
		return;
	if (!inside(a.host, p, n) || a.host.n == 0)
		abort();
	if (port_required && a.port == 0)
		abort();
	for (size_t k = 0; k < a.host.n; k++) {
		uint8_t c = a.host.p[k];
		if (c <= 0x20 || c >= 0x7f || c == '@' || c == '/' || (c == ':' && !a.ipv6))
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct proxy_http_head h, h2;
	enum proxy_http_status st = proxy_http_parse_head(data, size, &h), st2;

	check_authority(data, size, 0);
	check_authority(data, size, 1);

	switch (st) {
	case PROXY_HTTP_OK:
	case PROXY_HTTP_HOST_MISSING:
	case PROXY_HTTP_HOST_DUPLICATE:
		if (h.head_len < 16 || h.head_len > size || h.head_len > PROXY_HTTP_HEAD_MAX)
			abort();
		if (memcmp(data + h.head_len - 4, "\r\n\r\n", 4) != 0)
			abort();
		if (memchr(data, '\0', h.head_len))
			abort();
		for (size_t k = 0; k < h.head_len; k++) {
			if ((data[k] == '\n') != (k > 0 && data[k - 1] == '\r' && data[k] == '\n'))
				abort(); /* bare LF */
			if (data[k] == '\r' && (k + 1 >= h.head_len || data[k + 1] != '\n'))
				abort(); /* bare CR */
		}
		if (!inside(h.method, data, h.head_len) || !inside(h.target, data, h.head_len) ||
		    !inside(h.target_path, data, h.head_len) ||
		    !inside(h.host_value, data, h.head_len) ||
		    !inside(h.target_authority.host, data, h.head_len) ||
		    !inside(h.host.host, data, h.head_len))
			abort();
		if (h.method.p != data || h.method.n < 1 || h.method.n > PROXY_HTTP_METHOD_MAX ||
		    h.target.n < 1 || (h.version_minor != 0 && h.version_minor != 1))
			abort();
		for (size_t k = 0; k < h.target.n; k++) {
			if (h.target.p[k] < 0x21 || h.target.p[k] > 0x7e)
				abort();
		}
		if ((h.form == PROXY_HTTP_FORM_AUTHORITY) !=
		    (h.method.n == 7 && memcmp(h.method.p, "CONNECT", 7) == 0))
			abort();
		if (h.form == PROXY_HTTP_FORM_AUTHORITY && h.target_authority.port == 0)
			abort();
		if (h.form == PROXY_HTTP_FORM_ASTERISK &&
		    (h.method.n != 7 || memcmp(h.method.p, "OPTIONS", 7) != 0))
			abort();
		if ((h.form == PROXY_HTTP_FORM_ABSOLUTE || h.form == PROXY_HTTP_FORM_AUTHORITY) &&
		    h.target_authority.host.n == 0)
			abort();
		if (st == PROXY_HTTP_OK) {
			if (h.host.host.n == 0 || !inside(h.host.host, h.host_value.p, h.host_value.n))
				abort();
		} else if (h.host.host.n != 0) {
			abort();
		} else if (proxy_http_target_matches_host(&h)) {
			abort(); /* no Host, no match */
		}
		if ((h.flags & PROXY_HTTP_CONTENT_LENGTH) && (h.flags & PROXY_HTTP_TRANSFER_ENCODING))
			abort();
		(void)proxy_http_target_matches_host(&h);
		/* the body is not read, and one byte less is not a head */
		st2 = proxy_http_parse_head(data, h.head_len, &h2);
		if (st2 != st || h2.head_len != h.head_len || h2.header_count != h.header_count)
			abort();
		if (proxy_http_parse_head(data, h.head_len - 1, &h2) != PROXY_HTTP_NEED_MORE)
			abort();
		break;
	case PROXY_HTTP_NEED_MORE:
		if (size >= PROXY_HTTP_HEAD_MAX)
			abort();
		break;
	case PROXY_HTTP_TOO_BIG:
		if (size < PROXY_HTTP_HEAD_MAX)
			abort();
		break;
	case PROXY_HTTP_MALFORMED:
	case PROXY_HTTP_NOT_HTTP:
		break;
	default:
		abort();
	}

	/* once a prefix decides, the whole decides the same */
	if (size > 0) {
		st2 = proxy_http_parse_head(data, size / 2, &h2);
		if (st2 != PROXY_HTTP_NEED_MORE && st2 != st)
			abort();
		if (st == PROXY_HTTP_NEED_MORE &&
		    proxy_http_parse_head(data, size - 1, &h2) != PROXY_HTTP_NEED_MORE)
			abort();
	}
	return 0;
}
