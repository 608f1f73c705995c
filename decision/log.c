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

#define N_KINDS 4
#define N_VERDICTS 3
_Static_assert(POLICY_VERDICT_ALLOW == 0 && POLICY_VERDICT_DENY == 1 && POLICY_VERDICT_ERROR == 2,
	       "verdict_names' order");

struct decision_log {
	FILE *audit;
	bool quiet;
	bool proxy_only;
	uint64_t seq;
	/* grown as refusals come (most runs have none): up to
	 * DECISION_REFUSED_MAX */
	struct refused *refused;
	size_t n_refused, cap_refused;
	/* distinct ones beyond DECISION_REFUSED_MAX: their hashes in an open
	 * addressing table (0 marks a free slot), grown to twice their count */
	uint64_t *more;
	size_t cap_more;
	uint64_t n_refused_more;
	bool more_uncounted; /* past DECISION_DISTINCT_MAX: some not counted */
	uint64_t n_limit;        /* connections refused at a limit */
	/* the audit's ceiling: this run's bytes so far, the room kept for the
	 * closing record, and once a record did not fit, what was not written */
	uint64_t audit_max, audit_bytes, reserve, written;
	bool audit_full;
	uint64_t not_written[N_KINDS][N_VERDICTS];
};

static char *closing_line(const struct decision_log *log, bool widest);

int decision_log_create(const struct decision_log_config *cfg, struct decision_log **out)
{
	struct decision_log *log = calloc(1, sizeof(*log));
	if (!log)
		return -ENOMEM;
	log->audit = cfg->audit;
	log->quiet = cfg->quiet;
	log->proxy_only = cfg->proxy_only;
	log->audit_max = cfg->audit ? cfg->audit_max : 0;
	if (log->audit_max) {
		/* the closing record at its widest, every number at its most
		 * digits, and its newline: kept free from the first record on */
		char *widest = closing_line(log, true);
		if (!widest) {
			free(log);
			return -ENOMEM;
		}
		log->reserve = strlen(widest) + 1;
		free(widest);
	}
	*out = log;
	return 0;
}

