/* tests/unit/policy/test_preset.c: the built-in lists against
 * docs/defaults.md (policy/preset.h). */
#include <criterion/criterion.h>
#include <limits.h>
#include <regex.h>
#include <stdio.h>
#include <string.h>

#include "policy/preset.h"

#define N_ELEMS(a) (sizeof(a) / sizeof((a)[0]))

static bool in_list(const char *const *list, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(list[i], s) == 0)
			return true;
	return false;
}

static void assert_no_duplicates(const char *const *list, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		cr_assert(list[i] && list[i][0], "entry %zu is empty", i);
		for (size_t k = i + 1; k < n; k++)
			cr_assert_str_neq(list[i], list[k], "duplicate entry");
	}
}

/* docs/defaults.md, "Closed to reads in every mode", without the "~/" */
static const char *const credentials[] = {
	".ssh", ".gnupg", ".password-store", ".aws", ".azure", ".config/gcloud", ".oci",
	".config/gh", ".config/hub", ".git-credentials", ".netrc", ".npmrc", ".yarnrc.yml",
	".pypirc", ".gem/credentials", ".cargo/credentials", ".cargo/credentials.toml", ".docker",
	".kube", ".terraform.d", ".vault-token", ".pgpass", ".my.cnf", ".local/share/keyrings",
	".config/op", ".config/google-chrome", ".config/chromium", ".mozilla",
};

Test(preset, credentials_are_defaults_md)
{
	size_t n;
	const char *const *list = policy_preset_credentials(&n);
	cr_assert_eq(N_ELEMS(credentials), 28);
	for (size_t i = 0; i < N_ELEMS(credentials); i++)
		cr_assert(in_list(list, n, credentials[i]), "~/%s is missing", credentials[i]);
	cr_assert_geq(n, 28);
	assert_no_duplicates(list, n);
	/* relative to the home: no leading '/', no "..", no trailing '/' */
	for (size_t i = 0; i < n; i++) {
		cr_assert_neq(list[i][0], '/', "%s", list[i]);
		cr_assert_null(strstr(list[i], ".."), "%s", list[i]);
		cr_assert_neq(list[i][strlen(list[i]) - 1], '/', "%s", list[i]);
	}
}

/* docs/defaults.md, "Protected inside every writable mount" */
static const char *const protected_names[] = {
	".git/hooks", ".git/config", ".bashrc", ".bash_profile", ".zshrc", ".zprofile",
	".profile", ".envrc", ".gitconfig", ".mcp.json", ".npmrc", "porta.toml", ".porta.toml",
	".porta", ".claude/commands", ".claude/agents", ".claude/settings.json", ".vscode", ".idea",
};

Test(preset, protected_names_are_defaults_md)
{
	size_t n;
	const char *const *list = policy_preset_protected(&n);
	for (size_t i = 0; i < N_ELEMS(protected_names); i++)
		cr_assert(in_list(list, n, protected_names[i]), "%s is missing", protected_names[i]);
	cr_assert_geq(n, N_ELEMS(protected_names));
	assert_no_duplicates(list, n);
	for (size_t i = 0; i < n; i++) {
		cr_assert_neq(list[i][0], '/', "%s", list[i]);
		cr_assert_null(strstr(list[i], ".."), "%s", list[i]);
	}
}

/* Beyond the floor of docs/defaults.md: files the host runs later when the home itself is a
 * writable mount (escape corpus rows 53). */
static const char *const persistence_names[] = {
	".config/git", ".bash_login", ".bash_logout", ".zshenv", ".zlogin", ".zlogout",
	".config/fish", ".config/autostart", ".config/systemd", ".config/environment.d",
	".pam_environment", ".xprofile", ".xsession", ".xinitrc", ".bash_aliases",
	".xsessionrc", ".local/share/applications", ".local/bin",
};

Test(preset, protected_names_cover_login_and_desktop_startup)
{
	size_t n;
	const char *const *list = policy_preset_protected(&n);
	for (size_t i = 0; i < N_ELEMS(persistence_names); i++)
		cr_assert(in_list(list, n, persistence_names[i]), "%s is missing",
			  persistence_names[i]);
}

