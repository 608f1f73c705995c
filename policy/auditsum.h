/* policy/auditsum.h: `porta audit`, the JSONL audits (--audit) summed up
 * per destination, printed as a lock (a profile of the destinations used),
 * or held against one (docs/porta.1, porta audit).
 *
 * ARCHITECTURE: pure but for memory (the destinations grow with the
 * input): the caller reads the files and hands over their lines; nothing
 * here opens a file, logs or looks at the host.  A record's destination is
 * its name (host, else SNI) or else the address it dialled, with the port
 * it dialled (of the upstream or dst address, else of the record's hint);
 * a DNS question has a name and no port.  The record kinds and fields are
 * decision/log.c's (README, "Reading the audit"): an opening record counts
 * as allowed or refused by its verdict; a closing one (with bytes_up) adds
 * its bytes; an http record counts a request.  A run's closing record
 * (kind "run", event "audit-ceiling": the audit reached --audit-max) adds
 * the records it says were not written to not_written.
 */
#ifndef PORTA_POLICY_AUDITSUM_H
#define PORTA_POLICY_AUDITSUM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "policy/netrule.h"

#define POLICY_AUDIT_COMMS_MAX 8    /* processes named per destination */
#define POLICY_AUDIT_HINTS_MAX 256  /* distinct options that would allow a refusal */
#define POLICY_AUDIT_ERR_MAX 256

struct policy_audit_comm {
	char comm[32];
	unsigned long n;
};

struct policy_audit_dest {
	char name[256];        /* a name, an IPv4 or a bracketed IPv6 address */
	uint16_t port;         /* 0: none (a DNS question) */
	bool is_addr;
	unsigned long allowed, refused;           /* connections (or DNS questions) */
	unsigned long http_allowed, http_refused; /* requests on terminated connections */
	uint64_t bytes_up, bytes_down;
	struct policy_audit_comm comms[POLICY_AUDIT_COMMS_MAX];
	size_t n_comms;
	unsigned long other_comms;                /* processes past COMMS_MAX */
	bool allowable; /* a refusal of it carried a hint: some option would allow it */
};

struct policy_audit {
	struct policy_audit_dest *dests; /* malloc'd, n of cap */
	size_t n, cap;
	unsigned long records, allowed, refused, closes;
	unsigned long not_written; /* records past an audit's ceiling (closing records) */
	unsigned long ceilings;    /* closing records read */
	char *hints[POLICY_AUDIT_HINTS_MAX]; /* malloc'd, first seen first */
	size_t n_hints;
};

void policy_audit_init(struct policy_audit *a);
void policy_audit_free(struct policy_audit *a);

enum policy_audit_status {
	POLICY_AUDIT_OK,
	POLICY_AUDIT_MALFORMED, /* err: what is wrong with the line */
	POLICY_AUDIT_NO_MEMORY,
};

/* Adds one line of an audit (without its newline; a blank line is
 * skipped).  A line that is not one of porta's records (not a JSON object,
 * no kind or verdict of porta's) is MALFORMED, err saying why. */
enum policy_audit_status policy_audit_add(struct policy_audit *a, const char *line, size_t len,
					  char err[POLICY_AUDIT_ERR_MAX]);

/* The summary: per destination (refused ones first, then by name), then
 * the options that would allow what was refused; or one JSON object. */
void policy_audit_print(FILE *out, const struct policy_audit *a, bool json);

/* The destinations allowed and used, as a profile: one `--allow-net
 * NAME:PORT` per destination (DNS questions alone add nothing: the rule
 * for a name lets its questions through), a comment saying whence. */
void policy_audit_lock(FILE *out, const struct policy_audit *a, const char *const files[],
		       size_t n_files);

/* Whether rules allow d: a connection's NAME:PORT (or address) decided as
 * porta would, a DNS question by whether any rule could allow its name. */
bool policy_audit_dest_inside(const struct policy_audit_dest *d,
			      const struct policy_net_rule *rules, size_t n_rules);

/* Writes the destinations the rules do not allow (a connection's NAME:PORT
 * decided as porta would, a DNS question by whether any rule could allow
 * its name; a name's questions are not listed again beside its own
 * connections outside) and returns how many. */
size_t policy_audit_against(FILE *out, const struct policy_audit *a,
			    const struct policy_net_rule *rules, size_t n_rules);

#endif /* PORTA_POLICY_AUDITSUM_H */
