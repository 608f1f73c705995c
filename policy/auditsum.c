/* policy/auditsum.c: the audits summed up (see auditsum.h). */
#include "policy/auditsum.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "policy/names.h"
#include "policy/options.h"

void policy_audit_init(struct policy_audit *a)
{
	memset(a, 0, sizeof(*a));
}

void policy_audit_free(struct policy_audit *a)
{
	free(a->dests);
	for (size_t i = 0; i < a->n_hints; i++)
		free(a->hints[i]);
	memset(a, 0, sizeof(*a));
}

static const char *str(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	return json_is_string(v) ? json_string_value(v) : NULL;
}

/* "ADDR:PORT" or "[V6]:PORT": the port, 0 when there is none. */
static uint16_t port_of(const char *hostport)
{
	if (!hostport)
		return 0;
	const char *colon = strrchr(hostport, ':');
	if (!colon || (strchr(hostport, ':') != colon && hostport[0] != '['))
		return 0; /* a bare IPv6 address: no port */
	uint64_t p;
	return policy_parse_u64(colon + 1, strlen(colon + 1), 65535, &p) && p >= 1 ? (uint16_t)p
										  : 0;
}

/* The host part of "ADDR:PORT" / "[V6]:PORT" into out[cap]. */
static void host_of(const char *hostport, char *out, size_t cap)
{
	const char *colon = strrchr(hostport, ':');
	size_t n = strlen(hostport);
	if (hostport[0] == '[') {
		const char *close = strchr(hostport, ']');
		n = close ? (size_t)(close - hostport) + 1 : n;
	} else if (colon && strchr(hostport, ':') == colon) {
		n = (size_t)(colon - hostport);
	}
	snprintf(out, cap, "%.*s", (int)(n < cap ? n : cap - 1), hostport);
}

static bool is_close_reason(const char *r)
{
	static const char *const closes[] = { "closed", "reset", "idle", "no-memory", "refused" };
	for (size_t i = 0; i < sizeof(closes) / sizeof(closes[0]); i++)
		if (strcmp(r, closes[i]) == 0)
			return true;
	return false;
}

static struct policy_audit_dest *dest(struct policy_audit *a, const char *name, uint16_t port,
				      bool is_addr)
{
	for (size_t i = 0; i < a->n; i++)
		if (a->dests[i].port == port && strcmp(a->dests[i].name, name) == 0)
			return &a->dests[i];
	if (a->n == a->cap) {
		size_t cap = a->cap ? 2 * a->cap : 64;
		struct policy_audit_dest *d = realloc(a->dests, cap * sizeof(*d));
		if (!d)
			return NULL;
		a->dests = d;
		a->cap = cap;
	}
	struct policy_audit_dest *d = &a->dests[a->n++];
	memset(d, 0, sizeof(*d));
	snprintf(d->name, sizeof(d->name), "%s", name);
	d->port = port;
	d->is_addr = is_addr;
	return d;
}

static void add_comm(struct policy_audit_dest *d, const char *comm)
{
	if (!comm)
		comm = "(unknown)";
	for (size_t i = 0; i < d->n_comms; i++)
		if (strcmp(d->comms[i].comm, comm) == 0) {
			d->comms[i].n++;
			return;
		}
	if (d->n_comms == POLICY_AUDIT_COMMS_MAX) {
		d->other_comms++;
		return;
	}
	snprintf(d->comms[d->n_comms].comm, sizeof(d->comms[0].comm), "%s", comm);
	d->comms[d->n_comms++].n = 1;
}

static bool add_hint(struct policy_audit *a, const char *hint)
{
	for (size_t i = 0; i < a->n_hints; i++)
		if (strcmp(a->hints[i], hint) == 0)
			return true;
	if (a->n_hints == POLICY_AUDIT_HINTS_MAX)
		return true; /* the summary says the first ones */
	a->hints[a->n_hints] = strdup(hint);
	if (!a->hints[a->n_hints])
		return false;
	a->n_hints++;
	return true;
}

/* The port a refusal's hint names ("--allow-net NAME:PORT", "... NAME"),
 * when the record itself has none. */
static uint16_t port_of_hint(const char *hint)
{
	if (!hint)
		return 0;
	const char *sp = strrchr(hint, ' ');
	return port_of(sp ? sp + 1 : hint);
}

