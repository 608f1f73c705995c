/* tests/fuzz/fuzz_paths.c: policy_path_normalize() and policy_path_is_under()
 * on the input split at NUL bytes: BASE \0 PATH \0 DIR.  Checks that a result
 * is a normalised absolute path, that normalising is idempotent, that a small
 * buffer gives 0 rather than a cut path, and that is_under agrees with a
 * component-wise prefix test. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "policy/paths.h"
#include "tests/fuzz/fuzz.h"

static int is_normal(const char *p, size_t n)
{
	if (n == 0 || p[0] != '/' || strlen(p) != n)
		return 0;
	if (n == 1)
		return 1;
	if (p[n - 1] == '/')
		return 0;
	for (size_t i = 0; i < n;) {
		size_t s = ++i;
		while (i < n && p[i] != '/')
			i++;
		size_t cl = i - s;
		if (cl == 0 || (cl == 1 && p[s] == '.') || (cl == 2 && p[s] == '.' && p[s + 1] == '.'))
			return 0;
	}
	return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 4096)
		return 0;
	const uint8_t *z1 = memchr(data, '\0', size);
	if (!z1)
		return 0;
	size_t bl = (size_t)(z1 - data);
	const uint8_t *rest = z1 + 1;
	size_t rl = size - bl - 1;
	const uint8_t *z2 = memchr(rest, '\0', rl);
	size_t pl = z2 ? (size_t)(z2 - rest) : rl;

	char *base = malloc(bl + 1);
	char *path = malloc(pl ? pl : 1); /* exact size, no NUL: len bounds the read */
	if (!base || !path)
		abort();
	memcpy(base, data, bl);
	base[bl] = '\0';
	memcpy(path, rest, pl);

	char out[512], again[512], small[512];
	size_t n = policy_path_normalize(base, path, pl, out, sizeof(out));
	if (n) {
		if (!is_normal(out, n))
			abort();
		if (policy_path_normalize("/unused", out, n, again, sizeof(again)) != n ||
		    strcmp(out, again) != 0)
			abort();
		if (!policy_path_is_under(out, out) || !policy_path_is_under("/", out))
			abort();
		/* never a cut path: any smaller buffer gives 0 or the same result */
		size_t cap = (size_t)data[size - 1] % (n + 1);
		size_t m = policy_path_normalize(base, path, pl, small, cap);
		if (m && (m != n || strcmp(small, out) != 0))
			abort();
		if (cap <= n && m)
			abort(); /* it cannot fit n bytes and the NUL */
	}

	if (z2 && n) {
		const uint8_t *d = z2 + 1;
		size_t dl = size - (size_t)(d - data);
		char *dir = malloc(dl ? dl : 1);
		if (!dir)
			abort();
		memcpy(dir, d, dl);
		char dn[512];
		size_t dnl = policy_path_normalize("/", dir, dl, dn, sizeof(dn));
		if (dnl) {
			bool under = policy_path_is_under(dn, out);
			bool want = (dnl == 1) ||
				    (strncmp(dn, out, dnl) == 0 && (out[dnl] == '\0' || out[dnl] == '/'));
			if (under != want)
				abort();
			if (under && policy_path_is_under(out, dn) && strcmp(out, dn) != 0)
				abort(); /* under each other only when equal */
		}
		free(dir);
	}
	free(base);
	free(path);
	return 0;
}
