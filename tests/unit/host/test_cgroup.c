/* tests/unit/host/test_cgroup.c: the pure half of host/cgroup.h —
 * mountinfo and /proc/self/cgroup lines, the cgroup directory of a path,
 * controller lists, event counters, and where the cgroup goes (v2, v1, or a
 * refusal that says why).
 */
#include <criterion/criterion.h>
#include <string.h>

#include "host/cgroup.h"

static enum host_cg_mount_kind mi(const char *line, struct host_cg_mount *m)
{
	return host_cg_parse_mountinfo(line, strlen(line), m);
}

/* ---- mountinfo ---- */

Test(cgroup_mountinfo, v1_memory)
{
	struct host_cg_mount m;
	cr_assert_eq(mi("35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory", &m),
		     HOST_CG_MOUNT_V1);
	cr_assert_str_eq(m.dir, "/sys/fs/cgroup/memory");
	cr_assert_str_eq(m.root, "/");
	cr_assert(m.has[HOST_CG_MEMORY]);
	cr_assert_not(m.has[HOST_CG_PIDS]);
}

Test(cgroup_mountinfo, v1_co_mounted_with_optional_fields)
{
	struct host_cg_mount m;
	cr_assert_eq(mi("40 31 0:37 /docker/abc /sys/fs/cgroup/x rw,nosuid shared:7 master:2 - cgroup "
			"cgroup rw,cpu,pids,memory,name=foo",
			&m),
		     HOST_CG_MOUNT_V1);
	cr_assert_str_eq(m.root, "/docker/abc");
	cr_assert(m.has[HOST_CG_MEMORY]);
	cr_assert(m.has[HOST_CG_PIDS]);
}

Test(cgroup_mountinfo, v1_named_hierarchy_has_no_controller)
{
	struct host_cg_mount m;
	cr_assert_eq(mi("40 31 0:37 / /sys/fs/cgroup/systemd rw - cgroup cgroup rw,name=systemd", &m),
		     HOST_CG_MOUNT_V1);
	cr_assert_not(m.has[HOST_CG_MEMORY]);
	cr_assert_not(m.has[HOST_CG_PIDS]);
}

Test(cgroup_mountinfo, controller_names_match_whole_words)
{
	struct host_cg_mount m;
	cr_assert_eq(mi("40 31 0:37 / /c rw - cgroup cgroup rw,memoryx,xpids,pid", &m),
		     HOST_CG_MOUNT_V1);
	cr_assert_not(m.has[HOST_CG_MEMORY]);
	cr_assert_not(m.has[HOST_CG_PIDS]);
}

Test(cgroup_mountinfo, v2_with_escaped_space)
{
	struct host_cg_mount m;
	cr_assert_eq(mi("41 31 0:38 / /mnt/my\\040cg rw,relatime shared:9 - cgroup2 cgroup2 rw,nsdelegate",
			&m),
		     HOST_CG_MOUNT_V2);
	cr_assert_str_eq(m.dir, "/mnt/my cg");
	cr_assert_str_eq(m.root, "/");
}

Test(cgroup_mountinfo, other_file_systems)
{
	struct host_cg_mount m;
	cr_assert_eq(mi("31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755", &m),
		     HOST_CG_MOUNT_OTHER);
	/* the type is a field of its own, not a prefix */
	cr_assert_eq(mi("31 23 0:28 / /x rw - cgroup2fs none rw", &m), HOST_CG_MOUNT_OTHER);
}

Test(cgroup_mountinfo, malformed)
{
	static const char *const bad[] = {
		"",
		"35 31 0:32 / /sys/fs/cgroup/memory rw,relatime cgroup cgroup rw,memory", /* no "-" */
		"35 31 0:32 / /sys/fs/cgroup/memory rw -",                               /* nothing after */
		"35 31 0:32 / /sys/fs/cgroup/memory rw - cgroup",                        /* no source */
		"35 31",                                                                  /* short */
		"35 31 0:32 / relative rw - cgroup2 cgroup2 rw",                          /* not absolute */
		"35 31 0:32 / /a\\04 rw - cgroup2 cgroup2 rw",                            /* cut escape */
		"35 31 0:32 / /a\\09x rw - cgroup2 cgroup2 rw",                           /* not octal */
		"35 31 0:32 / /a\\000 rw - cgroup2 cgroup2 rw",                           /* NUL byte */
	};
	struct host_cg_mount m;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		cr_assert_eq(mi(bad[i], &m), HOST_CG_MOUNT_MALFORMED, "line %zu: %s", i, bad[i]);
	/* an embedded NUL in the buffer */
	cr_assert_eq(host_cg_parse_mountinfo("1 2 0:1 / /a\0 rw - cgroup2 c rw", 30, &m),
		     HOST_CG_MOUNT_MALFORMED);
}