static const struct {
	const char *path;
	bool closed;
} socket_vectors[] = {
	/* ssh-agent's default: /tmp/ssh-XXXXXXXXXX/agent.<ppid> */
	{ "/tmp/ssh-AbC123/agent.4242", true },
	{ "/tmp/ssh-x/agent.1", true },
	{ "/run/user/1000/ssh-q1w2e3/agent.99999", true },
	{ "/home/u/.ssh/agent.sock", true },
	{ "/home/u/.ssh/agent", true },
	{ "/home/u/.ssh/agent-forward.socket", true },
	{ "/home/u/.gnupg/S.gpg-agent", true },
	{ "/home/u/.gnupg/S.gpg-agent.ssh", true },
	{ "/home/u/.gnupg/S.gpg-agent.extra", true },
	{ "/home/u/.gnupg/S.gpg-agent.browser", true },
	{ "/run/user/1000/gnupg/S.gpg-agent", true },
	{ "/run/user/1000/gnupg/S.gpg-agent.ssh", true },
	{ "/run/user/1000/gnupg/d.6ahdqwhy3xkkqhbbzjgstyh6/S.gpg-agent", true },
	{ "/var/run/docker.sock", true },
	{ "/run/docker.sock", true },
	{ "/run/user/1000/docker.sock", true },
	{ "/run/podman/podman.sock", true },
	{ "/run/user/1000/podman/podman.sock", true },
	{ "/run/podman-machine.sock", true },
	{ "/home/u/.colima/default/docker.sock", true },
	{ "/home/u/.colima/default/containerd.sock", true },
	{ "/home/u/.orbstack/run/docker.sock", true },
	{ "/home/u/.lima/default/sock/ssh.sock", true },
	/* near misses */
	{ "/tmp/ssh-x/agent.abc", false },
	{ "/tmp/ssh-x/agent.", false },
	{ "/tmp/ssh-/agent.1", false },
	{ "/tmp/ssh-x/agent.1/more", false },
	{ "/tmp/ssh-x/y/agent.1x", false },
	{ "/var/run/docker.sock.bak", false },
	{ "/var/run/docker.socket", false },
	{ "/var/run/mydocker.sock", false },
	{ "/var/run/docker_sock", false },
	{ "/home/u/.ssh/known_hosts", false },
	{ "/home/u/.ssh/agent/x", false },
	{ "/home/u/ssh/agent.sock", false },
	{ "/home/u/.gnupg/S.dirmngr", false },
	{ "/home/u/.gnupg/S.gpg-agent/x", false },
	{ "/home/u/.gnupg/SXgpg-agent", false },
	{ "/run/podman/podman.sock.lock", false },
	{ "/run/xpodman.sock", false },
	{ "/home/u/.colima/default/docker.socket", false },
	{ "/home/u/colima/default/other.sock", false },
	{ "/run/systemd/private", false },
	{ "/run/dbus/system_bus_socket", true },
	{ "/var/run/dbus/system_bus_socket", true },
	{ "/run/containerd/containerd.sock", true },
	{ "/run/k3s/containerd/containerd.sock", true },
	{ "/var/run/crio/crio.sock", true },
	{ "/run/buildkit/buildkitd.sock", true },
	{ "/run/libvirt/libvirt-sock", true },
	{ "/run/libvirt/libvirt-sock-ro", true },
	{ "/run/snapd.socket", true },
	{ "/var/snap/lxd/common/lxd/unix.socket", true },
	{ "/var/lib/incus/unix.socket", true },
	{ "/run/containerd/containerd.sock.ttrpc", true },
	{ "/run/dbus/other_socket", false },
	{ "/home/u/unix.socket", false },
	{ "/tmp/.X11-unix/X0", false },
	/* beyond the floor of docs/defaults.md: session bus, systemd user manager, keyrings,
	 * display and sound */
	{ "/run/user/1000/bus", true },
	{ "/run/user/1000/systemd/private", true },
	{ "/run/user/1000/systemd/notify", true },
	{ "/run/user/1000/keyring/control", true },
	{ "/run/user/1000/keyring/ssh", true },
	{ "/run/user/1000/gcr/ssh", true },
	{ "/run/user/1000/ssh-agent.socket", true },
	{ "/run/user/1000/wayland-0", true },
	{ "/run/user/1000/pulse/native", true },
	{ "/run/user/1000/pipewire-0", true },
	{ "/run/user/1000/busy", false },
	{ "/run/user/1000/systemd", false },
	{ "/run/user/x/bus", false },
	{ "/home/u/bus", false },
	{ "/run/user/1000/wayland-0.lock", false },
};

