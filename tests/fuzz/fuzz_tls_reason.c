/* tests/fuzz/fuzz_tls_reason.c: the words porta gives for a failed TLS
 * handshake (tls/verify.h), from a certificate an upstream server chose and
 * the codes mbedtls reported.  Input: cap (1 byte), verify flags (4), error
 * (2), alert (1), bits (1: facing_client, no_sni, unknown_name), host
 * length (1) and host, then a DER certificate.  When mbedtls parses the
 * certificate, its names are listed into a buffer of that cap, and the
 * reason is formatted into one too: every output stays inside its cap, is
 * NUL-terminated where the answer says, and is printable ASCII (it goes to
 * stderr and into a 502 body). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <mbedtls/x509_crt.h>

#include "tls/verify.h"
#include "tests/fuzz/fuzz.h"

static void check_text(const char *out, size_t n, size_t cap)
{
	if (cap == 0) {
		if (n != 0)
			abort();
		return;
	}
	if (n >= cap || out[n] != '\0' || strlen(out) != n)
		abort();
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)out[i] < 0x20 || (unsigned char)out[i] > 0x7e)
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 11)
		return 0;
	size_t cap = data[0] % (TLS_REASON_MAX + 1);
	struct tls_failure f = {0};
	memcpy(&f.verify_flags, data + 1, 4);
	f.err = -(int)(((unsigned)data[5] << 8 | data[6]) & 0x7fff);
	f.alert = data[7] == 0xff ? -1 : data[7];
	f.facing_client = data[8] & 1;
	f.no_sni = data[8] & 2;
	f.unknown_name = data[8] & 4;
	size_t hl = data[9];
	data += 10;
	size -= 10;
	if (hl > size)
		hl = size;
	if (hl >= sizeof(f.host))
		hl = sizeof(f.host) - 1;
	memcpy(f.host, data, hl); /* may hold NULs: the struct's string ends at the first */
	data += hl;
	size -= hl;

	mbedtls_x509_crt crt;
	mbedtls_x509_crt_init(&crt);
	if (mbedtls_x509_crt_parse_der(&crt, data, size) == 0) {
		char names[TLS_NAMES_MAX + 1];
		size_t ncap = cap < sizeof(names) ? cap : sizeof(names);
		memset(names, 'Z', sizeof(names));
		size_t n = tls_leaf_names(&crt, names, ncap);
		check_text(names, n, ncap);
		if (ncap < sizeof(names) && names[ncap] != 'Z')
			abort();
		tls_leaf_names(&crt, f.names, sizeof(f.names));
		check_text(f.names, strlen(f.names), sizeof(f.names));
	}
	mbedtls_x509_crt_free(&crt);

	char out[TLS_REASON_MAX + 1];
	memset(out, 'Z', sizeof(out));
	size_t n = tls_failure_reason(&f, out, cap);
	check_text(out, n, cap);
	if (out[cap] != 'Z')
		abort();
	return 0;
}
