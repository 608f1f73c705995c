/* policy/learn.c: see learn.h. */
#include "policy/learn.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "policy/options.h"
#include "policy/why.h"

/* Every name and every address: "*" never reaches an address, so the two
 * address families are caught by their widest blocks. */
static const char *const any_host[] = { "*", "0.0.0.0/0", "[::/0]" };

void policy_learn_catch_all(const char **transparent, const char **proxied)
{
	/* The proxies need no listener per port, so every port; a rule spans
	 * at most POLICY_NET_MAX_RANGE ports, hence 64 ranges per host. */
	static char proxy[3 * 64 * 24];
	if (!proxy[0]) {
		size_t len = 0;
		for (size_t h = 0; h < ARRAY_LEN(any_host); h++) {
			for (unsigned lo = 1; lo <= 65535; lo += POLICY_NET_MAX_RANGE) {
				unsigned hi = lo + POLICY_NET_MAX_RANGE - 1;
				len += (size_t)snprintf(proxy + len, sizeof(proxy) - len, "%s%s:%u-%u",
							len ? "," : "", any_host[h], lo,
							hi > 65535 ? 65535 : hi);
			}
		}
	}
	/* Transparently each allowed port is a listener inside the sandbox:
	 * the two ports nearly every program uses. */
	*transparent = "*:80,*:443,0.0.0.0/0:80,0.0.0.0/0:443,[::/0]:80,[::/0]:443";
	*proxied = proxy;
}

/* ---- destinations ------------------------------------------------------- */

struct dest_ref {
	const struct policy_audit_dest *d;
	const char *parent; /* the name without its first label, or NULL */
	bool folded;
};

static const char *parent_of(const struct policy_audit_dest *d)
{
	if (d->is_addr)
		return NULL;
	const char *dot = strchr(d->name, '.');
	/* "*.SUFFIX" needs two labels or more (policy/netrule.h) */
	return dot && strchr(dot + 1, '.') ? dot + 1 : NULL;
}

static int cmp_ref(const void *x, const void *y)
{
	const struct dest_ref *a = x, *b = y;
	int c = strcmp(a->d->name, b->d->name);
	return c ? c : (int)a->d->port - (int)b->d->port;
}

/* A destination the profile should allow: a connection (it has a port)
 * that happened or was refused where an option would allow it, and that
 * none of the user's own rules allows already. */
static bool to_learn(const struct policy_audit_dest *d, const struct policy_learn_input *in)
{
	if (!d->port || strcmp(d->name, "(unknown)") == 0)
		return false;
	if (!(d->allowed || d->http_allowed) && !d->allowable)
		return false;
	return !policy_audit_dest_inside(d, in->user_rules, in->n_user_rules);
}

static void human_bytes(uint64_t b, char *out, size_t cap)
{
	if (b >= 1024 * 1024)
		snprintf(out, cap, "%.1f MiB", (double)b / (1024.0 * 1024.0));
	else if (b >= 1024)
		snprintf(out, cap, "%.1f KiB", (double)b / 1024.0);
	else
		snprintf(out, cap, "%llu bytes", (unsigned long long)b);
}

static void describe(FILE *out, const struct policy_audit_dest *d)
{
	char up[32], down[32];
	human_bytes(d->bytes_up, up, sizeof(up));
	human_bytes(d->bytes_down, down, sizeof(down));
	fprintf(out, "# %s:%u: %lu connection%s", d->name, d->port, d->allowed,
		d->allowed == 1 ? "" : "s");
	if (d->refused)
		fprintf(out, ", %lu refused in this run", d->refused);
	fprintf(out, ", %s up, %s down", up, down);
	for (size_t k = 0; k < d->n_comms; k++)
		fprintf(out, "%s%s", k ? ", " : "; by ", d->comms[k].comm);
	fputc('\n', out);
}

/* One option line: the option, then its value quoted as a shell would
 * need it (the profile grammar is the shell's, policy/profile.h). */
static void option_line(FILE *out, const char *option, const char *value)
{
	char q[1200];
	size_t len = 0;
	if (!policy_why_quote(value, q, sizeof(q), &len))
		return;
	q[len] = '\0';
	fprintf(out, "%s %s\n", option, q);
}

/* A file option's line: a path below the directory learn ran in as
 * "./REL", else below the home as "~/REL" (the profile grammar reads ~ as
 * porta's HOME, and a project file's relative paths as its directory's),
 * so that the profile serves that project on another machine too. */