Test(cgroup_mountinfo, truncation_never_gives_a_different_mount)
{
	const char *line = "35 31 0:32 /a /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory";
	struct host_cg_mount m;
	size_t n = strlen(line);
	/* every prefix is malformed, or (cutting only the super-options) a
	 * v1 mount that names fewer controllers, never another mount */
	for (size_t k = 0; k < n; k++) {
		enum host_cg_mount_kind kind = host_cg_parse_mountinfo(line, k, &m);
		if (kind == HOST_CG_MOUNT_V1) {
			cr_assert_str_eq(m.dir, "/sys/fs/cgroup/memory");
			cr_assert_str_eq(m.root, "/a");
			cr_assert_not(m.has[HOST_CG_MEMORY], "prefix %zu", k);
		} else {
			cr_assert(kind == HOST_CG_MOUNT_MALFORMED || kind == HOST_CG_MOUNT_OTHER,
				  "prefix %zu", k);
		}
	}
}

/* ---- /proc/self/cgroup ---- */

static enum host_cg_member_kind mem(const char *line, struct host_cg_member *m)
{
	return host_cg_parse_member(line, strlen(line), m);
}

Test(cgroup_member, v2_and_v1)
{
	struct host_cg_member m;
	cr_assert_eq(mem("0::/user.slice/session-2.scope", &m), HOST_CG_MEMBER_V2);
	cr_assert_str_eq(m.path, "/user.slice/session-2.scope");
	cr_assert_eq(mem("4:memory:/process_api/395f", &m), HOST_CG_MEMBER_V1);
	cr_assert(m.has[HOST_CG_MEMORY]);
	cr_assert_not(m.has[HOST_CG_PIDS]);
	cr_assert_str_eq(m.path, "/process_api/395f");
	cr_assert_eq(mem("7:cpu,pids,memory:/", &m), HOST_CG_MEMBER_V1);
	cr_assert(m.has[HOST_CG_MEMORY] && m.has[HOST_CG_PIDS]);
	cr_assert_eq(mem("9:name=systemd:/", &m), HOST_CG_MEMBER_V1);
	cr_assert_not(m.has[HOST_CG_MEMORY] || m.has[HOST_CG_PIDS]);
}

Test(cgroup_member, path_may_hold_colons)
{
	struct host_cg_member m;
	cr_assert_eq(mem("0::/a:b:c", &m), HOST_CG_MEMBER_V2);
	cr_assert_str_eq(m.path, "/a:b:c");
}

Test(cgroup_member, malformed)
{
	static const char *const bad[] = {
		"", "0:", "0::", "::/a", "x::/a", "0::relative", "4::/a" /* v1 without controllers */,
		"0:memory:/a" /* hierarchy 0 is v2's, without a list */, "4:memory", "12a:pids:/",
	};
	struct host_cg_member m;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		cr_assert_eq(mem(bad[i], &m), HOST_CG_MEMBER_MALFORMED, "line %zu: %s", i, bad[i]);
}

/* ---- the directory of a cgroup ---- */

Test(cgroup_dir, joins_mount_and_path)
{
	char out[256];
	cr_assert(host_cg_dir("/sys/fs/cgroup/memory", "/", "/process_api/x", out, sizeof(out)));
	cr_assert_str_eq(out, "/sys/fs/cgroup/memory/process_api/x");
	cr_assert(host_cg_dir("/sys/fs/cgroup/pids", "/", "/", out, sizeof(out)));
	cr_assert_str_eq(out, "/sys/fs/cgroup/pids");
	cr_assert(host_cg_dir("/sys/fs/cgroup/unified/", "/", "/", out, sizeof(out)));
	cr_assert_str_eq(out, "/sys/fs/cgroup/unified");
}

