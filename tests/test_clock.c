/* test_clock.c: now_s (src/util/clock.c) never runs backwards and measures a known sleep: the
 * difference across a nanosleep of 50 ms is at least 0.05 s (nanosleep sleeps at least that
 * long, on the same monotonic clock) and, on a machine that is not stalled, well under 10 s. */
#include <check.h>
#include <time.h>

#include "testutil.h"
#include "util/clock.h"

START_TEST(test_never_backwards) {
    double last = now_s();
    for (int i = 0; i < 100000; i++) {
        double t = now_s();
        TU_CHECK(t >= last);
        last = t;
    }
}
END_TEST

START_TEST(test_measures_a_sleep) {
    double t0 = now_s();
    struct timespec d = {0, 50 * 1000 * 1000}, left;
    while (nanosleep(&d, &left) != 0) d = left; /* EINTR: sleep the rest */
    double dt = now_s() - t0;
    ck_assert_msg(dt >= 0.05 && dt < 10.0, "50 ms sleep measured as %g s", dt);
}
END_TEST

TU_MAIN("clock", test_never_backwards, test_measures_a_sleep);
