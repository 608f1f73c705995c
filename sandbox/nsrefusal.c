/* sandbox/nsrefusal.c: see control.h, sandbox_ctl_ns_refused(). */
#include <errno.h>
#include <string.h>

#include "sandbox/control.h"

bool sandbox_ctl_ns_refused(const struct porta_error *e)
{
	/* The steps init takes before anything of the plan that names a
	 * user's path: each needs a capability inside the new user
	 * namespace, or (/proc) a host whose own /proc is fully visible. */
	static const char *const id_maps[] = { "/proc/self/setgroups", "/proc/self/uid_map",
					       "/proc/self/gid_map" };
	static const char *const steps[] = { "make / private", "mount /proc",
					     "mount private tmpfs on" };

	/* AppArmor's refusal of a capability is EPERM (aa_capable()); a
	 * /proc with masked parts refuses a new proc mount with EPERM too
	 * (mount_too_revealing(), fs/namespace.c). */
	if (e->err != EPERM && e->err != EACCES)
		return false;
	if (strcmp(e->step, "write") == 0) {
		for (size_t i = 0; i < sizeof(id_maps) / sizeof(id_maps[0]); i++)
			if (strcmp(e->path, id_maps[i]) == 0)
				return true;
		return false;
	}
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++)
		if (strcmp(e->step, steps[i]) == 0)
			return true;
	return false;
}
