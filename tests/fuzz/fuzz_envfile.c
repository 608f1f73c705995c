/* tests/fuzz/fuzz_envfile.c: policy_envfile_next() over a whole --env-file
 * buffer.  Checks that it always ends, always advances, and that every span
 * is a valid name and a one-line value inside the input. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "policy/options.h"
#include "policy/textparse.h"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t pos = 0, line = 0, prev_line = 0;
	struct policy_span key, value;

	for (;;) {
		size_t before = pos;
		enum policy_envfile_status st =
			policy_envfile_next(data, size, &pos, &line, &key, &value);
		if (pos > size)
			abort();
		if (st == POLICY_ENVFILE_END) {
			if (pos != size && size != 0)
				abort(); /* END before the input was consumed */
			break;
		}
		if (pos <= before || line <= prev_line)
			abort(); /* no progress */
		prev_line = line;
		if (st == POLICY_ENVFILE_MALFORMED)
			continue;
		if (st != POLICY_ENVFILE_LINE)
			abort();
		if (key.p < data + before || key.p + key.n > data + pos ||
		    value.p + value.n > data + pos || value.p != key.p + key.n + 1)
			abort();
		if (!policy_env_name_valid((const char *)key.p, key.n) || key.p[key.n] != '=')
			abort();
		if (memchr(value.p, '\n', value.n) || memchr(value.p, '\0', value.n))
			abort();
		if (value.n && value.p[value.n - 1] == '\r' && value.p + value.n < data + size &&
		    value.p[value.n] != '\r')
			abort(); /* the trailing "\r" of a CRLF line stays out of the value */
	}
	return 0;
}
