/* supervisor/term.c: the run's TLS termination (term.h). */
#include "supervisor/term.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "policy/endpoint.h"
#include "policy/httprule.h"
#include "policy/placeholder.h"
#include "policy/secret.h"
#include "tls/ca.h"
#include "tls/endpoint.h"
#include "wire/http_secret.h"

/* the options' check (policy_secret_check_env()) refuses what the proxy's
 * table (proxy_secret_table_check()) would */
_Static_assert(POLICY_PLACEHOLDER_MAX == PROXY_SECRET_PLACEHOLDER_MAX,
	       "one longest placeholder");
_Static_assert(POLICY_SECRET_VALUE_MAX <= PROXY_SECRET_VALUE_MAX, "a value the proxy holds");

/* Draws before a placeholder that overlaps nothing is given up on: with 20
 * or more random characters a collision is all but impossible, so running
 * out means a real value that contains every draw (a value of one
 * character repeated, say), and the run is refused rather than weakened. */
#define TERM_DRAWS 64

struct term_endpoint {
	struct policy_endpoint ep;
	bool tls;
	bool ruled;                 /* some --allow-http rule names it */
	struct proxy_secret *bound; /* the secrets for it */
	size_t n_bound;
	struct proxy_secret *others; /* every other secret */
	size_t n_others;
};

struct supervisor_term {
	struct policy_secret *secrets;
	size_t n_secrets;
	const char **values;  /* into porta's environment */
	char **placeholders;
	struct proxy_secret *table; /* (placeholder, value) per secret */
	struct policy_http_rule *rules;
	size_t n_rules;
	struct term_endpoint *eps;
	size_t n_eps;
	struct tls_ca *ca;
	struct tls_server_conf *server;
	struct tls_client_conf *client;
	uint8_t scratch[PROXY_SECRET_OUT_MAX];
};

void supervisor_term_destroy(struct supervisor_term *t)
{
	if (!t)
		return;
	tls_server_conf_destroy(t->server);
	tls_client_conf_destroy(t->client);
	tls_ca_destroy(t->ca);
	for (size_t i = 0; i < t->n_eps; i++) {
		free(t->eps[i].bound);
		free(t->eps[i].others);
	}
	free(t->eps);
	for (size_t i = 0; i < t->n_secrets; i++)
		free(t->placeholders ? t->placeholders[i] : NULL);
	free(t->placeholders);
	free(t->values);
	free(t->table);
	free(t->rules);
	free(t->secrets);
	free(t);
}

static int parse_all(struct supervisor_term *t, const struct policy_options *o,
		     struct porta_error *e)
{
	char why[POLICY_ERR_MAX];

	t->secrets = calloc(o->secrets.n + 1, sizeof(*t->secrets));
	t->rules = calloc(o->allow_http.n + 1, sizeof(*t->rules));
	if (!t->secrets || !t->rules)
		return porta_fail(e, "TLS termination", NULL, ENOMEM, NULL);
	for (size_t i = 0; i < o->secrets.n; i++) {
		const char *v = o->secrets.v[i];
		/* checked when the options were parsed (policy/options.c),
		 * the set (a NAME twice, port 80) included */
		if (policy_secret_parse(v, strlen(v), &t->secrets[i], why, sizeof(why)) !=
		    POLICY_SECRET_OK)
			return porta_fail(e, "--secret", NULL, 0, "%s", why);
		t->n_secrets++;
	}
	for (size_t i = 0; i < o->allow_http.n; i++) {
		const char *v = o->allow_http.v[i];
		if (policy_http_rule_parse(v, strlen(v), &t->rules[i], why, sizeof(why)) !=
		    POLICY_HTTP_RULE_OK)
			return porta_fail(e, "--allow-http", NULL, 0, "%s", why);
		t->n_rules++;
	}
	return 0;
}

