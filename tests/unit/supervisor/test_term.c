/* tests/unit/supervisor/test_term.c: the run's TLS termination as the
 * supervisor makes it (supervisor/term.h): placeholders in the command's
 * environment and never the value, the endpoints and what each is held
 * to, the CA only when an endpoint is HTTPS, and the refusals (125). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "supervisor/term.h"

#define GH "ghp_R3alValue0123456789abcdefABCDEFxyz"
#define NPMV "npm_0123456789abcdefghijABCDEFGHIJ"

static struct policy_options opts(int argc, char **argv)
{
	struct policy_options o;
	char err[POLICY_ERR_MAX];
	cr_assert_eq(policy_parse_args(argc, argv, &o, err), POLICY_PARSE_OK, "%s", err);
	return o;
}

static char *env_base[] = { "PATH=/usr/bin", "GH_TOKEN=" GH, "NPM_TOKEN=" NPMV, NULL };

Test(term, placeholders_endpoints_and_the_environment)
{
	char *argv[] = { "porta", "run", "--secret", "GH_TOKEN@api.example", "--secret",
			 "NPM_TOKEN@registry.example", "--allow-http",
			 "GET,HEAD https://api.example/v1/*", "--", "true", NULL };
	struct policy_options o = opts(10, argv);
	struct supervisor_term *t;
	struct porta_error e;

	cr_assert_eq(supervisor_term_create(&o, env_base, &t, &e), 0, "%s", e.msg);
	cr_assert(t);
	cr_assert_eq(supervisor_term_n_secrets(t), 2);
	const char *ph = supervisor_term_placeholder(t, 0);
	cr_assert_eq(strlen(ph), strlen(GH), "the placeholder keeps the value's length");
	cr_assert_eq(strncmp(ph, "ghp_", 4), 0, "and its type tag: %s", ph);
	cr_assert_str_neq(ph, GH);
	cr_assert_null(strstr(GH, ph + 4));
	cr_assert_str_neq(supervisor_term_placeholder(t, 1), ph);

	char **env = supervisor_term_env(t, env_base);
	cr_assert(env);
	size_t n = 0;
	bool gh = false;
	for (; env[n]; n++) {
		cr_assert_null(strstr(env[n], GH), "a real value in the environment: %s", env[n]);
		cr_assert_null(strstr(env[n], NPMV), "a real value in the environment: %s", env[n]);
		if (strncmp(env[n], "GH_TOKEN=", 9) == 0) {
			cr_assert_str_eq(env[n] + 9, ph);
			gh = true;
		}
	}
	cr_assert(gh);
	cr_assert_eq(n, 3);
	supervisor_term_env_free(t, env);

	cr_assert(supervisor_term_ca_pem(t));
	cr_assert(strstr(supervisor_term_ca_pem(t), "BEGIN CERTIFICATE"));

	struct policy_net_target api, reg, other;
	cr_assert_eq(policy_net_target_parse((const uint8_t *)"api.example", 11, &api),
		     POLICY_NET_TARGET_OK);
	cr_assert_eq(policy_net_target_parse((const uint8_t *)"registry.example", 16, &reg),
		     POLICY_NET_TARGET_OK);
	cr_assert_eq(policy_net_target_parse((const uint8_t *)"other.example", 13, &other),
		     POLICY_NET_TARGET_OK);
	struct proxy_term_params p;
	cr_assert(supervisor_term_params(t, &api, 443, &p));
	cr_assert(p.server && p.client && p.scratch);
	cr_assert_eq(p.n_bound, 1);
	cr_assert_eq(p.bound[0].placeholder.n, strlen(ph));
	cr_assert_eq(p.n_others, 1);
	cr_assert_eq(p.n_rules, 1, "api.example is ruled by --allow-http");
	cr_assert(supervisor_term_params(t, &reg, 443, &p));
	cr_assert_eq(p.n_rules, 0, "registry.example has a secret and no rule: every request goes");
	cr_assert_eq(p.n_bound, 1);
	cr_assert_not(supervisor_term_params(t, &api, 8443, &p), "another port is spliced");
	cr_assert_not(supervisor_term_params(t, &other, 443, &p));
	supervisor_term_destroy(t);
}

Test(term, nothing_to_terminate)
{
	char *argv[] = { "porta", "run", "--allow-net", "api.example", "--", "true", NULL };
	struct policy_options o = opts(6, argv);
	struct supervisor_term *t = (void *)1;
	struct porta_error e;
	cr_assert_eq(supervisor_term_create(&o, env_base, &t, &e), 0);
	cr_assert_null(t);
}

static void refused(int argc, char **argv, char **envp, const char *want)
{
	struct policy_options o = opts(argc, argv);
	struct supervisor_term *t;
	struct porta_error e;
	char line[1024];
	cr_assert_lt(supervisor_term_create(&o, envp, &t, &e), 0);
	cr_assert_null(t);
	porta_error_format(&e, line, sizeof(line));
	cr_assert(strstr(line, want), "want '%s' in: %s", want, line);
	cr_assert_null(strstr(line, GH), "the value in a message: %s", line);
}

Test(term, refusals)
{
	char *unset[] = { "porta", "run", "--secret", "NOPE@api.example", "--", "true", NULL };
	refused(6, unset, env_base, "NOPE");
	char *empty_env[] = { "GH_TOKEN=", NULL };
	char *empty[] = { "porta", "run", "--secret", "GH_TOKEN@api.example", "--", "true", NULL };
	refused(6, empty, empty_env, "GH_TOKEN");
	char *addr[] = { "porta", "run", "--secret", "GH_TOKEN@192.0.2.7", "--", "true", NULL };
	refused(6, addr, env_base, "by address");
	/* port 80, a NAME twice and a port named as http and as https are the
	 * options' own refusals (tests/unit/policy/test_options.c): explain
	 * and learn refuse them as run does */
}

