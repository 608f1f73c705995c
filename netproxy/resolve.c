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

#include "dns/upstream.h"
#include "wire/dns.h"

struct proxy_resolve {
	proxy_resolve_done_fn done; /* NULL once detached */
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
		for (size_t i = 0; ok && i < resp.n_addrs; i++) {
			enum policy_addr_family want =
				r->qtype == DNSD_TYPE_A ? POLICY_ADDR_V4 : POLICY_ADDR_V6;
			if (rrs[i].addr.family == want)
				addrs[n++] = rrs[i].addr;
		}
	}
	proxy_resolve_done_fn done = r->done;
	void *darg = r->arg;
	free(r);
	done(ok, addrs, n, darg);
}

struct proxy_resolve *proxy_resolve_start(struct dnsd_upstream *u, const char *name,
					  uint16_t qtype, proxy_resolve_done_fn done, void *arg)
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