/* A placeholder per secret, none overlapping any value or any other. */
static int make_placeholders(struct supervisor_term *t, char *const envp[], struct porta_error *e)
{
	char why[POLICY_ERR_MAX];
	size_t n = t->n_secrets;

	t->values = calloc(n + 1, sizeof(*t->values));
	t->placeholders = calloc(n + 1, sizeof(*t->placeholders));
	t->table = calloc(n + 1, sizeof(*t->table));
	const char **avoid = calloc(2 * n + 1, sizeof(*avoid));
	if (!t->values || !t->placeholders || !t->table || !avoid) {
		free(avoid);
		return porta_fail(e, "TLS termination", NULL, ENOMEM, NULL);
	}
	if (policy_secret_check_env(t->secrets, n, envp, t->values, why, sizeof(why)) !=
	    POLICY_SECRET_OK) {
		free(avoid);
		return porta_fail(e, "--secret", NULL, 0, "%s", why);
	}
	for (size_t i = 0; i < n; i++)
		avoid[i] = t->values[i];
	for (size_t i = 0; i < n; i++) {
		size_t vlen = strlen(t->values[i]), plen = policy_placeholder_len(t->values[i], vlen);
		uint8_t *rnd = malloc(plen ? plen : 1);
		char *out = malloc(plen + 1);
		size_t olen = 0;
		int draws = 0;
		enum policy_placeholder_status st = POLICY_PLACEHOLDER_COLLISION;
		if (!rnd || !out) {
			free(rnd);
			free(out);
			free(avoid);
			return porta_fail(e, "TLS termination", NULL, ENOMEM, NULL);
		}
		while (st == POLICY_PLACEHOLDER_COLLISION && draws++ < TERM_DRAWS) {
			if (getrandom(rnd, plen, 0) != (ssize_t)plen) {
				free(rnd);
				free(out);
				free(avoid);
				return porta_fail(e, "getrandom", NULL, errno, "for a placeholder");
			}
			st = policy_placeholder_make(t->values[i], vlen, rnd, plen, avoid, n + i, out,
						     plen + 1, &olen);
		}
		free(rnd);
		if (st != POLICY_PLACEHOLDER_OK) {
			free(out);
			free(avoid);
			return porta_fail(e, "--secret", NULL, 0,
					  "--secret %s: no placeholder overlaps nothing after %d draws; "
					  "is the value one character repeated?",
					  t->secrets[i].name, TERM_DRAWS);
		}
		t->placeholders[i] = out;
		avoid[n + i] = out;
		t->table[i].placeholder.p = (const uint8_t *)out;
		t->table[i].placeholder.n = olen;
		t->table[i].value.p = (const uint8_t *)t->values[i];
		t->table[i].value.n = vlen;
		t->table[i].name = t->secrets[i].name;
	}
	free(avoid);
	size_t bad;
	enum proxy_secret_table_status ts = proxy_secret_table_check(t->table, n, &bad);
	if (ts != PROXY_SECRET_TABLE_OK)
		return porta_fail(e, "--secret", NULL, 0,
				  "--secret %s: the proxy cannot hold its value and placeholder "
				  "(proxy_secret_table_check() status %d; the options' check should "
				  "have refused it: a defect of porta's)",
				  t->secrets[bad < n ? bad : 0].name, (int)ts);
	return 0;
}

static struct term_endpoint *find_ep(struct supervisor_term *t, const struct policy_endpoint *ep)
{
	for (size_t i = 0; i < t->n_eps; i++) {
		if (policy_endpoint_equal(&t->eps[i].ep, ep))
			return &t->eps[i];
	}
	return NULL;
}

static int add_ep(struct supervisor_term *t, const struct policy_endpoint *ep, bool tls,
		  bool ruled, size_t cap, struct porta_error *e)
{
	struct term_endpoint *x = find_ep(t, ep);
	char text[POLICY_ENDPOINT_STRLEN];

	if (tls && ep->is_addr)
		return porta_fail(e, "TLS termination", policy_endpoint_format(ep, 0, text), 0,
				  "a host given by address cannot be terminated (mbedtls 2.28 cannot "
				  "match a certificate's address); name it by its host name");
	if (x) {
		if (x->tls != tls)
			return porta_fail(e, "TLS termination", policy_endpoint_format(ep, 0, text),
					  0, "named both as http and as https");
		x->ruled |= ruled;
		return 0;
	}
	if (t->n_eps == cap)
		return porta_fail(e, "TLS termination", NULL, ENOMEM, NULL);
	x = &t->eps[t->n_eps++];
	x->ep = *ep;
	x->tls = tls;
	x->ruled = ruled;
	return 0;
}

