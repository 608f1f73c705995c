/* policy/preset.c: see preset.h.  The lists are reference/defaults.md's. */
#include "policy/preset.h"

#include <string.h>

#include "common/cleanup.h"

static const char *const credentials[] = {
	".ssh", ".gnupg", ".password-store", ".aws", ".azure", ".config/gcloud", ".oci",
	".config/gh", ".config/hub", ".git-credentials", ".netrc", ".npmrc", ".yarnrc.yml",
	".pypirc", ".gem/credentials", ".cargo/credentials", ".cargo/credentials.toml",
	".docker", ".kube", ".terraform.d", ".vault-token", ".pgpass", ".my.cnf",
	".local/share/keyrings", ".config/op", ".config/google-chrome", ".config/chromium",
	".mozilla",
};

/* .git/hooks and .git/config are handled by the resolver, which follows a
 * .git file's gitdir: line; they are listed here so explain shows them. */
static const char *const protected_names[] = {
	".git/hooks", ".git/config", ".bashrc", ".bash_profile", ".zshrc", ".zprofile",
	".profile", ".envrc", ".gitconfig", ".mcp.json", ".npmrc", "porta.toml",
	".porta.toml", ".claude/commands", ".claude/agents", ".claude/settings.json",
	".vscode", ".idea",
	/* Beyond defaults.md: files that run code at the user's next login,
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
	/* defaults.md's "/\.gnupg/S\.gpg-agent[^/]*$" misses where GnuPG >= 2.1.13
	 * puts the agent under systemd: /run/user/UID/gnupg/S.gpg-agent, and
	 * /run/user/UID/gnupg/d.HASH/ for a non-default GNUPGHOME. */
	"/\\.?gnupg/(d\\.[^/]+/)?S\\.gpg-agent[^/]*$",
	"/docker\\.sock$",
	"/podman[^/]*\\.sock$",
	"/\\.(colima|orbstack|lima)/.*\\.sock$",
	/* Beyond defaults.md.  The user's session bus and systemd manager run
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
