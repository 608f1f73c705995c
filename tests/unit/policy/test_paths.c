/* tests/unit/policy/test_paths.c: lexical path arithmetic (policy/paths.h). */
#include <criterion/criterion.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "policy/paths.h"

#define N_ELEMS(a) (sizeof(a) / sizeof((a)[0]))

/* A normalised absolute path: starts with '/', no empty, "." or ".."
 * component, no trailing '/' unless it is "/". */
static bool is_normal(const char *p, size_t n)
{
	if (n == 0 || p[0] != '/' || strlen(p) != n)
		return false;
	if (n == 1)
		return true;
	if (p[n - 1] == '/')
		return false;
	for (size_t i = 0; i < n;) {
		size_t start = ++i; /* past the '/' */
		while (i < n && p[i] != '/')
			i++;
		size_t cl = i - start;
		if (cl == 0 || (cl == 1 && p[start] == '.') ||
		    (cl == 2 && p[start] == '.' && p[start + 1] == '.'))
			return false;
	}
	return true;
}

/* Runs normalize on an exact-size heap copy (no NUL after it), so a read
 * past len is an ASan report. */
static size_t norm_exact(const char *base, const char *path, size_t len, char *out, size_t cap)
{
	char *copy = malloc(len ? len : 1);
	memcpy(copy, path, len);
	size_t r = policy_path_normalize(base, copy, len, out, cap);
	free(copy);
	return r;
}

static const struct {
	const char *base, *path, *expect; /* expect NULL: refused (0) */
} norm_vectors[] = {
	{ "/", "/", "/" },
	{ NULL, "/a/b", "/a/b" },
	{ NULL, "/", "/" },
	{ "/home/u", "x", "/home/u/x" },
	{ "/home/u", "./x/../y", "/home/u/y" },
	{ "/home/u", "../../../..", "/" },
	{ "/home/u", "..", "/home" },
	{ "/home/u", ".", "/home/u" },
	{ "/home/u", "./", "/home/u" },
	{ "/home/u", "/abs", "/abs" },
	{ "relative", "/abs", "/abs" }, /* base unused for an absolute path */
	{ "/", "//a//b//", "/a/b" },
	{ "/", "///", "/" },
	{ "/", "/a/./b/.", "/a/b" },
	{ "/", "/..", "/" },
	{ "/", "/../../a", "/a" },
	{ "/", "/a/b/../../..", "/" },
	{ "/", "/a/b/../c/./d/..", "/a/c" },
	{ "/", "/a/..b/c", "/a/..b/c" },
	{ "/", "/a/b../c", "/a/b../c" },
	{ "/", "/a/.../c", "/a/.../c" },
	{ "/", "/.hidden/.x", "/.hidden/.x" },
	{ "/", "/a b/c\td", "/a b/c\td" },
	{ "/base/", "x", "/base/x" },
	{ "//base//./d", "x", "/base/d/x" },
	{ "/b/../c", "x", "/c/x" },
	{ "/b", "x/", "/b/x" },
	{ "/b", "../../x", "/x" },
};

Test(paths, normalize_refuses_empty)
{
	char out[64];
	cr_assert_eq(policy_path_normalize("/b", "", 0, out, sizeof(out)), 0);
	cr_assert_eq(policy_path_normalize(NULL, "/x", 0, out, sizeof(out)), 0);
	cr_assert_eq(policy_path_join("/b", "", out, sizeof(out)), 0);
}

/* A relative path needs an absolute base. */
Test(paths, normalize_refuses_relative_base)
{
	static const char *const bases[] = { NULL, "", "rel", "./b", "b/", ".", ".." };
	char out[64];
	for (size_t i = 0; i < N_ELEMS(bases); i++) {
		cr_assert_eq(norm_exact(bases[i], "x", 1, out, sizeof(out)), 0, "base \"%s\"",
			     bases[i] ? bases[i] : "(null)");
		cr_assert_eq(norm_exact(bases[i], "../x", 4, out, sizeof(out)), 0);
	}
}

