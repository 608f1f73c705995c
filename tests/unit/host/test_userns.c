/* tests/unit/host/test_userns.c: `porta check`'s advice for a host that
 * refuses the full sandbox (host_userns_advice(), pure): each cause named,
 * the way to the full sandbox where there is one, and never advice that
 * does not fit the host (an AppArmor profile where AppArmor's restriction
 * is off, a container's flags outside a container with nothing pointing at
 * one). */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "host/host.h"

struct said {
	char text[8192];
	size_t n;
};

static void collect(const char *line, void *arg)
{
	struct said *s = arg;
	size_t len = strlen(s->text);

	snprintf(s->text + len, sizeof(s->text) - len, "%s\n", line);
	s->n++;
}

static struct host_userns_facts facts(enum host_userns_mode mode, const char *step, int err)
{
	struct host_userns_facts f = { .apparmor_restrict = -1, .unprivileged_userns_clone = -1,
				       .max_user_namespaces = 10000, .seccomp = 0 };

	f.ns.mode = mode;
	f.ns.err = err;
	snprintf(f.ns.step, sizeof(f.ns.step), "%s", step);
	return f;
}

static struct said advise(const struct host_userns_facts *f)
{
	struct said s = { .n = 0 };
	size_t n = host_userns_advice(f, "/opt/p/share/porta/apparmor/porta", collect, &s);

	cr_assert_eq(n, s.n);
	return s;
}

Test(userns_advice, full_sandbox_needs_none)
{
	struct host_userns_facts f = facts(HOST_USERNS_FULL, "", 0);
	struct said s = advise(&f);

	cr_assert_eq(s.n, 0);
}

Test(userns_advice, ubuntu_restriction_gives_the_apparmor_profile)
{
	struct host_userns_facts f = facts(HOST_USERNS_NO_CAPS, "write /proc/self/uid_map", EPERM);
	f.apparmor_restrict = 1;
	struct said s = advise(&f);

	cr_assert(strstr(s.text, "write /proc/self/uid_map: Operation not permitted"), "%s", s.text);
	cr_assert(strstr(s.text, "kernel.apparmor_restrict_unprivileged_userns=1"), "%s", s.text);
	cr_assert(strstr(s.text, "sudo install -m 0644 /opt/p/share/porta/apparmor/porta "
				 "/etc/apparmor.d/porta && sudo apparmor_parser -r "
				 "/etc/apparmor.d/porta"),
		  "%s", s.text);
	cr_assert(strstr(s.text, "porta chooses the degraded mode by itself"), "%s", s.text);
	cr_assert_null(strstr(s.text, "--security-opt"), "%s", s.text);
}

Test(userns_advice, no_apparmor_profile_where_the_restriction_is_off)
{
	struct host_userns_facts f = facts(HOST_USERNS_NO_CAPS, "make / private", EPERM);
	f.apparmor_restrict = 0;
	struct said s = advise(&f);

	cr_assert_null(strstr(s.text, "apparmor_parser"), "%s", s.text);
	cr_assert_null(strstr(s.text, "--security-opt"), "%s", s.text);
	cr_assert(strstr(s.text, "make / private: Operation not permitted"), "%s", s.text);
	cr_assert(strstr(s.text, "porta chooses the degraded mode by itself"), "%s", s.text);
}

Test(userns_advice, seccomp_filter_named_with_the_container_flags)
{
	struct host_userns_facts f = facts(HOST_USERNS_NO_CAPS, "make / private", EPERM);
	f.seccomp = 2;
	struct said s = advise(&f);

	cr_assert(strstr(s.text, "Seccomp: 2"), "%s", s.text);
	cr_assert(strstr(s.text, "--security-opt seccomp=unconfined"), "%s", s.text);
}

Test(userns_advice, masked_proc_in_a_podman_container)
{
	struct host_userns_facts f = facts(HOST_USERNS_NO_CAPS, "mount /proc", EPERM);
	f.seccomp = 2;
	f.container = "Podman";
	struct said s = advise(&f);

	cr_assert(strstr(s.text, "a fresh /proc cannot be mounted"), "%s", s.text);
	cr_assert(strstr(s.text, "in a container (Podman)"), "%s", s.text);
	cr_assert(strstr(s.text, "--security-opt unmask=ALL"), "%s", s.text);
	/* the filter is not what refused the proc mount */
	cr_assert_null(strstr(s.text, "Seccomp: 2"), "%s", s.text);
}

Test(userns_advice, refused_outright_by_docker_profile)
{
	struct host_userns_facts f = facts(HOST_USERNS_REFUSED, "unshare", EPERM);
	f.seccomp = 2;
	f.container = "Docker";
	struct said s = advise(&f);

	cr_assert(strstr(s.text, "refuses to make a user namespace (Operation not permitted)"),
		  "%s", s.text);
	cr_assert(strstr(s.text, "Docker's default profile refuses CLONE_NEWUSER"), "%s", s.text);
	cr_assert(strstr(s.text, "in a container (Docker)"), "%s", s.text);
}

Test(userns_advice, refused_by_sysctls)
{
	struct host_userns_facts f = facts(HOST_USERNS_REFUSED, "unshare", ENOSPC);
	f.max_user_namespaces = 0;
	f.unprivileged_userns_clone = 0;
	struct said s = advise(&f);

	cr_assert(strstr(s.text, "user.max_user_namespaces is 0"), "%s", s.text);
	cr_assert(strstr(s.text, "kernel.unprivileged_userns_clone is 0"), "%s", s.text);
	cr_assert_null(strstr(s.text, "--security-opt"), "%s", s.text);
}
