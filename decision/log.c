/* decision/log.c: see log.h. */
#include "decision/log.h"

#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/log.h"

/* log_escape() turns one byte into at most 4: a name with its port, escaped */
#define ESC_MAX (4 * (POLICY_NAME_MAX + 8) + 1)

struct refused {
	char dst[ESC_MAX]; /* host:port or address:port, escaped */
	const char *words; /* static, from the reason table */
	char hint[POLICY_HINT_MAX];
	uint64_t count;
};

struct decision_log {
	FILE *audit;
	bool quiet;
	bool proxy_only;
	uint64_t seq;
	/* grown as refusals come (most runs have none): up to
	 * DECISION_REFUSED_MAX */
	struct refused *refused;
	size_t n_refused, cap_refused;
	uint64_t n_refused_more; /* distinct ones beyond DECISION_REFUSED_MAX */
	uint64_t n_limit;        /* connections refused at a limit */
};

int decision_log_create(const struct decision_log_config *cfg, struct decision_log **out)
{
	struct decision_log *log = calloc(1, sizeof(*log));
	if (!log)
		return -ENOMEM;
	log->audit = cfg->audit;
	log->quiet = cfg->quiet;
	log->proxy_only = cfg->proxy_only;
	*out = log;
	return 0;
}

void decision_log_destroy(struct decision_log *log)
{
	if (!log)
		return;
	free(log->refused);
	free(log);
}

char *decision_format_dst(const struct policy_addr *a, uint16_t port,
			  char out[DECISION_DST_STRLEN])
{
	char t[POLICY_ADDR_STRLEN];
	policy_addr_format(a, t);
	if (a->family == POLICY_ADDR_V6)
		snprintf(out, DECISION_DST_STRLEN, "[%s]:%u", t, port);
	else
		snprintf(out, DECISION_DST_STRLEN, "%s:%u", t, port);
	return out;
}

size_t decision_log_hint(const struct decision_log *log, const struct decision *d, char *out,
			 size_t cap)
{
	if (d->hint_text) {
		snprintf(out, cap, "%s", d->hint_text);
		return strlen(out);
	}
	struct policy_hint_facts f = {
		.proxy_only = log && log->proxy_only,
		.name = d->hint_name,
		.addr = d->hint_addr,
		.port = d->port,
	};
	return policy_reason_hint(d->reason, &f, out, cap);
}