Test(cgroup_dir, strips_the_mount_root)
{
	char out[256];
	/* a container that sees its own sub-tree of the hierarchy */
	cr_assert(host_cg_dir("/sys/fs/cgroup", "/docker/abc", "/docker/abc/inner", out, sizeof(out)));
	cr_assert_str_eq(out, "/sys/fs/cgroup/inner");
	cr_assert(host_cg_dir("/sys/fs/cgroup", "/docker/abc", "/docker/abc", out, sizeof(out)));
	cr_assert_str_eq(out, "/sys/fs/cgroup");
}

Test(cgroup_dir, refuses_paths_outside_the_mount)
{
	char out[256];
	cr_assert_not(host_cg_dir("/sys/fs/cgroup", "/docker/abc", "/docker/abcd", out, sizeof(out)));
	cr_assert_not(host_cg_dir("/sys/fs/cgroup", "/docker/abc", "/", out, sizeof(out)));
	cr_assert_not(host_cg_dir("/sys/fs/cgroup", "/", "/../../x", out, sizeof(out)));
	cr_assert_not(host_cg_dir("/sys/fs/cgroup", "/", "/a/..", out, sizeof(out)));
	cr_assert_not(host_cg_dir("/sys/fs/cgroup", "/", "relative", out, sizeof(out)));
	/* ".." only as a whole component */
	cr_assert(host_cg_dir("/c", "/", "/a..b/..c", out, sizeof(out)));
	cr_assert_str_eq(out, "/c/a..b/..c");
}

Test(cgroup_dir, refuses_what_does_not_fit)
{
	char out[16];
	cr_assert_not(host_cg_dir("/sys/fs/cgroup/memory", "/", "/x", out, sizeof(out)));
}

/* ---- lists and counters ---- */

Test(cgroup_list, whole_words)
{
	cr_assert(host_cg_list_has("cpuset cpu io memory hugetlb pids", "memory"));
	cr_assert(host_cg_list_has("cpuset cpu io memory hugetlb pids", "pids"));
	cr_assert(host_cg_list_has("memory\n", "memory"));
	cr_assert_not(host_cg_list_has("hugetlb", "memory"));
	cr_assert_not(host_cg_list_has("memoryx pid", "memory"));
	cr_assert_not(host_cg_list_has("memoryx pid", "pids"));
	cr_assert_not(host_cg_list_has("", "memory"));
	cr_assert_not(host_cg_list_has("memory", ""));
}

Test(cgroup_counter, v2_memory_events_and_v1_oom_control)
{
	const char ev[] = "low 0\nhigh 0\nmax 12\noom 1\noom_kill 1\noom_group_kill 0\n";
	const char v1[] = "oom_kill_disable 0\nunder_oom 0\noom_kill 3\n";
	uint64_t v = 99;
	cr_assert(host_cg_counter(ev, strlen(ev), "oom_kill", &v));
	cr_assert_eq(v, 1);
	cr_assert(host_cg_counter(ev, strlen(ev), "max", &v));
	cr_assert_eq(v, 12);
	cr_assert(host_cg_counter(v1, strlen(v1), "oom_kill", &v));
	cr_assert_eq(v, 3);
	cr_assert(host_cg_counter("max 0", 5, "max", &v));
	cr_assert_eq(v, 0);
}

Test(cgroup_counter, absent_or_malformed)
{
	uint64_t v = 7;
	cr_assert_not(host_cg_counter("oom_kill_disable 0\n", 19, "oom_kill", &v));
	cr_assert_not(host_cg_counter("oom_kill \n", 10, "oom_kill", &v));
	cr_assert_not(host_cg_counter("oom_kill x\n", 11, "oom_kill", &v));
	cr_assert_not(host_cg_counter("oom_kill 99999999999999999999\n", 30, "oom_kill", &v));
	cr_assert_not(host_cg_counter("", 0, "oom_kill", &v));
	cr_assert_eq(v, 7);
	/* the buffer's end bounds the number: "oom_kill 12" cut to "oom_kill 1" */
	cr_assert(host_cg_counter("oom_kill 12", 10, "oom_kill", &v));
	cr_assert_eq(v, 1);
}

/* ---- the choice ---- */

