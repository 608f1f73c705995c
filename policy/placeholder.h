/* policy/placeholder.h: the stand-in a sandboxed program sees for a
 * --secret's real value.
 *
 * ARCHITECTURE: pure (docs/design.md, Modules): no syscalls, no globals, no
 * allocation, no logging; the randomness is the caller's (the supervisor
 * reads getrandom(2) and hands the bytes in), so the same bytes make the
 * same placeholder and tests are exact.  Called once per secret per run,
 * before the sandbox's environment is built.  Callable from any thread.
 *
 * What a placeholder is: a string that looks like a token of the same kind,
 * so that clients which check a token's shape before sending it accept it,
 * and that is useless anywhere but through porta's proxy, on this run, to
 * the secret's hosts.  It is made from the real value V as follows.
 *   prefix  V's leading type tag is kept: one to three segments, each an
 *           ASCII letter then up to nine letters or digits, not all hex
 *           digits, ending in '_' or '-' ("ghp_", "github_pat_", "sk-",
 *           "sk-proj-", "xoxb-", "glpat-", "dop_v1_", "sk-ant-api03-"),
 *           at most POLICY_PLACEHOLDER_PREFIX_MAX bytes, and only when at
 *           least POLICY_PLACEHOLDER_MIN_RANDOM bytes after it are filled.
 *           A segment of hex digits ("deadbeef-" opening a UUID) is not a
 *           tag but key material, and is never kept.
 *   shape   after the prefix, '-', '_' and '.' stay where V has them (a
 *           UUID's dashes, a JWT's dots, a Slack token's dashes); every
 *           other byte is replaced by one drawn from V's alphabet: digits
 *           if V's other bytes are all digits, else lowercase hex, else
 *           uppercase hex, else [a-z0-9], else [A-Z0-9], else [A-Za-z0-9]
 *           (a byte that is none of these, as '+' or '/', widens it to
 *           [A-Za-z0-9]).  The length is V's.
 *   short   when V has fewer than POLICY_PLACEHOLDER_MIN_RANDOM bytes to
 *           fill even without a prefix, its shape is dropped: the
 *           placeholder is POLICY_PLACEHOLDER_SHORT_LEN bytes of
 *           [A-Za-z0-9].  A short placeholder would be found by chance in
 *           requests that never held it (and the proxy swaps or refuses
 *           every occurrence), and would collide with other runs' ones.
 * Each filled byte is one random byte taken modulo the alphabet's size: the
 * small bias does not matter, since the placeholder is no secret (the
 * program holds it); the randomness only makes it fresh per run and
 * unlikely to occur anywhere by chance (at least 20 bytes: 66 bits over
 * digits, 119 over [A-Za-z0-9]).
 *
 * What it reveals of V, to the program that sees it: V's length (or, when
 * short, only that V is short); the prefix, which issuers publish as the
 * token's type and which the program could read in the documentation of
 * the service it was sent to; the positions of '-', '_' and '.'; and V's
 * alphabet class.  For the random tokens services issue this leaves every
 * random byte hidden (a base64url token's few '-' and '_' positions give
 * away a handful of bits of hundreds).  For a human passphrase written
 * with dashes ("correct-horse-battery-staple") it gives away the word
 * lengths: such a value should not be a --secret (or should be joined
 * without separators).
 *
 * Guarantees: the placeholder never equals V, never contains V and is never
 * contained in it; it neither contains nor is contained in any string the
 * caller asks it to avoid (the other secrets' placeholders and real
 * values, so that swapping one never touches another).  When fresh bytes
 * break one of these, the answer is POLICY_PLACEHOLDER_COLLISION and the
 * caller draws new bytes and asks again.
 */
#ifndef PORTA_POLICY_PLACEHOLDER_H
#define PORTA_POLICY_PLACEHOLDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define POLICY_PLACEHOLDER_PREFIX_MAX 16 /* bytes of a kept type tag */
#define POLICY_PLACEHOLDER_MIN_RANDOM 20 /* filled bytes at the least */
#define POLICY_PLACEHOLDER_SHORT_LEN 24  /* length of a short value's placeholder */
/* The longest placeholder the proxy holds (wire/http_secret.h's
 * PROXY_SECRET_PLACEHOLDER_MAX, asserted equal where both are seen) */
#define POLICY_PLACEHOLDER_MAX 128

enum policy_placeholder_status {
	POLICY_PLACEHOLDER_OK,
	POLICY_PLACEHOLDER_EMPTY,        /* real_len == 0 */
	POLICY_PLACEHOLDER_SHORT_RANDOM, /* fewer than policy_placeholder_len() random bytes */
	POLICY_PLACEHOLDER_NO_ROOM,      /* out_cap too small (needs policy_placeholder_len() + 1) */
	POLICY_PLACEHOLDER_COLLISION,    /* overlaps the value or an avoided string: draw again */
};

/* The length of the placeholder for a real value of real[0..real_len), which
 * is also the number of random bytes policy_placeholder_make() needs.  0 for
 * an empty value.  Pure. */
size_t policy_placeholder_len(const char *real, size_t real_len);

/* True when the placeholder of real[0..real_len) is one the proxy holds: at
 * most POLICY_PLACEHOLDER_MAX bytes of letters, digits, '-' and '_' (a
 * longer value, or a '.' its shape keeps, as a JWT's, does not fit).  Pure. */
bool policy_placeholder_fits(const char *real, size_t real_len);

/* The type tag policy_placeholder_make() keeps of real[0..real_len): its
 * length in bytes (0: none).  Pure. */
size_t policy_placeholder_prefix_len(const char *real, size_t real_len);

/* Makes the placeholder of real[0..real_len) (any bytes but NUL) from
 * rnd[0..rnd_len) into out[0..out_cap), NUL-terminated, *out_len bytes
 * without the NUL.  avoid[0..n_avoid) are NUL-terminated strings the result
 * must neither contain nor be contained in (NULL and "" entries are
 * skipped).  Nothing is owned or kept: every pointer is the caller's.
 * Returns POLICY_PLACEHOLDER_OK, or a refusal with out unspecified (on
 * COLLISION the caller draws fresh bytes and asks again).  Pure. */
enum policy_placeholder_status policy_placeholder_make(const char *real, size_t real_len,
						       const uint8_t *rnd, size_t rnd_len,
						       const char *const avoid[], size_t n_avoid,
						       char *out, size_t out_cap, size_t *out_len);

#endif /* PORTA_POLICY_PLACEHOLDER_H */
