/* kernel_wrap.h: the per-kernel seconds of a training step that the -Wl,--wrap timers of
 * kernel_wrap.c add up (the optimizer's and "other" are filled in by step_timing.c). */
#ifndef SCALEDOT_KERNEL_WRAP_H
#define SCALEDOT_KERNEL_WRAP_H

/* The kernels timed through -Wl,--wrap (kernel_wrap.c), plus the optimizer step (timed in
 * step_timing.c) and "other", the rest of the step. */
enum { K_MM_FWD, K_MM_BWD, K_ATT_FWD, K_ATT_BWD, K_LN, K_GELU, K_LOSS, K_OPT, K_OTHER, K_COUNT };
extern const char *const kernel_names[K_COUNT];
/* Seconds spent in each kernel since the caller last zeroed it; the wrappers add to it. */
extern double kernel_s[K_COUNT];

#endif
