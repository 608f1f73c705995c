/* tests/unit/policy/test_preset.c: the built-in lists against
 * reference/defaults.md (policy/preset.h). */
#include <criterion/criterion.h>
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

/* defaults.md, "Closed to reads in every mode", without the "~/" */
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

/* defaults.md, "Protected inside every writable mount" */
static const char *const protected_names[] = {
	".git/hooks", ".git/config", ".bashrc", ".bash_profile", ".zshrc", ".zprofile",
	".profile", ".envrc", ".gitconfig", ".mcp.json", ".npmrc", "porta.toml", ".porta.toml",
	".claude/commands", ".claude/agents", ".claude/settings.json", ".vscode", ".idea",
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

/* Beyond defaults.md: files the host runs later when the home itself is a
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
	/* beyond defaults.md: session bus, systemd user manager, keyrings,
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
	cr_assert_eq(n, 11, "defaults.md's 6 socket expressions and 5 of porta's own");
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