Test(paths, normalize_vectors)
{
	for (size_t i = 0; i < N_ELEMS(norm_vectors); i++) {
		char out[256];
		memset(out, 'Z', sizeof(out));
		const char *p = norm_vectors[i].path;
		size_t r = norm_exact(norm_vectors[i].base, p, strlen(p), out, sizeof(out));
		if (!norm_vectors[i].expect) {
			cr_assert_eq(r, 0, "\"%s\" + \"%s\" gave \"%s\"", norm_vectors[i].base, p,
				     r ? out : "");
			continue;
		}
		cr_assert_neq(r, 0, "\"%s\" + \"%s\" refused", norm_vectors[i].base, p);
		cr_assert_str_eq(out, norm_vectors[i].expect, "\"%s\" + \"%s\"",
				 norm_vectors[i].base, p);
		cr_assert_eq(r, strlen(out));
		cr_assert(is_normal(out, r));
	}
}

Test(paths, normalize_nul_inside_is_refused)
{
	char out[64];
	static const struct {
		const char *p;
		size_t n;
	} v[] = {
		{ "/a\0b", 4 }, { "/a/\0", 4 }, { "\0", 1 }, { "/.\0/x", 5 }, { "/..\0", 4 },
		{ "x\0", 2 },
	};
	for (size_t i = 0; i < N_ELEMS(v); i++)
		cr_assert_eq(norm_exact("/base", v[i].p, v[i].n, out, sizeof(out)), 0, "vector %zu",
			     i);
}

Test(paths, normalize_len_bounds_the_read)
{
	char out[64];
	cr_assert_eq(policy_path_normalize(NULL, "/abc/def", 4, out, sizeof(out)), 4);
	cr_assert_str_eq(out, "/abc");
	cr_assert_eq(policy_path_normalize("/b", "x/../y/zzz", 6, out, sizeof(out)), 4);
	cr_assert_str_eq(out, "/b/y");
}

Test(paths, normalize_capacity)
{
	char out[32];
	/* "/abc/de" is 7 bytes + NUL: cap 8 fits, cap 7 does not */
	memset(out, 'Z', sizeof(out));
	cr_assert_eq(policy_path_normalize(NULL, "/abc/de", 7, out, 8), 7);
	cr_assert_str_eq(out, "/abc/de");
	memset(out, 'Z', sizeof(out));
	cr_assert_eq(policy_path_normalize(NULL, "/abc/de", 7, out, 7), 0);
	for (size_t i = 7; i < sizeof(out); i++)
		cr_assert_eq(out[i], 'Z', "wrote past cap at %zu", i);
	cr_assert_eq(policy_path_normalize(NULL, "/", 1, out, 2), 1);
	cr_assert_str_eq(out, "/");
	cr_assert_eq(policy_path_normalize(NULL, "/", 1, out, 1), 0);
	cr_assert_eq(policy_path_normalize(NULL, "/", 1, out, 0), 0);
	/* the base counts too */
	cr_assert_eq(policy_path_normalize("/0123456789", "abc", 3, out, 15), 0);
	cr_assert_eq(policy_path_normalize("/0123456789", "abc", 3, out, 16), 15);
	/* every cap below the need is refused, never a cut path */
	for (size_t cap = 0; cap <= 16; cap++) {
		char o2[16];
		size_t r = policy_path_normalize("/0123456789", "abc", 3, o2, cap);
		cr_assert_eq(r, cap >= 16 ? 15 : 0, "cap %zu", cap);
	}
}

Test(paths, normalize_idempotent)
{
	for (size_t i = 0; i < N_ELEMS(norm_vectors); i++) {
		if (!norm_vectors[i].expect)
			continue;
		char a[256], b[256];
		const char *p = norm_vectors[i].path;
		size_t ra = policy_path_normalize(norm_vectors[i].base, p, strlen(p), a, sizeof(a));
		size_t rb = policy_path_normalize("/other", a, ra, b, sizeof(b));
		cr_assert_eq(ra, rb);
		cr_assert_str_eq(a, b);
	}
}

/* Truncation sweep.  Contract for each prefix p[0..k) of a path: k == 0 is
 * refused; otherwise the answer is a normalised absolute path (never a read
 * past k), and it equals the normalisation of the NUL-terminated prefix. */
