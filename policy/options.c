/* policy/options.c: the command line of docs/porta.1 (see options.h). */
#include "policy/options.h"

#include "policy/httprule.h"
#include "policy/netrule.h"
#include "policy/secret.h"
#include "policy/textparse.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum opt_id {
	OPT_MOUNT,
	OPT_READ_POLICY,
	OPT_DENY_READ,
	OPT_PROTECT,
	OPT_ALLOW_UNIX,
	OPT_DENY_UNIX,
	OPT_PRESET,
	OPT_SHARE_TMP,
	OPT_CACHES,
	OPT_NO_NET,
	OPT_ALLOW_NET,
	OPT_DENY_NET,
	OPT_PROXY_ALLOW,
	OPT_SECRET,
	OPT_ALLOW_HTTP,
	OPT_PROXY_DENY,
	OPT_AUDIT,
	OPT_AUDIT_MAX,
	OPT_DNS_UPSTREAM,
	OPT_ENV,
	OPT_ENV_PASS,
	OPT_ENV_FILE,
	OPT_TIMEOUT,
	OPT_MAX_CPU,
	OPT_MAX_PROCS,
	OPT_MAX_FILE_SIZE,
	OPT_MAX_MEMORY,
	OPT_ALLOW_ROOT,
	OPT_NO_PROJECT,
	OPT_WHY,
	OPT_QUIET,
	OPT_JSON,
	OPT_PROFILE,
	OPT_OUTPUT,
};

struct opt_spec {
	const char *long_name; /* without "--" */
	char short_name;       /* 0 when none */
	bool takes_value;
	enum opt_id id;
	const char *value_hint; /* what would be accepted, for messages */
	enum policy_value_kind kind; /* what the value is, for completion */
	const char *const *words;   /* POLICY_VALUE_WORD: the only values accepted */
	bool single; /* one value: given twice on a line, refused; merged, the later one wins */
};

/* The values of the options that take one of a few words, in the order of
 * their enums (policy_read_mode, policy_preset): apply() parses them from
 * here and the completions offer them from here (policy_option_next()). */
static const char *const read_policy_words[] = { "home", "open", "strict", NULL };
static const char *const preset_words[] = { "default", "none", NULL };
_Static_assert(POLICY_READ_HOME == 0 && POLICY_READ_OPEN == 1 && POLICY_READ_STRICT == 2,
	       "read_policy_words' order");
_Static_assert(POLICY_PRESET_DEFAULT == 0 && POLICY_PRESET_NONE == 1, "preset_words' order");

const char *policy_read_mode_word(enum policy_read_mode m)
{
	return (unsigned)m < sizeof(read_policy_words) / sizeof(read_policy_words[0]) - 1
		       ? read_policy_words[m]
		       : "?";
}

