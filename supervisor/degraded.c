/* supervisor/degraded.c: see degraded.h. */
#include "supervisor/degraded.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/log.h"
#include "policy/degrade.h"
#include "host/cgroup.h"
#include "host/host.h"
#include "sandbox/landlock.h"
#include "sandbox/sandbox.h"

static void note_line(const char *line, void *arg)
{
	policy_plan_add_note(arg, "degraded host: %s", line);
}

bool supervisor_degraded_explain(struct policy_plan *plan)
{
	char why[1024], cause[200];
	struct host_userns ns;

	host_userns_probe(&ns);
	if (ns.mode == HOST_USERNS_FULL)
		return false;
	if (ns.mode == HOST_USERNS_NO_CAPS)
		snprintf(cause, sizeof(cause), "%s: %s", ns.step, strerror(ns.err));
	bool procs_in_cgroup = host_cg_needed(plan->opts) & (1u << HOST_CG_PIDS);
	if (policy_degrade_refusal(plan, procs_in_cgroup, why, sizeof(why))) {
		policy_plan_add_note(plan, "run would refuse this: user namespaces are refused "
					   "here, and %s", why);
		return true;
	}
	policy_degrade_losses(plan, plan->opts->share_tmp ? NULL : "/tmp/porta-XXXXXX",
			      ns.mode == HOST_USERNS_NO_CAPS ? cause : NULL, note_line, plan);
	return true;
}

bool supervisor_degraded_errno(int err)
{
	return err == EPERM || err == EACCES || err == ENOSPC || err == EINVAL || err == EUSERS;
}

/* The lister policy_degrade_rules() walks the host with. */
static int list_dir(void *arg, const char *dir, void (*each)(void *ctx, const struct policy_dirent *e),
		    void *ctx)
{
	(void)arg;
	DIR *d = opendir(dir);
	if (!d)
		return -errno;
	struct dirent *de;
	while ((errno = 0, de = readdir(d))) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		struct policy_dirent e = { .name = de->d_name };
		unsigned char type = de->d_type;
		if (type == DT_UNKNOWN) {
			struct stat st;
			if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
				continue;
			type = S_ISDIR(st.st_mode) ? DT_DIR : S_ISLNK(st.st_mode) ? DT_LNK : DT_REG;
		}
		e.is_dir = type == DT_DIR;
		e.is_symlink = type == DT_LNK;
		each(ctx, &e);
	}
	int err = errno;
	closedir(d);
	return -err;
}

static void warn_line(const char *line, void *arg)
{
	(void)arg;
	log_msg(LOG_LEVEL_WARN, "%s", line);
}

/* plan->envp with TMPDIR replaced by tmpdir (NULL: as it is). */
static char **env_with_tmpdir(char *const envp[], const char *tmpdir)
{
	size_t n = 0;
	while (envp[n])
		n++;
	char **v = calloc(n + 2, sizeof(char *));
	if (!v)
		return NULL;
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		if (tmpdir && strncmp(envp[i], "TMPDIR=", 7) == 0)
			continue;
		if (!(v[k++] = strdup(envp[i])))
			goto fail;
	}
	if (tmpdir && asprintf(&v[k++], "TMPDIR=%s", tmpdir) < 0) {
		v[k - 1] = NULL;
		goto fail;
	}
	return v;
fail:
	for (size_t i = 0; v[i]; i++)
		free(v[i]);
	free(v);
	return NULL;
}

int supervisor_degraded_prepare(const struct policy_plan *plan, struct supervisor_net *net,
			     const struct porta_error *no_caps,
			     struct sandbox_net_ports *ports, struct supervisor_degraded *d,
			     int *ruleset_fd, struct policy_landlock_masks *m,
			     struct porta_error *e)
{
	const struct policy_options *o = plan->opts;
	char why[1024];
	struct policy_rule *rules = NULL;
	size_t n_rules = 0;
	int rc;

