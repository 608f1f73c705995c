/* tests/fuzz/fuzz_http_response.c: the response framer
 * (wire/http_response.h) run over a server's stream as a terminating relay
 * runs it.  The first byte chooses the piece size; each of the next bytes
 * up to a '|' is a request the stream answers ('H' HEAD, 'C' CONNECT,
 * anything else an ordinary request).  Checked: every answer's byte count
 * stays inside what was handed over, a head ends in its empty line and
 * parses alone to the same status and length, the pieces end exactly where
 * the whole does (same bytes, same heads, same answer, same state), a
 * prefix of what passed never refuses, and the queue of unanswered requests
 * never grows. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "wire/http_response.h"
#include "tests/fuzz/fuzz.h"

struct result {
	enum proxy_hr_status end;
	enum proxy_hr_state state;
	size_t passed, heads;
	unsigned pending;
	uint64_t digest; /* every head's status and position */
};

static struct result run(const uint8_t *reqs, size_t nreqs, const uint8_t *data, size_t size,
			 size_t step)
{
	struct proxy_http_responses s;
	struct result r = { .end = PROXY_HR_NEED_MORE };
	size_t avail = step ? (step < size ? step : size) : size;

	proxy_http_responses_init(&s);
	for (size_t i = 0; i < nreqs; i++) {
		enum proxy_hr_request q = reqs[i] == 'H' ? PROXY_HR_REQUEST_HEAD :
					  reqs[i] == 'C' ? PROXY_HR_REQUEST_CONNECT : PROXY_HR_REQUEST;
		if (proxy_http_responses_expect(&s, q) != (i < PROXY_HR_PENDING_MAX))
			abort();
	}
	for (;;) {
		struct proxy_http_response h;
		size_t used = 0, n = avail - r.passed;
		unsigned before = s.count;
		enum proxy_hr_status st = proxy_http_responses_feed(&s, data + r.passed, n, &used, &h);
		switch (st) {
		case PROXY_HR_PASS:
			if (used == 0 || used > n)
				abort();
			r.passed += used;
			continue;
		case PROXY_HR_HEAD: {
			if (used != h.head_len || used > n || used < 16 ||
			    memcmp(data + r.passed + used - 4, "\r\n\r\n", 4) != 0)
				abort();
			struct proxy_http_response alone;
			if (proxy_http_parse_response(data + r.passed, used, &alone) != PROXY_HTTP_OK ||
			    alone.status != h.status || alone.head_len != used)
				abort();
			r.digest = r.digest * 1000003 + (uint64_t)h.status * 65537 + r.passed;
			proxy_http_responses_accept(&s, &h);
			if (s.count > before)
				abort();
			r.heads++;
			r.passed += used;
			continue;
		}
		case PROXY_HR_NEED_MORE:
			if (used != 0)
				abort();
			if (avail < size) {
				avail = avail + step < size ? avail + step : size;
				continue;
			}
			break;
		default:
			if (used != 0)
				abort();
			break;
		}
		r.end = st;
		r.state = s.state;
		r.pending = s.count;
		return r;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size == 0)
		return 0;
	size_t step = (size_t)data[0] % 67 + 1;
	data++;
	size--;
	const uint8_t *bar = memchr(data, '|', size < 64 ? size : 64);
	size_t nreqs = bar ? (size_t)(bar - data) : 0;
	const uint8_t *reqs = data;
	if (bar) {
		data = bar + 1;
		size -= nreqs + 1;
	}
	struct result whole = run(reqs, nreqs, data, size, 0);
	struct result pieces = run(reqs, nreqs, data, size, step);
	if (whole.passed > size || whole.end != pieces.end || whole.passed != pieces.passed ||
	    whole.heads != pieces.heads || whole.digest != pieces.digest ||
	    whole.state != pieces.state || whole.pending != pieces.pending)
		abort();
	if (whole.end != PROXY_HR_NEED_MORE && whole.passed > 0) {
		struct result cut = run(reqs, nreqs, data, whole.passed, 0);
		if (cut.end != PROXY_HR_NEED_MORE || cut.passed != whole.passed)
			abort();
	}
	return 0;
}
