/* dns/namemap.c: see namemap.h.
 *
 * Layout: entries[cap] and a chained hash index by address (heads[nbuckets],
 * entries linked through .next, most recently added at the head; heads are
 * stored complemented, so that calloc(3)'s zero means an empty chain and
 * the index too is faulted in only as it is written).  Entries
 * from .fresh on have never been used: calloc(3) left them zero, and for a
 * table this size they are pages the kernel has not yet handed out, so a
 * map costs memory only as it fills (threading all 8,192 onto a free list at
 * creation faulted in 2.4 MB and was most of policy mode's start-up cost).
 * Entries dropped since are on a free list threaded through the same .next. */
#include "dns/namemap.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define NIL UINT32_MAX

struct entry {
	struct policy_addr addr; /* unmapped; bytes past the family's length are zero */
	uint64_t expires_ms;
	uint32_t next;           /* chain of its bucket, or the free list */
	bool used;
	char name[POLICY_NAME_MAX + 1];
};

struct dnsd_namemap {
	struct entry *entries;
	uint32_t *heads; /* complemented: zero, as calloc(3) leaves it, is NIL */
	size_t cap, nbuckets, used;
	uint32_t free_head; /* dropped entries, for reuse */
	uint32_t fresh;     /* entries[fresh..cap) never used */
	uint64_t seed;
};

/* The address as it is kept: IPv4-mapped as IPv4, unused bytes zeroed. */
static struct policy_addr key_of(const struct policy_addr *a)
{
	struct policy_addr u = policy_addr_unmap(a), k;

	memset(&k, 0, sizeof(k));
	k.family = u.family;
	memcpy(k.b, u.b, u.family == POLICY_ADDR_V4 ? 4 : 16);
	return k;
}

/* FNV-1a, seeded per map (the map's own address: an upstream that chose
 * addresses to collide in one bucket would have to guess it). */
static size_t bucket_of(const struct dnsd_namemap *m, const struct policy_addr *k)
{
	uint64_t h = 14695981039346656037ull ^ m->seed;
	size_t n = k->family == POLICY_ADDR_V4 ? 4 : 16;

	h = (h ^ (uint64_t)k->family) * 1099511628211ull;
	for (size_t i = 0; i < n; i++)
		h = (h ^ k->b[i]) * 1099511628211ull;
	return (size_t)(h ^ (h >> 29)) & (m->nbuckets - 1);
}

static bool key_equal(const struct policy_addr *a, const struct policy_addr *b)
{
	return a->family == b->family && memcmp(a->b, b->b, 16) == 0;
}

struct dnsd_namemap *dnsd_namemap_create(size_t cap)
{
	struct dnsd_namemap *m;

	if (cap == 0)
		cap = DNSD_NAMEMAP_DEFAULT_CAP;
	if (cap >= NIL) {
		errno = EINVAL;
		return NULL;
	}
	m = calloc(1, sizeof(*m));
	if (!m)
		goto nomem;
	m->cap = cap;
	for (m->nbuckets = 16; m->nbuckets < cap; m->nbuckets <<= 1)
		;
	m->entries = calloc(cap, sizeof(*m->entries));
	/* zero, every chain empty: written only as entries come */
	m->heads = calloc(m->nbuckets, sizeof(*m->heads));
	if (!m->entries || !m->heads)
		goto nomem;
	m->free_head = NIL;
	m->fresh = 0;
	m->seed = (uint64_t)(uintptr_t)m;
	return m;
nomem:
	dnsd_namemap_destroy(m);
	errno = ENOMEM;
	return NULL;
}

void dnsd_namemap_destroy(struct dnsd_namemap *m)
{
	if (!m)
		return;
	free(m->entries);
	free(m->heads);
	free(m);
}

static uint32_t head(const struct dnsd_namemap *m, size_t bucket)
{
	return ~m->heads[bucket];
}

static void set_head(struct dnsd_namemap *m, size_t bucket, uint32_t i)
{
	m->heads[bucket] = ~i;
}

/* Unlinks entry i (whose predecessor in its chain is prev, or NIL when it is
 * the head) and puts it on the free list. */