Test(preset, socket_regexes)
{
	size_t n;
	const char *const *pat = policy_preset_sockets(&n);
	cr_assert_eq(n, 11, "docs/defaults.md's 6 socket expressions and 5 of porta's own");
	regex_t re[16];
	for (size_t i = 0; i < n; i++) {
		int rc = regcomp(&re[i], pat[i], REG_EXTENDED | REG_NOSUB);
		cr_assert_eq(rc, 0, "regcomp(%s) failed: %d", pat[i], rc);
	}
	for (size_t v = 0; v < N_ELEMS(socket_vectors); v++) {
		size_t hits = 0;
		for (size_t i = 0; i < n; i++)
			hits += regexec(&re[i], socket_vectors[v].path, 0, NULL, 0) == 0;
		cr_assert_eq(hits > 0, socket_vectors[v].closed, "%s: %s", socket_vectors[v].path,
			     socket_vectors[v].closed ? "left open" : "closed by mistake");
	}
	/* each expression is anchored at the end: nothing below a socket matches */
	for (size_t v = 0; v < N_ELEMS(socket_vectors); v++) {
		if (!socket_vectors[v].closed)
			continue;
		char longer[256];
		snprintf(longer, sizeof(longer), "%s/x", socket_vectors[v].path);
		for (size_t i = 0; i < n; i++)
			cr_assert_neq(regexec(&re[i], longer, 0, NULL, 0), 0, "%s matches %s", longer,
				      pat[i]);
	}
	for (size_t i = 0; i < n; i++)
		regfree(&re[i]);
}

/* Each expression closes its own family: every one is needed. */
Test(preset, every_socket_regex_is_used)
{
	size_t n;
	const char *const *pat = policy_preset_sockets(&n);
	for (size_t i = 0; i < n; i++) {
		regex_t re;
		cr_assert_eq(regcomp(&re, pat[i], REG_EXTENDED | REG_NOSUB), 0);
		size_t hits = 0;
		for (size_t v = 0; v < N_ELEMS(socket_vectors); v++)
			hits += socket_vectors[v].closed &&
				regexec(&re, socket_vectors[v].path, 0, NULL, 0) == 0;
		cr_assert_gt(hits, 0, "%s matches no vector", pat[i]);
		regfree(&re);
	}
}

Test(preset, strict_readable)
{
	size_t n;
	const char *const *list = policy_strict_readable(&n);
	static const char *const must[] = {
		"/usr", "/lib", "/lib64", "/bin", "/sbin", "/tmp", "/dev", "/etc/ld.so.cache",
		"/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/localtime", "/etc/resolv.conf",
		"/etc/hosts", "/etc/nsswitch.conf", "/etc/passwd", "/etc/group", "/etc/services",
		"/etc/protocols", "/etc/ssl", "/etc/pki", "/etc/alternatives", "/etc/profile.d",
	};
	for (size_t i = 0; i < N_ELEMS(must); i++)
		cr_assert(in_list(list, n, must[i]), "%s is missing", must[i]);
	static const char *const never[] = { "/etc", "/etc/shadow", "/etc/gshadow", "/etc/sudoers",
					     "/etc/sudoers.d", "/etc/ssh", "/home", "/root", "/",
					     "/var", "/run" };
	for (size_t i = 0; i < n; i++) {
		cr_assert_eq(list[i][0], '/', "%s is not absolute", list[i]);
		for (size_t k = 0; k < N_ELEMS(never); k++) {
			size_t l = strlen(list[i]);
			/* neither the path nor a parent of it */
			cr_assert(strcmp(list[i], never[k]) != 0, "%s is readable in strict mode",
				  never[k]);
			cr_assert(!(strncmp(never[k], list[i], l) == 0 && never[k][l] == '/'),
				  "%s opens %s", list[i], never[k]);
		}
	}
	assert_no_duplicates(list, n);
}

