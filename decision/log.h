/* decision/log.h: every network decision, written down once.
 *
 * ARCHITECTURE: the DNS responder (dns/), the proxy (netproxy/) and the
 * connect watch (supervisor/net.c) each decide, and each hands the decision
 * here as a struct decision: its reason (policy/reason.h, whose table gives
 * the verdict, the words and the kind of hint) and its facts.  The log
 *   - writes one JSON object per line to the audit file: ts (RFC 3339 UTC,
 *     ms), seq, kind, pid and comm when known, dst, host, sni, rule, verdict,
 *     reason, hint, upstream when known, and bytes_up, bytes_down and
 *     duration_ms on the record that closes an allowed connection;
 *   - for a refusal, prints "porta: refused DST (WORDS); allow with OPTION"
 *     once per distinct destination (unless quiet), for the first
 *     DECISION_REFUSED_SHOWN of them, then one line saying the rest are
 *     counted and where they are; keeps the first DECISION_REFUSED_MAX for
 *     the end-of-run summary and for --why, and counts the distinct ones
 *     past them (docs/design.md, Audit and reporting);
 *   - prints that summary: the first DECISION_REFUSED_SHOWN, then how many
 *     more;
 *   - holds the audit file to a ceiling of bytes per run: past it records
 *     are counted by kind and verdict, not written, and decision_log_finish()
 *     writes one closing record with the counts, whose room was kept from
 *     the start, so the run's bytes never pass the ceiling.
 * Every program-controlled string (names as sent, SNI, comm) goes through
 * log_escape() before it is written anywhere, so the JSON holds ASCII only.
 * The log sits below dns/ and netproxy/, which both write into it; the
 * supervisor creates it and hands it to both.  Single-threaded: the event
 * loop's thread.
 */
#ifndef PORTA_DECISION_LOG_H
#define PORTA_DECISION_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "policy/addr.h"
#include "policy/reason.h"

struct decision_log;

/* Distinct refused destinations: the first SHOWN get a stderr line each
 * and a line of the summary; the first MAX are kept by name (the stderr
 * dedup, the summary's counts, --why); past MAX each distinct one is
 * remembered only as a 64-bit hash, for the count, up to DISTINCT_MAX of
 * them (2 MiB at most), past which the summary says "at least". */
#define DECISION_REFUSED_SHOWN 50
#define DECISION_REFUSED_MAX 256
#define DECISION_DISTINCT_MAX (1u << 17)

enum decision_kind {
	DECISION_KIND_CONNECT, /* "connect": a transparent connection, or the connect watch */
	DECISION_KIND_PROXY,   /* "proxy": the HTTP or SOCKS5 front end */
	DECISION_KIND_DNS,     /* "dns": the DNS responder */
	DECISION_KIND_HTTP,    /* "http": one request on a terminated connection */
};

/* One decision.  Every pointer is borrowed for the call; strings marked raw
 * may hold any bytes and are escaped by the log. */
struct decision {
	enum decision_kind kind;
	enum policy_reason reason;
	int pid;              /* as the program sees it; 0: unknown, omitted */
	const char *comm;     /* raw, NUL-terminated, or NULL: omitted */
	const char *dst;      /* "ip:port" or "[ip6]:port", or NULL */
	const char *host;     /* raw host[0..host_len), or NULL */
	size_t host_len;
	const char *sni;      /* raw sni[0..sni_len), or NULL */
	size_t sni_len;
	const char *rule;     /* text of the deciding rule, or NULL */
	const char *upstream; /* the address porta dialled, or NULL: omitted */
	bool closing;         /* the record that closes an allowed connection */
	uint64_t bytes_up, bytes_down, duration_ms;
	/* What a refusal was about, for the hint (policy_reason_hint()). */
	const char *hint_name;                /* canonical, or NULL */
	const struct policy_addr *hint_addr;  /* or NULL */
	uint16_t port;                        /* 0: not known */
	/* The destination as the program named it, for stderr and the
	 * summary: raw label[0..label_len) (label_len 0: none, nothing
	 * printed), or NULL for dst. */
	const char *label;
	size_t label_len;
	/* DECISION_KIND_HTTP: the request's method and target, raw; why, a
	 * phrase for the audit ("detail"); and the option that would allow a
	 * refused one, given whole (an --allow-http rule), or NULL */
	const char *method;
	size_t method_len;
	const char *path;
	size_t path_len;
	const char *detail;
	const char *hint_text;
};

