/* netproxy/audit.c: the audit stream (one JSON object per line, DESIGN.md's
 * keys), one stderr line per distinct refused destination, and the summary.
 * Every program-controlled string (names as sent, SNI, comm) goes through
 * log_escape() before it is written anywhere, so the JSON holds ASCII only
 * (jansson also refuses invalid UTF-8). */
#include "netproxy/internal.h"

#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/log.h"

#define ESC_MAX PROXY_ESC_MAX

char *proxy_format_dst(const struct policy_addr *a, uint16_t port, char out[PROXY_DST_STRLEN])
{
	char t[POLICY_ADDR_STRLEN];
	policy_addr_format(a, t);
	if (a->family == POLICY_ADDR_V6)
		snprintf(out, PROXY_DST_STRLEN, "[%s]:%u", t, port);
	else
		snprintf(out, PROXY_DST_STRLEN, "%s:%u", t, port);
	return out;
}

/* RFC 3339 UTC with milliseconds: 2026-11-30T16:32:08.123Z */
static void rfc3339_now(char out[32])
{
	struct timespec ts;
	struct tm tm;
	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	size_t n = strftime(out, 32, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(out + n, 32 - n, ".%03ldZ", ts.tv_nsec / 1000000);
}

static int set_str(json_t *o, const char *key, const char *s, size_t n, bool escape)
{
	json_t *v;
	if (!s) {
		v = json_null();
	} else if (escape) {
		char esc[ESC_MAX];
		log_escape(s, n, esc, sizeof(esc));
		v = json_string(esc);
	} else {
		v = json_string(s);
	}
	return v ? json_object_set_new(o, key, v) : -1;
}

int proxy_audit_write(struct proxy *p, const struct proxy_audit_entry *e)
{
	char ts[32];
	int rc = 0;

	p->seq++;
	if (!p->audit)
		return 0;
	json_t *o = json_object();
	if (!o)
		return -ENOMEM;
	rfc3339_now(ts);
	rc |= set_str(o, "ts", ts, 0, false);
	rc |= json_object_set_new(o, "seq", json_integer((json_int_t)p->seq));
	rc |= set_str(o, "kind", e->kind, 0, false);
	if (e->pid > 0)
		rc |= json_object_set_new(o, "pid", json_integer(e->pid));
	if (e->comm)
		rc |= set_str(o, "comm", e->comm, strlen(e->comm), true);
	rc |= set_str(o, "dst", e->dst, e->dst ? strlen(e->dst) : 0, true);
	rc |= set_str(o, "host", e->host, e->host_len, true);
	rc |= set_str(o, "sni", e->sni, e->sni_len, true);
	rc |= set_str(o, "rule", e->rule, e->rule ? strlen(e->rule) : 0, true);
	rc |= set_str(o, "verdict", e->verdict, 0, false);
	rc |= set_str(o, "reason", e->reason, 0, false);
	rc |= set_str(o, "hint", e->hint, e->hint ? strlen(e->hint) : 0, true);
	if (e->upstream)
		rc |= set_str(o, "upstream", e->upstream, 0, false);
	if (e->closing) {
		rc |= json_object_set_new(o, "bytes_up", json_integer((json_int_t)e->bytes_up));
		rc |= json_object_set_new(o, "bytes_down", json_integer((json_int_t)e->bytes_down));
		rc |= json_object_set_new(o, "duration_ms",
					  json_integer((json_int_t)e->duration_ms));
	}
	char *line = rc ? NULL : json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(o);
	if (!line)
		return -ENOMEM;
	rc = 0;
	/* one stdio call for the line and its newline, then out: a reader of the
	 * file sees whole records, save the one being written */
	if (fprintf(p->audit, "%s\n", line) < 0 || fflush(p->audit) == EOF)
		rc = -(errno ? errno : EIO);
	free(line);
	return rc;
}

void proxy_audit_refused(struct proxy *p, const char *dst, size_t dst_len, const char *reason,
			 const char *hint)
{
	char esc[ESC_MAX];
	log_escape(dst, dst_len, esc, sizeof(esc));

	for (size_t i = 0; i < p->n_refused; i++) {
		if (strcmp(p->refused[i].dst, esc) == 0) {
			p->refused[i].count++;
			return;
		}
	}
	char why[24];
	snprintf(why, sizeof(why), "%s", reason);
	for (char *q = why; *q; q++)
		if (*q == '-')
			*q = ' ';
	if (!p->quiet) {
		if (hint)
			log_msg(LOG_LEVEL_NOTICE, "refused %s (%s); allow with %s", esc, why, hint);
		else
			log_msg(LOG_LEVEL_NOTICE, "refused %s (%s)", esc, why);
	}
	if (p->n_refused == PROXY_REFUSED_MAX) {
		p->n_refused_more++;
		return;
	}
	struct proxy_refused *r = &p->refused[p->n_refused++];
	snprintf(r->dst, sizeof(r->dst), "%s", esc);
	snprintf(r->reason, sizeof(r->reason), "%s", why);
	snprintf(r->hint, sizeof(r->hint), "%s", hint ? hint : "");
	r->count = 1;
}

void proxy_summary(struct proxy *p, FILE *err)
{
	if (!p || p->quiet || (p->n_refused == 0 && p->n_limit == 0))
		return;
	if (p->n_refused)
		fprintf(err, "porta: refused %zu destination%s:\n",
			p->n_refused + (size_t)p->n_refused_more,
			p->n_refused + p->n_refused_more == 1 ? "" : "s");
	for (size_t i = 0; i < p->n_refused; i++) {
		const struct proxy_refused *r = &p->refused[i];
		fprintf(err, "porta:   %s (%s, %llu time%s)%s%s\n", r->dst, r->reason,
			(unsigned long long)r->count, r->count == 1 ? "" : "s",
			r->hint[0] ? "  allow with " : "", r->hint);
	}
	if (p->n_refused_more)
		fprintf(err, "porta:   and %llu more\n", (unsigned long long)p->n_refused_more);
	if (p->n_limit)
		fprintf(err, "porta: %llu connection%s refused at a limit\n",
			(unsigned long long)p->n_limit, p->n_limit == 1 ? "" : "s");
	fflush(err);
}

bool proxy_refused_at(const struct proxy *p, size_t i, const char **dst, const char **reason,
		      const char **hint)
{
	if (!p || i >= p->n_refused)
		return false;
	*dst = p->refused[i].dst;
	*reason = p->refused[i].reason;
	*hint = p->refused[i].hint;
	return true;
}

void proxy_audit_free(struct proxy *p)
{
	free(p->refused);
	p->refused = NULL;
}

int proxy_record(struct proxy *p, const struct proxy_audit_rec *rec)
{
	char hint[PROXY_ESC_MAX + 32];
	const char *h = NULL;
	bool refused = rec->verdict && strcmp(rec->verdict, "allow") != 0;

	/* the option that would allow it: by name when a name was decided on
	 * and a name rule could have reached it, else by address */
	if (refused && rec->port && rec->reason && strcmp(rec->reason, "deny-rule") != 0 &&
	    strcmp(rec->reason, "malformed-name") != 0) {
		char esc[ESC_MAX];
		if (rec->host && rec->host_len && strcmp(rec->reason, "no-rule") == 0) {
			log_escape(rec->host, rec->host_len, esc, sizeof(esc));
			snprintf(hint, sizeof(hint), "%s %s:%u", proxy_allow_option(p), esc, rec->port);
			h = hint;
		} else if (rec->dst && strcmp(rec->kind, "dns") != 0) {
			/* A DNS record's dst is the resolver the program asked:
			 * opening it never allows what was refused. */
			snprintf(hint, sizeof(hint), "%s %s", proxy_allow_option(p), rec->dst);
			h = hint;
		}
	}
	struct proxy_audit_entry e = {
		.kind = rec->kind,
		.pid = rec->pid,
		.comm = rec->comm,
		.dst = rec->dst,
		.host = rec->host,
		.host_len = rec->host_len,
		.rule = rec->rule,
		.verdict = rec->verdict,
		.reason = rec->reason,
		.hint = h,
	};
	int rc = proxy_audit_write(p, &e);
	if (refused) {
		/* the destination as the program named it: host:port, else dst */
		char label[POLICY_NAME_MAX + 8];
		size_t hl = rec->host_len > POLICY_NAME_MAX ? POLICY_NAME_MAX : rec->host_len;
		const char *d = rec->dst;
		size_t dl = d ? strlen(d) : 0;
		if (rec->host && hl) {
			memcpy(label, rec->host, hl);
			dl = hl;
			if (rec->port)
				dl += (size_t)snprintf(label + hl, sizeof(label) - hl, ":%u", rec->port);
			d = label;
		}
		if (d)
			proxy_audit_refused(p, d, dl, rec->reason ? rec->reason : "refused", h);
	}
	return rc;
}
