/* bench/landlock_floor.c: the price of Landlock itself on file-heavy work,
 * with no namespace, mount or seccomp filter.
 *
 *   landlock_floor [--porta-masks] [--no-log] [--optional-granted] [--layers N]
 *                  [--extra-rules N] [--seccomp] [--watch DIR]...
 *                  READ WRITE -- COMMAND...
 *
 * One ruleset: READ and everything beneath it readable, WRITE and everything
 * beneath it read-write; landlock_restrict_self() (N times with --layers N:
 * the same ruleset stacked); then COMMAND is executed.  By default the
 * ruleset handles the rights of Landlock's first ABI, the two rules need no
 * more; --porta-masks makes it handle every right porta's ruleset handles on
 * this kernel (policy_landlock_masks(): truncate, ioctl on devices, refer,
 * the scoped signals and abstract sockets), with porta's rights per rule,
 * and restricts with porta's flags (ABI 7: denials logged after exec);
 * --no-log leaves those flags out;
 * --optional-granted also grants, on both rules, the rights open(2) looks
 * up beyond the ones it needs (truncate, ioctl on devices), which a walk
 * up the path otherwise seeks all the way to the root;
 * --extra-rules N adds N more read rules on directories beside READ's
 * children (the covers' and /dev's rules in porta's ruleset are of that
 * kind).
 *
 * Two more mechanisms porta keeps, at their least:
 * --seccomp installs a one-instruction seccomp filter that allows every
 * syscall.  The kernel's action cache then skips running it, but every
 * syscall still takes seccomp's entry path (the arguments copied, the cache
 * consulted): what any filter costs, porta's included.
 * --watch DIR (repeatable) puts an inotify watch on DIR with the guard's
 * mask (supervisor/guard.c) and keeps it through the exec (the instance
 * is inherited, not close-on-exec).  Once a filesystem holds a mark, each
 * open, read and close on it goes through fsnotify's parent lookup.
 *
 * bench/overhead and bench/filecost time it beside porta and bench/floor:
 * the part of porta's file cost that is the kernel's own.
 */
#include <dirent.h>
#include <fcntl.h>
#include <linux/landlock.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/inotify.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/kernel.h"
#include "policy/landlock.h"

static int add(int ruleset, const char *path, uint64_t access)
{
	int fd = open(path, O_PATH | O_CLOEXEC);
	if (fd < 0)
		return -1;
	struct landlock_path_beneath_attr pb = { .allowed_access = access, .parent_fd = fd };
	long rc = syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &pb, 0);
	close(fd);
	return rc < 0 ? -1 : 0;
}

static int usage(void)
{
	fprintf(stderr, "usage: landlock_floor [--porta-masks] [--no-log] [--optional-granted] "
			"[--layers N] [--extra-rules N] [--seccomp] [--watch DIR]... "
			"READ WRITE -- COMMAND...\n");
	return 125;
}

int main(int argc, char *argv[])
{
	bool porta_masks = false, optional = false, log = true, seccomp = false;
	int watch = -1;
	int layers = 1, extra = 0, i = 1;

	for (; i < argc && strncmp(argv[i], "--", 2) == 0 && argv[i][2]; i++) {
		if (strcmp(argv[i], "--porta-masks") == 0)
			porta_masks = true;
		else if (strcmp(argv[i], "--seccomp") == 0)
			seccomp = true;
		else if (strcmp(argv[i], "--watch") == 0 && i + 1 < argc) {
			if (watch < 0 && (watch = inotify_init1(IN_NONBLOCK)) < 0) {
				perror("landlock_floor: inotify");
				return 125;
			}
			if (inotify_add_watch(watch, argv[++i], IN_CREATE | IN_MOVED_TO | IN_ONLYDIR) < 0) {
				perror("landlock_floor: --watch");
				return 125;
			}
		} else if (strcmp(argv[i], "--no-log") == 0)
			log = false;
		else if (strcmp(argv[i], "--optional-granted") == 0)
			optional = true;
		else if (strcmp(argv[i], "--layers") == 0 && i + 1 < argc)
			layers = atoi(argv[++i]);
		else if (strcmp(argv[i], "--extra-rules") == 0 && i + 1 < argc)
			extra = atoi(argv[++i]);
		else
			return usage();
	}
	if (argc - i < 4 || strcmp(argv[i + 2], "--") != 0 || layers < 1)
		return usage();
	const char *read_dir = argv[i], *write_dir = argv[i + 1];
	char **cmd = argv + i + 3;

	long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
	if (abi < 1) {
		fprintf(stderr, "landlock_floor: no Landlock here\n");
		return 125;
	}
	struct policy_landlock_masks m;
	policy_landlock_masks(porta_masks ? (int)abi : 1, &m);
	struct kernel_landlock_ruleset_attr attr = { .handled_access_fs = m.handled_fs,
						     .scoped = porta_masks ? m.scoped : 0 };
	size_t size = porta_masks && abi >= 6 ? sizeof(attr)
					       : offsetof(struct kernel_landlock_ruleset_attr,
							  handled_access_net);
	uint64_t opt = optional ? m.handled_fs & (LANDLOCK_ACCESS_FS_TRUNCATE |
						  LANDLOCK_ACCESS_FS_IOCTL_DEV) : 0;
	int rs = (int)syscall(SYS_landlock_create_ruleset, &attr, size, 0);
	if (rs < 0 || add(rs, read_dir, m.read | opt) < 0 || add(rs, write_dir, m.write | opt) < 0) {
		perror("landlock_floor: ruleset");
		return 125;
	}
	/* more read rules, on directories near the top of READ */
	DIR *d = extra ? opendir(read_dir) : NULL;
	for (struct dirent *e; d && extra > 0 && (e = readdir(d));) {
		char p[4096];
		if (e->d_type != DT_DIR || e->d_name[0] == '.')
			continue;
		snprintf(p, sizeof(p), "%s/%s", strcmp(read_dir, "/") ? read_dir : "", e->d_name);
		if (add(rs, p, m.read) == 0)
			extra--;
	}
	if (d)
		closedir(d);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) {
		perror("landlock_floor: no_new_privs");
		return 125;
	}
	uint32_t flags = porta_masks && log ? m.restrict_flags : 0;
	for (int k = 0; k < layers; k++) {
		if (syscall(SYS_landlock_restrict_self, rs, flags) < 0) {
			perror("landlock_floor: restrict_self");
			return 125;
		}
	}
	close(rs);
	struct sock_filter allow = BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	struct sock_fprog prog = { .len = 1, .filter = &allow };
	if (seccomp && syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) < 0) {
		perror("landlock_floor: seccomp");
		return 125;
	}
	execvp(cmd[0], cmd);
	perror("landlock_floor: exec");
	return 127;
}
