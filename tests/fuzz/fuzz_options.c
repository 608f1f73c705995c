/* tests/fuzz/fuzz_options.c: policy_parse_args() on an argv made of the input
 * split at NUL bytes.  Checks the parser's contract on every input: an error
 * is one printable line; a success is self-consistent and points into argv. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "policy/options.h"
#include "policy/textparse.h"
#include "tests/fuzz/fuzz.h"

#define FUZZ_MAX_ARGS 64

static int strlist_ok(const struct policy_strlist *l)
{
	if (l->n > POLICY_MAX_LIST)
		return 0;
	for (size_t i = 0; i < l->n; i++)
		if (!l->v[i] || !l->v[i][0])
			return 0;
	return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *argv[FUZZ_MAX_ARGS + 2];
	int argc = 0;

	if (size > 8192)
		return 0;
	argv[argc++] = strdup("porta");
	/* Each word in its own exact-size allocation, so reading past a word's
	 * NUL is an ASan report rather than a read of the next word. */
	size_t start = 0;
	while (start <= size && argc <= FUZZ_MAX_ARGS) {
		const uint8_t *nul = memchr(data + start, '\0', size - start);
		size_t end = nul ? (size_t)(nul - data) : size;
		char *w = malloc(end - start + 1);
		if (!w)
			abort();
		memcpy(w, data + start, end - start);
		w[end - start] = '\0';
		argv[argc++] = w;
		if (!nul)
			break;
		start = end + 1;
		if (start == size)
			break; /* a trailing NUL ends the last word */
	}
	argv[argc] = NULL;

	struct policy_options o;
	char err[POLICY_ERR_MAX];
	memset(err, 'X', sizeof(err));
	enum policy_parse_status st = policy_parse_args(argc, argv, &o, err);
	if (st == POLICY_PARSE_ERROR) {
		size_t n = strnlen(err, sizeof(err));
		if (n == 0 || n == sizeof(err))
			abort(); /* empty or unterminated message */
		for (size_t i = 0; i < n; i++)
			if ((unsigned char)err[i] < 0x20 || err[i] == 0x7f)
				abort(); /* not one printable line */
	} else if (st == POLICY_PARSE_OK) {
		if (o.command == POLICY_CMD_NONE || o.command > POLICY_CMD_VERSION)
			abort();
		if (o.command == POLICY_CMD_RUN || o.command == POLICY_CMD_EXPLAIN) {
			if (o.cmd_index < 2 || o.cmd_argc < 0 || o.cmd_index + o.cmd_argc != argc)
				abort();
			if (o.command == POLICY_CMD_RUN && (o.cmd_argc == 0 || o.json))
				abort();
			bool rules = o.allow_net.n || o.deny_net.n || o.proxy_allow.n ||
				     o.proxy_deny.n;
			if (o.no_net && rules)
				abort();
			enum policy_net_mode want = o.no_net ? POLICY_NET_NONE
						    : rules ? POLICY_NET_POLICY
							    : POLICY_NET_OPEN;
			if (o.net_mode != want)
				abort();
			if (o.dns_upstream && o.net_mode != POLICY_NET_POLICY)
				abort();
		}
		if (o.n_mounts > POLICY_MAX_LIST)
			abort();
		for (size_t i = 0; i < o.n_mounts; i++)
			if (o.mounts[i].path_len == 0 ||
			    o.mounts[i].path_len > strlen(o.mounts[i].path))
				abort();
		if (!strlist_ok(&o.deny_read) || !strlist_ok(&o.protect) ||
		    !strlist_ok(&o.allow_unix) || !strlist_ok(&o.deny_unix) ||
		    !strlist_ok(&o.allow_net) || !strlist_ok(&o.deny_net) ||
		    !strlist_ok(&o.proxy_allow) || !strlist_ok(&o.proxy_deny) ||
		    !strlist_ok(&o.env_set) || !strlist_ok(&o.env_pass) || !strlist_ok(&o.env_files))
			abort();
		for (size_t i = 0; i < o.env_set.n; i++) {
			const char *eq = strchr(o.env_set.v[i], '=');
			if (!eq || !policy_env_name_valid(o.env_set.v[i], (size_t)(eq - o.env_set.v[i])))
				abort();
		}
		if (o.timeout_ms.set && o.timeout_ms.value == 0)
			abort();
	} else {
		abort();
	}
	for (int i = 0; i < argc; i++)
		free(argv[i]);
	return 0;
}
