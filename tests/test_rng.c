/* test_rng.c: the generator of src/util/rng.c against the published algorithms: splitmix64's
 * reference outputs, xoshiro256** rewritten here from Blackman and Vigna's paper (2018) and its
 * first output worked by hand, the 53-bit uniform, unbiased rng_below by rejection, and the
 * Box-Muller normal, each computed here from the raw 64-bit stream. */
#include "util/rng.h"

#include <check.h>
#include <math.h>
#include <stdint.h>

#include "testutil.h"

/* ------------------------------------------------ the reference algorithms, written here */

static uint64_t ref_splitmix64(uint64_t *x) {
    *x += 0x9E3779B97F4A7C15ull;
    uint64_t z = *x;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static uint64_t ref_rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

/* xoshiro256** as in the authors' reference code (xoshiro256starstar.c, prng.di.unimi.it). */
static uint64_t ref_next(uint64_t s[4]) {
    const uint64_t result = ref_rotl(s[1] * 5, 7) * 9;
    const uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = ref_rotl(s[3], 45);
    return result;
}

static void ref_seed(uint64_t s[4], uint64_t seed) {
    for (int i = 0; i < 4; i++) s[i] = ref_splitmix64(&seed);
}

static const uint64_t SEEDS[] = {0, 1, 42, 1234567, 0xFFFFFFFFFFFFFFFFull};
#define N_SEEDS (sizeof SEEDS / sizeof SEEDS[0])

/* ------------------------------------------------------------------------------ tests */

/* splitmix64 from seed 1234567: the reference outputs published with Vigna's splitmix64.c (and
 * Java's SplittableRandom); rng_seed's state is its first four. */
START_TEST(test_seed_is_splitmix64) {
    static const uint64_t want[4] = {6457827717110365317ull, 3203168211198807973ull,
                                     9817491932198370423ull, 4593380528125082431ull};
    Rng r;
    rng_seed(&r, 1234567);
    for (int i = 0; i < 4; i++)
        ck_assert_msg(r.s[i] == want[i], "s[%d] = %llu, want %llu", i, (unsigned long long)r.s[i],
                      (unsigned long long)want[i]);
    for (size_t k = 0; k < N_SEEDS; k++) {
        uint64_t s[4];
        ref_seed(s, SEEDS[k]);
        rng_seed(&r, SEEDS[k]);
        for (int i = 0; i < 4; i++)
            ck_assert_msg(r.s[i] == s[i], "seed %llu: s[%d] differs", (unsigned long long)SEEDS[k],
                          i);
    }
}
END_TEST

/* State {1, 2, 3, 4}: the first output is rotl(2 * 5, 7) * 9 = 1280 * 9 = 11520; the state after
 * it, by the update rule: s2 = 3^1 = 2, s3 = 4^2 = 6, s1 = 2^2 = 0, s0 = 1^6 = 7, s2 ^= 2<<17,
 * s3 = rotl(6, 45). Then 10000 outputs per seed against the reference. */
START_TEST(test_u64_is_xoshiro256starstar) {
    Rng r = {{1, 2, 3, 4}};
    ck_assert(rng_u64(&r) == 11520);
    ck_assert(r.s[0] == 7 && r.s[1] == 0 && r.s[2] == (2 ^ (2ull << 17)));
    ck_assert(r.s[3] == (6ull << 45 | 6ull >> 19));
    for (size_t k = 0; k < N_SEEDS; k++) {
        uint64_t s[4];
        ref_seed(s, SEEDS[k]);
        rng_seed(&r, SEEDS[k]);
        for (int i = 0; i < 10000; i++) {
            uint64_t want = ref_next(s), got = rng_u64(&r);
            TU_CHECK_MSG(got == want, "seed %llu, draw %d: %llu, want %llu",
                          (unsigned long long)SEEDS[k], i, (unsigned long long)got,
                          (unsigned long long)want);
        }
    }
}
END_TEST

/* rng_uniform is the top 53 bits over 2^53: in [0, 1) and exactly that value. */
START_TEST(test_uniform_is_top_53_bits) {
    for (size_t k = 0; k < N_SEEDS; k++) {
        uint64_t s[4];
        Rng r;
        ref_seed(s, SEEDS[k]);
        rng_seed(&r, SEEDS[k]);
        for (int i = 0; i < 1000; i++) {
            double want = ldexp((double)(ref_next(s) >> 11), -53), got = rng_uniform(&r);
            ck_assert_msg(got == want, "seed %zu, draw %d: %.17g, want %.17g", k, i, got, want);
            ck_assert(got >= 0.0 && got < 1.0);
        }
    }
}
END_TEST

/* The inverse of an odd a modulo 2^64 (Newton: each step doubles the correct low bits). */
static uint64_t inv_odd(uint64_t a) {
    uint64_t x = a; /* right to 3 bits for odd a */
    for (int i = 0; i < 5; i++) x *= 2 - a * x;
    return x;
}

/* A state whose next xoshiro256** output is v: result = rotl(s1 * 5, 7) * 9, solved for s1. */
static Rng state_giving(uint64_t v) {
    uint64_t y = v * inv_odd(9);
    Rng r = {{0x1234, ((y >> 7) | (y << 57)) * inv_odd(5), 0x5678, 0x9abc}};
    return r;
}

/* rng_below(n) takes the draw x mod n, but first rejects every x at or above the largest multiple
 * of n that fits in 64 bits (written here as (2^64 - 1) / n * n), so each residue has the same
 * number of draws. Such draws are rare (< n in 2^64), so states are built to give them. */
START_TEST(test_below_rejects_the_partial_block) {
    static const uint32_t NS[] = {1, 2, 3, 7, 10, 1000, 0x80000001u, 0xFFFFFFFFu};
    for (size_t c = 0; c < sizeof NS / sizeof NS[0]; c++) {
        uint32_t n = NS[c];
        uint64_t limit = UINT64_MAX / n * n;
        /* an ordinary stream: 2000 draws, each x mod n of the reference stream */
        uint64_t s[4];
        Rng r;
        ref_seed(s, 7 + c);
        rng_seed(&r, 7 + c);
        for (int i = 0; i < 2000; i++) {
            uint64_t x;
            do x = ref_next(s);
            while (x >= limit);
            uint32_t got = rng_below(&r, n);
            ck_assert_msg(got == x % n, "n = %u, draw %d: %u, want %llu", n, i, got,
                          (unsigned long long)(x % n));
        }
        /* the first draw exactly at the limit, or the largest possible: rejected, so the answer
         * is the second draw's residue */
        static const int AT_MAX[] = {0, 1};
        for (int k = 0; k < 2; k++) {
            uint64_t first = AT_MAX[k] ? UINT64_MAX : limit;
            Rng b = state_giving(first);
            uint64_t ref[4] = {b.s[0], b.s[1], b.s[2], b.s[3]};
            ck_assert(ref_next(ref) == first); /* the construction itself */
            uint64_t x;
            do x = ref_next(ref);
            while (x >= limit);
            uint32_t got = rng_below(&b, n);
            ck_assert_msg(got == x % n, "n = %u, first draw %llu: %u, want %llu (rejection)", n,
                          (unsigned long long)first, got, (unsigned long long)(x % n));
        }
        /* just below the limit: accepted as it is */
        {
            Rng b = state_giving(limit - 1);
            ck_assert_msg(rng_below(&b, n) == (limit - 1) % n, "n = %u: limit - 1 rejected", n);
        }
    }
}
END_TEST

/* Box-Muller: sqrt(-2 ln(1 - u1)) cos(2 pi u2), u1 then u2 from the uniform stream. */
START_TEST(test_normal_is_box_muller) {
    uint64_t s[4];
    Rng r;
    ref_seed(s, 2024);
    rng_seed(&r, 2024);
    double sum = 0, sum2 = 0;
    enum { N = 20000 };
    for (int i = 0; i < N; i++) {
        double u1 = ldexp((double)(ref_next(s) >> 11), -53);
        double u2 = ldexp((double)(ref_next(s) >> 11), -53);
        double want = sqrt(-2.0 * log(1.0 - u1)) * cos(2.0 * acos(-1.0) * u2), got = rng_normal(&r);
        ck_assert_msg(fabs(got - want) <= 1e-15 * (1 + fabs(want)), "draw %d: %.17g, want %.17g",
                      i, got, want);
        sum += got;
        sum2 += got * got;
    }
    /* N(0, 1): mean within 5 SE (5/sqrt(N) = 0.035), variance within 5 SE (5 sqrt(2/N) = 0.05) */
    ck_assert(fabs(sum / N) < 0.035);
    ck_assert(fabs(sum2 / N - 1.0) < 0.05);
}
END_TEST

TU_MAIN("rng", test_seed_is_splitmix64, test_u64_is_xoshiro256starstar, test_uniform_is_top_53_bits,
        test_below_rejects_the_partial_block, test_normal_is_box_muller);
