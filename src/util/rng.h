/* rng.h: a seeded, portable pseudo-random generator.
 *
 * xoshiro256** (Blackman and Vigna, "Scrambled linear pseudorandom number generators", 2018),
 * seeded through splitmix64, so a seed gives the same stream on every platform and libc
 * (unlike rand()). The state is a plain struct so it can be copied and saved. */
#ifndef SCALEDOT_RNG_H
#define SCALEDOT_RNG_H

#include <stdint.h>

typedef struct {
    uint64_t s[4];
} Rng;

/* Seeds the generator; any 64-bit seed is valid, 0 included. */
void rng_seed(Rng *r, uint64_t seed);

/* Next 64 uniformly distributed bits. */
uint64_t rng_u64(Rng *r);

/* Uniform integer in [0, n), n >= 1, without modulo bias (rejection). */
uint32_t rng_below(Rng *r, uint32_t n);

/* Uniform double in [0, 1) with 53 random bits. */
double rng_uniform(Rng *r);

/* Standard normal N(0, 1) by the Box-Muller transform; uses two uniforms per call, keeps no
 * cached second value, so the state alone determines the stream. */
double rng_normal(Rng *r);

#endif