/* An http:// rule's endpoint is read in the clear: no CA is made for it,
 * and its requests are held to the rules (netproxy/terminate.h). */
Test(term, plain_http_rules)
{
	char *argv[] = { "porta", "run", "--allow-http", "GET http://api.example/v1/*",
			 "--allow-http", "GET http://192.0.2.7:8080/*", "--", "true", NULL };
	struct policy_options o = opts(8, argv);
	struct supervisor_term *t;
	struct porta_error e;

	cr_assert_eq(supervisor_term_create(&o, env_base, &t, &e), 0, "%s", e.msg);
	cr_assert(t);
	cr_assert_null(supervisor_term_ca_pem(t), "no host is terminated with TLS: no CA");
	struct policy_net_target api, addr;
	cr_assert_eq(policy_net_target_parse((const uint8_t *)"api.example", 11, &api),
		     POLICY_NET_TARGET_OK);
	cr_assert_eq(policy_net_target_parse((const uint8_t *)"192.0.2.7", 9, &addr),
		     POLICY_NET_TARGET_OK);
	struct proxy_term_params p;
	cr_assert(supervisor_term_params(t, &api, 80, &p));
	cr_assert(!p.server && !p.client, "plain HTTP both ways");
	cr_assert_eq(p.n_rules, 2);
	cr_assert(supervisor_term_params(t, &addr, 8080, &p), "an address is read in the clear too");
	cr_assert_not(supervisor_term_params(t, &api, 443, &p), "https is not named: spliced");
	supervisor_term_destroy(t);
}

/* What the options' check (policy_options_check_env(), which explain and
 * learn run too) accepts, the supervisor terminates, and what it refuses,
 * the supervisor would have refused: over values of every shape a token
 * takes, at the bounds of each rule. */
Test(term, the_options_check_and_the_supervisor_agree_on_values)
{
	static char long128[160], long129[160], longdot[160];
	memset(long128, 'k', 128);
	memset(long129, 'k', 129);
	memcpy(longdot, "tok_", 4);
	memset(longdot + 4, 'x', 60);
	longdot[30] = '.';
	const char *values[] = {
		GH, NPMV, "short", "a.b", "x", "tok with spaces inside 0123456789",
		"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl", long128, long129, longdot,
		"deadbeef-0000-4000-8000-0123456789ab", "AKIA0123456789ABCDEF", "sk-proj-" GH,
		" leading-blank-0123456789abcdef", "trailing-blank-0123456789abcdef\t",
		"base64+/=ABCDEFGHIJKLMNOPQRSTUVWXYZ0123", "ends.with.dot.", ".",
	};
	for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
		char entry[256];
		snprintf(entry, sizeof(entry), "T=%s", values[i]);
		char *envp[] = { entry, NULL };
		char *argv[] = { "porta", "run", "--secret", "T@api.example", "--", "true", NULL };
		struct policy_options o = opts(6, argv);
		char err[POLICY_ERR_MAX];
		bool checked = policy_options_check_env(&o, envp, err) == POLICY_PARSE_OK;
		struct supervisor_term *t = NULL;
		struct porta_error e;
		bool made = supervisor_term_create(&o, envp, &t, &e) == 0;
		cr_assert_eq(checked, made, "value %zu: the options' check %s (%s), the supervisor %s (%s)",
			     i, checked ? "accepts" : "refuses", err, made ? "terminates" : "refuses",
			     made ? "" : e.msg);
		supervisor_term_destroy(t);
	}
}