static const struct opt_spec opt_table[] = {
	{ "mount", 'v', true, OPT_MOUNT, "PATH or PATH:ro", POLICY_VALUE_PATH, NULL, false },
	{ "read-policy", 0, true, OPT_READ_POLICY, "home, open or strict", POLICY_VALUE_WORD,
	  read_policy_words, true },
	{ "deny-read", 0, true, OPT_DENY_READ, "a PATH", POLICY_VALUE_PATH, NULL, false },
	{ "protect", 0, true, OPT_PROTECT, "a NAME relative to each mount, or an absolute path",
	  POLICY_VALUE_PATH, NULL, false },
	{ "allow-unix", 0, true, OPT_ALLOW_UNIX, "the PATH of a Unix socket", POLICY_VALUE_PATH,
	  NULL, false },
	{ "deny-unix", 0, true, OPT_DENY_UNIX, "a regular expression over socket paths",
	  POLICY_VALUE_TEXT, NULL, false },
	{ "preset", 0, true, OPT_PRESET, "default or none", POLICY_VALUE_WORD, preset_words, true },
	{ "share-tmp", 0, false, OPT_SHARE_TMP, NULL, POLICY_VALUE_NONE, NULL, false },
	{ "caches", 0, false, OPT_CACHES, NULL, POLICY_VALUE_NONE, NULL, false },
	{ "no-net", 0, false, OPT_NO_NET, NULL, POLICY_VALUE_NONE, NULL, false },
	{ "allow-net", 0, true, OPT_ALLOW_NET, "HOST[:PORT]", POLICY_VALUE_TEXT, NULL, false },
	{ "deny-net", 0, true, OPT_DENY_NET, "HOST[:PORT]", POLICY_VALUE_TEXT, NULL, false },
	{ "proxy-allow", 0, true, OPT_PROXY_ALLOW, "HOST[:PORT]", POLICY_VALUE_TEXT, NULL, false },
	{ "proxy-deny", 0, true, OPT_PROXY_DENY, "HOST[:PORT]", POLICY_VALUE_TEXT, NULL, false },
	{ "secret", 0, true, OPT_SECRET, "NAME@HOST[,HOST...]", POLICY_VALUE_TEXT, NULL, false },
	{ "allow-http", 0, true, OPT_ALLOW_HTTP, "'METHODS URL', e.g. 'GET,HEAD https://HOST/PATH*'",
	  POLICY_VALUE_TEXT, NULL, false },
	{ "audit", 0, true, OPT_AUDIT, "a FILE", POLICY_VALUE_PATH, NULL, true },
	{ "proxy-audit", 0, true, OPT_AUDIT, "a FILE", POLICY_VALUE_PATH, NULL, true },
	{ "audit-max", 0, true, OPT_AUDIT_MAX, "MiB > 0", POLICY_VALUE_TEXT, NULL, true },
	{ "dns-upstream", 0, true, OPT_DNS_UPSTREAM, "ADDR[:PORT]", POLICY_VALUE_TEXT, NULL, true },
	{ "env", 'e', true, OPT_ENV, "KEY=VALUE", POLICY_VALUE_TEXT, NULL, false },
	{ "env-pass", 0, true, OPT_ENV_PASS, "NAME[,NAME...]", POLICY_VALUE_TEXT, NULL, false },
	{ "env-file", 0, true, OPT_ENV_FILE, "a FILE of KEY=VALUE lines", POLICY_VALUE_PATH, NULL, false },
	{ "timeout", 0, true, OPT_TIMEOUT, "seconds > 0, e.g. 30 or 2.5", POLICY_VALUE_TEXT, NULL, true },
	{ "max-cpu", 0, true, OPT_MAX_CPU, "whole seconds > 0", POLICY_VALUE_TEXT, NULL, true },
	{ "max-procs", 0, true, OPT_MAX_PROCS, "a count > 0", POLICY_VALUE_TEXT, NULL, true },
	{ "max-file-size", 0, true, OPT_MAX_FILE_SIZE, "MiB > 0", POLICY_VALUE_TEXT, NULL, true },
	{ "max-memory-mb", 0, true, OPT_MAX_MEMORY, "MiB > 0", POLICY_VALUE_TEXT, NULL, true },
	{ "allow-root", 0, false, OPT_ALLOW_ROOT, NULL, POLICY_VALUE_NONE, NULL, false },
	{ "no-project", 0, false, OPT_NO_PROJECT, NULL, POLICY_VALUE_NONE, NULL, false },
	{ "why", 0, false, OPT_WHY, NULL, POLICY_VALUE_NONE, NULL, false },
	{ "quiet", 'q', false, OPT_QUIET, NULL, POLICY_VALUE_NONE, NULL, false },
	{ "json", 0, false, OPT_JSON, NULL, POLICY_VALUE_NONE, NULL, false },
	{ "profile", 0, true, OPT_PROFILE, "a profile's NAME or PATH (porta profiles lists them)",
	  POLICY_VALUE_PROFILE, NULL, false },
	{ "output", 'o', true, OPT_OUTPUT,
	  "the FILE to write the learned profile to (it must not exist)", POLICY_VALUE_PATH, NULL, true },
};

/* Every first word porta takes, in the order `porta help` shows them.  The
 * ones with POLICY_CMD_NONE are run by src/main.c before it calls
 * policy_parse_args(); listed here so that the completions
 * (tools/gen_completions.c) and the unknown command's message know them. */
static const struct policy_command_info cmd_table[] = {
	{ "run", POLICY_CMD_RUN, POLICY_ARGS_COMMAND, false },
	{ "learn", POLICY_CMD_LEARN, POLICY_ARGS_COMMAND, false },
	{ "explain", POLICY_CMD_EXPLAIN, POLICY_ARGS_COMMAND, false },
	{ "check", POLICY_CMD_CHECK, POLICY_ARGS_OPTIONS, false },
	{ "profiles", POLICY_CMD_NONE, POLICY_ARGS_NONE, false },
	{ "trust", POLICY_CMD_NONE, POLICY_ARGS_FILES, false },
	{ "audit", POLICY_CMD_NONE, POLICY_ARGS_FILES, false },
	{ "help", POLICY_CMD_HELP, POLICY_ARGS_NONE, false },
	{ "--help", POLICY_CMD_HELP, POLICY_ARGS_NONE, true },
	{ "-h", POLICY_CMD_HELP, POLICY_ARGS_NONE, true },
	{ "--version", POLICY_CMD_VERSION, POLICY_ARGS_NONE, false },
	{ "version", POLICY_CMD_VERSION, POLICY_ARGS_NONE, true },
};

static enum policy_parse_status fail(char err[POLICY_ERR_MAX], const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static enum policy_parse_status fail(char err[POLICY_ERR_MAX], const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, POLICY_ERR_MAX, fmt, ap);
	va_end(ap);
	/* The message quotes the user's words: a newline or an escape sequence
	 * in them must not make it two lines or reach the terminal. */
	for (char *p = err; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
	return POLICY_PARSE_ERROR;
}

bool policy_parse_u64(const char *s, size_t n, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;

	if (n == 0 || n > 20)
		return false;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		uint64_t d = (uint64_t)(s[i] - '0');
		if (d > max || v > (max - d) / 10) /* d > max: max - d would wrap */
			return false;
		v = v * 10 + d;
	}
	*out = v;
	return true;
}