#define MEM (1u << HOST_CG_MEMORY)
#define PIDS (1u << HOST_CG_PIDS)

/* This project's CI host: hybrid, v2 with only hugetlb, v1 memory and pids. */
static void hybrid(struct host_cg_facts *f, bool v1_writable)
{
	memset(f, 0, sizeof(*f));
	f->uid = v1_writable ? 0 : 1002;
	f->v2_mounted = true;
	strcpy(f->v2_mount, "/sys/fs/cgroup/unified");
	strcpy(f->v2_dir, "/sys/fs/cgroup/unified");
	f->v2_is_root = true;
	f->v2_writable = v1_writable;
	strcpy(f->v2_controllers, "hugetlb");
	f->v1[HOST_CG_MEMORY].mounted = true;
	strcpy(f->v1[HOST_CG_MEMORY].mount, "/sys/fs/cgroup/memory");
	strcpy(f->v1[HOST_CG_MEMORY].dir, "/sys/fs/cgroup/memory/process_api/x");
	f->v1[HOST_CG_MEMORY].writable = v1_writable;
	f->v1[HOST_CG_PIDS].mounted = true;
	strcpy(f->v1[HOST_CG_PIDS].mount, "/sys/fs/cgroup/pids");
	strcpy(f->v1[HOST_CG_PIDS].dir, "/sys/fs/cgroup/pids");
	f->v1[HOST_CG_PIDS].writable = v1_writable;
}

/* A systemd host on cgroup v2 only. */
static void unified(struct host_cg_facts *f, const char *dir, bool is_root, const char *subtree)
{
	memset(f, 0, sizeof(*f));
	f->uid = 1000;
	f->v2_mounted = true;
	strcpy(f->v2_mount, "/sys/fs/cgroup");
	strcpy(f->v2_dir, dir);
	f->v2_is_root = is_root;
	f->v2_writable = true;
	strcpy(f->v2_controllers, "cpu io memory pids");
	strcpy(f->v2_subtree, subtree);
}

Test(cgroup_choose, nothing_needed)
{
	struct host_cg_facts f;
	struct host_cg_choice c;
	char why[512];
	memset(&f, 0, sizeof(f));
	cr_assert_eq(host_cg_choose(&f, 0, &c, NULL, why, sizeof(why)), HOST_CG_OK);
	cr_assert_eq(c.version[HOST_CG_MEMORY], 0);
	cr_assert_eq(c.version[HOST_CG_PIDS], 0);
}

Test(cgroup_choose, hybrid_root_falls_back_to_v1_per_controller)
{
	struct host_cg_facts f;
	struct host_cg_choice c;
	char why[512];
	hybrid(&f, true);
	cr_assert_eq(host_cg_choose(&f, MEM | PIDS, &c, NULL, why, sizeof(why)), HOST_CG_OK);
	cr_assert_eq(c.version[HOST_CG_MEMORY], 1);
	cr_assert_str_eq(c.parent[HOST_CG_MEMORY], "/sys/fs/cgroup/memory/process_api/x");
	cr_assert_eq(c.version[HOST_CG_PIDS], 1);
	cr_assert_str_eq(c.parent[HOST_CG_PIDS], "/sys/fs/cgroup/pids");
	cr_assert_str_eq(why, "");
}

Test(cgroup_choose, hybrid_unprivileged_says_why_for_both_versions)
{
	struct host_cg_facts f;
	struct host_cg_choice c;
	enum host_cg_ctrl failed = HOST_CG_PIDS;
	char why[512];
	hybrid(&f, false);
	cr_assert_eq(host_cg_choose(&f, MEM, &c, &failed, why, sizeof(why)), HOST_CG_UNAVAILABLE);
	cr_assert_eq(failed, HOST_CG_MEMORY);
	cr_assert(strstr(why, "cgroup v2 at /sys/fs/cgroup/unified has no memory controller"), "%s", why);
	cr_assert(strstr(why, "/sys/fs/cgroup/memory/process_api/x is not writable by uid 1002"), "%s",
		  why);
	cr_assert_eq(c.version[HOST_CG_MEMORY], 0);
}

