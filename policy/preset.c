/* policy/preset.c: see preset.h.  The lists are docs/defaults.md's. */
#include "policy/preset.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "common/cleanup.h"

/* Relative to the home.  A directory is closed whole where everything in it
 * is secret or session state; a file alone where its directory also holds
 * what tools need to work (caches, plugins, repositories). */
static const char *const credentials[] = {
	/* The floor (docs/defaults.md): keys, cloud and registry tokens, browsers */
	".ssh", ".gnupg", ".password-store", ".aws", ".azure", ".config/gcloud", ".oci",
	".config/gh", ".config/hub", ".git-credentials", ".netrc", ".npmrc", ".yarnrc.yml",
	".pypirc", ".gem/credentials", ".cargo/credentials", ".cargo/credentials.toml",
	".docker", ".kube", ".terraform.d", ".vault-token", ".pgpass", ".my.cnf",
	".local/share/keyrings", ".config/op", ".config/google-chrome", ".config/chromium",
	".mozilla",
	/* Coding agents' own logins: an OAuth token or API key each. */
	".claude/.credentials.json", ".codex/auth.json", ".gemini/oauth_creds.json",
	".config/github-copilot",
	/* Source forges and version control: git's XDG credential store (the
	 * twin of ~/.git-credentials), the GitLab CLI. */
	".config/git/credentials", ".config/glab-cli",
	/* Container registries: podman, buildah and skopeo's login outside
	 * $XDG_RUNTIME_DIR; Helm's OCI registry logins. */
	".config/containers/auth.json", ".config/helm/registry/config.json",
	/* Package repositories and build tools: server passwords (and Maven's
	 * master password), repository credentials. */
	".m2/settings.xml", ".m2/settings-security.xml", ".gradle/gradle.properties",
	".config/composer/auth.json", ".composer/auth.json", ".nuget/NuGet/NuGet.Config",
	".ivy2/.credentials", ".sbt/.credentials",
	/* Infrastructure and cloud CLIs: API tokens. */
	".terraformrc", ".pulumi/credentials.json", ".config/doctl", ".fly/config.yml",
	".config/hcloud", ".wrangler", ".config/.wrangler", ".config/stripe",
	".local/share/com.vercel.cli", ".supabase/access-token", ".config/ngrok",
	".ngrok2", ".config/configstore", ".config/rclone", ".s3cfg", ".boto",
	/* Model hubs and data tools. */
	".cache/huggingface/token", ".huggingface/token", ".dbt/profiles.yml",
	/* Secrets tooling and databases: age keys that decrypt sops files,
	 * MySQL's obfuscated login file. */
	".config/sops/age", ".mylogin.cnf",
	/* The desktop session: the X11 and ICE cookies let whoever reads them
	 * log keys and read the screen of the user's display; KDE's wallet. */
	".Xauthority", ".ICEauthority", ".local/share/kwalletd",
	/* More browsers and mail: cookies, saved passwords, sessions. */
	".config/BraveSoftware", ".config/microsoft-edge", ".config/vivaldi", ".config/opera",
	".thunderbird",
};

/* .git/hooks and .git/config are handled by the resolver, which follows a
 * .git file's gitdir: line; they are listed here so explain shows them. */
static const char *const protected_names[] = {
	".git/hooks", ".git/config", ".bashrc", ".bash_profile", ".zshrc", ".zprofile",
	".profile", ".envrc", ".gitconfig", ".mcp.json", ".npmrc", "porta.toml",
	".porta.toml", ".porta", ".porta.proposed", ".claude/commands", ".claude/agents",
	".claude/settings.json",
	".vscode", ".idea",
	/* Agents' project settings that start commands: Claude Code runs the
	 * hooks of settings.local.json as of settings.json; Cursor and Gemini
	 * CLI start the MCP servers their project files name. */
	".claude/settings.local.json", ".cursor/mcp.json", ".gemini/settings.json",
	/* Beyond the floor of docs/defaults.md: files that run code at the user's next login,
	 * shell or git command when the home itself is mounted writable
	 * (git's XDG config can set core.hooksPath or core.fsmonitor). */
	".config/git", ".bash_login", ".bash_logout", ".zshenv", ".zlogin", ".zlogout",
	".config/fish", ".config/autostart", ".config/systemd", ".config/environment.d",
	".pam_environment", ".xprofile", ".xsession", ".xinitrc",
	/* Debian's and Ubuntu's default ~/.bashrc sources ~/.bash_aliases and
	 * their Xsession sources ~/.xsessionrc; a desktop entry's Exec= runs
	 * when the user opens a file or the menu entry; ~/.profile puts
	 * ~/.local/bin first in PATH, so a `git` there shadows the real one. */
	".bash_aliases", ".xsessionrc", ".local/share/applications", ".local/bin",
};

