/* policy/placeholder.c: see placeholder.h. */
#include "policy/placeholder.h"

#include <stdbool.h>
#include <string.h>

#define SEGMENT_MAX 10  /* bytes of one tag segment, without its '_' or '-' */
#define SEGMENTS_MAX 3  /* "sk-ant-api03-" */

static bool is_digit(uint8_t c) { return c >= '0' && c <= '9'; }
static bool is_lower(uint8_t c) { return c >= 'a' && c <= 'z'; }
static bool is_upper(uint8_t c) { return c >= 'A' && c <= 'Z'; }
static bool is_alnum(uint8_t c) { return is_digit(c) || is_lower(c) || is_upper(c); }
static bool is_hex(uint8_t c)
{
	return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}
/* the bytes kept in place: structure, not key material (placeholder.h) */
static bool is_kept(uint8_t c) { return c == '-' || c == '_' || c == '.'; }

/* Bytes of v[0..n) that a placeholder fills. */
static size_t fillable(const uint8_t *v, size_t n)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		k += !is_kept(v[i]);
	return k;
}

/* The longest run of tag segments at the start of v[0..n) (placeholder.h). */
static size_t tag_len(const uint8_t *v, size_t n)
{
	size_t at = 0, kept = 0;

	for (int s = 0; s < SEGMENTS_MAX; s++) {
		size_t i = at;
		bool all_hex = true;
		if (i >= n || !(is_lower(v[i]) || is_upper(v[i])))
			break;
		while (i < n && i - at < SEGMENT_MAX + 1 && is_alnum(v[i])) {
			all_hex = all_hex && is_hex(v[i]);
			i++;
		}
		if (i - at > SEGMENT_MAX || i >= n || (v[i] != '_' && v[i] != '-') || all_hex)
			break;
		if (i + 1 > POLICY_PLACEHOLDER_PREFIX_MAX)
			break;
		at = i + 1;
		kept = at;
	}
	return kept;
}

size_t policy_placeholder_prefix_len(const char *real, size_t real_len)
{
	const uint8_t *v = (const uint8_t *)real;
	size_t t = tag_len(v, real_len);
	return fillable(v + t, real_len - t) >= POLICY_PLACEHOLDER_MIN_RANDOM ? t : 0;
}

static bool is_short(const char *real, size_t real_len)
{
	return fillable((const uint8_t *)real, real_len) < POLICY_PLACEHOLDER_MIN_RANDOM;
}

size_t policy_placeholder_len(const char *real, size_t real_len)
{
	if (real_len == 0)
		return 0;
	return is_short(real, real_len) ? POLICY_PLACEHOLDER_SHORT_LEN : real_len;
}

bool policy_placeholder_fits(const char *real, size_t real_len)
{
	size_t n = policy_placeholder_len(real, real_len);

	if (n == 0 || n > POLICY_PLACEHOLDER_MAX)
		return false;
	/* a short value's placeholder has no shape; else a '.' stays */
	return is_short(real, real_len) || memchr(real, '.', real_len) == NULL;
}

static const char digits[] = "0123456789";
static const char lower_hex[] = "0123456789abcdef";
static const char upper_hex[] = "0123456789ABCDEF";
static const char lower_alnum[] = "0123456789abcdefghijklmnopqrstuvwxyz";
static const char upper_alnum[] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";
static const char any_alnum[] =
	"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/* The narrowest of the alphabets above that holds every filled byte of
 * v[0..n) (placeholder.h, shape). */
static const char *alphabet_of(const uint8_t *v, size_t n)
{
	bool dig = true, lhex = true, uhex = true, lal = true, ual = true;

	for (size_t i = 0; i < n; i++) {
		uint8_t c = v[i];
		if (is_kept(c))
			continue;
		dig = dig && is_digit(c);
		lhex = lhex && (is_digit(c) || (c >= 'a' && c <= 'f'));
		uhex = uhex && (is_digit(c) || (c >= 'A' && c <= 'F'));
		lal = lal && (is_digit(c) || is_lower(c));
		ual = ual && (is_digit(c) || is_upper(c));
	}
	return dig ? digits : lhex ? lower_hex : uhex ? upper_hex : lal ? lower_alnum
	       : ual ? upper_alnum : any_alnum;
}

static bool overlaps(const char *a, size_t an, const char *b, size_t bn)
{
	if (an == 0 || bn == 0)
		return false;
	return an >= bn ? memmem(a, an, b, bn) != NULL : memmem(b, bn, a, an) != NULL;
}

enum policy_placeholder_status policy_placeholder_make(const char *real, size_t real_len,
						       const uint8_t *rnd, size_t rnd_len,
						       const char *const avoid[], size_t n_avoid,
						       char *out, size_t out_cap, size_t *out_len)
{
	const uint8_t *v = (const uint8_t *)real;
	size_t len = policy_placeholder_len(real, real_len);

	*out_len = 0;
	if (real_len == 0)
		return POLICY_PLACEHOLDER_EMPTY;
	if (rnd_len < len)
		return POLICY_PLACEHOLDER_SHORT_RANDOM;
	if (out_cap < len + 1)
		return POLICY_PLACEHOLDER_NO_ROOM;

	if (is_short(real, real_len)) {
		size_t an = sizeof(any_alnum) - 1;
		for (size_t i = 0; i < len; i++)
			out[i] = any_alnum[rnd[i] % an];
	} else {
		size_t pre = policy_placeholder_prefix_len(real, real_len);
		const char *alpha = alphabet_of(v + pre, real_len - pre);
		size_t an = strlen(alpha);
		memcpy(out, real, pre);
		for (size_t i = pre; i < len; i++)
			out[i] = is_kept(v[i]) ? (char)v[i] : alpha[rnd[i] % an];
	}
	out[len] = '\0';

	if (overlaps(out, len, real, real_len))
		return POLICY_PLACEHOLDER_COLLISION;
	for (size_t i = 0; i < n_avoid; i++)
		if (avoid[i] && overlaps(out, len, avoid[i], strlen(avoid[i])))
			return POLICY_PLACEHOLDER_COLLISION;
	*out_len = len;
	return POLICY_PLACEHOLDER_OK;
}