struct decision_log_config {
	FILE *audit;     /* borrowed, or NULL: JSON lines are written and flushed here */
	uint64_t audit_max; /* bytes this run may write to audit, the closing record
			     * included; 0: no ceiling */
	bool quiet;      /* -q: no stderr line per refusal, no summary */
	bool proxy_only; /* a host without user namespaces: only proxied requests
			  * reach porta, so hints suggest --proxy-allow */
};

/* A log writing to cfg->audit.  0 and *out, or -ENOMEM.  The caller owns
 * the log and destroys it after everything that records into it. */
int decision_log_create(const struct decision_log_config *cfg, struct decision_log **out);

/* Frees the log (not the audit file).  destroy(NULL) is a no-op. */
void decision_log_destroy(struct decision_log *log);

/* The option that would allow d, into out[cap] (POLICY_HINT_MAX is enough):
 * its length, 0 and "" when none would.  log may be NULL (--allow-net). */
size_t decision_log_hint(const struct decision_log *log, const struct decision *d, char *out,
			 size_t cap);

/* Records d: the audit line (with the hint), and for a refusal the stderr
 * line and the summary entry (or the count of refusals at a limit).
 * Returns 0, or -errno when the audit line could not be written (the rest is
 * done anyway).  NULL log: nothing, 0. */
int decision_log_record(struct decision_log *log, const struct decision *d);

/* Whether records go to an audit file: the only place a record's pid and
 * comm are written (stderr, the summary and --why name destinations, not
 * processes), so without one the supervisor does not look up who holds a
 * socket (supervisor/net.c).  NULL log: false. */
bool decision_log_audits(const struct decision_log *log);

/* Whether a record for reason would be kept anywhere: written to an audit
 * file, or counted for the summary (its reason's tally).  Without either,
 * decision_log_record() does nothing a caller could see, so a caller may
 * skip building the record: an allowed connection's and its close's would
 * otherwise format two addresses each on the connection's path.  NULL log:
 * false. */
bool decision_log_keeps(const struct decision_log *log, enum policy_reason reason);

/* At the end of the run, before the audit file is closed: when the audit
 * reached its ceiling, writes the closing record (kind "run", event
 * "audit-ceiling": the ceiling, the records written and not written, and
 * those not written by kind and verdict).  Returns 0, or -errno when it
 * could not be written.  Nothing when the ceiling was not reached; NULL
 * log: 0. */
int decision_log_finish(struct decision_log *log);

/* Records not written because the audit reached its ceiling.  NULL log: 0. */
uint64_t decision_log_not_written(const struct decision_log *log);

/* Distinct refused destinations of the run: those kept by name and those
 * counted past them (at least that many past DECISION_DISTINCT_MAX).  NULL
 * log: 0. */
uint64_t decision_log_refused_count(const struct decision_log *log);

/* Prints the end-of-run summary of what was refused and the options that
 * would allow it, unless quiet or nothing was refused: the first
 * DECISION_REFUSED_SHOWN destinations, then how many more. */
void decision_log_summary(const struct decision_log *log, FILE *err);

/* The i-th distinct refused destination (in the order first refused), as
 * the summary prints it: dst ("evil.test:443", "192.0.2.1:22"), words ("no
 * rule") and hint ("" when none), escaped, owned by the log until destroy.
 * False past the last.  Kept under quiet too.  For --why. */
bool decision_log_refused_at(const struct decision_log *log, size_t i, const char **dst,
			     const char **words, const char **hint);

/* "ip:port" or "[ip6]:port" into out.  Returns out.  Pure. */
#define DECISION_DST_STRLEN (POLICY_ADDR_STRLEN + 9)
char *decision_format_dst(const struct policy_addr *a, uint16_t port,
			  char out[DECISION_DST_STRLEN]);

#endif /* PORTA_DECISION_LOG_H */
