/* dns/answers.c: see answers.h. */
#include "dns/answers.h"

#include <string.h>

static size_t slot_of(const char *name, uint16_t qtype)
{
	uint32_t h = 2166136261u ^ qtype; /* FNV-1a */

	for (const char *c = name; *c; c++)
		h = (h ^ (uint8_t)*c) * 16777619u;
	return h % DNSD_ANSWERS_SLOTS;
}

void dnsd_answers_put(struct dnsd_answers *a, const char *name, uint16_t qtype,
		      const struct policy_addr *addrs, size_t n, size_t n_dropped, uint32_t ttl_s,
		      uint64_t now_ms)
{
	size_t nl = strlen(name);

	if (n > DNSD_ANSWERS_ADDRS || ttl_s == 0 || nl > POLICY_NAME_MAX)
		return;
	struct dnsd_answer *c = &a->slot[slot_of(name, qtype)];
	memcpy(c->name, name, nl + 1);
	c->qtype = qtype;
	c->n_addrs = (uint8_t)n;
	c->n_dropped = n_dropped > 255 ? 255 : (uint8_t)n_dropped;
	if (n)
		memcpy(c->addrs, addrs, n * sizeof(c->addrs[0]));
	c->expires_ms = now_ms + (uint64_t)ttl_s * 1000;
}

const struct dnsd_answer *dnsd_answers_get(const struct dnsd_answers *a, const char *name,
					   uint16_t qtype, uint64_t now_ms, uint32_t *ttl_left)
{
	const struct dnsd_answer *c = &a->slot[slot_of(name, qtype)];

	if (c->expires_ms <= now_ms + 1000 || c->qtype != qtype || strcmp(c->name, name) != 0)
		return NULL;
	*ttl_left = (uint32_t)((c->expires_ms - now_ms) / 1000);
	return c;
}