static const char *const sockets[] = {
	"/ssh-[^/]+/agent\\.[0-9]+$",
	"/\\.ssh/agent[^/]*$",
	/* The plain "/\.gnupg/S\.gpg-agent[^/]*$" misses where GnuPG >= 2.1.13
	 * puts the agent under systemd: /run/user/UID/gnupg/S.gpg-agent, and
	 * /run/user/UID/gnupg/d.HASH/ for a non-default GNUPGHOME. */
	"/\\.?gnupg/(d\\.[^/]+/)?S\\.gpg-agent[^/]*$",
	"/docker\\.sock$",
	"/podman[^/]*\\.sock$",
	"/\\.(colima|orbstack|lima)/.*\\.sock$",
	/* Beyond the floor of docs/defaults.md.  The user's session bus and systemd manager run
	 * commands outside any sandbox (systemd-run --user, StartTransientUnit):
	 * reaching either is an escape.  Keyring, gcr and systemd's ssh-agent
	 * sockets hand out credentials; the display and sound servers expose the
	 * user's screen, clipboard, keyboard and microphone. */
	"/run/user/[0-9]+/(bus|systemd/[^/]+)$",
	"/(keyring/(control|ssh|pkcs11)|gcr/ssh|ssh-agent\\.socket)$",
	"/run/user/[0-9]+/(wayland-[0-9]+|pulse/native|pipewire-[0-9]+)$",
	/* Container, VM and package managers answer whoever can connect with
	 * root's powers (their group membership is root-equivalent); the system
	 * bus lets an active session's processes power off the machine or mount
	 * disks through polkit. */
	"/(containerd[^/]*|crio|buildkitd|libvirt-sock(-ro)?|snapd)(\\.sock(et)?)?$",
	"/((lxd|incus)/unix\\.socket|dbus/system_bus_socket)$",
};

/* Host sockets porta leaves reachable: they grant nothing beyond what the
 * sandbox has, and ordinary programs use them.  Every other pathname socket
 * outside the writable mounts is closed (host/resolve.c). */
static const struct policy_kept_socket kept_sockets[] = {
	{ "/run/systemd/journal/socket", "journald: programs' log messages", false },
	{ "/run/systemd/journal/stdout", "journald: services' output streams", false },
	{ "/run/systemd/journal/dev-log", "journald: syslog(3) messages", false },
	/* nscd answers host lookups too: with --no-net or a network policy
	 * it would resolve names porta's DNS refuses. */
	{ "/run/nscd/socket", "nscd: cached user, group and host lookups (open network only)",
	  true },
};

static const char *const strict_readable[] = {
	"/usr", "/lib", "/lib32", "/lib64", "/libx32", "/bin", "/sbin", "/tmp", "/dev", "/proc",
	"/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/localtime",
	"/etc/resolv.conf", "/etc/hosts", "/etc/nsswitch.conf", "/etc/passwd", "/etc/group",
	"/etc/services", "/etc/protocols", "/etc/ssl", "/etc/pki", "/etc/alternatives",
	"/etc/profile.d",
	/* git treats an unreadable system config as fatal (EACCES is not
	 * ENOENT); both files hold no secrets. */
	"/etc/gitconfig", "/etc/gitattributes",
};

static const char *const env_names[] = {
	"PATH", "HOME", "USER", "LOGNAME", "SHELL", "TERM", "COLORTERM", "LANG", "LANGUAGE", "TZ",
};

const char *const *policy_preset_credentials(size_t *n)
{
	*n = ARRAY_LEN(credentials);
	return credentials;
}

const char *const *policy_preset_protected(size_t *n)
{
	*n = ARRAY_LEN(protected_names);
	return protected_names;
}

const char *const *policy_preset_sockets(size_t *n)
{
	*n = ARRAY_LEN(sockets);
	return sockets;
}

const struct policy_kept_socket *policy_kept_sockets(size_t *n)
{
	*n = ARRAY_LEN(kept_sockets);
	return kept_sockets;
}

