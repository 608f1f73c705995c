/* tests/fuzz/fuzz_secret_rule.c: --secret (policy/secret.h) and its
 * placeholder (policy/placeholder.h).  The input is "OPTION\nVALUE\nRANDOM":
 * OPTION through policy_secret_parse(); when it parses, VALUE as NAME's
 * value in an environment through policy_secret_check_env(); VALUE as a
 * real value with RANDOM's bytes through policy_placeholder_make().
 * Invariants: an accepted secret is sound (a valid NAME, 1 to MAX hosts,
 * none twice, each one host and one port) and its message is empty; a
 * refusal's message is one line; the environment's verdict and message do
 * not change when every visible byte of the value is changed (so no byte
 * of it is in the message); a placeholder has the documented length, tag,
 * separators and alphabet and never overlaps the value. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "policy/placeholder.h"
#include "policy/secret.h"
#include "tests/fuzz/fuzz.h"

static void check_line(const char *msg)
{
	for (const char *p = msg; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			abort();
}

static void check_secret(const struct policy_secret *s)
{
	if (!policy_secret_name_valid(s->name, strlen(s->name)))
		abort();
	if (s->n_hosts == 0 || s->n_hosts > POLICY_SECRET_MAX_HOSTS)
		abort();
	for (size_t i = 0; i < s->n_hosts; i++) {
		const struct policy_endpoint *h = &s->hosts[i];
		if (h->port == 0 || (!h->is_addr && h->name[0] == '\0') ||
		    (h->is_addr && h->name[0] != '\0'))
			abort();
		for (size_t j = 0; j < i; j++)
			if (policy_endpoint_equal(h, &s->hosts[j]))
				abort();
	}
}

/* ROT47 over visible ASCII: every such byte changes, no class changes */
static void rot47(char *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)v[i];
		if (c >= 0x21 && c <= 0x7e)
			v[i] = (char)(0x21 + (c - 0x21 + 47) % 94);
	}
}

static void check_env(const struct policy_secret *s, const uint8_t *val, size_t vn)
{
	static char m1[512], m2[512];
	size_t nl = strlen(s->name);
	char *e = malloc(nl + 1 + vn + 1);
	if (!e)
		abort();
	memcpy(e, s->name, nl);
	e[nl] = '=';
	memcpy(e + nl + 1, val, vn);
	e[nl + 1 + vn] = '\0';
	char *envp[] = { e, NULL };
	const char *values[1];

	enum policy_secret_status a = policy_secret_check_env(s, 1, envp, values, m1, sizeof(m1));
	if (a == POLICY_SECRET_OK) {
		if (values[0] != e + nl + 1 || m1[0])
			abort();
	} else if (!m1[0]) {
		abort();
	}
	check_line(m1);
	rot47(e + nl + 1, strlen(e + nl + 1));
	enum policy_secret_status b = policy_secret_check_env(s, 1, envp, values, m2, sizeof(m2));
	if (a != b || strcmp(m1, m2) != 0)
		abort();
	free(e);
}

static bool in_alpha(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static void check_placeholder(const uint8_t *val, size_t vn, const uint8_t *rnd, size_t rn)
{
	char *real = malloc(vn ? vn : 1), out[POLICY_SECRET_VALUE_MAX + POLICY_PLACEHOLDER_SHORT_LEN + 1];
	size_t len;
	if (!real)
		abort();
	memcpy(real, val, vn);
	if (vn > POLICY_SECRET_VALUE_MAX || memchr(real, '\0', vn)) {
		free(real);
		return;
	}
	size_t want = policy_placeholder_len(real, vn), pre = policy_placeholder_prefix_len(real, vn);
	enum policy_placeholder_status st =
		policy_placeholder_make(real, vn, rnd, rn, NULL, 0, out, sizeof(out), &len);
	if (vn == 0) {
		if (st != POLICY_PLACEHOLDER_EMPTY)
			abort();
	} else if (rn < want) {
		if (st != POLICY_PLACEHOLDER_SHORT_RANDOM)
			abort();
	} else if (st == POLICY_PLACEHOLDER_OK) {
		if (len != want || strlen(out) != len || pre > POLICY_PLACEHOLDER_PREFIX_MAX)
			abort();
		if (want != vn && (want != POLICY_PLACEHOLDER_SHORT_LEN || pre != 0))
			abort();
		if (memcmp(out, real, pre) != 0)
			abort();
		for (size_t i = pre; i < len; i++) {
			bool sep = out[i] == '-' || out[i] == '_' || out[i] == '.';
			if (!sep && !in_alpha(out[i]))
				abort();
			/* separators are the value's own, in place */
			if (sep && (want != vn || out[i] != real[i]))
				abort();
		}
		if (memmem(out, len, real, vn) || memmem(real, vn, out, len))
			abort();
		/* a second secret avoiding this one never overlaps it */
		const char *avoid[] = { out };
		char out2[sizeof(out)];
		size_t len2;
		if (policy_placeholder_make(real, vn, rnd + (rn - want), want, avoid, 1, out2,
					    sizeof(out2), &len2) == POLICY_PLACEHOLDER_OK &&
		    (memmem(out2, len2, out, len) || memmem(out, len, out2, len2)))
			abort();
	} else if (st != POLICY_PLACEHOLDER_COLLISION) {
		abort();
	}
	free(real);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char err[512];
	const uint8_t *nl = memchr(data, '\n', size);
	size_t on = nl ? (size_t)(nl - data) : size;
	const uint8_t *val = nl ? nl + 1 : data + size;
	size_t rest = size - on - (nl ? 1 : 0);
	const uint8_t *nl2 = memchr(val, '\n', rest);
	size_t vn = nl2 ? (size_t)(nl2 - val) : rest;
	const uint8_t *rnd = nl2 ? nl2 + 1 : val + vn;
	size_t rn = rest - vn - (nl2 ? 1 : 0);

	/* exact-size copy so a read past the option is an ASan report */
	char *text = malloc(on ? on : 1);
	if (!text)
		abort();
	memcpy(text, data, on);
	struct policy_secret s;
	enum policy_secret_status st = policy_secret_parse(text, on, &s, err, sizeof(err));
	free(text);
	check_line(err);
	if (st == POLICY_SECRET_OK) {
		if (err[0])
			abort();
		check_secret(&s);
		struct policy_secret two[2] = { s, s };
		if (policy_secret_check_set(two, 1, err, sizeof(err)) != POLICY_SECRET_OK ||
		    policy_secret_check_set(two, 2, err, sizeof(err)) != POLICY_SECRET_DUP_NAME)
			abort();
		check_env(&s, val, vn);
	} else if (!err[0]) {
		abort();
	}
	check_placeholder(val, vn, rnd, rn);
	return 0;
}
