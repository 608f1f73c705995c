/* bench/tls_ca.c: what the run's CA costs (tls/ca.h), on this machine.
 *
 *   tls_ca [ROUNDS]      (200 by default)
 *
 * Times, ROUNDS times each, in one process: creating a CA for four names
 * (two key generations, one signature, the PEM); minting a fresh leaf (one
 * signature and the leaf parsed: what a terminated name's first connection
 * pays); and the cached lookup every later connection pays.  The mints
 * rotate through names below one "*." entry, so each is a new name; the
 * lookups ask for names already minted.  Prints the median, p90 and
 * minimum in milliseconds of wall-clock time, and the median of the
 * thread's CPU time, which a machine shared with other work disturbs less.
 * Figures: docs/benchmarks/tls-ca.md.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tls/ca.h"

static const char *const NAMES[] = { "api.example", "*.registry.example", "192.0.2.7",
				     "2001:db8::7" };

static double clock_ms(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Wall-clock and CPU time of one step. */
struct sample {
	double wall, cpu;
};

static struct sample now(void)
{
	return (struct sample){ clock_ms(CLOCK_MONOTONIC), clock_ms(CLOCK_THREAD_CPUTIME_ID) };
}

static struct sample since(struct sample t0)
{
	struct sample t1 = now();
	return (struct sample){ t1.wall - t0.wall, t1.cpu - t0.cpu };
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static void report(const char *what, const struct sample *t, size_t n)
{
	double *wall = calloc(n, sizeof(double)), *cpu = calloc(n, sizeof(double));
	if (!wall || !cpu)
		exit(1);
	for (size_t i = 0; i < n; i++) {
		wall[i] = t[i].wall;
		cpu[i] = t[i].cpu;
	}
	qsort(wall, n, sizeof(*wall), cmp_double);
	qsort(cpu, n, sizeof(*cpu), cmp_double);
	printf("| %s | %zu | %.3f | %.3f | %.3f | %.3f |\n", what, n, wall[n / 2],
	       wall[n * 9 / 10], wall[0], cpu[n / 2]);
	free(wall);
	free(cpu);
}

static struct tls_ca *create(void)
{
	struct tls_ca *ca = NULL;
	struct porta_error e;
	if (tls_ca_create(NAMES, sizeof(NAMES) / sizeof(NAMES[0]), &ca, &e) < 0) {
		fprintf(stderr, "tls_ca: %s: %s\n", e.step, e.msg);
		exit(1);
	}
	return ca;
}

int main(int argc, char **argv)
{
	size_t rounds = argc > 1 ? strtoul(argv[1], NULL, 10) : 200;
	if (rounds == 0 || rounds > TLS_CA_LEAVES_MAX) {
		fprintf(stderr, "usage: %s [ROUNDS (1..%d)]\n", argv[0], TLS_CA_LEAVES_MAX);
		return 2;
	}
	struct sample *t_create = calloc(rounds, sizeof(*t_create));
	struct sample *t_mint = calloc(rounds, sizeof(*t_mint));
	struct sample *t_cached = calloc(rounds, sizeof(*t_cached));
	if (!t_create || !t_mint || !t_cached)
		return 1;

	tls_ca_destroy(create()); /* warm-up: first-touch of mbedtls' tables */
	for (size_t i = 0; i < rounds; i++) {
		struct sample t0 = now();
		struct tls_ca *ca = create();
		t_create[i] = since(t0);
		tls_ca_destroy(ca);
	}

	struct tls_ca *ca = create();
	char name[64];
	struct tls_leaf leaf;
	for (size_t i = 0; i < rounds; i++) {
		snprintf(name, sizeof(name), "n%zu.registry.example", i);
		struct sample t0 = now();
		int rc = tls_ca_leaf(ca, name, &leaf);
		t_mint[i] = since(t0);
		if (rc < 0) {
			fprintf(stderr, "tls_ca: %s: %s\n", name, strerror(-rc));
			return 1;
		}
	}
	for (size_t i = 0; i < rounds; i++) {
		snprintf(name, sizeof(name), "n%zu.registry.example", (i * 7) % rounds);
		struct sample t0 = now();
		int rc = tls_ca_leaf(ca, name, &leaf);
		t_cached[i] = since(t0);
		if (rc < 0)
			return 1;
	}
	tls_ca_destroy(ca);

	printf("| step | runs | median ms | p90 ms | min ms | CPU median ms |\n"
	       "|---|---:|---:|---:|---:|---:|\n");
	report("create the CA (4 names)", t_create, rounds);
	report("mint a leaf (new name)", t_mint, rounds);
	report("leaf from the cache", t_cached, rounds);
	free(t_create);
	free(t_mint);
	free(t_cached);
	return 0;
}