static void file_line(FILE *out, const char *option, const char *value,
		      const struct policy_learn_input *in)
{
	const char *bases[2] = { in->cwd, in->home }, *heads[2] = { ".", "~" };
	for (size_t b = 0; b < 2 && value[0] == '/'; b++) {
		const char *base = bases[b];
		size_t n = base ? strlen(base) : 0;
		if (n <= 1 || strncmp(value, base, n) != 0 ||
		    (value[n] != '/' && value[n] != '\0' && value[n] != ':'))
			continue;
		const char *rest = value + n + (value[n] == '/');
		char q[1200];
		size_t len = 0;
		if (!policy_why_quote(rest[0] ? rest : "", q, sizeof(q), &len))
			return;
		q[len] = '\0';
		if (!rest[0])
			fprintf(out, "%s %s\n", option, heads[b]);
		else if (rest[0] == ':')
			fprintf(out, "%s %s%s\n", option, heads[b], q);
		else
			fprintf(out, "%s %s/%s\n", option, heads[b], q);
		return;
	}
	option_line(out, option, value);
}

static size_t write_destinations(FILE *out, const struct policy_learn_input *in,
				 struct dest_ref *refs, size_t n)
{
	size_t lines = 0;

	/* Folding: the names sharing a parent and a port, when there are
	 * many, the parent is not a public suffix and none lies below it (a
	 * wildcard never widens across one: "*.amazonaws.com" would reach
	 * every bucket under s3.amazonaws.com). */
	for (size_t i = 0; i < n; i++) {
		if (refs[i].folded || !refs[i].parent || !in->public_suffix || !in->suffix_below ||
		    in->public_suffix(refs[i].parent, in->suffix_arg) ||
		    in->suffix_below(refs[i].parent, in->suffix_arg))
			continue;
		size_t same = 0;
		for (size_t k = i; k < n; k++)
			same += !refs[k].folded && refs[k].parent &&
				strcmp(refs[k].parent, refs[i].parent) == 0 &&
				refs[k].d->port == refs[i].d->port;
		if (same < POLICY_LEARN_FOLD_MIN)
			continue;
		const char *parent = refs[i].parent;
		uint16_t port = refs[i].d->port;
		fprintf(out, "# %zu names under %s, port %u:", same, parent, port);
		for (size_t k = i; k < n; k++) {
			if (!refs[k].folded && refs[k].parent && strcmp(refs[k].parent, parent) == 0 &&
			    refs[k].d->port == port) {
				fprintf(out, " %s", refs[k].d->name);
				refs[k].folded = true;
			}
		}
		/* the parent itself is below "*.PARENT" too */
		for (size_t k = 0; k < n; k++)
			if (!refs[k].folded && strcmp(refs[k].d->name, parent) == 0 &&
			    refs[k].d->port == port) {
				fprintf(out, " %s", parent);
				refs[k].folded = true;
			}
		fprintf(out, "\n# (the wildcard also allows every other name below %s)\n", parent);
		char rule[300];
		snprintf(rule, sizeof(rule), "*.%s:%u", parent, port);
		option_line(out, "--allow-net", rule);
		lines++;
	}
	for (size_t i = 0; i < n; i++) {
		if (refs[i].folded)
			continue;
		const struct policy_audit_dest *d = refs[i].d;
		describe(out, d);
		if (d->is_addr)
			fprintf(out, "# reached by its address alone (no name asked or sent): this "
				     "address only\n");
		char rule[300];
		snprintf(rule, sizeof(rule), "%s:%u", d->name, d->port);
		option_line(out, "--allow-net", rule);
		lines++;
	}
	return lines;
}

/* ---- the profile --------------------------------------------------------- */

static void words_line(FILE *out, const char *prefix, char *const *w, size_t n)
{
	fputs(prefix, out);
	for (size_t i = 0; i < n; i++) {
		char q[4200];
		size_t len = 0;
		if (!policy_why_quote(w[i], q, sizeof(q), &len))
			continue;
		q[len] = '\0';
		fprintf(out, "%s%s", i || prefix[0] ? " " : "", q);
	}
	fputc('\n', out);
}

/* The user's own options, one per line (the grammar allows one option and
 * its value per line, policy/profile.h). */
static void user_options(FILE *out, const struct policy_learn_input *in)
{
	for (size_t i = 0; i < in->n_user_words;) {
		size_t n = (size_t)policy_option_words(in->user_words[i]);
		if (i + n > in->n_user_words)
			n = in->n_user_words - i;
		words_line(out, "", in->user_words + i, n);
		i += n;
	}
}

