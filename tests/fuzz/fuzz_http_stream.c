/* tests/fuzz/fuzz_http_stream.c: the request framer (wire/http_stream.h)
 * run over the input as the relay runs it, whole and again in pieces whose
 * size the first byte chooses: every answer's byte count stays inside what
 * was handed over, a head is a head proxy_http_parse_head accepts, and the
 * pieces end exactly where the whole does (same bytes let through, same
 * heads, same final answer).  Every head is also forwarded as porta's HTTP
 * proxy forwards it (wire/http_forward.h): what goes upstream fits its
 * bound, parses again as an origin-form head with the same method and Host,
 * and carries none of the proxy's fields.  The pieces are run a third time
 * letting the bytes proxy_http_stream_unseen() names go unfed, as the
 * relay's gate lets a body go: the same end again. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "wire/http_forward.h"
#include "wire/http_stream.h"
#include "tests/fuzz/fuzz.h"

static bool has_field(const uint8_t *p, size_t n, const char *name)
{
	size_t k = strlen(name);
	for (size_t i = 0; i + k + 2 <= n; i++) {
		if (p[i] != '\n')
			continue;
		size_t j = 0;
		while (j < k && (p[i + 1 + j] | 0x20) == name[j])
			j++;
		if (j == k)
			return true;
	}
	return false;
}

static void forward_check(const uint8_t *buf, const struct proxy_http_head *h)
{
	static uint8_t out[PROXY_HTTP_HEAD_MAX * 2 + 256];
	size_t cap = proxy_http_forward_max(h);
	if (cap > sizeof(out))
		abort();
	bool close;
	size_t n = proxy_http_forward_head(buf, h, out, cap, &close);
	if (n == 0 || n > cap)
		abort();
	struct proxy_http_head again;
	enum proxy_http_status st = proxy_http_parse_head(out, n, &again);
	if (h->form == PROXY_HTTP_FORM_AUTHORITY)
		return; /* CONNECT: the relay refuses it on a forwarded stream */
	if (st != PROXY_HTTP_OK && st != PROXY_HTTP_HOST_MISSING && st != PROXY_HTTP_HOST_DUPLICATE)
		abort();
	if (again.head_len != n || again.form == PROXY_HTTP_FORM_ABSOLUTE ||
	    again.method.n != h->method.n || memcmp(again.method.p, h->method.p, h->method.n) ||
	    again.host_value.n != h->host_value.n ||
	    memcmp(again.host_value.p, h->host_value.p, h->host_value.n) ||
	    (again.flags & PROXY_HTTP_UPGRADE) || has_field(out, n, "proxy-") ||
	    has_field(out, n, "keep-alive:") ||
	    has_field(out, n, "connection:") != close)
		abort();
	struct proxy_http_head f = proxy_http_forward_framing(h);
	if (f.flags & PROXY_HTTP_UPGRADE)
		abort();
}

struct result {
	enum proxy_hs_status end;
	size_t passed, heads;
	uint64_t host_sum; /* a digest of every head's Host value and position */
};

static struct result run_skipping(const uint8_t *data, size_t size, size_t step, bool skip)
{
	struct proxy_http_stream s;
	struct result r = { PROXY_HS_NEED_MORE, 0, 0, 0 };
	size_t avail = step ? (step < size ? step : size) : size;

	proxy_http_stream_init(&s);
	for (;;) {
		struct proxy_http_head h;
		size_t used = 0, n = avail - r.passed;
		uint64_t unseen = skip ? proxy_http_stream_unseen(&s) : 0;
		if (unseen > 0 && n > 0) {
			size_t k = unseen < n ? (size_t)unseen : n;
			proxy_http_stream_skip(&s, k);
			r.passed += k;
			continue;
		}
		enum proxy_hs_status st = proxy_http_stream_feed(&s, data + r.passed, n, &used, &h);
		switch (st) {
		case PROXY_HS_PASS:
			if (used == 0 || used > n)
				abort();
			r.passed += used;
			continue;
		case PROXY_HS_HEAD:
			if (used != h.head_len || used > n || used < 16)
				abort();
			if (memcmp(data + r.passed + used - 4, "\r\n\r\n", 4) != 0)
				abort();
			if (h.host_value.n && (h.host_value.p < data + r.passed ||
					       h.host_value.p + h.host_value.n > data + r.passed + used))
				abort();
			for (size_t k = 0; k < h.host_value.n; k++)
				r.host_sum = r.host_sum * 31 + h.host_value.p[k];
			r.host_sum = r.host_sum * 31 + r.passed;
			forward_check(data + r.passed, &h);
			proxy_http_stream_accept(&s, &h);
			r.heads++;
			r.passed += used;
			continue;
		case PROXY_HS_NEED_MORE:
			if (used != 0)
				abort();
			if (avail < size) {
				avail = avail + step < size ? avail + step : size;
				continue;
			}
			r.end = st;
			return r;
		default:
			if (used != 0)
				abort();
			r.end = st;
			return r;
		}
	}
}

static struct result run(const uint8_t *data, size_t size, size_t step)
{
	return run_skipping(data, size, step, false);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size == 0)
		return 0;
	size_t step = (size_t)data[0] % 67 + 1;
	data++;
	size--;
	struct result whole = run(data, size, 0), pieces = run(data, size, step);
	struct result skipped = run_skipping(data, size, step, true);
	if (whole.passed > size || whole.end != pieces.end || whole.passed != pieces.passed ||
	    whole.heads != pieces.heads || whole.host_sum != pieces.host_sum)
		abort();
	if (skipped.end != whole.end || skipped.passed != whole.passed ||
	    skipped.heads != whole.heads || skipped.host_sum != whole.host_sum)
		abort();
	/* cut where the whole stopped passing: the prefix never refuses */
	if (whole.end != PROXY_HS_NEED_MORE && whole.passed > 0) {
		struct result cut = run(data, whole.passed, 0);
		if (cut.end != PROXY_HS_NEED_MORE || cut.passed != whole.passed)
			abort();
	}
	return 0;
}