/* Appends dir (formatted) to out when it fits and is absolute. */
static void socket_dir(char (*out)[PATH_MAX], size_t cap, size_t *n, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void socket_dir(char (*out)[PATH_MAX], size_t cap, size_t *n, const char *fmt, ...)
{
	va_list ap;
	char buf[PATH_MAX];

	va_start(ap, fmt);
	int len = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (len <= 1 || (size_t)len >= sizeof(buf) || buf[0] != '/' || *n >= cap)
		return;
	for (size_t i = 0; i < *n; i++) {
		if (strcmp(out[i], buf) == 0)
			return;
	}
	memcpy(out[(*n)++], buf, (size_t)len + 1);
}

size_t policy_socket_dirs(unsigned uid, bool share_tmp, const char *xdg_runtime_dir,
			  const char *tmux_tmpdir, const char *screendir, char (*out)[PATH_MAX],
			  size_t cap)
{
	size_t n = 0;

	/* /run (and /var/run, its link): where the system's services bind
	 * theirs (docker.sock, the system bus, containerd, databases), again
	 * whenever they restart; closed whole, with the few files programs need
	 * from it (a resolv.conf that links there) and the kept sockets bound
	 * back. */
	socket_dir(out, cap, &n, "/run");
	/* The user's runtime directory (pam_systemd's /run/user/UID, or
	 * whatever $XDG_RUNTIME_DIR says): the session bus, systemd's user
	 * manager, Neovim, VS Code's IPC, Emacs' server, podman and PipeWire
	 * bind there. */
	socket_dir(out, cap, &n, "/run/user/%u", uid);
	if (xdg_runtime_dir && xdg_runtime_dir[0])
		socket_dir(out, cap, &n, "%s", xdg_runtime_dir);
	/* GNU screen's SOCKDIR on Debian and Ubuntu; $SCREENDIR overrides it. */
	socket_dir(out, cap, &n, "/run/screen");
	socket_dir(out, cap, &n, "/var/run/screen");
	if (screendir && screendir[0])
		socket_dir(out, cap, &n, "%s", screendir);
	if (tmux_tmpdir && tmux_tmpdir[0])
		socket_dir(out, cap, &n, "%s/tmux-%u", tmux_tmpdir, uid);
	if (share_tmp) {
		/* The private /tmp hides these; a shared one does not. */
		socket_dir(out, cap, &n, "/tmp/tmux-%u", uid);
		socket_dir(out, cap, &n, "/tmp/screens");
		socket_dir(out, cap, &n, "/tmp/.X11-unix");
		socket_dir(out, cap, &n, "/tmp/.ICE-unix");
		socket_dir(out, cap, &n, "/tmp/emacs%u", uid);
	}
	return n;
}

const char *const *policy_strict_readable(size_t *n)
{
	*n = ARRAY_LEN(strict_readable);
	return strict_readable;
}

bool policy_env_passes_by_default(const char *name, size_t n)
{
	if (n > 3 && memcmp(name, "LC_", 3) == 0)
		return true;
	for (size_t i = 0; i < ARRAY_LEN(env_names); i++) {
		if (strlen(env_names[i]) == n && memcmp(env_names[i], name, n) == 0)
			return true;
	}
	return false;
}

static const char *const profile_state[] = { ".claude", ".claude.json", ".codex" };

const char *const *policy_preset_profile_state(size_t *n)
{
	*n = sizeof(profile_state) / sizeof(profile_state[0]);
	return profile_state;
}

/* docs/defaults.md, "The home": each with its reason there.  Programs and
 * toolchains installed in the home, and configuration that holds no secret;
 * nothing that can (a ~/.config/git/config may rewrite URLs with a token in
 * them; shell start-up files commonly export tokens). */
static const struct policy_home_place home_visible[] = {
	{ ".local/bin", "programs installed for the user (pip --user, pipx, installers): on PATH" },
	{ ".local/lib", "the Python packages pip --user installs" },
	{ ".nvm", "Node.js versions nvm installs" },
	{ ".volta", "Node.js and its tools as Volta installs them" },
	{ ".cargo/bin", "rustup's proxies and the programs cargo install puts there" },
	{ ".rustup", "Rust toolchains rustup installs" },
	{ ".pyenv", "Python versions pyenv installs" },
	{ ".rbenv", "Ruby versions rbenv installs" },
	{ ".asdf", "toolchains asdf installs" },
	{ ".local/share/mise", "toolchains mise installs" },
	{ ".sdkman/candidates", "JDKs and JVM tools SDKMAN installs" },
	{ "go/bin", "the programs go install puts there" },
	{ ".bun/bin", "Bun" },
	{ ".deno/bin", "Deno" },
	{ ".config/git/ignore", "git's global ignore patterns" },
	{ ".config/git/attributes", "git's global attributes" },
	{ ".terminfo", "terminal descriptions" },
	{ ".inputrc", "readline's key bindings" },
};

const struct policy_home_place *policy_home_visible(size_t *n)
{
	*n = sizeof(home_visible) / sizeof(home_visible[0]);
	return home_visible;
}