/* Every terminated endpoint, with the secrets bound to it and the rest. */
static int list_endpoints(struct supervisor_term *t, struct porta_error *e)
{
	size_t cap = t->n_rules;
	for (size_t i = 0; i < t->n_secrets; i++)
		cap += t->secrets[i].n_hosts;
	t->eps = calloc(cap + 1, sizeof(*t->eps));
	struct policy_http_endpoint *hep = calloc(t->n_rules + 1, sizeof(*hep));
	if (!t->eps || !hep) {
		free(hep);
		return porta_fail(e, "TLS termination", NULL, ENOMEM, NULL);
	}
	int r = 0;
	size_t nh = policy_http_endpoints(t->rules, t->n_rules, hep, t->n_rules + 1);
	for (size_t i = 0; r == 0 && i < nh; i++) {
		/* an http:// rule's endpoint is read in the clear, transparently
		 * or through porta's HTTP proxy (netproxy/terminate.h, proxied);
		 * one port is read one way (a rule set naming both is refused
		 * when the options are parsed, policy/options.c) */
		r = add_ep(t, &hep[i].ep, !hep[i].http, true, cap, e);
	}
	free(hep);
	for (size_t i = 0; r == 0 && i < t->n_secrets; i++)
		for (size_t h = 0; r == 0 && h < t->secrets[i].n_hosts; h++)
			r = add_ep(t, &t->secrets[i].hosts[h], true, false, cap, e);
	if (r)
		return r;
	for (size_t k = 0; k < t->n_eps; k++) {
		struct term_endpoint *x = &t->eps[k];
		x->bound = calloc(t->n_secrets + 1, sizeof(*x->bound));
		x->others = calloc(t->n_secrets + 1, sizeof(*x->others));
		if (!x->bound || !x->others)
			return porta_fail(e, "TLS termination", NULL, ENOMEM, NULL);
		for (size_t i = 0; i < t->n_secrets; i++) {
			bool mine = false;
			for (size_t h = 0; h < t->secrets[i].n_hosts; h++)
				mine |= policy_endpoint_equal(&t->secrets[i].hosts[h], &x->ep);
			if (mine)
				x->bound[x->n_bound++] = t->table[i];
			else
				x->others[x->n_others++] = t->table[i];
		}
	}
	return 0;
}

static int lookup(void *arg, const char *name, size_t len, struct tls_cert_pick *pick)
{
	struct tls_leaf leaf;
	char canon[POLICY_NAME_MAX + 1];

	/* the client's SNI as sent: lower-case, no trailing dot, as the CA
	 * lists names (a name it does not list is refused there) */
	if (len == 0 || len > POLICY_NAME_MAX)
		return -1;
	for (size_t i = 0; i < len; i++)
		canon[i] = (name[i] >= 'A' && name[i] <= 'Z') ? (char)(name[i] + 32) : name[i];
	if (canon[len - 1] == '.')
		len--;
	canon[len] = '\0';
	if (tls_ca_leaf(arg, canon, &leaf) < 0)
		return -1;
	pick->chain = leaf.chain;
	pick->key = leaf.key;
	return 0;
}

static int make_tls(struct supervisor_term *t, char *const envp[], struct porta_error *e)
{
	const char **names = calloc(t->n_eps + 1, sizeof(*names));
	size_t n = 0;
	int r;

	if (!names)
		return porta_fail(e, "TLS termination", NULL, ENOMEM, NULL);
	for (size_t i = 0; i < t->n_eps; i++) {
		bool dup = false;
		if (!t->eps[i].tls)
			continue;
		for (size_t k = 0; k < n; k++)
			dup |= strcmp(names[k], t->eps[i].ep.name) == 0;
		if (!dup)
			names[n++] = t->eps[i].ep.name;
	}
	if (n == 0) {
		free(names);
		return 0;
	}
	r = tls_ca_create(names, n, &t->ca, e);
	free(names);
	if (r < 0)
		return r;
	const char *bundle = NULL;
	for (size_t i = 0; envp[i]; i++) {
		if (strncmp(envp[i], "SSL_CERT_FILE=", 14) == 0)
			bundle = envp[i] + 14;
	}
	if ((r = tls_server_conf_create(lookup, t->ca, &t->server, e)) < 0 ||
	    (r = tls_client_conf_create(bundle, &t->client, e)) < 0)
		return r;
	return 0;
}