static const char *kind_name(enum decision_kind k)
{
	switch (k) {
	case DECISION_KIND_CONNECT: return "connect";
	case DECISION_KIND_PROXY: return "proxy";
	case DECISION_KIND_DNS: return "dns";
	case DECISION_KIND_HTTP: return "http";
	}
	return "connect";
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

/* One JSON line, in the key order the audit has always had. */
static int write_audit(struct decision_log *log, const struct decision *d, const char *hint)
{
	char ts[32];
	int rc = 0;

	if (!log->audit)
		return 0;
	json_t *o = json_object();
	if (!o)
		return -ENOMEM;
	rfc3339_now(ts);
	rc |= set_str(o, "ts", ts, 0, false);
	rc |= json_object_set_new(o, "seq", json_integer((json_int_t)log->seq));
	rc |= set_str(o, "kind", kind_name(d->kind), 0, false);
	if (d->pid > 0)
		rc |= json_object_set_new(o, "pid", json_integer(d->pid));
	if (d->comm)
		rc |= set_str(o, "comm", d->comm, strlen(d->comm), true);
	rc |= set_str(o, "dst", d->dst, d->dst ? strlen(d->dst) : 0, true);
	rc |= set_str(o, "host", d->host, d->host_len, true);
	rc |= set_str(o, "sni", d->sni, d->sni_len, true);
	if (d->kind == DECISION_KIND_HTTP) {
		rc |= set_str(o, "method", d->method, d->method_len, true);
		rc |= set_str(o, "path", d->path, d->path_len, true);
		rc |= set_str(o, "detail", d->detail, d->detail ? strlen(d->detail) : 0, true);
	} else if (d->detail) {
		/* other kinds carry one only when it says more than the reason
		 * (the secret a "secret-elsewhere" refusal found) */
		rc |= set_str(o, "detail", d->detail, strlen(d->detail), true);
	}
	rc |= set_str(o, "rule", d->rule, d->rule ? strlen(d->rule) : 0, true);
	rc |= set_str(o, "verdict", policy_verdict_name(policy_reason_verdict(d->reason)), 0, false);
	rc |= set_str(o, "reason", policy_reason_code(d->reason), 0, false);
	rc |= set_str(o, "hint", hint, hint ? strlen(hint) : 0, true);
	if (d->upstream)
		rc |= set_str(o, "upstream", d->upstream, 0, false);
	if (d->closing) {
		rc |= json_object_set_new(o, "bytes_up", json_integer((json_int_t)d->bytes_up));
		rc |= json_object_set_new(o, "bytes_down", json_integer((json_int_t)d->bytes_down));
		rc |= json_object_set_new(o, "duration_ms",
					  json_integer((json_int_t)d->duration_ms));
	}
	char *line = rc ? NULL : json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(o);
	if (!line)
		return -ENOMEM;
	rc = 0;
	/* one stdio call for the line and its newline, then out: a reader of the
	 * file sees whole records, save the one being written */
	errno = 0;
	if (fprintf(log->audit, "%s\n", line) < 0 || fflush(log->audit) == EOF)
		rc = -(errno ? errno : EIO);
	free(line);
	return rc;
}

/* A refusal for stderr and the summary: dst is raw (escaped here). */
static void note_refused(struct decision_log *log, const char *dst, size_t dst_len,
			 enum policy_reason reason, const char *detail, const char *hint)
{
	char wd[160];
	const char *words = policy_reason_words(reason), *shown = words;
	if (detail) {
		/* the line says it; the summary's tally keeps the reason's words */
		snprintf(wd, sizeof(wd), "%s: %s", words, detail);
		shown = wd;
	}
	/* --no-net and --allow-net exclude each other: the option replaces it */
	const char *instead = reason == POLICY_REASON_NO_NET ? " in place of --no-net" : "";
	char esc[ESC_MAX];
	log_escape(dst, dst_len, esc, sizeof(esc));

	for (size_t i = 0; i < log->n_refused; i++) {
		if (strcmp(log->refused[i].dst, esc) == 0) {
			log->refused[i].count++;
			return;
		}
	}
	if (!log->quiet) {
		if (hint)
			log_msg(LOG_LEVEL_NOTICE, "refused %s (%s); allow with %s%s", esc, shown, hint,
				instead);
		else
			log_msg(LOG_LEVEL_NOTICE, "refused %s (%s)", esc, shown);
	}
	if (log->n_refused == log->cap_refused) {
		size_t cap = log->cap_refused ? 2 * log->cap_refused : 8;
		struct refused *grown = NULL;
		if (cap > DECISION_REFUSED_MAX)
			cap = DECISION_REFUSED_MAX;
		if (cap > log->cap_refused)
			grown = realloc(log->refused, cap * sizeof(*grown));
		if (!grown) { /* at the limit, or out of memory: counted, unnamed */
			log->n_refused_more++;
			return;
		}
		log->refused = grown;
		log->cap_refused = cap;
	}
	struct refused *r = &log->refused[log->n_refused++];
	snprintf(r->dst, sizeof(r->dst), "%s", esc);
	r->words = words;
	snprintf(r->hint, sizeof(r->hint), "%s", hint ? hint : "");
	r->count = 1;
}

/* What a refusal's stderr line adds to the reason's words: a connection's
 * detail, and of a request's (whose detail repeats its 403 body) only the
 * secret a "secret-elsewhere" one found. */
static const char *line_detail(const struct decision *d)
{
	if (d->kind != DECISION_KIND_HTTP || d->reason == POLICY_REASON_SECRET_ELSEWHERE)
		return d->detail;
	return NULL;
}

int decision_log_record(struct decision_log *log, const struct decision *d)
{
	char hint[POLICY_HINT_MAX];
	const struct policy_reason_info *ri = policy_reason_info(d->reason);

	if (!log)
		return 0;
	log->seq++;
	const char *h = decision_log_hint(log, d, hint, sizeof(hint)) ? hint : NULL;
	int rc = write_audit(log, d, h);

	switch (ri->tally) {
	case POLICY_TALLY_NONE:
		break;
	case POLICY_TALLY_LIMIT:
		log->n_limit++;
		break;
	case POLICY_TALLY_DESTINATION:
		if (d->label) {
			if (d->label_len)
				note_refused(log, d->label, d->label_len, d->reason, line_detail(d), h);
		} else if (d->dst) {
			note_refused(log, d->dst, strlen(d->dst), d->reason, line_detail(d), h);
		}
		break;
	}
	return rc;
}

bool decision_log_audits(const struct decision_log *log)
{
	return log && log->audit;
}

bool decision_log_keeps(const struct decision_log *log, enum policy_reason reason)
{
	return log && (log->audit || policy_reason_info(reason)->tally != POLICY_TALLY_NONE);
}

void decision_log_summary(const struct decision_log *log, FILE *err)
{
	if (!log || log->quiet || (log->n_refused == 0 && log->n_limit == 0))
		return;
	if (log->n_refused)
		fprintf(err, "porta: refused %zu destination%s:\n",
			log->n_refused + (size_t)log->n_refused_more,
			log->n_refused + log->n_refused_more == 1 ? "" : "s");
	for (size_t i = 0; i < log->n_refused; i++) {
		const struct refused *r = &log->refused[i];
		fprintf(err, "porta:   %s (%s, %llu time%s)%s%s\n", r->dst, r->words,
			(unsigned long long)r->count, r->count == 1 ? "" : "s",
			r->hint[0] ? "  allow with " : "", r->hint);
	}
	if (log->n_refused_more)
		fprintf(err, "porta:   and %llu more\n", (unsigned long long)log->n_refused_more);
	if (log->n_limit)
		fprintf(err, "porta: %llu connection%s refused at a limit\n",
			(unsigned long long)log->n_limit, log->n_limit == 1 ? "" : "s");
	fflush(err);
}

bool decision_log_refused_at(const struct decision_log *log, size_t i, const char **dst,
			     const char **words, const char **hint)
{
	if (!log || i >= log->n_refused)
		return false;
	*dst = log->refused[i].dst;
	*words = log->refused[i].words;
	*hint = log->refused[i].hint;
	return true;
}