void decision_log_destroy(struct decision_log *log)
{
	if (!log)
		return;
	free(log->refused);
	free(log->more);
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

static const char *const verdict_names[N_VERDICTS] = { "allow", "deny", "error" };
static const enum decision_kind kinds[N_KINDS] = { DECISION_KIND_DNS, DECISION_KIND_CONNECT,
						  DECISION_KIND_PROXY, DECISION_KIND_HTTP };

static size_t kind_index(enum decision_kind k)
{
	for (size_t i = 0; i < N_KINDS; i++)
		if (kinds[i] == k)
			return i;
	return 1;
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

/* A record past the audit's ceiling: counted for the closing record. */
static int count_unwritten(struct decision_log *log, const struct decision *d)
{
	log->not_written[kind_index(d->kind)][policy_reason_verdict(d->reason)]++;
	return 0;
}

/* One JSON line, in the key order the audit has always had. */
static int write_audit(struct decision_log *log, const struct decision *d, const char *hint)
{
	char ts[32];
	int rc = 0;

	if (!log->audit)
		return 0;
	if (log->audit_full)
		return count_unwritten(log, d); /* nothing more is written: not even built */
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
	size_t len = strlen(line) + 1;
	if (log->audit_max && log->audit_bytes + len + log->reserve > log->audit_max) {
		/* the first record that does not fit ends the writing: the file
		 * keeps the run's records in order, with no gap before its end */
		free(line);
		log->audit_full = true;
		log_msg(LOG_LEVEL_WARN,
			"the --audit file reached its ceiling of %llu bytes (--audit-max): further "
			"records are counted, not written; its last record will hold the counts",
			(unsigned long long)log->audit_max);
		return count_unwritten(log, d);
	}
	/* one stdio call for the line and its newline, then out: a reader of the
	 * file sees whole records, save the one being written */
	errno = 0;
	if (fprintf(log->audit, "%s\n", line) < 0 || fflush(log->audit) == EOF)
		rc = -(errno ? errno : EIO);
	free(line);
	log->audit_bytes += len;
	log->written++;
	return rc;
}

/* The closing record of an audit that reached its ceiling, in the key
 * order of the others (ts, seq, kind first); widest: every number at its
 * most digits, for the room kept for it.  malloc'd, or NULL. */
static char *closing_line(const struct decision_log *log, bool widest)
{
	const json_int_t most = (json_int_t)(~0ULL >> 1);
	char ts[32];
	int rc = 0;
	uint64_t total = 0;
	json_t *o = json_object(), *by = json_object();

	if (!o || !by) {
		json_decref(o);
		json_decref(by);
		return NULL;
	}
	rfc3339_now(ts);
	rc |= set_str(o, "ts", ts, 0, false);
	rc |= json_object_set_new(o, "seq", json_integer(widest ? most : (json_int_t)(log->seq + 1)));
	rc |= set_str(o, "kind", "run", 0, false);
	rc |= set_str(o, "event", "audit-ceiling", 0, false);
	rc |= json_object_set_new(o, "audit_max", json_integer((json_int_t)log->audit_max));
	rc |= json_object_set_new(o, "written", json_integer(widest ? most : (json_int_t)log->written));
	for (size_t k = 0; k < N_KINDS; k++) {
		json_t *v = json_object();
		for (size_t i = 0; v && i < N_VERDICTS; i++) {
			total += log->not_written[k][i];
			rc |= json_object_set_new(v, verdict_names[i],
						  json_integer(widest ? most
								      : (json_int_t)log->not_written[k][i]));
		}
		rc |= v ? json_object_set_new(by, kind_name(kinds[k]), v) : -1;
	}
	rc |= json_object_set_new(o, "not_written", json_integer(widest ? most : (json_int_t)total));
	rc |= json_object_set_new(o, "not_written_by", by);
	char *line = rc ? NULL : json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(o);
	return line;
}

int decision_log_finish(struct decision_log *log)
{
	if (!log || !log->audit || !log->audit_full)
		return 0;
	char *line = closing_line(log, false);
	if (!line)
		return -ENOMEM;
	log->seq++;
	int rc = 0;
	errno = 0;
	if (fprintf(log->audit, "%s\n", line) < 0 || fflush(log->audit) == EOF)
		rc = -(errno ? errno : EIO);
	log->audit_bytes += strlen(line) + 1;
	free(line);
	return rc;
}

uint64_t decision_log_not_written(const struct decision_log *log)
{
	uint64_t n = 0;

	for (size_t k = 0; log && k < N_KINDS; k++)
		for (size_t i = 0; i < N_VERDICTS; i++)
			n += log->not_written[k][i];
	return n;
}

/* FNV-1a, 64 bits: past DECISION_REFUSED_MAX a destination is only this.
 * Two names with one hash are counted once, which only lowers a count the
 * summary gives; no decision depends on it. */
static uint64_t hash_of(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	return h ? h : 1; /* 0 marks a free slot */
}

/* Looks h up among the hashes past DECISION_REFUSED_MAX and adds it when
 * absent: true when it was new (and counted).  The table doubles when half
 * full, up to twice DECISION_DISTINCT_MAX slots; past that, or out of
 * memory, a new one is not counted and the summary says "at least". */
static bool remember_more(struct decision_log *log, uint64_t h)
{
	if (log->cap_more) {
		for (size_t i = h & (log->cap_more - 1);; i = (i + 1) & (log->cap_more - 1)) {
			if (log->more[i] == h)
				return false;
			if (!log->more[i])
				break;
		}
	}
	if (2 * (log->n_refused_more + 1) > log->cap_more) {
		size_t cap = log->cap_more ? 2 * log->cap_more : 64;
		uint64_t *t = cap <= 2 * (size_t)DECISION_DISTINCT_MAX ? calloc(cap, sizeof(*t)) : NULL;
		if (!t) {
			log->more_uncounted = true;
			return false;
		}
		for (size_t k = 0; k < log->cap_more; k++) {
			if (!log->more[k])
				continue;
			size_t i = log->more[k] & (cap - 1);
			while (t[i])
				i = (i + 1) & (cap - 1);
			t[i] = log->more[k];
		}
		free(log->more);
		log->more = t;
		log->cap_more = cap;
	}
	size_t i = h & (log->cap_more - 1);
	while (log->more[i])
		i = (i + 1) & (log->cap_more - 1);
	log->more[i] = h;
	log->n_refused_more++;
	return true;
}

/* A new distinct destination on stderr: a line for each of the first
 * DECISION_REFUSED_SHOWN, then one line for all the others (how many there
 * were is the summary's last word). */
static void say_refused(const struct decision_log *log, uint64_t nth, const char *esc,
			const char *shown, const char *hint, const char *instead)
{
	if (log->quiet || nth > DECISION_REFUSED_SHOWN + 1)
		return;
	if (nth == DECISION_REFUSED_SHOWN + 1)
		log_msg(LOG_LEVEL_NOTICE,
			"refused more than %d destinations: the others are not shown as they come; "
			"the summary at the end counts them, %s, --why lists the first %d",
			DECISION_REFUSED_SHOWN,
			log->audit ? "the --audit file records each, up to its --audit-max"
				   : "--audit FILE records each",
			DECISION_REFUSED_MAX);
	else if (hint)
		log_msg(LOG_LEVEL_NOTICE, "refused %s (%s); allow with %s%s", esc, shown, hint,
			instead);
	else
		log_msg(LOG_LEVEL_NOTICE, "refused %s (%s)", esc, shown);
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
	uint64_t nth = log->n_refused + log->n_refused_more + 1;
	if (log->n_refused == log->cap_refused) {
		size_t cap = log->cap_refused ? 2 * log->cap_refused : 8;
		struct refused *grown = NULL;
		if (cap > DECISION_REFUSED_MAX)
			cap = DECISION_REFUSED_MAX;
		if (cap > log->cap_refused)
			grown = realloc(log->refused, cap * sizeof(*grown));
		if (!grown) { /* at the limit, or out of memory: counted, unnamed */
			if (remember_more(log, hash_of(esc)))
				say_refused(log, nth, esc, shown, hint, instead);
			return;
		}
		log->refused = grown;
		log->cap_refused = cap;
	}
	say_refused(log, nth, esc, shown, hint, instead);
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

uint64_t decision_log_refused_count(const struct decision_log *log)
{
	return log ? log->n_refused + log->n_refused_more : 0;
}

void decision_log_summary(const struct decision_log *log, FILE *err)
{
	if (log && !log->quiet && log->audit_full)
		fprintf(err,
			"porta: the --audit file reached its ceiling (--audit-max, %llu bytes): %llu "
			"record%s not written, counted by kind and verdict in its last record\n",
			(unsigned long long)log->audit_max,
			(unsigned long long)decision_log_not_written(log),
			decision_log_not_written(log) == 1 ? " was" : "s were");
	if (!log || log->quiet || (log->n_refused == 0 && log->n_limit == 0))
		return;
	uint64_t total = decision_log_refused_count(log);
	if (log->n_refused)
		fprintf(err, "porta: refused %s%llu destination%s:\n",
			log->more_uncounted ? "at least " : "", (unsigned long long)total,
			total == 1 ? "" : "s");
	size_t shown = log->n_refused < DECISION_REFUSED_SHOWN ? log->n_refused
							       : DECISION_REFUSED_SHOWN;
	for (size_t i = 0; i < shown; i++) {
		const struct refused *r = &log->refused[i];
		fprintf(err, "porta:   %s (%s, %llu time%s)%s%s\n", r->dst, r->words,
			(unsigned long long)r->count, r->count == 1 ? "" : "s",
			r->hint[0] ? "  allow with " : "", r->hint);
	}
	if (total > shown)
		fprintf(err, "porta:   and %s%llu more distinct destination%s (%s)\n",
			log->more_uncounted ? "at least " : "", (unsigned long long)(total - shown),
			total - shown == 1 ? "" : "s",
			!log->audit ? "--audit FILE records each"
			: log->audit_full ? "the --audit file has those refused before its ceiling"
					  : "each is in the --audit file");
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
