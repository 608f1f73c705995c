/* tests/unit/wire/test_cursor.c: the bounded reader (wire/cursor.h): exact
 * lengths, one byte short, lengths past their container, sticky failure,
 * sub-cursors of partly arrived vectors, and the search helpers. */
#include <criterion/criterion.h>

#include "wire/cursor.h"

static const uint8_t bytes[] = { 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08 };

Test(cursor, integers_are_big_endian)
{
	struct wire_cursor c = wire_whole(bytes, sizeof(bytes));
	uint8_t a;
	uint16_t b;
	uint32_t d, e;

	cr_assert(wire_u8(&c, &a));
	cr_assert(wire_u16(&c, &b));
	cr_assert(wire_u24(&c, &d));
	cr_assert_eq(a, 0x01);
	cr_assert_eq(b, 0x0203);
	cr_assert_eq(d, 0x040506);
	cr_assert_eq(c.pos, 6);
	c.pos = 4;
	cr_assert(wire_u32(&c, &e));
	cr_assert_eq(e, 0x05060708);
	cr_assert(wire_at_end(&c));
	cr_assert(wire_ok(&c));
}

Test(cursor, exact_length_then_one_past)
{
	struct wire_cursor c = wire_whole(bytes, 4);
	uint32_t v;
	uint8_t b;

	cr_assert(wire_u32(&c, &v)); /* exactly the 4 bytes there are */
	cr_assert(wire_at_end(&c));
	cr_assert_not(wire_u8(&c, &b)); /* one past a whole container */
	cr_assert_eq(c.st, WIRE_MALFORMED);
}

Test(cursor, one_short_is_short_on_a_stream_and_malformed_when_whole)
{
	for (size_t w = 1; w <= 4; w++) {
		struct wire_cursor s = wire_stream(bytes, w - 1);
		struct wire_cursor m = wire_whole(bytes, w - 1);
		cr_assert_not(wire_skip(&s, w));
		cr_assert_eq(s.st, WIRE_SHORT, "width %zu", w);
		cr_assert_eq(s.pos, 0, "a failed read does not move");
		cr_assert_not(wire_skip(&m, w));
		cr_assert_eq(m.st, WIRE_MALFORMED, "width %zu", w);
	}
	uint32_t v = 0xdead;
	struct wire_cursor c = wire_stream(bytes, 2);
	cr_assert_not(wire_u24(&c, &v));
	cr_assert_eq(v, 0xdead, "untouched on failure");
}

Test(cursor, failure_sticks)
{
	struct wire_cursor c = wire_stream(bytes, 1);
	uint16_t v;
	uint8_t b;

	cr_assert_not(wire_u16(&c, &v));
	cr_assert_eq(c.st, WIRE_SHORT);
	cr_assert_not(wire_u8(&c, &b), "the byte is there, but the cursor has failed");
	cr_assert_not(wire_peek(&c, &b));
	cr_assert_eq(c.pos, 0);
	cr_assert_not(wire_fail(&c));
	cr_assert_eq(c.st, WIRE_SHORT, "the first failure wins");
}

Test(cursor, u24_length_past_its_container_is_malformed_before_the_bytes)
{
	/* a u24 length of 0xffffff inside a 7-byte container, of which only the
	 * length has arrived: the overrun is known at once, not awaited */
	static const uint8_t v[] = { 0xff, 0xff, 0xff, 0, 0, 0, 0 };
	struct wire_cursor outer = { v, 3, sizeof(v), 0, WIRE_OK };
	struct wire_cursor sub;

	cr_assert_not(wire_vec(&outer, 3, 0, SIZE_MAX, &sub));
	cr_assert_eq(outer.st, WIRE_MALFORMED);
	cr_assert_eq(sub.st, WIRE_MALFORMED);
	cr_assert_eq(wire_left(&sub), 0);

	/* the same length fits an open stream, and then reads are short */
	struct wire_cursor s = wire_stream(v, 3);
	cr_assert(wire_vec(&s, 3, 0, SIZE_MAX, &sub));
	cr_assert_eq(sub.end, 0xffffff);
	cr_assert_eq(wire_avail(&sub), 0);
	cr_assert_not(wire_skip(&sub, 1));
	cr_assert_eq(sub.st, WIRE_SHORT);
}