Test(paths, normalize_truncation_sweep)
{
	static const char *const good[] = { "/home/u/./src/../proj//x/..", "a/b/../../../c/.d",
					    "../..//x/y/z/" };
	for (size_t g = 0; g < N_ELEMS(good); g++) {
		size_t n = strlen(good[g]);
		for (size_t k = 0; k <= n; k++) {
			char out[128], ref[128], pre[128];
			size_t r = norm_exact("/base/dir", good[g], k, out, sizeof(out));
			if (k == 0) {
				cr_assert_eq(r, 0);
				continue;
			}
			cr_assert(r > 0 && is_normal(out, r), "\"%.*s\" -> \"%s\"", (int)k, good[g],
				  out);
			memcpy(pre, good[g], k);
			pre[k] = '\0';
			size_t rr = policy_path_join("/base/dir", pre, ref, sizeof(ref));
			cr_assert_eq(r, rr);
			cr_assert_str_eq(out, ref);
		}
	}
}

Test(paths, join_vectors)
{
	static const struct {
		const char *dir, *name, *expect;
	} v[] = {
		{ "/home/u", ".ssh", "/home/u/.ssh" },
		{ "/home/u", ".config/gh", "/home/u/.config/gh" },
		{ "/home/u/", "x", "/home/u/x" },
		{ "/", ".git/hooks", "/.git/hooks" },
		{ "/w", "/abs/name", "/abs/name" },
		{ "/w", "../escape", "/escape" },
		{ "/w", "", NULL },
		{ "w", "x", NULL },
	};
	for (size_t i = 0; i < N_ELEMS(v); i++) {
		char out[128];
		size_t r = policy_path_join(v[i].dir, v[i].name, out, sizeof(out));
		if (!v[i].expect) {
			cr_assert_eq(r, 0, "%s + %s", v[i].dir, v[i].name);
			continue;
		}
		cr_assert_str_eq(out, v[i].expect);
		cr_assert_eq(r, strlen(v[i].expect));
	}
}

Test(paths, is_under_vectors)
{
	static const struct {
		const char *dir, *path;
		bool under;
	} v[] = {
		{ "/", "/", true },
		{ "/", "/x", true },
		{ "/", "/x/y", true },
		{ "/a", "/a", true },
		{ "/a", "/a/b", true },
		{ "/a", "/a/b/c", true },
		{ "/a", "/ab", false },
		{ "/a", "/a.b", false },
		{ "/a/b", "/a", false },
		{ "/a", "/", false },
		{ "/home/u", "/home/u2/x", false },
		{ "/home/u", "/home/u/.ssh", true },
		{ "/tmp", "/tmpfoo", false },
		{ "/tmp", "/tmp/x", true },
		{ "/a/b", "/a/c/b", false },
	};
	for (size_t i = 0; i < N_ELEMS(v); i++)
		cr_assert_eq(policy_path_is_under(v[i].dir, v[i].path), v[i].under, "%s under %s",
			     v[i].path, v[i].dir);
}

/* Every normalised prefix of a path at a component boundary is a directory
 * the path is under, and nothing that merely shares a string prefix is. */
Test(paths, is_under_prefix_sweep)
{
	const char *p = "/home/user/projects/porta";
	size_t n = strlen(p);
	for (size_t k = 1; k <= n; k++) {
		char dir[64];
		memcpy(dir, p, k);
		dir[k] = '\0';
		bool boundary = k == 1 || k == n || p[k] == '/';
		if (k > 1 && dir[k - 1] == '/')
			continue; /* not normalised */
		cr_assert_eq(policy_path_is_under(dir, p), boundary, "%s under %s", p, dir);
	}
}

/* Runs aside_name into a guarded buffer: bytes from cap on must stay 'Z'
 * (and a refusal writes nothing at all). */
static size_t aside(const char *name, long pid, unsigned k, char *out, size_t cap)
{
	char buf[512];
	cr_assert_leq(cap, sizeof(buf) - 1);
	memset(buf, 'Z', sizeof(buf));
	size_t r = policy_path_aside_name(name, pid, k, buf, cap);
	for (size_t i = r ? r + 1 : 0; i < sizeof(buf); i++)
		cr_assert_eq(buf[i], 'Z', "\"%.20s\" k %u cap %zu: byte %zu written", name, k, cap, i);
	if (r) {
		cr_assert_lt(r, cap);
		cr_assert_eq(strlen(buf), r);
	}
	memcpy(out, buf, sizeof(buf));
	return r;
}

