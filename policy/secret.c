/* policy/secret.c: see secret.h. */
#include "policy/secret.h"

#include <stdio.h>
#include <string.h>

#include "policy/placeholder.h"
#include "policy/textparse.h"

#define QUOTE_IN 64 /* bytes of the user's value quoted in a message */
#define QUOTE_CAP (QUOTE_IN * 4 + 4)

bool policy_secret_name_valid(const char *name, size_t n)
{
	return n <= POLICY_SECRET_NAME_MAX && policy_env_name_valid(name, n);
}

/* Reads the host list hosts[0..len) into out->hosts.  q is the whole value,
 * quoted, for the messages. */
static enum policy_secret_status parse_hosts(const char *hosts, size_t len,
					     struct policy_secret *out, const char *q, char *err,
					     size_t cap)
{
	const char *p = hosts, *end = hosts + len;
	char hq[QUOTE_CAP];

	if (len == 0)
		return POLICY_SAY(POLICY_SECRET_NO_HOSTS, err, cap,
			    "--secret '%s': no host after '@'; expected NAME@HOST[,HOST...]", q);
	for (;;) {
		const char *comma = memchr(p, ',', (size_t)(end - p));
		const char *item_end = comma ? comma : end;
		size_t n = (size_t)(item_end - p);
		enum policy_net_rule_status rst;
		struct policy_endpoint *ep;

		if (n == 0)
			return POLICY_SAY(POLICY_SECRET_EMPTY_HOST, err, cap,
				    "--secret '%s': an empty host in the list; expected NAME@HOST[,HOST...]",
				    q);
		if (out->n_hosts == POLICY_SECRET_MAX_HOSTS)
			return POLICY_SAY(POLICY_SECRET_TOO_MANY_HOSTS, err, cap,
				    "--secret '%s': more than %d hosts", q, POLICY_SECRET_MAX_HOSTS);
		ep = &out->hosts[out->n_hosts];
		policy_quote(p, n, QUOTE_IN, hq, sizeof(hq));
		enum policy_endpoint_status est = policy_endpoint_parse(p, n, ep, &rst);
		if (est == POLICY_ENDPOINT_RULE)
			return POLICY_SAY(POLICY_SECRET_BAD_HOST, err, cap, "--secret '%s': host '%s': %s", q,
				    hq, policy_net_rule_reason(rst));
		if (est != POLICY_ENDPOINT_OK)
			return POLICY_SAY(POLICY_SECRET_BAD_HOST, err, cap,
				    "--secret '%s': host '%s': %s (a secret goes to named hosts only)",
				    q, hq, policy_endpoint_reason(est));
		/* the value goes in the clear on port 80: refused whatever
		 * reads the option (run, explain, learn, a profile) */
		if (ep->port == 80)
			return POLICY_SAY(POLICY_SECRET_CLEAR_PORT, err, cap,
				    "--secret '%s': host '%s' on port 80; a real value is sent over "
				    "TLS only (name the host's https port)", q, hq);
		/* compared canonically: "API.example." and "api.example:443" are one host */
		for (size_t i = 0; i < out->n_hosts; i++)
			if (policy_endpoint_equal(&out->hosts[i], ep))
				return POLICY_SAY(POLICY_SECRET_DUP_HOST, err, cap,
					    "--secret '%s': host '%s' is listed twice", q, hq);
		out->n_hosts++;
		if (!comma)
			return POLICY_SECRET_OK;
		p = comma + 1;
	}
}

enum policy_secret_status policy_secret_parse(const char *text, size_t len,
					      struct policy_secret *out, char *err,
					      size_t err_cap)
{
	char q[QUOTE_CAP];
	const char *at;
	size_t nl;

	memset(out, 0, sizeof(*out));
	if (err_cap)
		err[0] = '\0';
	policy_quote(text, len, QUOTE_IN, q, sizeof(q));
	if (len > POLICY_SECRET_TEXT_MAX)
		return POLICY_SAY(POLICY_SECRET_TOO_LONG, err, err_cap,
			    "--secret '%s': too long (at most %d bytes)", q, POLICY_SECRET_TEXT_MAX);
	at = memchr(text, '@', len);
	if (!at)
		return POLICY_SAY(POLICY_SECRET_NO_AT, err, err_cap,
			    "--secret '%s': no '@'; expected NAME@HOST[,HOST...], as GH_TOKEN@api.example",
			    q);
	nl = (size_t)(at - text);
	if (nl == 0)
		return POLICY_SAY(POLICY_SECRET_EMPTY_NAME, err, err_cap,
			    "--secret '%s': no NAME before '@'; expected the environment variable that holds the secret",
			    q);
	if (nl > POLICY_SECRET_NAME_MAX)
		return POLICY_SAY(POLICY_SECRET_NAME_TOO_LONG, err, err_cap,
			    "--secret '%s': NAME is longer than %d bytes", q, POLICY_SECRET_NAME_MAX);
	if (!policy_secret_name_valid(text, nl))
		return POLICY_SAY(POLICY_SECRET_BAD_NAME, err, err_cap,
			    "--secret '%s': NAME must be an environment variable name: letters, digits and _, not starting with a digit",
			    q);
	memcpy(out->name, text, nl);
	out->name[nl] = '\0';
	return parse_hosts(at + 1, len - nl - 1, out, q, err, err_cap);
}