bool policy_split_next(const char **cursor, const char **item, size_t *len)
{
	const char *s = *cursor;

	if (s == NULL)
		return false;
	const char *comma = strchr(s, ',');
	*item = s;
	if (comma) {
		*len = (size_t)(comma - s);
		*cursor = comma + 1;
	} else {
		*len = strlen(s);
		*cursor = NULL;
	}
	return true;
}

/* Seconds with up to three decimals, > 0, at most a year, as milliseconds. */
static bool parse_seconds_ms(const char *s, uint64_t *ms)
{
	const char *dot = strchr(s, '.');
	size_t int_len = dot ? (size_t)(dot - s) : strlen(s);
	uint64_t whole = 0, frac = 0;

	if (!policy_parse_u64(s, int_len, 31536000, &whole))
		return false;
	if (dot) {
		size_t flen = strlen(dot + 1);
		if (flen == 0 || flen > 3 || !policy_parse_u64(dot + 1, flen, 999, &frac))
			return false;
		for (size_t i = flen; i < 3; i++)
			frac *= 10;
	}
	*ms = whole * 1000 + frac;
	return *ms > 0;
}

static bool list_push(struct policy_strlist *l, const char *v)
{
	if (l->n >= POLICY_MAX_LIST)
		return false;
	l->v[l->n++] = v;
	return true;
}

static enum policy_parse_status set_limit(struct policy_limit *l, const char *name,
					  const char *value, uint64_t max,
					  char err[POLICY_ERR_MAX])
{
	uint64_t v;

	if (l->set)
		return fail(err, "--%s given twice; give it once", name);
	if (!policy_parse_u64(value, strlen(value), max, &v) || v == 0)
		return fail(err, "--%s '%.64s': expected a whole number from 1 to %llu", name,
			    value, (unsigned long long)max);
	l->set = true;
	l->value = v;
	return POLICY_PARSE_OK;
}

/* Writes s[0..n) into out as printable ASCII, other bytes as \xHH, at most
 * 64 input bytes, NUL-terminated.  The rule came from argv: a terminal
 * should never see its control bytes raw (docs/style.md §11). */
static void escape_rule(const char *s, size_t n, char out[64 * 4 + 4])
{
	size_t o = 0;
	for (size_t i = 0; i < n && i < 64; i++) {
		uint8_t c = (uint8_t)s[i];
		if (c >= 0x20 && c < 0x7f && c != '\'' && c != '\\')
			out[o++] = (char)c;
		else
			o += (size_t)snprintf(out + o, 5, "\\x%02x", c);
	}
	if (n > 64) {
		memcpy(out + o, "...", 3);
		o += 3;
	}
	out[o] = '\0';
}

/* Checks every rule of a comma-separated list against the rule grammar
 * (policy/netrule.h), so a malformed rule, or one that can never take effect
 * (localhost, *.com, port 0), is refused with its reason before anything
 * runs. */
static enum policy_parse_status check_rule_list(const struct opt_spec *spec, const char *value,
						char err[POLICY_ERR_MAX])
{
	const char *name = spec->long_name, *cur = value, *item;
	size_t len;
	struct policy_net_rule rule;
	bool deny = spec->id == OPT_DENY_NET || spec->id == OPT_PROXY_DENY;
	bool proxy = spec->id == OPT_PROXY_ALLOW || spec->id == OPT_PROXY_DENY;

	while (policy_split_next(&cur, &item, &len)) {
		if (len == 0)
			return fail(err, "--%s '%.64s': empty rule; expected HOST[:PORT][,HOST[:PORT]...]",
				    name, value);
		enum policy_net_rule_status st = policy_net_rule_parse(
			item, len, deny ? POLICY_NET_DENY : POLICY_NET_ALLOW,
			proxy ? POLICY_NET_SCOPE_PROXY : POLICY_NET_SCOPE_ALL, &rule);
		if (st != POLICY_NET_RULE_OK) {
			char shown[64 * 4 + 4];
			escape_rule(item, len, shown);
			return fail(err, "--%s '%s': %s", name, shown, policy_net_rule_reason(st));
		}
	}
	return POLICY_PARSE_OK;
}

/* The index of value among spec->words (the order of the option's enum), or
 * -1 when it is none of them. */
static int word_index(const struct opt_spec *spec, const char *value)
{
	for (int k = 0; spec->words && spec->words[k]; k++)
		if (strcmp(spec->words[k], value) == 0)
			return k;
	return -1;
}