Test(preset, env_passes_by_default)
{
	static const struct {
		const char *name;
		bool passes;
	} v[] = {
		{ "PATH", true },     { "HOME", true },      { "USER", true },
		{ "LOGNAME", true },  { "SHELL", true },     { "TERM", true },
		{ "COLORTERM", true }, { "LANG", true },     { "LANGUAGE", true },
		{ "LC_ALL", true },   { "LC_CTYPE", true },  { "LC_X", true },
		{ "TZ", true },       { "LC_", false },      { "LC", false },
		{ "lc_all", false },  { "path", false },     { "PATHX", false },
		{ "PAT", false },     { "SECRET", false },   { "AWS_SECRET_ACCESS_KEY", false },
		{ "SSH_AUTH_SOCK", false }, { "GITHUB_TOKEN", false }, { "LD_PRELOAD", false },
		{ "TMPDIR", false },  { "", false },         { "HOME ", false },
	};
	for (size_t i = 0; i < N_ELEMS(v); i++)
		cr_assert_eq(policy_env_passes_by_default(v[i].name, strlen(v[i].name)), v[i].passes,
			     "%s", v[i].name);
	/* n bounds the name: "PATH" of "PATHX", "TZ" of "TZ=UTC" */
	cr_assert(policy_env_passes_by_default("PATHX", 4));
	cr_assert(policy_env_passes_by_default("TZ=UTC", 2));
	cr_assert(!policy_env_passes_by_default("LC_ALL", 3));
}

/* Credential stores the first list did not name (agents', tools'). */
static const char *const issue11_credentials[] = {
	".claude/.credentials.json", ".codex/auth.json", ".gemini/oauth_creds.json",
	".config/github-copilot", ".config/git/credentials", ".config/containers/auth.json",
	".config/glab-cli", ".m2/settings.xml", ".gradle/gradle.properties", ".terraformrc",
	".cache/huggingface/token", ".pulumi/credentials.json", ".config/sops/age",
	".Xauthority",
};

Test(preset, credentials_name_the_stores_of_issue_11)
{
	size_t n;
	const char *const *list = policy_preset_credentials(&n);
	for (size_t i = 0; i < N_ELEMS(issue11_credentials); i++)
		cr_assert(in_list(list, n, issue11_credentials[i]), "~/%s is missing",
			  issue11_credentials[i]);
	cr_assert_geq(n, N_ELEMS(credentials) + N_ELEMS(issue11_credentials));
	assert_no_duplicates(list, n);
	/* joined to the home as they are: relative, no trailing '/', no empty
	 * component that would name a different path */
	for (size_t i = 0; i < n; i++) {
		cr_assert_neq(list[i][0], '/', "%s", list[i]);
		cr_assert_neq(list[i][strlen(list[i]) - 1], '/', "%s", list[i]);
		cr_assert_null(strstr(list[i], "//"), "%s", list[i]);
		cr_assert_null(strstr(list[i], ".."), "%s", list[i]);
	}
}

/* Agents' project settings that start commands. */
Test(preset, protected_names_hold_agents_project_settings)
{
	static const char *const names[] = { ".claude/settings.local.json", ".cursor/mcp.json",
					     ".gemini/settings.json" };
	size_t n;
	const char *const *list = policy_preset_protected(&n);
	for (size_t i = 0; i < N_ELEMS(names); i++)
		cr_assert(in_list(list, n, names[i]), "%s is missing", names[i]);
}

