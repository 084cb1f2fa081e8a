/* rng.c - xoshiro256**, splitmix64 seeding and duration distributions */
#include "rng.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t splitmix64(uint64_t *x) {
  uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

void rng_seed(struct rng *r, uint64_t seed) {
  uint64_t x = seed;
  for (int i = 0; i < 4; i++)
    r->s[i] = splitmix64(&x);
}

static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

uint64_t rng_u64(struct rng *r) {
  uint64_t *s = r->s;
  uint64_t result = rotl(s[1] * 5, 7) * 9;
  uint64_t t = s[1] << 17;
  s[2] ^= s[0];
  s[3] ^= s[1];
  s[1] ^= s[2];
  s[0] ^= s[3];
  s[2] ^= t;
  s[3] = rotl(s[3], 45);
  return result;
}

uint64_t rng_below(struct rng *r, uint64_t n) {
  if (n <= 1)
    return 0;
  /* Lemire's multiply-shift with rejection */
  uint64_t x = rng_u64(r);
  __uint128_t m = (__uint128_t)x * n;
  uint64_t l = (uint64_t)m;
  if (l < n) {
    uint64_t t = (0 - n) % n;
    while (l < t) {
      x = rng_u64(r);
      m = (__uint128_t)x * n;
      l = (uint64_t)m;
    }
  }
  return (uint64_t)(m >> 64);
}

double rng_unit(struct rng *r) {
  return (double)(rng_u64(r) >> 11) * 0x1.0p-53;
}

int rng_chance(struct rng *r, double p) {
  if (p <= 0.0)
    return 0;
  if (p >= 1.0)
    return 1;
  return rng_unit(r) < p;
}

static double gauss(struct rng *r) {
  /* Box-Muller, one value per call (simple and deterministic) */
  double u1 = rng_unit(r), u2 = rng_unit(r);
  if (u1 < 1e-300)
    u1 = 1e-300;
  return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

uint64_t dist_draw(const struct dist *d, struct rng *r) {
  double v = 0;
  switch (d->kind) {
  case DIST_FIXED:
    v = d->a;
    break;
  case DIST_UNIFORM:
    v = d->a + (d->b - d->a) * rng_unit(r);
    break;
  case DIST_EXP: {
    double u = rng_unit(r);
    v = -d->a * log(1.0 - u);
    break;
  }
  case DIST_NORMAL:
    v = d->a + d->b * gauss(r);
    break;
  case DIST_LOGNORMAL: {
    /* parameters are the mean and sd of the distribution itself */
    double m = d->a, s = d->b;
    if (m <= 0) {
      v = 0;
      break;
    }
    double s2 = log(1.0 + (s * s) / (m * m));
    double mu = log(m) - s2 / 2.0;
    v = exp(mu + sqrt(s2) * gauss(r));
    break;
  }
  }
  if (!(v > 0))
    return 0;
  if (v > 1e18)
    v = 1e18;
  return (uint64_t)(v + 0.5);
}

double dist_mean(const struct dist *d) {
  switch (d->kind) {
  case DIST_UNIFORM:
    return (d->a + d->b) / 2;
  default:
    return d->a;
  }
}

static int parse_dur_d(const char *s, double *out) {
  char *end;
  if (!s || !*s)
    return -1;
  double v = strtod(s, &end);
  if (end == s || v != v)
    return -1;
  double mul = 1;
  if (*end == 0 || strcmp(end, "ns") == 0)
    mul = 1;
  else if (strcmp(end, "us") == 0)
    mul = 1e3;
  else if (strcmp(end, "ms") == 0)
    mul = 1e6;
  else if (strcmp(end, "s") == 0)
    mul = 1e9;
  else
    return -1;
  *out = v * mul;
  return 0;
}

int parse_duration(const char *s, uint64_t *out) {
  double v;
  if (parse_dur_d(s, &v) < 0 || v < 0 || v > 9.2e18)
    return -1;
  *out = (uint64_t)(v + 0.5);
  return 0;
}

int parse_sduration(const char *s, int64_t *out) {
  double v;
  if (parse_dur_d(s, &v) < 0 || v < -9.2e18 || v > 9.2e18)
    return -1;
  *out = (int64_t)(v < 0 ? v - 0.5 : v + 0.5);
  return 0;
}

int dist_parse(struct dist *d, const char *s) {
  char buf[128];
  if (strlen(s) >= sizeof buf)
    return -1;
  strcpy(buf, s);
  char *f[4] = {0};
  int n = 0;
  char *p = buf;
  while (n < 4) {
    f[n++] = p;
    char *c = strchr(p, ':');
    if (!c)
      break;
    *c = 0;
    p = c + 1;
  }
  double a = 0, b = 0;
  if (n == 1) {
    if (parse_dur_d(f[0], &a) < 0 || a < 0)
      return -1;
    d->kind = DIST_FIXED;
    d->a = a;
    d->b = 0;
    return 0;
  }
  if (strcmp(f[0], "fixed") == 0 && n == 2) {
    if (parse_dur_d(f[1], &a) < 0 || a < 0)
      return -1;
    d->kind = DIST_FIXED;
  } else if (strcmp(f[0], "exp") == 0 && n == 2) {
    if (parse_dur_d(f[1], &a) < 0 || a < 0)
      return -1;
    d->kind = DIST_EXP;
  } else if (n == 3 &&
             (strcmp(f[0], "uniform") == 0 || strcmp(f[0], "normal") == 0 ||
              strcmp(f[0], "lognormal") == 0)) {
    if (parse_dur_d(f[1], &a) < 0 || parse_dur_d(f[2], &b) < 0 || a < 0 ||
        b < 0)
      return -1;
    if (f[0][0] == 'u') {
      if (b < a)
        return -1;
      d->kind = DIST_UNIFORM;
    } else
      d->kind = f[0][0] == 'n' ? DIST_NORMAL : DIST_LOGNORMAL;
  } else
    return -1;
  d->a = a;
  d->b = b;
  return 0;
}

void dist_format(const struct dist *d, char *buf, unsigned long len) {
  switch (d->kind) {
  case DIST_FIXED:
    snprintf(buf, len, "fixed:%.0f", d->a);
    break;
  case DIST_UNIFORM:
    snprintf(buf, len, "uniform:%.0f:%.0f", d->a, d->b);
    break;
  case DIST_EXP:
    snprintf(buf, len, "exp:%.0f", d->a);
    break;
  case DIST_NORMAL:
    snprintf(buf, len, "normal:%.0f:%.0f", d->a, d->b);
    break;
  case DIST_LOGNORMAL:
    snprintf(buf, len, "lognormal:%.0f:%.0f", d->a, d->b);
    break;
  }
}