static enum policy_parse_status apply(struct policy_options *o, const struct opt_spec *spec,
				      const char *value, char err[POLICY_ERR_MAX])
{
	const char *name = spec->long_name;
	size_t vlen = value ? strlen(value) : 0;

	if (spec->takes_value && vlen == 0)
		return fail(err, "--%s: empty value; expected %s", name, spec->value_hint);

	switch (spec->id) {
	case OPT_MOUNT: {
		struct policy_mount m = { value, vlen, false };
		if (vlen >= 3 && strcmp(value + vlen - 3, ":ro") == 0) {
			m.read_only = true;
			m.path_len = vlen - 3;
		} else if (vlen >= 3 && strcmp(value + vlen - 3, ":rw") == 0) {
			m.path_len = vlen - 3;
		}
		if (m.path_len == 0)
			return fail(err, "--mount '%.64s': empty path; expected %s", value,
				    spec->value_hint);
		if (o->n_mounts >= POLICY_MAX_LIST)
			return fail(err, "--mount: at most %d mounts", POLICY_MAX_LIST);
		o->mounts[o->n_mounts++] = m;
		return POLICY_PARSE_OK;
	}
	case OPT_READ_POLICY: {
		int k = word_index(spec, value);
		if (k < 0)
			return fail(err, "--read-policy '%.64s': expected %s", value,
				    spec->value_hint);
		enum policy_read_mode m = (enum policy_read_mode)k;
		if (o->read_mode != m && o->read_mode_given)
			return fail(err, "--read-policy given twice with different values");
		o->read_mode = m;
		o->read_mode_given = true;
		return POLICY_PARSE_OK;
	}
	case OPT_PRESET: {
		int k = word_index(spec, value);
		if (k < 0)
			return fail(err, "--preset '%.64s': expected %s", value, spec->value_hint);
		enum policy_preset p = (enum policy_preset)k;
		if (o->preset != p && o->preset_given)
			return fail(err, "--preset given twice with different values");
		o->preset = p;
		o->preset_given = true;
		return POLICY_PARSE_OK;
	}
	case OPT_PROTECT: {
		/* A relative name is joined to every writable mount: ".." would
		 * name something outside it. */
		const char *p = value;
		while (*p) {
			const char *slash = strchr(p, '/');
			size_t l = slash ? (size_t)(slash - p) : strlen(p);
			if (l == 2 && p[0] == '.' && p[1] == '.')
				return fail(err, "--protect '%.64s': '..' is not allowed in a name",
					    value);
			p += l;
			if (*p == '/')
				p++;
		}
	}
		/* fall through */
	case OPT_DENY_READ:
	case OPT_ALLOW_UNIX:
	case OPT_DENY_UNIX:
	case OPT_ENV_FILE: {
		struct policy_strlist *l = spec->id == OPT_PROTECT ? &o->protect
					   : spec->id == OPT_DENY_READ ? &o->deny_read
					   : spec->id == OPT_ALLOW_UNIX ? &o->allow_unix
					   : spec->id == OPT_DENY_UNIX ? &o->deny_unix
								      : &o->env_files;
		if (!list_push(l, value))
			return fail(err, "--%s: given more than %d times", name, POLICY_MAX_LIST);
		return POLICY_PARSE_OK;
	}
	case OPT_CACHES:
		o->caches = true;
		return POLICY_PARSE_OK;
	case OPT_SHARE_TMP:
		o->share_tmp = true;
		return POLICY_PARSE_OK;
	case OPT_NO_NET:
		o->no_net = true;
		return POLICY_PARSE_OK;
	case OPT_ALLOW_NET:
	case OPT_DENY_NET:
	case OPT_PROXY_ALLOW:
	case OPT_PROXY_DENY: {
		struct policy_strlist *l = spec->id == OPT_ALLOW_NET ? &o->allow_net
					   : spec->id == OPT_DENY_NET ? &o->deny_net
					   : spec->id == OPT_PROXY_ALLOW ? &o->proxy_allow
									 : &o->proxy_deny;
		if (check_rule_list(spec, value, err) != POLICY_PARSE_OK)
			return POLICY_PARSE_ERROR;
		if (!list_push(l, value))
			return fail(err, "--%s: given more than %d times", name, POLICY_MAX_LIST);
		return POLICY_PARSE_OK;
	}
	case OPT_SECRET: {
		struct policy_secret sec;
		char why[POLICY_ERR_MAX];
		if (policy_secret_parse(value, vlen, &sec, why, sizeof(why)) != POLICY_SECRET_OK)
			return fail(err, "%s", why);
		if (!list_push(&o->secrets, value))
			return fail(err, "--%s: given more than %d times", name, POLICY_MAX_LIST);
		return POLICY_PARSE_OK;
	}
	case OPT_ALLOW_HTTP: {
		struct policy_http_rule rule; /* about 3.4 KiB, checked and dropped */
		char why[POLICY_ERR_MAX];
		if (policy_http_rule_parse(value, vlen, &rule, why, sizeof(why)) != POLICY_HTTP_RULE_OK)
			return fail(err, "%s", why);
		if (!list_push(&o->allow_http, value))
			return fail(err, "--%s: given more than %d times", name, POLICY_MAX_LIST);
		return POLICY_PARSE_OK;
	}
	case OPT_AUDIT:
		if (o->audit_path)
			return fail(err, "--audit given twice; give it once");
		o->audit_path = value;
		return POLICY_PARSE_OK;
	case OPT_AUDIT_MAX:
		return set_limit(&o->audit_max_mib, name, value, 1ULL << 20, err);
	case OPT_DNS_UPSTREAM:
		if (o->dns_upstream)
			return fail(err, "--dns-upstream given twice; give it once");
		o->dns_upstream = value;
		return POLICY_PARSE_OK;
	case OPT_ENV: {
		const char *eq = strchr(value, '=');
		if (!eq || !policy_env_name_valid(value, (size_t)(eq - value)))
			return fail(err, "--env '%.64s': expected KEY=VALUE with KEY of letters, digits and _",
				    value);
		if (!list_push(&o->env_set, value))
			return fail(err, "--env: given more than %d times", POLICY_MAX_LIST);
		return POLICY_PARSE_OK;
	}
	case OPT_ENV_PASS: {
		const char *cur = value, *item;
		size_t len;
		while (policy_split_next(&cur, &item, &len)) {
			if (!policy_env_name_valid(item, len))
				return fail(err, "--env-pass '%.64s': expected NAME[,NAME...] of letters, digits and _",
					    value);
		}
		if (!list_push(&o->env_pass, value))
			return fail(err, "--env-pass: given more than %d times", POLICY_MAX_LIST);
		return POLICY_PARSE_OK;
	}
	case OPT_TIMEOUT: {
		uint64_t ms;
		if (o->timeout_ms.set)
			return fail(err, "--timeout given twice; give it once");
		if (!parse_seconds_ms(value, &ms))
			return fail(err, "--timeout '%.64s': expected %s", value, spec->value_hint);
		o->timeout_ms.set = true;
		o->timeout_ms.value = ms;
		return POLICY_PARSE_OK;
	}
	case OPT_MAX_CPU:
		return set_limit(&o->max_cpu_s, name, value, 31536000, err);
	case OPT_MAX_PROCS:
		return set_limit(&o->max_procs, name, value, 4194304, err);
	case OPT_MAX_FILE_SIZE:
		return set_limit(&o->max_file_size_mib, name, value, 1ULL << 40, err);
	case OPT_MAX_MEMORY:
		return set_limit(&o->max_memory_mib, name, value, 1ULL << 40, err);
	case OPT_ALLOW_ROOT:
		o->allow_root = true;
		return POLICY_PARSE_OK;
	case OPT_NO_PROJECT:
		o->no_project = true;
		return POLICY_PARSE_OK;
	case OPT_WHY:
		o->why = true;
		return POLICY_PARSE_OK;
	case OPT_OUTPUT:
		if (o->learn_output)
			return fail(err, "--output given twice; give it once");
		if (!value[0])
			return fail(err, "--output: expected %s", spec->value_hint);
		o->learn_output = value;
		return POLICY_PARSE_OK;
	case OPT_QUIET:
		o->quiet = true;
		return POLICY_PARSE_OK;
	case OPT_JSON:
		o->json = true;
		return POLICY_PARSE_OK;
	case OPT_PROFILE:
		/* read and merged by the caller (policy/profile.h) */
		if (!list_push(&o->profiles, value))
			return fail(err, "--profile: given more than %d times", POLICY_MAX_LIST);
		return POLICY_PARSE_OK;
	}
	return fail(err, "--%s: internal error: unhandled option", name);
}