enum policy_secret_status policy_secret_check_set(const struct policy_secret *secrets, size_t n,
						  char *err, size_t err_cap)
{
	if (err_cap)
		err[0] = '\0';
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < i; j++)
			if (strcmp(secrets[i].name, secrets[j].name) == 0)
				return POLICY_SAY(POLICY_SECRET_DUP_NAME, err, err_cap,
					    "--secret: %s is given twice; list all its hosts in one --secret %s@HOST,HOST",
					    secrets[i].name, secrets[i].name);
	return POLICY_SECRET_OK;
}

/* The value of name in envp, or NULL; *twice when it is set more than once
 * (which entry a program's getenv() sees is then up to its libc). */
static const char *env_find(char *const envp[], const char *name, bool *twice)
{
	size_t nl = strlen(name);
	const char *found = NULL;

	*twice = false;
	for (size_t i = 0; envp && envp[i]; i++) {
		if (strncmp(envp[i], name, nl) != 0 || envp[i][nl] != '=')
			continue;
		if (found)
			*twice = true;
		else
			found = envp[i] + nl + 1;
	}
	return found;
}

enum policy_secret_status policy_secret_check_env(const struct policy_secret *secrets, size_t n,
						  char *const envp[], const char *values[],
						  char *err, size_t err_cap)
{
	if (err_cap)
		err[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		const char *name = secrets[i].name;
		bool twice;
		const char *v = env_find(envp, name, &twice);

		/* Every message names NAME and describes the value by its
		 * shape alone: no byte of it is printed (secret.h). */
		if (!v)
			return POLICY_SAY(POLICY_SECRET_UNSET, err, err_cap,
				    "--secret %s: %s is not set in porta's environment; export it before running porta",
				    name, name);
		if (twice)
			return POLICY_SAY(POLICY_SECRET_ENV_TWICE, err, err_cap,
				    "--secret %s: %s is set twice in porta's environment; which one a program reads depends on it",
				    name, name);
		if (v[0] == '\0')
			return POLICY_SAY(POLICY_SECRET_EMPTY_VALUE, err, err_cap,
				    "--secret %s: %s is empty in porta's environment", name, name);
		size_t vl = strnlen(v, POLICY_SECRET_VALUE_MAX + 1);
		if (vl > POLICY_SECRET_VALUE_MAX)
			return POLICY_SAY(POLICY_SECRET_VALUE_TOO_LONG, err, err_cap,
				    "--secret %s: the value of %s is longer than %d bytes", name, name,
				    POLICY_SECRET_VALUE_MAX);
		for (size_t k = 0; k < vl; k++) {
			uint8_t c = (uint8_t)v[k];
			/* RFC 9110 §5.5: a field value holds no CTL but HTAB; CR or
			 * LF would end the header the value is written into. */
			if ((c < 0x20 && c != '\t') || c == 0x7f)
				return POLICY_SAY(POLICY_SECRET_VALUE_CONTROL, err, err_cap,
					    "--secret %s: the value of %s holds a control character (byte %zu), which an HTTP header cannot carry",
					    name, name, k + 1);
		}
		/* a header's value loses the blanks at its edges (RFC 9110 §5.5) */
		if (v[0] == ' ' || v[0] == '\t' || v[vl - 1] == ' ' || v[vl - 1] == '\t')
			return POLICY_SAY(POLICY_SECRET_VALUE_BLANK_EDGE, err, err_cap,
				    "--secret %s: the value of %s begins or ends with a blank, which "
				    "an HTTP header drops", name, name);
		/* what porta would stand in for it must be a placeholder the
		 * proxy can hold and the tripwire can find anywhere */
		if (!policy_placeholder_fits(v, vl))
			return POLICY_SAY(POLICY_SECRET_VALUE_SHAPE, err, err_cap,
				    "--secret %s: the value of %s %s, and so would its placeholder; "
				    "porta's are at most %d bytes of letters, digits, '-' and '_' (for "
				    "the proxy to find them anywhere): such a value cannot be kept "
				    "outside yet",
				    name, name,
				    memchr(v, '.', vl) ? "holds a '.' (as a JWT does)"
						       : "is longer than 128 bytes",
				    POLICY_PLACEHOLDER_MAX);
		values[i] = v;
	}
	return POLICY_SECRET_OK;
}
