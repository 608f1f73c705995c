/* tests/fuzz/fuzz_gitfile.c: policy_parse_gitfile() on the whole input. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "policy/textparse.h"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct policy_span d = { NULL, 0 };
	enum policy_gitfile_status st = policy_parse_gitfile(data, size, &d);

	if (st == POLICY_GITFILE_OK) {
		if (size < 9 || memcmp(data, "gitdir: ", 8) != 0)
			abort();
		if (d.p != data + 8 || d.n == 0 || d.n > size - 8)
			abort();
		if (memchr(d.p, '\0', d.n))
			abort();
		/* only trailing newlines or what follows a NUL were left out */
		for (size_t i = 8 + d.n; i < size; i++) {
			if (data[i] == '\0')
				break;
			if (data[i] != '\n' && data[i] != '\r')
				abort();
		}
	} else if (st != POLICY_GITFILE_MALFORMED) {
		abort();
	} else if (size >= 9 && memcmp(data, "gitdir: ", 8) == 0 && data[8] != '\0' &&
		   data[8] != '\n' && data[8] != '\r') {
		abort(); /* a path's first byte is there: git would take it */
	}
	return 0;
}