static const struct opt_spec *find_long(const char *name, size_t len)
{
	for (size_t i = 0; i < sizeof(opt_table) / sizeof(opt_table[0]); i++) {
		if (strlen(opt_table[i].long_name) == len &&
		    memcmp(opt_table[i].long_name, name, len) == 0)
			return &opt_table[i];
	}
	return NULL;
}

static const struct opt_spec *find_short(char c)
{
	for (size_t i = 0; i < sizeof(opt_table) / sizeof(opt_table[0]); i++) {
		if (opt_table[i].short_name == c)
			return &opt_table[i];
	}
	return NULL;
}

/* Which options make sense for which command: check takes only --json; run
 * does not take --json. */
static bool allowed_for(enum policy_command cmd, enum opt_id id)
{
	if (cmd == POLICY_CMD_CHECK)
		return id == OPT_JSON;
	if (cmd == POLICY_CMD_RUN)
		return id != OPT_JSON && id != OPT_OUTPUT;
	if (cmd == POLICY_CMD_LEARN)
		return id != OPT_JSON;
	return id != OPT_OUTPUT;
}

static const char *command_name(enum policy_command cmd)
{
	switch (cmd) {
	case POLICY_CMD_RUN: return "run";
	case POLICY_CMD_LEARN: return "learn";
	case POLICY_CMD_EXPLAIN: return "explain";
	case POLICY_CMD_CHECK: return "check";
	default: return "porta";
	}
}

/* What --secret and --allow-http ask of one run as a set, checked here so
 * that run, explain, learn and a profile refuse it alike: a NAME in two
 * --secret, and a HOST:PORT an --allow-http rule names as http and another
 * as https (one port is read one way). */
