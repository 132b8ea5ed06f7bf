/* clock.h: the one clock scaledot measures durations with (the training loop's elapsed_s and
 * tokens_per_s, a sweep run's wall time, the sweep's ETA). */
#ifndef SCALEDOT_CLOCK_H
#define SCALEDOT_CLOCK_H

/* Seconds on the monotonic clock (CLOCK_MONOTONIC: it never jumps when the wall clock is set,
 * so the difference of two readings is the time that passed). Only differences mean anything;
 * the origin is arbitrary (the boot, on Linux). Resolution 1 ns, as a double. */
double now_s(void);

#endif
