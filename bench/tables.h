/* tables.h: `make bench`'s printed tables of the step timings (tables.c). */
#ifndef SCALEDOT_TABLES_H
#define SCALEDOT_TABLES_H

#include <stddef.h>

#include "machine.h"
#include "step_timing.h"

/* "(B,T,C,L,NH,V)" of s into buf. */
void shape_label(const Shape *s, char *buf, size_t n);
/* Prints the time, kernel-share and memory tables of res[i·N_PATHS + path] for shapes
 * i < n_shapes (rows whose ok is 0 left out), then the thread scaling and the bf16 step against
 * the float32 one, or with seq_base >= 0 (--seq) the cost per token against shapes[seq_base]
 * (float32). */
void print_tables(const Shape *shapes, int n_shapes, const Result *res, const Peak *peak,
                  int seq_base);

#endif