static enum policy_parse_status check_term_set(const struct policy_options *o,
					       char err[POLICY_ERR_MAX])
{
	enum policy_parse_status rc = POLICY_PARSE_OK;
	size_t n = o->secrets.n > o->allow_http.n ? o->secrets.n : o->allow_http.n;

	if (n == 0)
		return POLICY_PARSE_OK;
	struct policy_secret *secrets = calloc(o->secrets.n + 1, sizeof(*secrets));
	struct policy_http_rule *rules = calloc(o->allow_http.n + 1, sizeof(*rules));
	struct policy_http_endpoint *hep = calloc(o->allow_http.n + 1, sizeof(*hep));
	if (!secrets || !rules || !hep) {
		rc = fail(err, "out of memory checking --secret and --allow-http");
		goto out;
	}
	for (size_t i = 0; i < o->secrets.n; i++) /* each checked when parsed */
		(void)policy_secret_parse(o->secrets.v[i], strlen(o->secrets.v[i]), &secrets[i],
					  NULL, 0);
	if (policy_secret_check_set(secrets, o->secrets.n, err, POLICY_ERR_MAX) != POLICY_SECRET_OK) {
		rc = POLICY_PARSE_ERROR;
		goto out;
	}
	for (size_t i = 0; i < o->allow_http.n; i++)
		(void)policy_http_rule_parse(o->allow_http.v[i], strlen(o->allow_http.v[i]), &rules[i],
					     NULL, 0);
	size_t nh = policy_http_endpoints(rules, o->allow_http.n, hep, o->allow_http.n + 1);
	for (size_t i = 0; i < nh; i++) {
		char text[POLICY_ENDPOINT_STRLEN];
		if (hep[i].http && hep[i].https) {
			rc = fail(err, "--allow-http: %s is named both as http:// and as https://; "
				       "one port is read one way",
				  policy_endpoint_format(&hep[i].ep, 0, text));
			goto out;
		}
	}
out:
	free(secrets);
	free(rules);
	free(hep);
	return rc;
}

static enum policy_parse_status finish(struct policy_options *o, char err[POLICY_ERR_MAX])
{
	/* learn adds catch-all rules of its own (policy/learn.h) */
	bool policy_rules = o->allow_net.n || o->deny_net.n || o->proxy_allow.n ||
			    o->proxy_deny.n || o->secrets.n || o->allow_http.n ||
			    o->command == POLICY_CMD_LEARN;

	if (o->command == POLICY_CMD_LEARN) {
		if (o->cmd_argc == 0)
			return fail(err, "porta learn: missing COMMAND; usage: porta learn [OPTIONS] "
					 "-o FILE [--] COMMAND [ARGS...]");
		if (!o->learn_output)
			return fail(err, "porta learn: missing -o FILE, where the learned profile is "
					 "written");
		if (o->no_net)
			return fail(err, "porta learn watches the network the command uses: drop "
					 "--no-net (a profile for an offline command needs no learning "
					 "of the network; --why shows what else it needs)");
	}
	if (o->no_net && policy_rules)
		return fail(err, "--no-net cannot be combined with --allow-net, --deny-net, "
				 "--proxy-allow, --proxy-deny, --secret or --allow-http; choose one");
	if (o->no_net && o->dns_upstream)
		return fail(err, "--dns-upstream has no effect with --no-net; drop one of them");
	if (check_term_set(o, err) != POLICY_PARSE_OK)
		return POLICY_PARSE_ERROR;
	o->net_mode = o->no_net ? POLICY_NET_NONE
		      : policy_rules ? POLICY_NET_POLICY
				     : POLICY_NET_OPEN;
	/* learn writes an audit of its own when none is given */
	if (o->audit_max_mib.set && !o->audit_path && o->command != POLICY_CMD_LEARN)
		return fail(err, "--audit-max bounds the --audit file: give --audit FILE with it");
	if (o->dns_upstream && o->net_mode != POLICY_NET_POLICY)
		return fail(err, "--dns-upstream needs a network rule (--allow-net or --proxy-allow)");
	if (o->command == POLICY_CMD_RUN && o->cmd_argc == 0)
		return fail(err, "porta run: missing COMMAND; usage: porta run [OPTIONS] [--] COMMAND [ARGS...]");
	return POLICY_PARSE_OK;
}

