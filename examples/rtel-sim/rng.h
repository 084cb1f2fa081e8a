/* rng.h - deterministic pseudo-random numbers and distributions for rtel-sim
 *
 * xoshiro256** seeded through splitmix64.  Every random draw of the simulator
 * comes from one generator owned by the simulation, so a (scenario, seed,
 * options) triple always produces the same bytes.
 */
#ifndef RTEL_SIM_RNG_H
#define RTEL_SIM_RNG_H

#include <stdint.h>

struct rng {
  uint64_t s[4];
};

void rng_seed(struct rng *r, uint64_t seed);
uint64_t rng_u64(struct rng *r);
/* uniform in [0, n) (n > 0), unbiased */
uint64_t rng_below(struct rng *r, uint64_t n);
/* uniform double in [0, 1) */
double rng_unit(struct rng *r);
/* true with probability p */
int rng_chance(struct rng *r, double p);

/* A duration distribution, in nanoseconds. */
enum dist_kind {
  DIST_FIXED,
  DIST_UNIFORM,
  DIST_EXP,
  DIST_NORMAL,
  DIST_LOGNORMAL
};

struct dist {
  enum dist_kind kind;
  double a; /* fixed: value; uniform: low; exp: mean; normal/lognormal: mean */
  double b; /* uniform: high; normal/lognormal: standard deviation */
};

/* Parse "fixed:V", "uniform:LO:HI", "exp:MEAN", "normal:MEAN:SD",
 * "lognormal:MEAN:SD" (values are durations: N[ns|us|ms|s]).  A bare
 * duration means fixed.  Returns 0 or -1. */
int dist_parse(struct dist *d, const char *s);
/* Draw a non-negative integer number of nanoseconds. */
uint64_t dist_draw(const struct dist *d, struct rng *r);
/* Mean of the distribution in ns (for documentation/meta output). */
double dist_mean(const struct dist *d);
/* Format as text accepted by dist_parse. */
void dist_format(const struct dist *d, char *buf, unsigned long len);

/* Parse a duration "N[ns|us|ms|s]" (decimal, may have a fraction) into ns.
 * Returns 0 or -1. */
int parse_duration(const char *s, uint64_t *out);
/* Parse a signed duration. */
int parse_sduration(const char *s, int64_t *out);

#endif
