/* src/audit_cmd.c: `porta audit [--json] [--lock | --against LOCK] FILE...`
 * (docs/porta.1): reads the audits line by line into policy/auditsum.h's
 * summary and prints it, a lock, or what lies outside a lock. */
#include "src/audit_cmd.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "host/profiles.h"
#include "policy/auditsum.h"
#include "policy/options.h"
#include "policy/profile.h"

#define EXIT_PORTA 125

static int usage(const char *why)
{
	log_msg(LOG_LEVEL_ERROR, "%s; usage: porta audit [--json] [--lock | --against LOCK] FILE...",
		why);
	return EXIT_PORTA;
}

/* The lock's network rules: the profile's options as `porta run` reads
 * them, compiled as run compiles them. */
static int lock_rules(const char *lock, char *const envp[], struct policy_net_rule **rules,
		      size_t *n)
{
	static struct policy_profile p;
	struct porta_error e;
	char msg[1600], err[POLICY_ERR_MAX];
	if (host_profile_read(lock, envp, &p, NULL, &e) < 0) {
		porta_error_format(&e, msg, sizeof(msg));
		log_msg(LOG_LEVEL_ERROR, "--against: %s", msg);
		return EXIT_PORTA;
	}
	char **argv = calloc(p.n + 4, sizeof(*argv));
	if (!argv)
		return EXIT_PORTA;
	size_t k = 0;
	argv[k++] = "porta";
	argv[k++] = "run";
	for (size_t i = 0; i < p.n; i++)
		argv[k++] = p.text + p.word[i];
	argv[k++] = "true";
	struct policy_options o;
	int rc = 0;
	if (policy_parse_args((int)k, argv, &o, err) != POLICY_PARSE_OK) {
		log_msg(LOG_LEVEL_ERROR, "--against %s: %s", lock, err);
		rc = EXIT_PORTA;
	} else {
		*rules = calloc(POLICY_NET_MAX_RULES, sizeof(**rules));
		if (!*rules ||
		    policy_net_compile(&o, *rules, POLICY_NET_MAX_RULES, n, err) !=
			    POLICY_NET_COMPILE_OK) {
			log_msg(LOG_LEVEL_ERROR, "--against %s: %s", lock, *rules ? err : "out of memory");
			rc = EXIT_PORTA;
		}
	}
	free(argv);
	return rc;
}

int porta_audit_read(FILE *in, const char *label, struct policy_audit *a)
{
	char *line = NULL, err[POLICY_AUDIT_ERR_MAX];
	size_t cap = 0;
	unsigned long no = 0;
	ssize_t len;
	int rc = 0;

	while (rc == 0 && (len = getline(&line, &cap, in)) >= 0) {
		no++;
		if (len > 0 && line[len - 1] == '\n')
			len--;
		enum policy_audit_status st = policy_audit_add(a, line, (size_t)len, err);
		if (st == POLICY_AUDIT_MALFORMED) {
			log_msg(LOG_LEVEL_ERROR, "%s:%lu: %s", label, no, err);
			rc = EXIT_PORTA;
		} else if (st == POLICY_AUDIT_NO_MEMORY) {
			log_msg(LOG_LEVEL_ERROR, "audit: out of memory");
			rc = EXIT_PORTA;
		}
	}
	free(line);
	return rc;
}

int porta_audit_command(int argc, char *argv[], char *const envp[])
{
	bool json = false, lock = false;
	const char *against = NULL;
	int i = 2;
	for (; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
		if (strcmp(argv[i], "--") == 0) {
			i++;
			break;
		} else if (strcmp(argv[i], "--json") == 0) {
			json = true;
		} else if (strcmp(argv[i], "--lock") == 0) {
			lock = true;
		} else if (strcmp(argv[i], "--against") == 0 && i + 1 < argc) {
			against = argv[++i];
		} else if (strncmp(argv[i], "--against=", 10) == 0) {
			against = argv[i] + 10;
		} else {
			char why[300];
			snprintf(why, sizeof(why), "unknown option '%.64s'", argv[i]);
			return usage(why);
		}
	}
	if (i >= argc)
		return usage("no audit FILE");
	if (lock && against)
		return usage("--lock and --against exclude each other");
	if (json && (lock || against))
		return usage("--json is for the summary alone");

	struct policy_net_rule *rules = NULL;
	size_t n_rules = 0;
	if (against && lock_rules(against, envp, &rules, &n_rules) != 0)
		return EXIT_PORTA;

	struct policy_audit a;
	policy_audit_init(&a);
	int rc = 0;
	for (int f = i; f < argc && rc == 0; f++) {
		FILE *in = strcmp(argv[f], "-") == 0 ? stdin : fopen(argv[f], "re");
		if (!in) {
			log_msg(LOG_LEVEL_ERROR, "audit %s: %s", argv[f], strerror(errno));
			rc = EXIT_PORTA;
			break;
		}
		rc = porta_audit_read(in, argv[f], &a);
		if (in != stdin)
			fclose(in);
	}
	if (rc == 0 && a.not_written && (lock || against))
		log_msg(LOG_LEVEL_WARN,
			"%lu record%s not written (the audit reached its --audit-max ceiling): "
			"what follows knows only the records written",
			a.not_written, a.not_written == 1 ? " was" : "s were");
	if (rc == 0) {
		if (lock) {
			policy_audit_lock(stdout, &a, (const char *const *)argv + i, (size_t)(argc - i));
		} else if (against) {
			size_t out = policy_audit_against(stdout, &a, rules, n_rules);
			if (out) {
				log_msg(LOG_LEVEL_ERROR, "%zu destination%s outside %s (above)", out,
					out == 1 ? "" : "s", against);
				rc = 1;
			} else {
				printf("every destination of the %lu records is inside %s\n", a.records,
				       against);
			}
		} else {
			policy_audit_print(stdout, &a, json);
		}
	}
	policy_audit_free(&a);
	free(rules);
	return rc;
}