static enum policy_parse_status parse_words(int argc, char *const argv[],
					   struct policy_options *out, bool whole,
					   char err[POLICY_ERR_MAX])
{
	memset(out, 0, sizeof(*out));
	out->audit_fd = -1;
	err[0] = '\0';

	if (argc < 2)
		return fail(err, "missing command; try 'porta help'");
	const char *cmd = argv[1];
	for (size_t k = 0; k < sizeof(cmd_table) / sizeof(cmd_table[0]); k++)
		if (strcmp(cmd, cmd_table[k].name) == 0)
			out->command = cmd_table[k].command;
	if (out->command == POLICY_CMD_NONE) {
		/* the commands main runs itself reach here only by mistake */
		char names[256];
		size_t n = 0, last = 0;
		for (size_t k = 0; k < sizeof(cmd_table) / sizeof(cmd_table[0]); k++)
			if (!cmd_table[k].alias)
				last = k;
		for (size_t k = 0; k < sizeof(cmd_table) / sizeof(cmd_table[0]); k++) {
			if (cmd_table[k].alias)
				continue;
			int w = snprintf(names + n, sizeof(names) - n, "%s%s",
					 n == 0 ? "" : k == last ? " or " : ", ", cmd_table[k].name);
			if (w < 0 || (size_t)w >= sizeof(names) - n)
				break;
			n += (size_t)w;
		}
		return fail(err, "unknown command '%.64s'; expected %s", cmd, names);
	}

	if (out->command == POLICY_CMD_HELP || out->command == POLICY_CMD_VERSION) {
		if (argc > 2)
			return fail(err, "'%s' takes no arguments (got '%.64s')", cmd, argv[2]);
		return POLICY_PARSE_OK;
	}

	int i = 2;
	for (; i < argc; i++) {
		const char *a = argv[i];
		const struct opt_spec *spec;
		const char *value = NULL;

		if (strcmp(a, "--") == 0) {
			i++;
			break;
		}
		if (a[0] != '-' || a[1] == '\0')
			break; /* the first non-option word starts COMMAND */
		if (a[1] == '-') {
			const char *name = a + 2;
			const char *eq = strchr(name, '=');
			size_t nlen = eq ? (size_t)(eq - name) : strlen(name);
			spec = find_long(name, nlen);
			if (!spec)
				return fail(err, "unknown option '%.64s'; see 'porta help'", a);
			if (eq) {
				if (!spec->takes_value)
					return fail(err, "--%s takes no value (got '%.64s')",
						    spec->long_name, a);
				value = eq + 1;
			}
		} else {
			spec = find_short(a[1]);
			if (!spec)
				return fail(err, "unknown option '%.64s'; see 'porta help'", a);
			if (a[2] != '\0') {
				if (!spec->takes_value)
					return fail(err, "-%c takes no value (got '%.64s')",
						    spec->short_name, a);
				value = a + 2;
			}
		}
		if (!allowed_for(out->command, spec->id))
			return fail(err, "--%s is not an option of 'porta %s'", spec->long_name,
				    command_name(out->command));
		if (spec->takes_value && !value) {
			if (i + 1 >= argc)
				return fail(err, "--%s needs a value: %s", spec->long_name,
					    spec->value_hint);
			value = argv[++i];
		}
		if (apply(out, spec, value, err) != POLICY_PARSE_OK)
			return POLICY_PARSE_ERROR;
	}

	if (out->command == POLICY_CMD_CHECK) {
		if (i < argc)
			return fail(err, "'porta check' takes no command (got '%.64s')", argv[i]);
		return POLICY_PARSE_OK;
	}
	out->cmd_index = i;
	out->cmd_argc = argc - i;
	return whole ? finish(out, err) : POLICY_PARSE_OK;
}

enum policy_parse_status policy_parse_args(int argc, char *const argv[],
					   struct policy_options *out,
					   char err[POLICY_ERR_MAX])
{
	return parse_words(argc, argv, out, true, err);
}

enum policy_parse_status policy_parse_option(int n, char *const words[], char err[POLICY_ERR_MAX])
{
	struct policy_options o;
	char *argv[6] = { "porta", "run", NULL, NULL, NULL, NULL };

	if (n < 1 || n > 2)
		return fail(err, "one option and at most one value");
	for (int i = 0; i < n; i++)
		argv[2 + i] = words[i];
	argv[2 + n] = "true";
	return parse_words(3 + n, argv, &o, false, err);
}

bool policy_option_next(size_t *cursor, struct policy_option_info *out)
{
	static const enum policy_command cmds[] = { POLICY_CMD_RUN, POLICY_CMD_LEARN,
						    POLICY_CMD_EXPLAIN, POLICY_CMD_CHECK };

	if (*cursor >= sizeof(opt_table) / sizeof(opt_table[0]))
		return false;
	const struct opt_spec *spec = &opt_table[(*cursor)++];
	*out = (struct policy_option_info){
		.long_name = spec->long_name,
		.short_name = spec->short_name,
		.kind = spec->kind,
		.words = spec->words,
		.hint = spec->value_hint,
	};
	for (size_t k = 0; k < sizeof(cmds) / sizeof(cmds[0]); k++)
		if (allowed_for(cmds[k], spec->id))
			out->commands |= POLICY_CMD_BIT(cmds[k]);
	return true;
}

bool policy_command_next(size_t *cursor, struct policy_command_info *out)
{
	if (*cursor >= sizeof(cmd_table) / sizeof(cmd_table[0]))
		return false;
	*out = cmd_table[(*cursor)++];
	return true;
}

int policy_option_words(const char *arg)
{
	const struct opt_spec *spec = NULL;

	if (arg[0] != '-' || arg[1] == '\0' || strcmp(arg, "--") == 0)
		return 1;
	if (arg[1] == '-') {
		/* --name=value carries its value in the same word */
		if (strchr(arg + 2, '='))
			return 1;
		spec = find_long(arg + 2, strlen(arg + 2));
	} else if (arg[2] == '\0') {
		spec = find_short(arg[1]);
	}
	return spec && spec->takes_value ? 2 : 1;
}

