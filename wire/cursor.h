/* wire/cursor.h: the one bounded reader every wire parser reads through.
 *
 * ARCHITECTURE: a cursor is a container of bytes: `len` of them present in
 * memory, `end` of them declared (by a length field, or SIZE_MAX for the
 * prefix of a stream that goes on), and a position.  Every read checks both:
 * past the declared end is WIRE_MALFORMED (a length overruns its
 * container), past the bytes present is WIRE_SHORT (wait for more, or, for a
 * message of fixed size such as a DNS datagram, truncated).  The first
 * failure sticks: later reads fail at once and change nothing, so a parser
 * may read a run of fields and check the status once.  A length-prefixed
 * vector is a sub-cursor whose end is its length, so an inner length that
 * overruns the vector is MALFORMED even before the vector's bytes arrive.
 *
 * Everything is inline and pure: no allocation, no state outside the struct,
 * any thread.  Multi-byte integers are big-endian (network order).
 */
#ifndef PORTA_WIRE_CURSOR_H
#define PORTA_WIRE_CURSOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

enum wire_status {
	WIRE_OK,
	WIRE_SHORT,     /* a read needed bytes that are not present (yet) */
	WIRE_MALFORMED, /* a read or a length past the declared end, or wire_fail() */
};

struct wire_cursor {
	const uint8_t *p; /* the container's first byte */
	size_t len;       /* bytes present at p */
	size_t end;       /* bytes declared, >= len; SIZE_MAX for an open stream */
	size_t pos;       /* next byte, <= end; may pass len only inside a sub-cursor's parent */
	enum wire_status st;
};

/* A run of bytes inside a buffer the caller owns; never NUL-terminated. */
struct wire_span {
	const uint8_t *p;
	size_t n;
};

/* A cursor over the prefix p[0..len) of a stream that may go on: reading
 * past len is WIRE_SHORT, never MALFORMED. */
static inline struct wire_cursor wire_stream(const uint8_t *p, size_t len)
{
	return (struct wire_cursor){ p, len, SIZE_MAX, 0, WIRE_OK };
}

/* A cursor over a container whose every byte is present: reading past len
 * is WIRE_MALFORMED. */
static inline struct wire_cursor wire_whole(const uint8_t *p, size_t len)
{
	return (struct wire_cursor){ p, len, len, 0, WIRE_OK };
}

static inline bool wire_ok(const struct wire_cursor *c)
{
	return c->st == WIRE_OK;
}

/* Marks c malformed (a parser's own check failed); returns false. */
static inline bool wire_fail(struct wire_cursor *c)
{
	if (c->st == WIRE_OK)
		c->st = WIRE_MALFORMED;
	return false;
}

/* Declared bytes left: what the container still owes. */
static inline size_t wire_left(const struct wire_cursor *c)
{
	return c->end - c->pos;
}

/* Bytes left that are present. */
static inline size_t wire_avail(const struct wire_cursor *c)
{
	return c->pos < c->len ? c->len - c->pos : 0;
}

/* True when the declared end is reached (a stream never ends). */
static inline bool wire_at_end(const struct wire_cursor *c)
{
	return c->pos == c->end;
}

/* Whether n more bytes may be read, setting the status when not. */
static inline bool wire_need(struct wire_cursor *c, size_t n)
{
	if (c->st != WIRE_OK)
		return false;
	if (n > wire_left(c)) {
		c->st = WIRE_MALFORMED;
		return false;
	}
	if (n > wire_avail(c)) {
		c->st = WIRE_SHORT;
		return false;
	}
	return true;
}

/* Takes the next n bytes: *out points at them (may be NULL to skip). */
static inline bool wire_take(struct wire_cursor *c, size_t n, const uint8_t **out)
{
	if (!wire_need(c, n))
		return false;
	if (out)
		*out = c->p + c->pos;
	c->pos += n;
	return true;
}

static inline bool wire_skip(struct wire_cursor *c, size_t n)
{
	return wire_take(c, n, NULL);
}

static inline bool wire_copy(struct wire_cursor *c, void *dst, size_t n)
{
	const uint8_t *b;
	if (!wire_take(c, n, &b))
		return false;
	memcpy(dst, b, n);
	return true;
}

static inline bool wire_u8(struct wire_cursor *c, uint8_t *v)
{
	const uint8_t *b;
	if (!wire_take(c, 1, &b))
		return false;
	*v = b[0];
	return true;
}