bool policy_learn_write(FILE *out, const struct policy_learn_input *in,
			struct policy_learn_counts *counts)
{
	const struct policy_audit *a = in->audit;
	_cleanup_free_ struct dest_ref *refs = calloc(a->n ? a->n : 1, sizeof(*refs));
	_cleanup_free_ const char **files = calloc(in->n_file_options + 1, sizeof(*files));
	size_t n = 0, n_files = 0;

	*counts = (struct policy_learn_counts){ 0 };
	if (!refs || !files)
		return false;
	for (size_t i = 0; i < a->n; i++) {
		if (to_learn(&a->dests[i], in))
			refs[n++] = (struct dest_ref){ &a->dests[i], parent_of(&a->dests[i]), false };
		if (a->dests[i].refused && a->dests[i].port)
			counts->refused++;
	}
	qsort(refs, n, sizeof(*refs), cmp_ref);

	fprintf(out, "# porta learn: the options one run of a command used, to review before use\n");
	char head[128];
	snprintf(head, sizeof(head), "# learned %s from:", in->when);
	words_line(out, head, in->command, in->n_command);
	fprintf(out, "# use it: porta run --profile THIS-FILE");
	for (size_t i = 0; i < in->n_profiles; i++)
		fprintf(out, " --profile %s", in->profiles[i]);
	fprintf(out, " -- COMMAND\n");
	if (in->n_profiles)
		fprintf(out, "# (learned on top of the profiles above: give them again, as shown)\n");
	if (in->cwd && strcmp(in->cwd, "/") != 0)
		fprintf(out, "# paths below %s are written ./PATH: use this file from there, or "
			     "as that directory's .porta\n", in->cwd);
	if (in->project_file)
		fprintf(out, "# (learned with the trusted project file .porta, which applies in "
			     "its directory by itself)\n");

	if (in->n_user_words) {
		fprintf(out, "\n# your own options\n");
		user_options(out, in);
	}

	fprintf(out, "\n# network: each destination the command reached that none of your "
		     "rules allowed\n");
	counts->destinations = write_destinations(out, in, refs, n);
	if (!counts->destinations)
		fprintf(out, "# (none)\n");

	for (size_t i = 0; i < in->n_file_options; i++)
		files[n_files++] = in->file_options[i];
	fprintf(out, "\n# files: the options that allow what the sandbox refused\n");
	for (size_t i = 0; i < n_files; i++) {
		if (policy_why_implied(files, n_files, i))
			continue;
		const char *sp = strchr(files[i], ' ');
		if (!sp)
			continue;
		char opt[64];
		snprintf(opt, sizeof(opt), "%.*s", (int)(sp - files[i]), files[i]);
		file_line(out, opt, sp + 1, in);
		counts->files++;
	}
	if (!counts->files)
		fprintf(out, "# (none)\n");

	fprintf(out, "\n# not learned in this run\n");
	fprintf(out, "#   ports: learn caught every name and address on ports 80 and 443%s "
		     "and on every port through porta's proxies (HTTP_PROXY, HTTPS_PROXY, "
		     "ALL_PROXY);\n",
		in->transparent ? " transparently" : " through the proxies only (no network "
						     "namespace here)");
	fprintf(out, "#     a connection to another port was refused and, where an option "
		     "allows it, is listed above, but what the command would have done after it "
		     "was not seen\n");
	fprintf(out, "#   UDP other than DNS (QUIC, ...) is refused whenever network rules "
		     "apply; programs that fell back to TCP were learned over TCP\n");
	for (size_t i = 0; i < a->n; i++) {
		const struct policy_audit_dest *d = &a->dests[i];
		if (d->port && d->refused && !d->allowable && !(d->allowed || d->http_allowed))
			fprintf(out, "#   refused, no option allows it: %s:%u\n", d->name, d->port);
	}
	size_t asked = 0;
	for (size_t i = 0; i < a->n; i++) {
		const struct policy_audit_dest *d = &a->dests[i];
		if (d->port)
			continue;
		bool used = false;
		for (size_t k = 0; k < a->n && !used; k++)
			used = a->dests[k].port && strcmp(a->dests[k].name, d->name) == 0;
		if (used)
			continue;
		if (!asked++)
			fprintf(out, "#   names only looked up (DNS), never connected to:");
		fprintf(out, " %s", d->name);
	}
	if (asked)
		fputc('\n', out);
	for (size_t i = 0; i < in->n_closed; i++)
		fprintf(out, "#   closed, no option opens it: %s\n", in->closed[i]);
	fprintf(out, "#   a refused file may have ended the command early: run porta learn again "
		     "with --profile THIS-FILE until it learns nothing new\n");
	return !ferror(out);
}