Test(preset, kept_sockets)
{
	size_t n;
	const struct policy_kept_socket *k = policy_kept_sockets(&n);
	cr_assert_gt(n, 0);
	for (size_t i = 0; i < n; i++) {
		cr_assert(k[i].path && k[i].path[0] == '/', "entry %zu is not absolute", i);
		cr_assert(k[i].why && k[i].why[0], "%s has no reason", k[i].path);
		for (size_t j = i + 1; j < n; j++)
			cr_assert_str_neq(k[i].path, k[j].path, "duplicate entry");
	}
	static const struct {
		const char *path;
		bool open_net_only;
	} want[] = {
		{ "/run/systemd/journal/socket", false },
		{ "/run/systemd/journal/stdout", false },
		{ "/run/systemd/journal/dev-log", false },
		/* nscd resolves host names: kept only when the network is open */
		{ "/run/nscd/socket", true },
	};
	for (size_t w = 0; w < N_ELEMS(want); w++) {
		size_t i = 0;
		while (i < n && strcmp(k[i].path, want[w].path) != 0)
			i++;
		cr_assert_lt(i, n, "%s is not kept", want[w].path);
		cr_assert_eq(k[i].open_net_only, want[w].open_net_only, "%s", want[w].path);
	}

	/* a kept socket is not one the preset's expressions close */
	size_t np;
	const char *const *pat = policy_preset_sockets(&np);
	for (size_t p = 0; p < np; p++) {
		regex_t re;
		cr_assert_eq(regcomp(&re, pat[p], REG_EXTENDED | REG_NOSUB), 0);
		for (size_t i = 0; i < n; i++)
			cr_assert_neq(regexec(&re, k[i].path, 0, NULL, 0), 0, "%s is kept and closed by %s",
				      k[i].path, pat[p]);
		regfree(&re);
	}
}

/* Up to 16 directories, as host/resolve.c asks for. */
#define DIRS_CAP 16
static char dirs[DIRS_CAP + 1][PATH_MAX];

static size_t socket_dirs(unsigned uid, bool share_tmp, const char *xdg, const char *tmux,
			  const char *screen)
{
	memset(dirs, 'Z', sizeof(dirs));
	size_t n = policy_socket_dirs(uid, share_tmp, xdg, tmux, screen, dirs, DIRS_CAP);
	cr_assert_leq(n, DIRS_CAP);
	for (size_t i = 0; i < n; i++) {
		cr_assert_not_null(memchr(dirs[i], '\0', PATH_MAX), "entry %zu unterminated", i);
		cr_assert_eq(dirs[i][0], '/', "%s is not absolute", dirs[i]);
		for (size_t j = 0; j < i; j++)
			cr_assert_str_neq(dirs[i], dirs[j], "%s written twice", dirs[i]);
	}
	return n;
}

static bool has_dir(size_t n, const char *path)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(dirs[i], path) == 0)
			return true;
	return false;
}

/* Listed whatever the environment says: /run (the system's services bind
 * there, again as they restart), the user's runtime directory and GNU
 * screen's. */
#define N_ALWAYS 4

static void assert_always(size_t n, unsigned uid)
{
	char runtime[32];
	snprintf(runtime, sizeof(runtime), "/run/user/%u", uid);
	static const char *const fixed[] = { "/run", "/run/screen", "/var/run/screen" };
	for (size_t i = 0; i < N_ELEMS(fixed); i++)
		cr_assert(has_dir(n, fixed[i]), "uid %u: %s missing", uid, fixed[i]);
	cr_assert(has_dir(n, runtime), "uid %u: %s missing", uid, runtime);
}

/* With nothing from the environment and a private /tmp: those alone, for
 * that uid. */
Test(preset, socket_dirs_without_environment)
{
	static const unsigned uids[] = { 1000, 0, 4294967295u };
	for (size_t i = 0; i < N_ELEMS(uids); i++) {
		size_t n = socket_dirs(uids[i], false, NULL, NULL, NULL);
		cr_assert_eq(n, N_ALWAYS, "uid %u: %zu directories", uids[i], n);
		assert_always(n, uids[i]);
	}
	size_t n = socket_dirs(4294967295u, false, NULL, NULL, NULL);
	cr_assert(has_dir(n, "/run/user/4294967295"), "the uid printed unsigned");
	cr_assert(!has_dir(n, "/run/user/1000"));
}