enum policy_net_compile_status policy_net_compile(const struct policy_options *o,
						  struct policy_net_rule *rules, size_t cap,
						  size_t *n_rules, char err[POLICY_ERR_MAX])
{
	const struct {
		const struct policy_strlist *list;
		const char *option;
		enum policy_net_action action;
		enum policy_net_scope scope;
	} lists[] = {
		{ &o->allow_net, "allow-net", POLICY_NET_ALLOW, POLICY_NET_SCOPE_ALL },
		{ &o->deny_net, "deny-net", POLICY_NET_DENY, POLICY_NET_SCOPE_ALL },
		{ &o->proxy_allow, "proxy-allow", POLICY_NET_ALLOW, POLICY_NET_SCOPE_PROXY },
		{ &o->proxy_deny, "proxy-deny", POLICY_NET_DENY, POLICY_NET_SCOPE_PROXY },
	};
	char shown[64 * 4 + 4];

	*n_rules = 0;
	err[0] = '\0';
	for (size_t l = 0; l < sizeof(lists) / sizeof(lists[0]); l++) {
		for (size_t k = 0; k < lists[l].list->n; k++) {
			const char *cur = lists[l].list->v[k], *item;
			size_t len;
			while (policy_split_next(&cur, &item, &len)) {
				if (*n_rules >= cap) {
					snprintf(err, POLICY_ERR_MAX,
						 "--%s: more than %zu network rules in all",
						 lists[l].option, cap);
					return POLICY_NET_COMPILE_ERROR;
				}
				enum policy_net_rule_status st = policy_net_rule_parse(
					item, len, lists[l].action, lists[l].scope,
					&rules[*n_rules]);
				if (st != POLICY_NET_RULE_OK) {
					escape_rule(item, len, shown);
					snprintf(err, POLICY_ERR_MAX, "--%s '%s': %s", lists[l].option,
						 shown, policy_net_rule_reason(st));
					return POLICY_NET_COMPILE_ERROR;
				}
				(*n_rules)++;
			}
		}
	}
	/* --secret and --allow-http: their endpoints are allowed (and, by the
	 * supervisor, terminated); the rule's text says which option asked */
	struct policy_endpoint eps[POLICY_SECRET_MAX_HOSTS];
	size_t n_eps;
	for (size_t k = 0; k < o->secrets.n + o->allow_http.n; k++) {
		const char *option = k < o->secrets.n ? "secret" : "allow-http";
		n_eps = 0;
		if (k < o->secrets.n) {
			struct policy_secret sec;
			const char *v = o->secrets.v[k];
			if (policy_secret_parse(v, strlen(v), &sec, NULL, 0) != POLICY_SECRET_OK)
				continue; /* checked when parsed */
			for (size_t h = 0; h < sec.n_hosts; h++)
				eps[n_eps++] = sec.hosts[h];
		} else {
			struct policy_http_rule rule;
			struct policy_http_endpoint hep;
			const char *v = o->allow_http.v[k - o->secrets.n];
			if (policy_http_rule_parse(v, strlen(v), &rule, NULL, 0) != POLICY_HTTP_RULE_OK ||
			    policy_http_endpoints(&rule, 1, &hep, 1) != 1)
				continue;
			eps[n_eps++] = hep.ep;
		}
		for (size_t i = 0; i < n_eps; i++) {
			char host[POLICY_ENDPOINT_STRLEN], text[POLICY_ENDPOINT_STRLEN + 8];
			policy_endpoint_format(&eps[i], 0, host);
			snprintf(text, sizeof(text), "%s", host);
			if (*n_rules >= cap) {
				snprintf(err, POLICY_ERR_MAX, "--%s: more than %zu network rules in all",
					 option, cap);
				return POLICY_NET_COMPILE_ERROR;
			}
			if (policy_net_rule_parse(text, strlen(text), POLICY_NET_ALLOW,
						  POLICY_NET_SCOPE_ALL, &rules[*n_rules]) !=
			    POLICY_NET_RULE_OK) {
				snprintf(err, POLICY_ERR_MAX, "--%s: %s cannot be allowed as a rule",
					 option, text);
				return POLICY_NET_COMPILE_ERROR;
			}
			bool again = false; /* a host both options name: one rule */
			for (size_t k2 = 0; k2 < *n_rules; k2++)
				again |= rules[k2].action == POLICY_NET_ALLOW &&
					 strcmp(rules[k2].text, text) == 0;
			if (!again)
				(*n_rules)++;
		}
	}
	return POLICY_NET_COMPILE_OK;
}


enum policy_parse_status policy_options_check_env(const struct policy_options *o,
						  char *const envp[], char err[POLICY_ERR_MAX])
{
	struct policy_secret sec;
	const char *value;

	err[0] = '\0';
	for (size_t i = 0; i < o->secrets.n; i++) {
		const char *v = o->secrets.v[i];
		if (policy_secret_parse(v, strlen(v), &sec, err, POLICY_ERR_MAX) != POLICY_SECRET_OK ||
		    policy_secret_check_env(&sec, 1, envp, &value, err, POLICY_ERR_MAX) !=
			    POLICY_SECRET_OK)
			return POLICY_PARSE_ERROR;
	}
	return POLICY_PARSE_OK;
}

bool policy_option_single(const char *name, size_t len, const char **key)
{
	const struct opt_spec *spec = find_long(name, len);

	if (!spec || !spec->single)
		return false;
	/* an alias (--proxy-audit) merges as the first name of its option */
	for (size_t i = 0; i < sizeof(opt_table) / sizeof(opt_table[0]); i++)
		if (opt_table[i].id == spec->id) {
			*key = opt_table[i].long_name;
			break;
		}
	return true;
}