int supervisor_term_create(const struct policy_options *o, char *const envp[],
			   struct supervisor_term **out, struct porta_error *e)
{
	int r;

	*out = NULL;
	if (o->secrets.n == 0 && o->allow_http.n == 0)
		return 0;
	struct supervisor_term *t = calloc(1, sizeof(*t));
	if (!t)
		return porta_fail(e, "TLS termination", NULL, ENOMEM, NULL);
	if ((r = parse_all(t, o, e)) || (r = make_placeholders(t, envp, e)) ||
	    (r = list_endpoints(t, e)) || (r = make_tls(t, envp, e))) {
		supervisor_term_destroy(t);
		return r;
	}
	*out = t;
	return 0;
}

const char *supervisor_term_ca_pem(const struct supervisor_term *t)
{
	return t && t->ca ? tls_ca_pem(t->ca) : NULL;
}

char **supervisor_term_env(const struct supervisor_term *t, char *const envp[])
{
	size_t n = 0, k = 0;

	while (envp[n])
		n++;
	char **env = calloc(n + t->n_secrets + 1, sizeof(*env));
	if (!env)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		bool secret = false;
		for (size_t s = 0; s < t->n_secrets; s++) {
			size_t l = strlen(t->secrets[s].name);
			secret |= strncmp(envp[i], t->secrets[s].name, l) == 0 && envp[i][l] == '=';
		}
		if (!secret)
			env[k++] = envp[i]; /* the real value never goes in */
	}
	for (size_t s = 0; s < t->n_secrets; s++) {
		size_t len = strlen(t->secrets[s].name) + 1 + strlen(t->placeholders[s]) + 1;
		char *v = malloc(len);
		if (!v)
			return NULL;
		snprintf(v, len, "%s=%s", t->secrets[s].name, t->placeholders[s]);
		env[k++] = v;
	}
	env[k] = NULL;
	return env;
}

void supervisor_term_env_free(const struct supervisor_term *t, char **env)
{
	size_t n = 0;

	if (!env)
		return;
	while (env[n])
		n++;
	/* its own strings are the last n_secrets */
	for (size_t i = n >= t->n_secrets ? n - t->n_secrets : 0; i < n; i++)
		free(env[i]);
	free(env);
}

bool supervisor_term_params(struct supervisor_term *t, const struct policy_net_target *host,
			    uint16_t port, struct proxy_term_params *out)
{
	for (size_t i = 0; i < t->n_eps; i++) {
		struct term_endpoint *x = &t->eps[i];
		if (!policy_endpoint_matches(&x->ep, host, port))
			continue;
		memset(out, 0, sizeof(*out));
		out->server = x->tls ? t->server : NULL;
		out->client = x->tls ? t->client : NULL;
		out->host = host;
		out->port = port;
		out->rules = x->ruled ? t->rules : NULL;
		out->n_rules = x->ruled ? t->n_rules : 0;
		out->bound = x->bound;
		out->n_bound = x->n_bound;
		out->others = x->others;
		out->n_others = x->n_others;
		out->scratch = t->scratch;
		return true;
	}
	return false;
}

const struct proxy_secret *supervisor_term_secrets(const struct supervisor_term *t, size_t *n)
{
	*n = t ? t->n_secrets : 0;
	return t ? t->table : NULL;
}

size_t supervisor_term_n_secrets(const struct supervisor_term *t)
{
	return t ? t->n_secrets : 0;
}

const char *supervisor_term_placeholder(const struct supervisor_term *t, size_t i)
{
	return t && i < t->n_secrets ? t->placeholders[i] : NULL;
}
