/* tests/fuzz/fuzz_proc_net_unix.c: policy_parse_proc_net_unix_line() on each
 * line of the input (split at '\n', each line copied to an exact-size buffer
 * so a read past its end is an ASan report). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "policy/textparse.h"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t start = 0;

	while (start <= size) {
		const uint8_t *nl = memchr(data + start, '\n', size - start);
		size_t end = nl ? (size_t)(nl - data) : size;
		size_t len = end - start;
		uint8_t *line = malloc(len ? len : 1);
		if (!line)
			abort();
		memcpy(line, data + start, len);
		struct policy_span path = { NULL, 0 };
		int listening = -1;
		enum policy_unix_status st = policy_parse_proc_net_unix_line(line, len, &path,
									     &listening);
		if (st == POLICY_UNIX_OK) {
			if (path.n == 0 || path.p < line || path.p + path.n != line + len)
				abort(); /* the path is the rest of the line */
			if (path.p[0] != '/' || memchr(path.p, '\0', path.n))
				abort();
			if (path.p == line || path.p[-1] != ' ')
				abort();
		}
		if (st == POLICY_UNIX_OK || st == POLICY_UNIX_NO_PATH) {
			if (listening != 0 && listening != 1)
				abort();
			if (len < 2 || memchr(line, ':', len) == NULL)
				abort();
		} else if (st != POLICY_UNIX_MALFORMED) {
			abort();
		}
		free(line);
		if (!nl)
			break;
		start = end + 1;
	}
	return 0;
}
