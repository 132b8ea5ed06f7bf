/* lrmapcheck.h: lr_map_place as ./train calls it, for test_lr_map and test_lr_map_runs. Static
 * inline (as configcheck.h): the double-precision test programs link no train object. */
#ifndef SCALEDOT_LRMAPCHECK_H
#define SCALEDOT_LRMAPCHECK_H

#include <check.h>

#include "tasks/tasks.h"
#include "train/lr_map.h"

/* lr_map_place with the T of c's task, built as --where builds it (task_init_model_only), a text
 * regime's corpus read from corpus_base (NULL: as ./train reads it, from the checkout the program
 * is in: this source tree, which the tests run from). */
static inline int lmc_place_from(const Config *c, const char *corpus_base, LrPlacement *p) {
    Task t;
    ck_assert_int_eq(task_init_model_only(&t, c), 0);
    int T = t.seq_len;
    task_free(&t);
    return lr_map_place(c, T, corpus_base, p);
}

static inline int lmc_place(const Config *c, LrPlacement *p) { return lmc_place_from(c, NULL, p); }

#endif