Test(cgroup_choose, v2_root_enables_the_controller)
{
	struct host_cg_facts f;
	struct host_cg_choice c;
	char why[512];
	unified(&f, "/sys/fs/cgroup", true, "");
	cr_assert_eq(host_cg_choose(&f, MEM | PIDS, &c, NULL, why, sizeof(why)), HOST_CG_OK);
	cr_assert_eq(c.version[HOST_CG_MEMORY], 2);
	cr_assert(c.enable[HOST_CG_MEMORY]);
	cr_assert_eq(c.version[HOST_CG_PIDS], 2);
	cr_assert_str_eq(c.parent[HOST_CG_PIDS], "/sys/fs/cgroup");
}

Test(cgroup_choose, v2_already_enabled_needs_no_enabling)
{
	struct host_cg_facts f;
	struct host_cg_choice c;
	char why[512];
	unified(&f, "/sys/fs/cgroup/deleg", false, "memory pids");
	cr_assert_eq(host_cg_choose(&f, MEM, &c, NULL, why, sizeof(why)), HOST_CG_OK);
	cr_assert_eq(c.version[HOST_CG_MEMORY], 2);
	cr_assert_not(c.enable[HOST_CG_MEMORY]);
	cr_assert_str_eq(c.parent[HOST_CG_MEMORY], "/sys/fs/cgroup/deleg");
}

Test(cgroup_choose, v2_internal_processes_rule)
{
	struct host_cg_facts f;
	struct host_cg_choice c;
	char why[512];
	unified(&f, "/sys/fs/cgroup/user.slice/session-2.scope", false, "");
	cr_assert_eq(host_cg_choose(&f, MEM, &c, NULL, why, sizeof(why)), HOST_CG_UNAVAILABLE);
	cr_assert(strstr(why, "no-internal-processes"), "%s", why);
	cr_assert(strstr(why, "no cgroup v1 hierarchy has the memory controller"), "%s", why);
}

Test(cgroup_choose, v2_controller_missing_or_not_writable)
{
	struct host_cg_facts f;
	struct host_cg_choice c;
	char why[512];
	unified(&f, "/sys/fs/cgroup/a", false, "memory");
	strcpy(f.v2_controllers, "cpu memory");
	cr_assert_eq(host_cg_choose(&f, PIDS, &c, NULL, why, sizeof(why)), HOST_CG_UNAVAILABLE);
	cr_assert(strstr(why, "has no pids controller"), "%s", why);
	unified(&f, "/sys/fs/cgroup/a", false, "memory");
	f.v2_writable = false;
	cr_assert_eq(host_cg_choose(&f, MEM, &c, NULL, why, sizeof(why)), HOST_CG_UNAVAILABLE);
	cr_assert(strstr(why, "/sys/fs/cgroup/a is not writable by uid 1000"), "%s", why);
}

Test(cgroup_choose, mixed_v2_memory_v1_pids)
{
	struct host_cg_facts f;
	struct host_cg_choice c;
	char why[512];
	hybrid(&f, true);
	strcpy(f.v2_controllers, "memory hugetlb");
	cr_assert_eq(host_cg_choose(&f, MEM | PIDS, &c, NULL, why, sizeof(why)), HOST_CG_OK);
	cr_assert_eq(c.version[HOST_CG_MEMORY], 2);
	cr_assert_eq(c.version[HOST_CG_PIDS], 1);
}

Test(cgroup_choose, nothing_mounted)
{
	struct host_cg_facts f;
	struct host_cg_choice c;
	char why[512];
	memset(&f, 0, sizeof(f));
	cr_assert_eq(host_cg_choose(&f, MEM, &c, NULL, why, sizeof(why)), HOST_CG_UNAVAILABLE);
	cr_assert_str_eq(why, "no cgroup v2 hierarchy is mounted, and no cgroup v1 hierarchy has the "
			      "memory controller");
}

Test(cgroup_choose, a_failing_second_controller_clears_the_first)
{
	struct host_cg_facts f;
	struct host_cg_choice c;
	enum host_cg_ctrl failed = HOST_CG_MEMORY;
	char why[512];
	hybrid(&f, true);
	f.v1[HOST_CG_PIDS].mounted = false;
	cr_assert_eq(host_cg_choose(&f, MEM | PIDS, &c, &failed, why, sizeof(why)),
		     HOST_CG_UNAVAILABLE);
	cr_assert_eq(failed, HOST_CG_PIDS);
	cr_assert_eq(c.version[HOST_CG_MEMORY], 0);
}

