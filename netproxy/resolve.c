/* netproxy/resolve.c: an allowed name's addresses, asked of the upstream
 * resolver (dns/upstream.h) with the canonical name that was decided on
 * (docs/design.md: "the same buffer that was checked is the one resolved").
 *
 * dns/upstream.h calls back exactly once per query and has no per-query
 * cancel, so the query is its own small object: a connection that ends
 * first detaches it, and the answer then only frees it. */
#include "netproxy/resolve.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dns/answers.h"
#include "dns/responder.h"
#include "dns/upstream.h"
#include "wire/dns.h"

/* How long "this name has no address of this family" is kept: nscd's
 * default for hosts (negative-time-to-live 20). */
#define NEGATIVE_TTL_S 20

struct proxy_resolve {
	proxy_resolve_done_fn done; /* NULL once detached */
	struct dnsd_answers *keep;  /* or NULL */
	char name[POLICY_NAME_MAX + 1];
	void *arg;
	uint16_t qtype;
	uint8_t qname[DNSD_NAME_WIRE_MAX];
	size_t qname_len;
};

static void on_answer(enum dnsd_upstream_result result, const uint8_t *msg, size_t len, void *arg)
{
	struct proxy_resolve *r = arg;
	struct dnsd_response resp;
	struct dnsd_addr_rr rrs[PROXY_RESOLVE_MAX];
	struct policy_addr addrs[PROXY_RESOLVE_MAX];
	size_t n = 0;
	bool ok = false;

	if (!r->done) {
		free(r);
		return;
	}
	if (result == DNSD_UPSTREAM_ANSWER &&
	    dnsd_response_parse(msg, len, &resp, rrs, PROXY_RESOLVE_MAX) == DNSD_OK &&
	    dnsd_name_equal(resp.qname, resp.qname_len, r->qname, r->qname_len) &&
	    resp.qtype == r->qtype) {
		/* NXDOMAIN and an empty answer both mean: nothing to dial */
		ok = resp.rcode == DNSD_RCODE_NOERROR || resp.rcode == DNSD_RCODE_NXDOMAIN;
		uint32_t ttl = UINT32_MAX;
		for (size_t i = 0; ok && i < resp.n_addrs; i++) {
			enum policy_addr_family want =
				r->qtype == DNSD_TYPE_A ? POLICY_ADDR_V4 : POLICY_ADDR_V6;
			if (rrs[i].addr.family == want) {
				addrs[n++] = rrs[i].addr;
				ttl = rrs[i].ttl < ttl ? rrs[i].ttl : ttl;
			}
		}
		/* every record the answer had (a cut list is not kept); "no
		 * address" (a name without AAAA) for NEGATIVE_TTL_S: the SOA's
		 * negative TTL (RFC 2308) is not read */
		if (r->keep && ok && resp.n_addrs_found == resp.n_addrs)
			dnsd_answers_put(r->keep, r->name, r->qtype, addrs, n, 0,
					 n ? ttl : NEGATIVE_TTL_S, dnsd_clock_ms());
	}
	proxy_resolve_done_fn done = r->done;
	void *darg = r->arg;
	free(r);
	done(ok, addrs, n, darg);
}

bool proxy_resolve_kept(const struct dnsd_answers *keep, const char *name, uint16_t qtype,
			struct policy_addr out[PROXY_RESOLVE_MAX], size_t *n)
{
	uint32_t left;
	const struct dnsd_answer *a = keep ? dnsd_answers_get(keep, name, qtype, dnsd_clock_ms(), &left)
					   : NULL;

	if (!a)
		return false;
	*n = a->n_addrs < PROXY_RESOLVE_MAX ? a->n_addrs : PROXY_RESOLVE_MAX;
	memcpy(out, a->addrs, *n * sizeof(*out));
	return true;
}

struct proxy_resolve *proxy_resolve_start(struct dnsd_upstream *u, struct dnsd_answers *keep,
					  const char *name, uint16_t qtype,
					  proxy_resolve_done_fn done, void *arg)
{
	if (!u) {
		errno = ENOTCONN;
		return NULL;
	}
	struct proxy_resolve *r = calloc(1, sizeof(*r));
	if (!r) {
		errno = ENOMEM;
		return NULL;
	}
	r->done = done;
	r->arg = arg;
	r->qtype = qtype;
	r->keep = keep;
	if (strlen(name) > POLICY_NAME_MAX) {
		free(r);
		errno = EINVAL;
		return NULL;
	}
	strcpy(r->name, name);
	if (dnsd_name_from_text(name, strlen(name), r->qname, &r->qname_len) != DNSD_OK) {
		free(r);
		errno = EINVAL;
		return NULL;
	}
	int rc = dnsd_upstream_query(u, name, qtype, on_answer, r);
	if (rc < 0) {
		free(r);
		errno = -rc;
		return NULL;
	}
	return r;
}

void proxy_resolve_detach(struct proxy_resolve *r)
{
	if (r)
		r->done = NULL;
}