Test(cursor, vector_bounds)
{
	static const uint8_t v[] = { 2, 0xaa, 0xbb, 0xcc };
	struct wire_cursor c, sub;

	c = wire_whole(v, sizeof(v));
	cr_assert(wire_vec(&c, 1, 2, 2, &sub));
	cr_assert_eq(sub.end, 2);
	cr_assert_eq(c.pos, 3);

	c = wire_whole(v, sizeof(v));
	cr_assert_not(wire_vec(&c, 1, 3, 255, &sub), "below min");
	cr_assert_eq(c.st, WIRE_MALFORMED);

	c = wire_whole(v, sizeof(v));
	cr_assert_not(wire_vec(&c, 1, 0, 1, &sub), "above max");

	c = wire_whole(v, 3); /* the vector fills the container exactly */
	cr_assert(wire_vec(&c, 1, 0, 255, &sub));
	cr_assert(wire_at_end(&c));

	c = wire_whole(v, 2); /* one byte of it missing from a whole container */
	cr_assert_not(wire_vec(&c, 1, 0, 255, &sub));
	cr_assert_eq(c.st, WIRE_MALFORMED);
}

Test(cursor, sub_of_a_partial_vector)
{
	static const uint8_t v[] = { 0, 4, 'a', 'b' }; /* 2 of 4 bytes arrived */
	struct wire_cursor c = wire_stream(v, sizeof(v)), sub, inner;
	const uint8_t *p;

	cr_assert(wire_vec(&c, 2, 0, 0xffff, &sub));
	cr_assert_eq(sub.end, 4);
	cr_assert_eq(sub.len, 2);
	cr_assert(wire_take(&sub, 2, &p));
	cr_assert_eq(p, v + 2);
	/* an inner length that overruns the vector: malformed although short */
	struct wire_cursor sub2 = { v + 2, 2, 4, 0, WIRE_OK };
	cr_assert_not(wire_vec(&sub2, 1, 0, 255, &inner)); /* 'a' = 97 > 3 left */
	cr_assert_eq(sub2.st, WIRE_MALFORMED);
	cr_assert_not(wire_skip(&sub, 1));
	cr_assert_eq(sub.st, WIRE_SHORT);
	/* the parent moved past all four declared bytes; its next read is short */
	cr_assert_eq(c.pos, 6);
	cr_assert_eq(wire_avail(&c), 0);
	cr_assert_not(wire_skip(&c, 1));
	cr_assert_eq(c.st, WIRE_SHORT);
	cr_assert_not(wire_join(&c, &sub));
}

Test(cursor, join_carries_the_first_failure)
{
	struct wire_cursor c = wire_whole(bytes, 4), sub = wire_whole(bytes, 0);
	uint8_t b;

	cr_assert(wire_join(&c, &sub));
	cr_assert_not(wire_u8(&sub, &b));
	cr_assert_not(wire_join(&c, &sub));
	cr_assert_eq(c.st, WIRE_MALFORMED);
}

Test(cursor, copy_and_peek)
{
	struct wire_cursor c = wire_whole(bytes, sizeof(bytes));
	uint8_t out[3], b;

	cr_assert(wire_peek(&c, &b));
	cr_assert_eq(b, 1);
	cr_assert_eq(c.pos, 0);
	cr_assert(wire_copy(&c, out, 3));
	cr_assert_eq(memcmp(out, bytes, 3), 0);
	c.pos = sizeof(bytes);
	cr_assert_not(wire_peek(&c, &b));
	cr_assert(wire_ok(&c), "peek does not fail the cursor");
}

static bool is_digit(uint8_t c)
{
	return c >= '0' && c <= '9';
}

Test(cursor, find_and_take_while)
{
	static const uint8_t t[] = "123 ab\r\nrest";
	struct wire_cursor c = wire_stream(t, sizeof(t) - 1);
	struct wire_span run;
	size_t off;

	cr_assert_eq(wire_take_while(&c, is_digit, SIZE_MAX, &run), 3);
	cr_assert_eq(run.p, t);
	cr_assert(wire_find(&c, '\n', SIZE_MAX, &off));
	cr_assert_eq(off, 4); /* from pos 3: " ab\r\n" */
	cr_assert_not(wire_find(&c, '\n', 4, &off), "not among the first 4 bytes");
	cr_assert_not(wire_find(&c, 'z', SIZE_MAX, &off));
	/* take_while stops at max and at the bytes present */
	c = wire_stream(t, 2);
	cr_assert_eq(wire_take_while(&c, is_digit, SIZE_MAX, NULL), 2);
	c = wire_stream(t, sizeof(t) - 1);
	cr_assert_eq(wire_take_while(&c, is_digit, 1, NULL), 1);
	/* and at a whole container's end, even with bytes beyond it */
	struct wire_cursor w = { t, sizeof(t) - 1, 2, 0, WIRE_OK };
	cr_assert_eq(wire_take_while(&w, is_digit, SIZE_MAX, NULL), 2);
	cr_assert(wire_at_end(&w));
}