	memset(d, 0, sizeof(*d));
	bool procs_in_cgroup = host_cg_needed(o) & (1u << HOST_CG_PIDS);
	if (policy_degrade_refusal(plan, procs_in_cgroup, why, sizeof(why)))
		return porta_fail(e, "user namespaces refused", NULL, 0, "%s", why);
	if (o->net_mode == POLICY_NET_POLICY && (rc = supervisor_net_listen_local(net, ports, e)))
		return rc;
	if (!o->share_tmp) {
		char tmpl[] = "/tmp/porta-XXXXXX";
		if (!mkdtemp(tmpl))
			return porta_fail(e, "private TMPDIR", "/tmp", errno, NULL);
		if (!(d->tmpdir = strdup(tmpl))) {
			rmdir(tmpl);
			return porta_fail(e, "private TMPDIR", NULL, ENOMEM, NULL);
		}
	}
	if (!(d->envp = env_with_tmpdir(plan->envp, d->tmpdir))) {
		rc = porta_fail(e, "environment", NULL, ENOMEM, NULL);
		goto fail;
	}
	if ((rc = policy_degrade_rules(plan, d->tmpdir, list_dir, NULL, &rules, &n_rules))) {
		rc = porta_fail(e, "Landlock rules without a mount namespace", NULL, -rc, NULL);
		goto fail;
	}
	uint16_t proxy_ports[2] = { ports ? ports->http : 0, ports ? ports->socks : 0 };
	rc = sandbox_landlock_prepare_rules(rules, n_rules, o->net_mode != POLICY_NET_OPEN,
					    proxy_ports, o->net_mode == POLICY_NET_POLICY ? 2 : 0,
					    ruleset_fd, m, e);
	policy_degrade_rules_free(rules, n_rules);
	if (rc)
		goto fail;
	char cause[700];
	if (no_caps)
		porta_error_format(no_caps, cause, sizeof(cause));
	policy_degrade_losses(plan, d->tmpdir, no_caps ? cause : NULL, warn_line, NULL);
	/* What depends on who runs porta, and on the seccomp filters above. */
	log_msg(LOG_LEVEL_WARN, "no IPC namespace: System V IPC and POSIX message queues are "
				"refused; the host's namespaces can be opened under /proc (setns "
				"stays refused)");
	if (sandbox_euid_is_host_root())
		log_msg(LOG_LEVEL_WARN, "as root without a mount namespace, changing a file's mode, "
					"owner, times or extended attributes is refused everywhere, "
					"the mounts included");
	else
		log_msg(LOG_LEVEL_WARN, "the mode, times and extended attributes of your own files "
					"outside the mounts can be changed (Landlock does not mediate "
					"them)");
	return 0;
fail:
	supervisor_degraded_cleanup(d);
	return rc;
}

/* Sends SIGKILL to every child of porta (every thread's children); returns
 * how many there were. */
static size_t kill_children(void)
{
	DIR *tasks = opendir("/proc/self/task");
	size_t n = 0;

	if (!tasks)
		return 0;
	struct dirent *t;
	while ((t = readdir(tasks))) {
		char path[300], buf[4096];
		if (t->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/children", t->d_name);
		_cleanup_fd_ int fd = open(path, O_RDONLY | O_CLOEXEC);
		ssize_t len;
		while (fd >= 0 && (len = read(fd, buf, sizeof(buf) - 1)) > 0) {
			buf[len] = '\0';
			/* A pid split across two reads is only missed once: the
			 * caller comes back while children remain. */
			char *save = NULL;
			for (char *tok = strtok_r(buf, " \n", &save); tok;
			     tok = strtok_r(NULL, " \n", &save)) {
				pid_t pid = (pid_t)strtol(tok, NULL, 10);
				if (pid > 0 && kill(pid, SIGKILL) == 0)
					n++;
			}
		}
	}
	closedir(tasks);
	return n;
}

void supervisor_degraded_sweep(void)
{
	for (;;) {
		kill_children();
		/* Blocks until one child (killed above, or re-parented since)
		 * is reaped; ECHILD when none is left. */
		if (waitpid(-1, NULL, __WALL) < 0 && errno == ECHILD)
			return;
	}
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (flag == FTW_DP || flag == FTW_D)
		rmdir(path);
	else
		unlink(path);
	return 0;
}

void supervisor_degraded_cleanup(struct supervisor_degraded *d)
{
	if (d->tmpdir) {
		/* FTW_PHYS: a symlink the command left is removed, never followed. */
		if (nftw(d->tmpdir, remove_entry, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT) < 0 ||
		    access(d->tmpdir, F_OK) == 0)
			log_msg(LOG_LEVEL_WARN, "could not remove the private TMPDIR %s entirely",
				d->tmpdir);
		free(d->tmpdir);
		d->tmpdir = NULL;
	}
	if (d->envp) {
		for (size_t i = 0; d->envp[i]; i++)
			free(d->envp[i]);
		free(d->envp);
		d->envp = NULL;
	}
}