static inline bool wire_u16(struct wire_cursor *c, uint16_t *v)
{
	const uint8_t *b;
	if (!wire_take(c, 2, &b))
		return false;
	*v = (uint16_t)(b[0] << 8 | b[1]);
	return true;
}

static inline bool wire_u24(struct wire_cursor *c, uint32_t *v)
{
	const uint8_t *b;
	if (!wire_take(c, 3, &b))
		return false;
	*v = (uint32_t)b[0] << 16 | (uint32_t)b[1] << 8 | b[2];
	return true;
}

static inline bool wire_u32(struct wire_cursor *c, uint32_t *v)
{
	const uint8_t *b;
	if (!wire_take(c, 4, &b))
		return false;
	*v = (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
	return true;
}

/* The byte at pos without moving; false (status unchanged) when it is not
 * present or c has failed. */
static inline bool wire_peek(const struct wire_cursor *c, uint8_t *v)
{
	if (c->st != WIRE_OK || wire_avail(c) == 0 || wire_left(c) == 0)
		return false;
	*v = c->p[c->pos];
	return true;
}

/* The next n declared bytes as a cursor of their own, whatever part of them
 * is present; c moves past all n.  A later read of c past its present bytes
 * is WIRE_SHORT as usual.  n past c's declared end is MALFORMED.  On failure
 * *sub is an empty cursor with c's status. */
static inline bool wire_sub(struct wire_cursor *c, size_t n, struct wire_cursor *sub)
{
	if (c->st == WIRE_OK && n > wire_left(c))
		c->st = WIRE_MALFORMED;
	if (c->st != WIRE_OK) {
		/* an empty cursor that has failed the same way */
		*sub = (struct wire_cursor){ c->p, 0, 0, 0, c->st };
		return false;
	}
	size_t have = wire_avail(c);
	*sub = (struct wire_cursor){ c->p + c->pos, have < n ? have : n, n, 0, WIRE_OK };
	c->pos += n;
	return true;
}

/* A vector with a length prefix of `width` bytes (1, 2 or 3, RFC 8446 §3.4
 * notation <min..max>): the length must be in min..max and within c.  *sub
 * is always set (see wire_sub). */
static inline bool wire_vec(struct wire_cursor *c, unsigned width, size_t min, size_t max,
			    struct wire_cursor *sub)
{
	size_t n = 0;
	const uint8_t *b;

	if (wire_take(c, width, &b)) {
		for (unsigned i = 0; i < width; i++)
			n = n << 8 | b[i];
		if (n < min || n > max)
			wire_fail(c);
	}
	return wire_sub(c, n, sub);
}

/* Carries a sub-cursor's failure up to c (the first failure wins); returns
 * whether both are still OK. */
static inline bool wire_join(struct wire_cursor *c, const struct wire_cursor *sub)
{
	if (c->st == WIRE_OK)
		c->st = sub->st;
	return c->st == WIRE_OK;
}

/* The offset from pos of the first byte b among the next `max` present
 * bytes; false, status unchanged, when it is not among them. */
static inline bool wire_find(const struct wire_cursor *c, uint8_t b, size_t max, size_t *off)
{
	size_t n = wire_avail(c);
	if (c->st != WIRE_OK)
		return false;
	if (n > wire_left(c))
		n = wire_left(c);
	if (n > max)
		n = max;
	const uint8_t *hit = n ? memchr(c->p + c->pos, b, n) : NULL;
	if (!hit)
		return false;
	*off = (size_t)(hit - (c->p + c->pos));
	return true;
}

/* Takes the run of bytes from pos for which pred holds, at most max of
 * them, among those present; never fails.  Returns its length. */
static inline size_t wire_take_while(struct wire_cursor *c, bool (*pred)(uint8_t), size_t max,
				     struct wire_span *run)
{
	size_t n = 0, lim = wire_avail(c);
	if (c->st != WIRE_OK)
		lim = 0;
	if (lim > wire_left(c))
		lim = wire_left(c);
	if (lim > max)
		lim = max;
	while (n < lim && pred(c->p[c->pos + n]))
		n++;
	if (run) {
		run->p = c->p + c->pos;
		run->n = n;
	}
	c->pos += n;
	return n;
}

#endif /* PORTA_WIRE_CURSOR_H */
