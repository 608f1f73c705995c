/* policy/landlock.c: see landlock.h. */
#include "policy/landlock.h"

#include <string.h>

#include "common/kernel.h"
#include "policy/plan.h"

void policy_landlock_masks(int abi, struct policy_landlock_masks *out)
{
	memset(out, 0, sizeof(*out));
	out->abi = abi;
	if (abi < 1)
		return;
	uint64_t fs = LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE |
		      LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR |
		      LANDLOCK_ACCESS_FS_REMOVE_DIR | LANDLOCK_ACCESS_FS_REMOVE_FILE |
		      LANDLOCK_ACCESS_FS_MAKE_CHAR | LANDLOCK_ACCESS_FS_MAKE_DIR |
		      LANDLOCK_ACCESS_FS_MAKE_REG | LANDLOCK_ACCESS_FS_MAKE_SOCK |
		      LANDLOCK_ACCESS_FS_MAKE_FIFO | LANDLOCK_ACCESS_FS_MAKE_BLOCK |
		      LANDLOCK_ACCESS_FS_MAKE_SYM;
	if (abi >= 2)
		fs |= LANDLOCK_ACCESS_FS_REFER; /* else cross-directory renames are always EXDEV */
	if (abi >= 3)
		fs |= LANDLOCK_ACCESS_FS_TRUNCATE;
	if (abi >= 5)
		fs |= LANDLOCK_ACCESS_FS_IOCTL_DEV;
	out->handled_fs = fs;
	if (abi >= 6)
		out->scoped = LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET | LANDLOCK_SCOPE_SIGNAL;
	/* Log denials of the command after execve: the default (ABI 7) logs
	 * only until the next exec, which for porta is never the command. */
	if (abi >= 7)
		out->restrict_flags = LANDLOCK_RESTRICT_SELF_LOG_NEW_EXEC_ON;

	out->read = fs & (LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_READ_FILE |
			  LANDLOCK_ACCESS_FS_READ_DIR);
	out->write = fs;
	out->dev = fs & (LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_WRITE_FILE |
			 LANDLOCK_ACCESS_FS_READ_DIR | LANDLOCK_ACCESS_FS_TRUNCATE |
			 LANDLOCK_ACCESS_FS_IOCTL_DEV);
	/* security/landlock/fs.c: ACCESS_FILE, the rights meaningful on a file. */
	out->file_only = fs & (LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE |
			       LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_TRUNCATE |
			       LANDLOCK_ACCESS_FS_IOCTL_DEV);
}

uint64_t policy_landlock_access(const struct policy_landlock_masks *m, unsigned grant,
				bool is_dir)
{
	uint64_t a = 0;

	if (grant & POLICY_GRANT_READ)
		a |= m->read;
	if (grant & POLICY_GRANT_WRITE)
		a |= m->write;
	if (grant & POLICY_GRANT_DEV)
		a |= m->dev;
	if (grant & POLICY_GRANT_LIST)
		a |= m->read & LANDLOCK_ACCESS_FS_READ_DIR;
	if (!is_dir)
		a &= m->file_only;
	return a;
}

size_t policy_landlock_missing(int abi, const char **out, size_t cap)
{
	static const struct {
		int since;
		const char *what;
	} features[] = {
		{ 2, "Landlock ABI < 2: files cannot be renamed or linked between directories "
		     "(EXDEV), even inside a mount" },
		{ 3, "Landlock ABI < 3: truncate(2) is not restricted outside the mounts" },
		{ 5, "Landlock ABI < 5: ioctl(2) on device files is not restricted" },
		{ 6, "Landlock ABI < 6: in open network mode the host's abstract Unix sockets "
		     "stay reachable, and signals are confined only by the PID namespace" },
		{ 7, "Landlock ABI < 7: the kernel's audit log does not record the command's "
		     "Landlock denials" },
	};
	size_t n = 0;

	for (size_t i = 0; i < sizeof(features) / sizeof(features[0]); i++) {
		if (abi >= features[i].since)
			continue;
		if (n < cap)
			out[n] = features[i].what;
		n++;
	}
	return n;
}
