/* policy/names.c: see names.h. */
#include "policy/names.h"

#include <string.h>

/* The bytes a label may hold, as bytes: <ctype.h> depends on the locale and
 * on the signedness of char (docs/style.md §17). */
static bool label_byte(uint8_t c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '-' || c == '_';
}

static bool is_digit(uint8_t c)
{
	return c >= '0' && c <= '9';
}

static bool is_hex(uint8_t c)
{
	return is_digit(c) || (c >= 'a' && c <= 'f');
}

/* WHATWG URL Standard, "ends in a number checker": the last label is all
 * decimal digits, or "0x"/"0X" followed by hex digits (possibly none).  The
 * label is already lowercased. */
static bool numeric_label(const char *l, size_t n)
{
	size_t i = 0;

	if (n >= 2 && l[0] == '0' && l[1] == 'x') {
		for (i = 2; i < n; i++)
			if (!is_hex((uint8_t)l[i]))
				return false;
		return true;
	}
	for (i = 0; i < n; i++)
		if (!is_digit((uint8_t)l[i]))
			return false;
	return true;
}

enum policy_name_status policy_name_canonical(const uint8_t *in, size_t len,
					      char out[POLICY_NAME_MAX + 1], size_t *out_len)
{
	size_t label_start = 0;

	out[0] = '\0';
	*out_len = 0;
	/* One trailing dot is the absolute form of the same name (RFC 1034
	 * 3.1); a second one would leave an empty label, refused below. */
	if (len > 0 && in[len - 1] == '.')
		len--;
	if (len == 0 || len > POLICY_NAME_MAX)
		return POLICY_NAME_MALFORMED;
	for (size_t i = 0; i < len; i++) {
		uint8_t c = in[i];
		if (c == '.') {
			if (i == label_start)
				goto malformed;
			label_start = i + 1;
		} else if (!label_byte(c) || i - label_start >= POLICY_LABEL_MAX) {
			goto malformed;
		}
		out[i] = (char)(c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c);
	}
	/* the last label is non-empty: len > 0 and in[len-1] != '.' here,
	 * since a second trailing dot was left as an empty label above */
	if (in[len - 1] == '.')
		goto malformed;
	out[len] = '\0';
	*out_len = len;
	if (numeric_label(out + label_start, len - label_start))
		return POLICY_NAME_NUMERIC;
	return POLICY_NAME_OK;

malformed:
	out[0] = '\0';
	return POLICY_NAME_MALFORMED;
}

bool policy_name_matches(const char *pattern, const char *name)
{
	if (pattern[0] == '*' && pattern[1] == '\0')
		return true;
	if (pattern[0] == '*' && pattern[1] == '.') {
		const char *suffix = pattern + 2;
		size_t sl = strlen(suffix), nl = strlen(name);
		if (sl == 0)
			return false;
		if (nl == sl)
			return memcmp(name, suffix, sl) == 0;
		/* below the suffix: the byte before it must be a label dot */
		return nl > sl && name[nl - sl - 1] == '.' && memcmp(name + nl - sl, suffix, sl) == 0;
	}
	return strcmp(pattern, name) == 0;
}

static bool is_or_under(const char *name, const char *suffix)
{
	return policy_name_matches(suffix, name);
}

enum policy_name_reserved policy_name_reserved(const char *name)
{
	if (is_or_under(name, "*.localhost"))
		return POLICY_NAME_LOCALHOST;
	if (strcmp(name, "metadata.google.internal") == 0 ||
	    strcmp(name, "metadata.azure.internal") == 0)
		return POLICY_NAME_METADATA;
	return POLICY_NAME_NOT_RESERVED;
}
