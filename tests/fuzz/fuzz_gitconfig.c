/* tests/fuzz/fuzz_gitconfig.c: policy_gitconfig_user() over any file, and
 * policy_gitconfig_format() of what it read, read back: it always ends,
 * keys are lower-case names, and the written file gives back exactly the
 * variables read (what init writes as the sandbox's ~/.gitconfig says what
 * the host's said, no more). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "policy/gitconfig.h"
#include "tests/fuzz/fuzz.h"

#define CAP 8

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct policy_gitcfg_var vars[CAP], again[CAP];
	static char text[CAP * (2 * POLICY_GITCFG_VALUE_MAX + POLICY_GITCFG_KEY_MAX + 16) + 16];
	size_t n = 0, m = 0, line = 0;

	policy_gitconfig_user((const char *)data, size, vars, &n, CAP, &line);
	if (n > CAP)
		abort();
	for (size_t i = 0; i < n; i++) {
		const char *k = vars[i].key;
		if (!(k[0] >= 'a' && k[0] <= 'z'))
			abort();
		for (; *k; k++)
			if (!((*k >= 'a' && *k <= 'z') || (*k >= '0' && *k <= '9') || *k == '-'))
				abort();
	}
	size_t w = policy_gitconfig_format(vars, n, text, sizeof(text));
	if (w == 0 || w >= sizeof(text))
		abort(); /* the buffer holds any CAP variables */
	if (policy_gitconfig_user(text, w, again, &m, CAP, &line) != POLICY_GITCFG_OK || m != n)
		abort();
	for (size_t i = 0; i < n; i++)
		if (strcmp(vars[i].key, again[i].key) || strcmp(vars[i].value, again[i].value))
			abort();
	return 0;
}