enum policy_audit_status policy_audit_add(struct policy_audit *a, const char *line, size_t len,
					  char err[POLICY_AUDIT_ERR_MAX])
{
	err[0] = '\0';
	size_t i = 0;
	while (i < len && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r'))
		i++;
	if (i == len)
		return POLICY_AUDIT_OK;
	json_error_t je;
	json_t *o = json_loadb(line, len, JSON_REJECT_DUPLICATES, &je);
	if (!o || !json_is_object(o)) {
		snprintf(err, POLICY_AUDIT_ERR_MAX, "not a JSON object (%s)",
			 o ? "another JSON value" : je.text);
		json_decref(o);
		return POLICY_AUDIT_MALFORMED;
	}
	const char *kind = str(o, "kind"), *verdict = str(o, "verdict"), *reason = str(o, "reason");
	if (kind && strcmp(kind, "run") == 0) {
		/* about the run, not a destination: the closing record of an
		 * audit that reached its ceiling (decision/log.c) says how many
		 * records are missing; another event is not counted */
		const char *event = str(o, "event");
		json_t *nw = json_object_get(o, "not_written");
		if (!event) {
			snprintf(err, POLICY_AUDIT_ERR_MAX, "a run record without an event");
			json_decref(o);
			return POLICY_AUDIT_MALFORMED;
		}
		if (strcmp(event, "audit-ceiling") == 0) {
			if (!json_is_integer(nw) || json_integer_value(nw) < 0) {
				snprintf(err, POLICY_AUDIT_ERR_MAX,
					 "an audit-ceiling record without its not_written count");
				json_decref(o);
				return POLICY_AUDIT_MALFORMED;
			}
			a->not_written += (unsigned long)json_integer_value(nw);
			a->ceilings++;
		}
		json_decref(o);
		return POLICY_AUDIT_OK;
	}
	if (!kind || !verdict || !reason ||
	    (strcmp(kind, "dns") && strcmp(kind, "connect") && strcmp(kind, "proxy") &&
	     strcmp(kind, "http")) ||
	    (strcmp(verdict, "allow") && strcmp(verdict, "deny") && strcmp(verdict, "error"))) {
		snprintf(err, POLICY_AUDIT_ERR_MAX,
			 "not a porta audit record (kind, verdict and reason as porta writes them)");
		json_decref(o);
		return POLICY_AUDIT_MALFORMED;
	}
	const char *host = str(o, "host"), *sni = str(o, "sni"), *dst = str(o, "dst"),
		   *upstream = str(o, "upstream"), *hint = str(o, "hint"), *comm = str(o, "comm");
	bool dns = strcmp(kind, "dns") == 0, http = strcmp(kind, "http") == 0;
	char name[256];
	bool is_addr = false;
	uint16_t port = 0;
	if (host && *host) {
		snprintf(name, sizeof(name), "%s", host);
	} else if (sni && *sni) {
		snprintf(name, sizeof(name), "%s", sni);
	} else if (!dns && (upstream || dst)) {
		host_of(upstream ? upstream : dst, name, sizeof(name));
		is_addr = true;
	} else {
		snprintf(name, sizeof(name), "(unknown)");
	}
	if (!dns) {
		port = port_of(upstream ? upstream : dst);
		if (!port)
			port = port_of_hint(hint);
	}
	struct policy_audit_dest *d = dest(a, name, port, is_addr);
	if (!d) {
		json_decref(o);
		return POLICY_AUDIT_NO_MEMORY;
	}
	a->records++;
	bool refused = strcmp(verdict, "allow") != 0;
	json_t *up = json_object_get(o, "bytes_up"), *down = json_object_get(o, "bytes_down");
	if (!refused && json_is_integer(up) && is_close_reason(reason)) {
		a->closes++;
		d->bytes_up += (uint64_t)json_integer_value(up);
		if (json_is_integer(down))
			d->bytes_down += (uint64_t)json_integer_value(down);
	} else {
		unsigned long *count = http ? (refused ? &d->http_refused : &d->http_allowed)
					    : (refused ? &d->refused : &d->allowed);
		(*count)++;
		(*(refused ? &a->refused : &a->allowed))++;
		add_comm(d, comm);
		if (refused && hint)
			d->allowable = true;
		if (refused && hint && !add_hint(a, hint)) {
			json_decref(o);
			return POLICY_AUDIT_NO_MEMORY;
		}
	}
	json_decref(o);
	return POLICY_AUDIT_OK;
}

/* Refused first (the question a reader has), then by name and port. */
static int cmp_dest(const void *x, const void *y)
{
	const struct policy_audit_dest *a = x, *b = y;
	bool ra = a->refused || a->http_refused, rb = b->refused || b->http_refused;
	if (ra != rb)
		return ra ? -1 : 1;
	int c = strcmp(a->name, b->name);
	return c ? c : (int)a->port - (int)b->port;
}

static void dest_label(const struct policy_audit_dest *d, char *out, size_t cap)
{
	if (d->port)
		snprintf(out, cap, "%s:%u", d->name, d->port);
	else
		snprintf(out, cap, "%s (DNS)", d->name);
}

/* A copy sorted for printing (the summary itself stays in input order). */
static struct policy_audit_dest *sorted(const struct policy_audit *a)
{
	struct policy_audit_dest *s = malloc((a->n ? a->n : 1) * sizeof(*s));
	if (!s)
		return NULL;
	if (a->n) /* with none, dests is NULL, which memcpy(3) may not be given */
		memcpy(s, a->dests, a->n * sizeof(*s));
	qsort(s, a->n, sizeof(*s), cmp_dest);
	return s;
}

static void print_json(FILE *out, const struct policy_audit *a, const struct policy_audit_dest *s)
{
	json_t *root = json_object(), *dests = json_array(), *hints = json_array();
	for (size_t i = 0; i < a->n; i++) {
		const struct policy_audit_dest *d = &s[i];
		json_t *j = json_object(), *comms = json_object();
		json_object_set_new(j, "name", json_string(d->name));
		json_object_set_new(j, "port", d->port ? json_integer(d->port) : json_null());
		json_object_set_new(j, "dns_only", json_boolean(d->port == 0));
		json_object_set_new(j, "allowed", json_integer((json_int_t)d->allowed));
		json_object_set_new(j, "refused", json_integer((json_int_t)d->refused));
		json_object_set_new(j, "http_allowed", json_integer((json_int_t)d->http_allowed));
		json_object_set_new(j, "http_refused", json_integer((json_int_t)d->http_refused));
		json_object_set_new(j, "bytes_up", json_integer((json_int_t)d->bytes_up));
		json_object_set_new(j, "bytes_down", json_integer((json_int_t)d->bytes_down));
		for (size_t k = 0; k < d->n_comms; k++)
			json_object_set_new(comms, d->comms[k].comm,
					    json_integer((json_int_t)d->comms[k].n));
		if (d->other_comms)
			json_object_set_new(comms, "(others)", json_integer((json_int_t)d->other_comms));
		json_object_set_new(j, "processes", comms);
		json_array_append_new(dests, j);
	}
	for (size_t i = 0; i < a->n_hints; i++)
		json_array_append_new(hints, json_string(a->hints[i]));
	json_object_set_new(root, "records", json_integer((json_int_t)a->records));
	json_object_set_new(root, "allowed", json_integer((json_int_t)a->allowed));
	json_object_set_new(root, "refused", json_integer((json_int_t)a->refused));
	json_object_set_new(root, "closes", json_integer((json_int_t)a->closes));
	json_object_set_new(root, "not_written", json_integer((json_int_t)a->not_written));
	json_object_set_new(root, "destinations", dests);
	json_object_set_new(root, "would_allow", hints);
	json_dumpf(root, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	fputc('\n', out);
	json_decref(root);
}

void policy_audit_print(FILE *out, const struct policy_audit *a, bool json)
{
	struct policy_audit_dest *s = sorted(a);
	if (!s)
		return;
	if (json) {
		print_json(out, a, s);
		free(s);
		return;
	}
	fprintf(out, "%lu records: %lu allowed, %lu refused, %lu connections closed; "
		     "%zu destinations\n\n",
		a->records, a->allowed, a->refused, a->closes, a->n);
	if (a->not_written)
		fprintf(out, "%lu more record%s not written: the audit reached its ceiling "
			     "(--audit-max) %lu time%s, and the counts below leave them out\n\n",
			a->not_written, a->not_written == 1 ? " was" : "s were", a->ceilings,
			a->ceilings == 1 ? "" : "s");
	fprintf(out, "%-40s %8s %8s %12s %12s  %s\n", "destination", "allowed", "refused", "bytes up",
		"bytes down", "processes");
	for (size_t i = 0; i < a->n; i++) {
		const struct policy_audit_dest *d = &s[i];
		char label[300];
		dest_label(d, label, sizeof(label));
		fprintf(out, "%-40s %8lu %8lu %12llu %12llu  ", label, d->allowed, d->refused,
			(unsigned long long)d->bytes_up, (unsigned long long)d->bytes_down);
		for (size_t k = 0; k < d->n_comms; k++)
			fprintf(out, "%s%s (%lu)", k ? ", " : "", d->comms[k].comm, d->comms[k].n);
		if (d->other_comms)
			fprintf(out, ", %lu more", d->other_comms);
		if (d->http_allowed || d->http_refused)
			fprintf(out, "; HTTP requests %lu allowed, %lu refused", d->http_allowed,
				d->http_refused);
		fputc('\n', out);
	}
	if (a->n_hints) {
		fprintf(out, "\nto allow what was refused:\n");
		for (size_t i = 0; i < a->n_hints; i++)
			fprintf(out, "  %s\n", a->hints[i]);
	}
	free(s);
}

void policy_audit_lock(FILE *out, const struct policy_audit *a, const char *const files[],
		       size_t n_files)
{
	struct policy_audit_dest *s = sorted(a);
	if (!s)
		return;
	fprintf(out, "# egress lock: the destinations used in");
	for (size_t i = 0; i < n_files; i++)
		fprintf(out, " %s", files[i]);
	fprintf(out, "\n# (porta audit --lock); check later runs with porta audit --against "
		     "THIS-FILE AUDIT...\n");
	for (size_t i = 0; i < a->n; i++) {
		const struct policy_audit_dest *d = &s[i];
		if (!d->port || !(d->allowed || d->http_allowed) || strcmp(d->name, "(unknown)") == 0)
			continue;
		fprintf(out, "--allow-net %s:%u\n", d->name, d->port);
	}
	free(s);
}

bool policy_audit_dest_inside(const struct policy_audit_dest *d,
			      const struct policy_net_rule *rules, size_t n_rules)
{
	struct policy_net_target t;
	if (policy_net_target_parse((const uint8_t *)d->name, strlen(d->name), &t) !=
	    POLICY_NET_TARGET_OK)
		return false;
	if (!d->port)
		return !t.is_addr && policy_net_name_resolvable(rules, n_rules, t.name);
	struct policy_net_query q = { .name = t.is_addr ? NULL : t.name,
				      .addr = t.is_addr ? &t.addr : NULL,
				      .port = d->port,
				      .via_proxy = true };
	struct policy_net_decision dec;
	return policy_net_decide(rules, n_rules, &q, &dec) == POLICY_NET_ALLOWED;
}

size_t policy_audit_against(FILE *out, const struct policy_audit *a,
			    const struct policy_net_rule *rules, size_t n_rules)
{
	struct policy_audit_dest *s = sorted(a);
	size_t outside = 0;
	if (!s)
		return 0;
	for (size_t i = 0; i < a->n; i++) {
		const struct policy_audit_dest *d = &s[i];
		bool inside = policy_audit_dest_inside(d, rules, n_rules);
		/* a name's questions are drift with its connections: said once */
		for (size_t k = 0; !inside && !d->port && k < a->n; k++)
			if (s[k].port && strcmp(s[k].name, d->name) == 0 &&
			    !policy_audit_dest_inside(&s[k], rules, n_rules))
				inside = true;
		if (inside)
			continue;
		char label[300];
		dest_label(d, label, sizeof(label));
		fprintf(out, "outside the lock: %s (%lu allowed, %lu refused;", label,
			d->allowed + d->http_allowed, d->refused + d->http_refused);
		for (size_t k = 0; k < d->n_comms; k++)
			fprintf(out, "%s%s", k ? ", " : " ", d->comms[k].comm);
		fprintf(out, ")\n");
		outside++;
	}
	free(s);
	return outside;
}