static void drop(struct dnsd_namemap *m, size_t bucket, uint32_t prev, uint32_t i)
{
	struct entry *e = &m->entries[i];

	if (prev == NIL)
		set_head(m, bucket, e->next);
	else
		m->entries[prev].next = e->next;
	e->used = false;
	e->next = m->free_head;
	m->free_head = i;
	m->used--;
}

/* Drops entry i wherever it is in its chain. */
static void drop_any(struct dnsd_namemap *m, uint32_t i)
{
	size_t b = bucket_of(m, &m->entries[i].addr);
	uint32_t prev = NIL;

	for (uint32_t j = head(m, b); j != NIL; prev = j, j = m->entries[j].next) {
		if (j == i) {
			drop(m, b, prev, i);
			return;
		}
	}
}

size_t dnsd_namemap_expire(struct dnsd_namemap *m, uint64_t now_ms)
{
	size_t dropped = 0;

	for (uint32_t i = 0; i < m->fresh; i++) {
		if (m->entries[i].used && m->entries[i].expires_ms <= now_ms) {
			drop_any(m, i);
			dropped++;
		}
	}
	return dropped;
}

/* Room for one more pair: a dropped entry, else one never used, else drop
 * the expired ones, else replace the pair that expires first (O(cap), only
 * when full). */
static uint32_t take_free(struct dnsd_namemap *m, uint64_t now_ms)
{
	if (m->free_head == NIL && m->fresh < m->cap)
		return m->fresh++;
	if (m->free_head == NIL && dnsd_namemap_expire(m, now_ms) == 0) {
		uint32_t victim = 0;
		for (uint32_t i = 1; i < m->cap; i++) {
			if (m->entries[i].expires_ms < m->entries[victim].expires_ms)
				victim = i;
		}
		drop_any(m, victim);
	}
	uint32_t i = m->free_head;
	m->free_head = m->entries[i].next;
	return i;
}

int dnsd_namemap_add(struct dnsd_namemap *m, const char *name, const struct policy_addr *addr,
		     uint32_t ttl_s, uint64_t now_ms)
{
	size_t len = strnlen(name, POLICY_NAME_MAX + 1);
	struct policy_addr k = key_of(addr);
	uint64_t expires = now_ms + (uint64_t)ttl_s * 1000;
	size_t b = bucket_of(m, &k);
	uint32_t prev = NIL;

	if (len == 0 || len > POLICY_NAME_MAX)
		return -EINVAL;
	if (ttl_s == 0)
		return 0;
	for (uint32_t i = head(m, b); i != NIL; prev = i, i = m->entries[i].next) {
		struct entry *e = &m->entries[i];
		if (!key_equal(&e->addr, &k) || strcmp(e->name, name) != 0)
			continue;
		if (expires > e->expires_ms)
			e->expires_ms = expires;
		if (prev != NIL) { /* move to the front: most recently added */
			m->entries[prev].next = e->next;
			e->next = head(m, b);
			set_head(m, b, i);
		}
		return 0;
	}
	uint32_t i = take_free(m, now_ms);
	struct entry *e = &m->entries[i];
	e->addr = k;
	e->expires_ms = expires;
	e->used = true;
	memcpy(e->name, name, len + 1);
	e->next = head(m, b);
	set_head(m, b, i);
	m->used++;
	return 0;
}

size_t dnsd_namemap_lookup(struct dnsd_namemap *m, const struct policy_addr *addr,
			   uint64_t now_ms, struct dnsd_namemap_name *out, size_t cap)
{
	struct policy_addr k = key_of(addr);
	size_t b = bucket_of(m, &k), found = 0;
	uint32_t prev = NIL, i = head(m, b);

	while (i != NIL) {
		struct entry *e = &m->entries[i];
		uint32_t next = e->next;
		if (e->expires_ms <= now_ms) {
			drop(m, b, prev, i);
			i = next;
			continue;
		}
		if (key_equal(&e->addr, &k)) {
			if (found < cap) {
				memcpy(out[found].name, e->name, sizeof(e->name));
				out[found].expires_ms = e->expires_ms;
			}
			found++;
		}
		prev = i;
		i = next;
	}
	return found;
}

size_t dnsd_namemap_size(const struct dnsd_namemap *m)
{
	return m->used;
}