Test(preset, socket_dirs_from_environment)
{
	size_t n = socket_dirs(1000, false, "/xdg/rt", "/tt", "/var/scr");
	cr_assert_eq(n, N_ALWAYS + 3);
	assert_always(n, 1000);
	static const char *const want[] = { "/xdg/rt", "/var/scr", "/tt/tmux-1000" };
	for (size_t i = 0; i < N_ELEMS(want); i++)
		cr_assert(has_dir(n, want[i]), "%s missing", want[i]);
	/* $TMUX_TMPDIR is where tmux makes its tmux-UID, not the socket dir */
	cr_assert(!has_dir(n, "/tt"));

	/* each variable alone adds exactly its own directory */
	n = socket_dirs(7, false, "/xdg/rt", NULL, NULL);
	cr_assert(n == N_ALWAYS + 1 && has_dir(n, "/xdg/rt"));
	n = socket_dirs(7, false, NULL, "/tt", NULL);
	cr_assert(n == N_ALWAYS + 1 && has_dir(n, "/tt/tmux-7"));
	n = socket_dirs(7, false, NULL, NULL, "/var/scr");
	cr_assert(n == N_ALWAYS + 1 && has_dir(n, "/var/scr"));
}

/* The private /tmp hides the socket directories in it; a shared one does
 * not, so they are closed only then. */
static const char *const shared_tmp_dirs[] = { "/tmp/tmux-1000", "/tmp/screens", "/tmp/.X11-unix",
					       "/tmp/.ICE-unix", "/tmp/emacs1000" };

Test(preset, socket_dirs_in_a_shared_tmp_only)
{
	size_t n = socket_dirs(1000, true, NULL, NULL, NULL);
	cr_assert_eq(n, N_ALWAYS + N_ELEMS(shared_tmp_dirs));
	for (size_t i = 0; i < N_ELEMS(shared_tmp_dirs); i++)
		cr_assert(has_dir(n, shared_tmp_dirs[i]), "%s missing", shared_tmp_dirs[i]);
	assert_always(n, 1000);

	n = socket_dirs(1000, false, "/xdg/rt", "/tt", "/var/scr");
	for (size_t i = 0; i < n; i++)
		cr_assert_neq(strncmp(dirs[i], "/tmp/", 5), 0, "%s with a private /tmp", dirs[i]);
}

/* A variable naming a directory already listed adds nothing. */
Test(preset, socket_dirs_each_once)
{
	size_t n = socket_dirs(1000, false, "/run/user/1000", NULL, "/run/screen");
	cr_assert_eq(n, N_ALWAYS);
	n = socket_dirs(1000, false, "/run", NULL, "/var/run/screen");
	cr_assert_eq(n, N_ALWAYS);
	/* tmux's default place, named by $TMUX_TMPDIR, in a shared /tmp */
	n = socket_dirs(1000, true, "/run/user/1000", "/tmp", "/tmp/screens");
	cr_assert_eq(n, N_ALWAYS + N_ELEMS(shared_tmp_dirs));
	/* $XDG_RUNTIME_DIR and $SCREENDIR the same directory */
	n = socket_dirs(1000, false, "/xdg", NULL, "/xdg");
	cr_assert_eq(n, N_ALWAYS + 1);
	cr_assert(has_dir(n, "/xdg"));
	/* $TMUX_TMPDIR the runtime directory: tmux-UID inside it, both kept */
	n = socket_dirs(1000, false, "/run/user/1000", "/run/user/1000", NULL);
	cr_assert_eq(n, N_ALWAYS + 1);
	cr_assert(has_dir(n, "/run/user/1000/tmux-1000"));
}

/* What the environment says is skipped unless it is an absolute path: a
 * relative one would be resolved against whatever directory porta runs in;
 * "/" and a path too long for PATH_MAX are never a socket directory (and
 * never written cut). */
Test(preset, socket_dirs_skip_relative_empty_and_overlong)
{
	static char longp[PATH_MAX + 8];
	memset(longp, 'a', sizeof(longp) - 1);
	longp[0] = '/';
	longp[sizeof(longp) - 1] = '\0';
	static const char *const bad[] = { "", "run/user/1000", "./xdg", "xdg/", "~/x", "/",
					   longp };
	for (size_t i = 0; i < N_ELEMS(bad); i++) {
		size_t n = socket_dirs(1000, false, bad[i], NULL, NULL);
		cr_assert_eq(n, N_ALWAYS, "XDG_RUNTIME_DIR=\"%.20s\": %zu directories", bad[i], n);
		n = socket_dirs(1000, false, NULL, NULL, bad[i]);
		cr_assert_eq(n, N_ALWAYS, "SCREENDIR=\"%.20s\": %zu directories", bad[i], n);
	}
	/* $TMUX_TMPDIR relative, or one that fits PATH_MAX alone but not with
	 * "/tmux-1000" after it */
	static const char *const bad_tmux[] = { "rel", "./t", "t/" };
	for (size_t i = 0; i < N_ELEMS(bad_tmux); i++)
		cr_assert_eq(socket_dirs(1000, false, NULL, bad_tmux[i], NULL), N_ALWAYS,
			     "TMUX_TMPDIR=\"%s\"", bad_tmux[i]);
	longp[PATH_MAX - 8] = '\0';
	cr_assert_eq(socket_dirs(1000, false, NULL, longp, NULL), N_ALWAYS, "an overlong tmux-UID");
}