Test(paths, aside_name_vectors)
{
	static const struct {
		const char *name;
		long pid;
		unsigned k;
		const char *expect;
	} v[] = {
		{ ".envrc", 4242, 0, ".envrc.porta-refused-4242" },
		{ ".envrc", 4242, 1, ".envrc.porta-refused-4242-2" },
		{ ".envrc", 4242, 2, ".envrc.porta-refused-4242-3" },
		{ ".envrc", 4242, 98, ".envrc.porta-refused-4242-99" },
		{ "settings.local.json", 1, 0, "settings.local.json.porta-refused-1" },
		{ "x", 4194304, 0, "x.porta-refused-4194304" },
		{ "a b\n", 7, 1, "a b\n.porta-refused-7-2" }, /* bytes kept as they are */
	};
	for (size_t i = 0; i < N_ELEMS(v); i++) {
		char out[512];
		size_t r = aside(v[i].name, v[i].pid, v[i].k, out, 256);
		cr_assert_str_eq(out, v[i].expect, "vector %zu", i);
		cr_assert_eq(r, strlen(v[i].expect));
	}
}

/* Nothing is written for a name that is not one file name. */
Test(paths, aside_name_refuses_what_is_not_a_name)
{
	static const char *const bad[] = { "", "/", "a/b", "/.envrc", ".claude/", "../x" };
	for (size_t i = 0; i < N_ELEMS(bad); i++) {
		char out[512];
		cr_assert_eq(aside(bad[i], 4242, 0, out, 256), 0, "\"%s\"", bad[i]);
		cr_assert_eq(aside(bad[i], 4242, 1, out, 256), 0, "\"%s\"", bad[i]);
	}
}

/* The result is one directory entry: at most NAME_MAX (255) bytes.
 * ".porta-refused-1" is 16 bytes, "-2" two more. */
Test(paths, aside_name_at_name_max)
{
	char name[300], out[512];
	memset(name, 'n', sizeof(name));
	name[NAME_MAX - 16] = '\0';
	cr_assert_eq(aside(name, 1, 0, out, 256), NAME_MAX);
	cr_assert_str_eq(out + NAME_MAX - 16, ".porta-refused-1");
	cr_assert_eq(aside(name, 1, 1, out, 256), 0, "NAME_MAX + 2 bytes");
	cr_assert_eq(aside(name, 10, 0, out, 256), 0, "a longer pid, NAME_MAX + 1 bytes");
	/* the cap is not what refuses it */
	cr_assert_eq(aside(name, 10, 0, out, sizeof(out) - 1), 0);
	name[NAME_MAX - 16] = 'n';
	name[NAME_MAX - 15] = '\0';
	cr_assert_eq(aside(name, 1, 0, out, sizeof(out) - 1), 0, "NAME_MAX + 1 bytes");
	name[NAME_MAX - 18] = '\0';
	cr_assert_eq(aside(name, 1, 1, out, 256), NAME_MAX);
	cr_assert_str_eq(out + NAME_MAX - 18, ".porta-refused-1-2");
	/* a name of NAME_MAX itself has no room for the suffix */
	memset(name, 'n', sizeof(name));
	name[NAME_MAX] = '\0';
	cr_assert_eq(aside(name, 1, 0, out, sizeof(out) - 1), 0);
}

/* Every cap below the need is refused, never a cut name. */
Test(paths, aside_name_capacity)
{
	const char *want = ".mcp.json.porta-refused-31337-3";
	size_t need = strlen(want);
	for (size_t cap = 0; cap <= need + 2; cap++) {
		char out[512];
		size_t r = aside(".mcp.json", 31337, 2, out, cap);
		cr_assert_eq(r, cap > need ? need : 0, "cap %zu", cap);
		if (r)
			cr_assert_str_eq(out, want);
	}
}
