/* policy/landlock.h: Landlock access masks per ABI version (pure).
 *
 * ARCHITECTURE: the kernel refuses a ruleset that names rights it does not
 * know, so every mask is cut to what the running ABI handles
 * (Documentation/userspace-api/landlock.rst, "Backward and forward
 * compatibility").  sandbox/landlock.c asks for the ABI and applies these.
 */
#ifndef PORTA_POLICY_LANDLOCK_H
#define PORTA_POLICY_LANDLOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct policy_landlock_masks {
	int abi;
	uint64_t handled_fs;  /* every filesystem right the ABI knows */
	uint64_t handled_net; /* 0: porta does not restrict TCP through Landlock here */
	uint64_t scoped;      /* abstract Unix sockets and signals (ABI 6) */
	uint32_t restrict_flags; /* landlock_restrict_self() flags (ABI 7 logging) */
	uint64_t read;        /* POLICY_GRANT_READ */
	uint64_t write;       /* POLICY_GRANT_WRITE (includes read) */
	uint64_t dev;         /* POLICY_GRANT_DEV */
	uint64_t file_only;   /* the rights that may be granted on a non-directory */
};

/* Fills *out for Landlock ABI version abi (>= 1).  Pure. */
void policy_landlock_masks(int abi, struct policy_landlock_masks *out);

/* The Landlock rights for a grant (enum policy_grant bits) on a directory or
 * a file, within masks.  Pure. */
uint64_t policy_landlock_access(const struct policy_landlock_masks *m, unsigned grant,
				bool is_dir);

/* What a kernel with Landlock ABI abi cannot restrict that ABI 7 can, one
 * sentence per missing feature, for the user to read before the run: writes
 * up to cap of them into out[] and returns how many there are.  Pure. */
size_t policy_landlock_missing(int abi, const char **out, size_t cap);

#endif /* PORTA_POLICY_LANDLOCK_H */