/* CPU accounting: v2's cpu.stat is in every cgroup, so neither the
 * controller list nor the no-internal-processes rule matters; v1 needs the
 * cpuacct hierarchy. */
#define CPU (1u << HOST_CG_CPU)

Test(cgroup_choose, cpu_accounting_needs_no_v2_controller)
{
	struct host_cg_facts f;
	struct host_cg_choice c;
	char why[512];
	hybrid(&f, true); /* v2 with only hugetlb, at its root */
	cr_assert_eq(host_cg_choose(&f, CPU, &c, NULL, why, sizeof(why)), HOST_CG_OK);
	cr_assert_eq(c.version[HOST_CG_CPU], 2);
	cr_assert_not(c.enable[HOST_CG_CPU]);
	cr_assert_str_eq(c.parent[HOST_CG_CPU], "/sys/fs/cgroup/unified");
	unified(&f, "/sys/fs/cgroup/user.slice/session-2.scope", false, "");
	cr_assert_eq(host_cg_choose(&f, CPU, &c, NULL, why, sizeof(why)), HOST_CG_OK, "%s", why);
	cr_assert_eq(c.version[HOST_CG_CPU], 2);
}

Test(cgroup_choose, cpu_accounting_falls_back_to_cpuacct)
{
	struct host_cg_facts f;
	struct host_cg_choice c;
	char why[512];
	hybrid(&f, false);
	f.v1[HOST_CG_CPU].mounted = true;
	strcpy(f.v1[HOST_CG_CPU].mount, "/sys/fs/cgroup/cpu,cpuacct");
	strcpy(f.v1[HOST_CG_CPU].dir, "/sys/fs/cgroup/cpu,cpuacct/user");
	f.v1[HOST_CG_CPU].writable = true;
	cr_assert_eq(host_cg_choose(&f, CPU, &c, NULL, why, sizeof(why)), HOST_CG_OK, "%s", why);
	cr_assert_eq(c.version[HOST_CG_CPU], 1);
	cr_assert_str_eq(c.parent[HOST_CG_CPU], "/sys/fs/cgroup/cpu,cpuacct/user");
	f.v1[HOST_CG_CPU].writable = false;
	cr_assert_eq(host_cg_choose(&f, CPU, &c, NULL, why, sizeof(why)), HOST_CG_UNAVAILABLE);
	cr_assert(strstr(why, "/sys/fs/cgroup/unified is not writable by uid 1002"), "%s", why);
	cr_assert(strstr(why, "/sys/fs/cgroup/cpu,cpuacct/user is not writable"), "%s", why);
}

Test(cgroup_mountinfo, v1_cpu_and_cpuacct_co_mounted)
{
	struct host_cg_mount m;
	const char *l = "31 30 0:28 / /sys/fs/cgroup/cpu,cpuacct rw,relatime - cgroup cgroup "
			"rw,cpu,cpuacct";
	cr_assert_eq(host_cg_parse_mountinfo(l, strlen(l), &m), HOST_CG_MOUNT_V1);
	cr_assert(m.has[HOST_CG_CPU]);
	cr_assert_not(m.has[HOST_CG_MEMORY]);
	l = "31 30 0:28 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu";
	cr_assert_eq(host_cg_parse_mountinfo(l, strlen(l), &m), HOST_CG_MOUNT_V1);
	cr_assert_not(m.has[HOST_CG_CPU], "the cpu controller alone has no cpuacct.usage");
}

/* What the host gives of what a run wants, each on its own. */
Test(cgroup_choose, each_wanted_controller_on_its_own)
{
	struct host_cg_facts f;
	struct host_cg_choice c;
	hybrid(&f, false); /* unprivileged: nothing */
	cr_assert_eq(host_cg_choose_each(&f, MEM | CPU, &c), 0u);
	hybrid(&f, true);
	f.v1[HOST_CG_MEMORY].writable = false;
	cr_assert_eq(host_cg_choose_each(&f, MEM | CPU, &c), CPU);
	cr_assert_eq(c.version[HOST_CG_MEMORY], 0);
	cr_assert_eq(c.version[HOST_CG_CPU], 2);
}
