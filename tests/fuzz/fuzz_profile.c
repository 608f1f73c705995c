/* tests/fuzz/fuzz_profile.c: policy_profile_parse() over a whole profile,
 * then policy_profile_merge() of it with a small command line, then
 * policy_parse_args() of the merge.  Checks that every word lies inside
 * the profile's text and is NUL-terminated there, that line numbers never
 * go down, that an error is one printable line starting "line N: ", and
 * that a profile the parser accepts merges into a command line whose every
 * option word came from the profile or the command line. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "policy/options.h"
#include "policy/profile.h"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct policy_profile p;
	char err[POLICY_ERR_MAX];

	if (policy_profile_parse(data, size, "/home/fuzz", &p, err) != POLICY_PROFILE_OK) {
		if (strncmp(err, "line ", 5) != 0 || !strchr(err, ':'))
			abort();
		for (const char *c = err; *c; c++)
			if ((unsigned char)*c < 0x20 || *c == 0x7f)
				abort();
		return 0;
	}
	unsigned last = 0;
	for (size_t i = 0; i < p.n; i++) {
		if (p.word[i] >= sizeof(p.text) || !memchr(p.text + p.word[i], '\0',
							   sizeof(p.text) - p.word[i]))
			abort();
		if (p.line[i] < last)
			abort();
		last = p.line[i];
	}
	char *argv[] = { "porta", "run", "--timeout", "5", "-v", "/x", "--", "true", NULL };
	const struct policy_profile *const profiles[] = { &p };
	static char *out[POLICY_PROFILE_WORDS_MAX + 16];
	static struct policy_origin origin[POLICY_PROFILE_WORDS_MAX + 16];
	int n;
	if (!policy_profile_merge(8, argv, 7, profiles, 1, out, origin,
				  sizeof(out) / sizeof(out[0]), &n))
		abort(); /* room was given for every word */
	if (n < 4 || out[n] != NULL || strcmp(out[n - 1], "true") != 0)
		abort();
	for (int i = 0; i < n; i++) {
		if (origin[i].profile == 0 &&
		    (out[i] < p.text || out[i] >= p.text + sizeof(p.text)))
			abort();
	}
	struct policy_options o;
	(void)policy_parse_args(n, out, &o, err); /* may refuse a combination */
	return 0;
}
