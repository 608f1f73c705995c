/* tests/unit/supervisor/test_ceiling.c: what porta's own count of a run reads
 * from /proc (a process's times, its resident memory) and when it reads it. */
#include <criterion/criterion.h>
#include <string.h>

#include "supervisor/ceiling.h"

static bool ticks(const char *s, uint64_t *t)
{
	return supervisor_ceiling_stat_ticks(s, strlen(s), t);
}

Test(ceiling_stat, the_four_times_summed)
{
	uint64_t t = 0;
	/* utime 11, stime 22, cutime 33, cstime 44 (fields 14 to 17) */
	cr_assert(ticks("1234 (python3) R 1 1234 1234 0 -1 4194304 100 0 0 0 11 22 33 44 20 0 1 0 "
			"500 1000 200 18446744073709551615\n",
			&t));
	cr_expect_eq(t, 110);
}

Test(ceiling_stat, a_name_with_spaces_and_parentheses)
{
	uint64_t t = 0;
	cr_assert(ticks("7 (a) b) (c) S 1 7 7 0 -1 0 0 0 0 0 1 2 3 4 20 0 1 0 5 6 7", &t));
	cr_expect_eq(t, 10);
	/* a zombie: Z, its own times still there */
	cr_assert(ticks("9 (sh) Z 1 9 9 0 -1 0 0 0 0 0 100 0 0 0 20 0 1 0 5 0 0", &t));
	cr_expect_eq(t, 100);
}

Test(ceiling_stat, malformed_or_short)
{
	uint64_t t = 7;
	const char *bad[] = { "", "1 (x", "1 (x) R 1 2 3", "1 (x) R 1 1 1 0 -1 0 0 0 0 0 1x 2 3 4",
			      "1 (x)R 1 1 1 0 -1 0 0 0 0 0 1 2 3 4 5",
			      "1 (x) R 1 1 1 0 -1 0 0 0 0 0 1  2 3 4 5" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		cr_expect_not(ticks(bad[i], &t), "%s", bad[i]);
	cr_expect_eq(t, 7, "untouched on failure");
	/* every prefix of a good line short of its 17th field is refused */
	const char *good = "1234 (py) R 1 1 1 0 -1 0 0 0 0 0 11 22 33 44 20";
	size_t full = strlen(good) - 3; /* up to "44", without the space after it */
	for (size_t n = 0; n <= full; n++)
		cr_expect_not(supervisor_ceiling_stat_ticks(good, n, &t), "prefix %zu", n);
}

Test(ceiling_status, anonymous_and_shared_memory)
{
	const char *s = "Name:\tpython3\nVmRSS:\t   20000 kB\nRssAnon:\t   12000 kB\n"
			"RssFile:\t    7000 kB\nRssShmem:\t    1000 kB\nThreads:\t1\n";
	uint64_t k = 0;
	cr_assert(supervisor_ceiling_status_kib(s, strlen(s), &k));
	cr_expect_eq(k, 13000, "RssAnon + RssShmem, not the files");
	const char *zombie = "Name:\tsh\nState:\tZ (zombie)\nThreads:\t1\n";
	cr_assert(supervisor_ceiling_status_kib(zombie, strlen(zombie), &k));
	cr_expect_eq(k, 0);
	const char *bad = "RssAnon:\t12x kB\n";
	cr_expect_not(supervisor_ceiling_status_kib(bad, strlen(bad), &k));
}

Test(ceiling_interval, far_sleeps_long_near_checks_often)
{
	/* 100 s on 4 CPUs, nothing used: 25 s before it can be spent */
	cr_expect_eq(supervisor_ceiling_cpu_interval_us(100000000, 0, 4), 25000000);
	/* near it: a tenth of the budget over the CPUs, at most 250 ms */
	cr_expect_eq(supervisor_ceiling_cpu_interval_us(100000000, 99900000, 4), 250000);
	/* 1 s on 2 CPUs: 50 ms near it, so at most 0.1 s over */
	cr_expect_eq(supervisor_ceiling_cpu_interval_us(1000000, 990000, 2), 50000);
	/* many CPUs: never under 10 ms */
	cr_expect_eq(supervisor_ceiling_cpu_interval_us(1000000, 999000, 256), 10000);
	/* past it already, or no CPU count */
	cr_expect_eq(supervisor_ceiling_cpu_interval_us(1000000, 5000000, 0), 100000);
}
