/* tests/fuzz/fuzz_tls_clienthello.c: proxy_sniff_tls() on the whole input,
 * with the invariants of wire/sniff.h checked: the name is 1..255 bytes
 * without NUL, the hello lies inside the input, bytes after it change
 * nothing, a shorter prefix never decides differently, and the same hello
 * cut into smaller records reads the same. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "wire/sniff.h"
#include "tests/fuzz/fuzz.h"

static uint8_t reframed[PROXY_TLS_WIRE_MAX];

static void same(enum proxy_sniff_status a, const struct proxy_tls_hello *ha,
		 enum proxy_sniff_status b, const struct proxy_tls_hello *hb)
{
	if (a != b)
		abort();
	if (a == SNIFF_OK || a == SNIFF_NO_SNI) {
		if (ha->flags != hb->flags || ha->sni_len != hb->sni_len ||
		    ha->legacy_version != hb->legacy_version || strcmp(ha->sni, hb->sni) != 0)
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct proxy_tls_hello h, h2;
	enum proxy_sniff_status st = proxy_sniff_tls(data, size, &h), st2;

	switch (st) {
	case SNIFF_OK:
		if (h.sni_len < 1 || h.sni_len > PROXY_TLS_SNI_MAX || strlen(h.sni) != h.sni_len)
			abort();
		/* fall through */
	case SNIFF_NO_SNI:
		if (st == SNIFF_NO_SNI && (h.sni[0] != '\0' || h.sni_len != 0))
			abort();
		if (h.wire_len < 5 + 4 + 38 || h.wire_len > size || h.wire_len > PROXY_TLS_WIRE_MAX)
			abort();
		if (data[0] != 22 || (h.legacy_version >> 8) != 3)
			abort();
		/* the hello ends at wire_len: what follows is not read, and one
		 * byte less is not enough */
		st2 = proxy_sniff_tls(data, h.wire_len, &h2);
		same(st, &h, st2, &h2);
		if (h2.wire_len != h.wire_len)
			abort();
		if (proxy_sniff_tls(data, h.wire_len - 1, &h2) != SNIFF_NEED_MORE)
			abort();
		break;
	case SNIFF_NEED_MORE:
		if (size >= PROXY_TLS_WIRE_MAX)
			abort(); /* the cap is a promise to the caller's buffer */
		break;
	case SNIFF_NOT_TLS:
		if (size == 0 || (data[0] == 22 && (size < 2 || data[1] == 3)))
			abort();
		break;
	case SNIFF_MALFORMED:
	case SNIFF_TOO_BIG:
		break;
	default:
		abort();
	}

	/* A prefix decides nothing other than the whole: once an answer is
	 * given, more bytes do not change it. */
	if (size > 0) {
		st2 = proxy_sniff_tls(data, size / 2, &h2);
		if (st2 != SNIFF_NEED_MORE)
			same(st2, &h2, st, &h);
		if (st == SNIFF_NEED_MORE &&
		    proxy_sniff_tls(data, size - 1, &h2) != SNIFF_NEED_MORE)
			abort();
	}

	/* A hello inside one record reads the same cut into records of 1..13
	 * bytes (RFC 8446 §5.1). */
	if ((st == SNIFF_OK || st == SNIFF_NO_SNI) && size >= 5) {
		size_t rl = (size_t)data[3] << 8 | data[4];
		size_t msg = h.wire_len - 5, frag = 1 + size % 13;
		if (5 + rl >= h.wire_len) {
			size_t w = 0;
			for (size_t i = 0; i < msg; i += frag) {
				size_t k = msg - i < frag ? msg - i : frag;
				if (w + 5 + k > sizeof(reframed)) {
					w = 0;
					break;
				}
				memcpy(reframed + w, "\x16\x03\x03", 3);
				reframed[w + 3] = (uint8_t)(k >> 8);
				reframed[w + 4] = (uint8_t)k;
				memcpy(reframed + w + 5, data + 5 + i, k);
				w += 5 + k;
			}
			if (w) {
				st2 = proxy_sniff_tls(reframed, w, &h2);
				same(st, &h, st2, &h2);
				if (h2.wire_len != w)
					abort();
			}
		}
	}
	return 0;
}