static bool untouched(const char *entry)
{
	for (size_t b = 0; b < PATH_MAX; b++)
		if (entry[b] != 'Z')
			return false;
	return true;
}

/* The cap bounds the writes: the count at most cap, nothing written past
 * the entries counted, and those are the first ones of the full list. */
Test(preset, socket_dirs_respect_the_cap)
{
	static char full[DIRS_CAP][PATH_MAX];
	size_t total = policy_socket_dirs(1000, true, "/xdg/rt", "/tt", "/var/scr", full,
					  DIRS_CAP);
	cr_assert_eq(total, N_ALWAYS + 3 + N_ELEMS(shared_tmp_dirs));
	for (size_t cap = 0; cap <= total + 1; cap++) {
		memset(dirs, 'Z', sizeof(dirs));
		size_t n = policy_socket_dirs(1000, true, "/xdg/rt", "/tt", "/var/scr", dirs, cap);
		cr_assert_eq(n, cap < total ? cap : total, "cap %zu", cap);
		for (size_t i = 0; i < n; i++)
			cr_assert_str_eq(dirs[i], full[i], "cap %zu, entry %zu", cap, i);
		for (size_t i = n; i <= DIRS_CAP; i++)
			cr_assert(untouched(dirs[i]), "cap %zu: wrote entry %zu", cap, i);
	}
}

/* docs/defaults.md, "The home": the places shown in the closed home */
static const char *const home_visible[] = {
	".local/bin", ".local/lib", ".nvm", ".volta", ".cargo/bin", ".rustup", ".pyenv", ".rbenv",
	".asdf", ".local/share/mise", ".sdkman/candidates", "go/bin", ".bun/bin", ".deno/bin",
	".config/git/ignore", ".config/git/attributes", ".terminfo", ".inputrc",
};

static bool at_or_under(const char *dir, const char *p)
{
	size_t n = strlen(dir);
	return strncmp(dir, p, n) == 0 && (p[n] == '\0' || p[n] == '/');
}

Test(preset, home_visible_is_defaults_md_and_holds_no_credential)
{
	size_t n, nc;
	const struct policy_home_place *v = policy_home_visible(&n);
	const char *const *cred = policy_preset_credentials(&nc);

	cr_assert_eq(n, N_ELEMS(home_visible));
	for (size_t i = 0; i < n; i++) {
		cr_assert_str_eq(v[i].path, home_visible[i]);
		cr_assert(v[i].reason && v[i].reason[0], "%s has no reason", v[i].path);
		cr_assert_neq(v[i].path[0], '/');
		cr_assert_null(strstr(v[i].path, ".."));
		/* nothing shown holds, or lies in, a credential path */
		for (size_t k = 0; k < nc; k++)
			cr_assert(!at_or_under(v[i].path, cred[k]) && !at_or_under(cred[k], v[i].path),
				  "~/%s and the credential ~/%s overlap", v[i].path, cred[k]);
		/* nor a shell start-up file or git's own configuration */
		cr_assert(!at_or_under(v[i].path, ".config/git/config"));
		static const char *const startup[] = { ".bashrc", ".bash_profile", ".bash_login",
						       ".profile", ".zshrc", ".zshenv", ".zprofile",
						       ".config/fish" };
		for (size_t k = 0; k < N_ELEMS(startup); k++)
			cr_assert(!at_or_under(v[i].path, startup[k]) &&
					  !at_or_under(startup[k], v[i].path),
				  "%s", v[i].path);
	}
}
