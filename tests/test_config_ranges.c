/* test_config_ranges.c: every optimizer setting at and just past each bound of its range.
 *
 * The ranges are the documented ones (docs/configuration.md): optim.lr in (0, 10],
 * beta1 and beta2 in [0, 1) (β = 1 never forgets, and 1 − β2ᵗ = 0 divides by zero), eps > 0,
 * weight_decay in [0, 10], momentum in [0, 1), grad_clip >= 0, warmup_steps >= 0, min_lr >= 0;
 * and the W_q, W_k multipliers optim.lr_q_mult, lr_k_mult, init.q_mult, init.k_mult in (0, 1e6].
 * A refused value must leave the setting unchanged and name its key. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "testutil.h"

typedef struct {
    const char *assignment;
    int accepted;
} RangeCase;

static const RangeCase CASES[] = {
    {"optim.lr=0", 0},
    {"optim.lr=-1e-9", 0},
    {"optim.lr=1e-300", 0}, /* 0 in float32, where the update computes (issue 21 item 11) */
    {"optim.lr=10", 1},
    {"optim.lr=10.000001", 0},
    {"optim.beta1=0", 1},
    {"optim.beta1=-1e-12", 0},
    {"optim.beta1=0.999999", 1},
    {"optim.beta1=1", 0},
    {"optim.beta2=0", 1},
    {"optim.beta2=-0.1", 0},
    {"optim.beta2=0.99999999", 1},
    {"optim.beta2=1", 0},
    {"optim.beta2=1.5", 0},
    {"optim.eps=0", 0},
    {"optim.eps=-1e-8", 0},
    {"optim.eps=1e-300", 0}, /* 0 in float32: Adam's denominator could be 0 (issue 21) */
    {"optim.eps=1e-30", 1},
    {"optim.eps=1e300", 1},
    {"optim.weight_decay=0", 1},
    {"optim.weight_decay=-1e-9", 0},
    {"optim.weight_decay=10", 1},
    {"optim.weight_decay=10.5", 0},
    {"optim.momentum=0", 1},
    {"optim.momentum=-0.5", 0},
    {"optim.momentum=0.999", 1},
    {"optim.momentum=1", 0},
    {"optim.grad_clip=0", 1},
    {"optim.grad_clip=-1e-9", 0},
    {"optim.grad_clip=1e300", 1},
    {"optim.warmup_steps=0", 1},
    {"optim.warmup_steps=-1", 0},
    {"optim.warmup_steps=2147483647", 1},
    {"optim.warmup_steps=2147483648", 0},
    {"optim.min_lr=0", 1},
    {"optim.min_lr=-1e-9", 0},
    {"optim.min_lr=5", 1},
    /* the W_q and W_k multipliers: positive, at most 1e6, normal in float32 */
    {"optim.lr_q_mult=0", 0},
    {"optim.lr_q_mult=-0.125", 0},
    {"optim.lr_q_mult=1e-300", 0},
    {"optim.lr_q_mult=0.125", 1},
    {"optim.lr_q_mult=1e6", 1},
    {"optim.lr_q_mult=1.000001e6", 0},
    {"optim.lr_k_mult=0", 0},
    {"optim.lr_k_mult=1e6", 1},
    {"optim.lr_k_mult=1.000001e6", 0},
    {"init.q_mult=0", 0},
    {"init.q_mult=-1", 0},
    {"init.q_mult=1e-300", 0},
    {"init.q_mult=0.125", 1},
    {"init.q_mult=1e6", 1},
    {"init.q_mult=1.000001e6", 0},
    {"init.k_mult=0", 0},
    {"init.k_mult=1e6", 1},
    {"init.k_mult=1.000001e6", 0},
};

START_TEST(test_optim_range) {
    const RangeCase *c = &CASES[_i];
    Config cfg, before;
    config_defaults(&cfg);
    before = cfg;
    TuCapture cap;
    tu_capture_begin(&cap, 2);
    int rc = config_set(&cfg, c->assignment, 3);
    char *err = tu_capture_end(&cap);
    char key[64];
    snprintf(key, sizeof key, "'%.*s'", (int)(strchr(c->assignment, '=') - c->assignment),
             c->assignment);
    if (c->accepted) {
        ck_assert_msg(rc == 0, "%s refused: %s", c->assignment, err);
    } else {
        ck_assert_msg(rc != 0, "%s accepted", c->assignment);
        ck_assert_msg(strstr(err, key) && strstr(err, "argument 3"), "%s: message '%s' names no %s",
                      c->assignment, err, key);
        ck_assert_msg(memcmp(&cfg, &before, CONFIG_SETTINGS_SIZE) == 0, "%s changed the config",
                      c->assignment);
    }
    free(err);
}
END_TEST

TU_MAIN("config_ranges", TU_LOOP(test_optim_range, 0, (int)(sizeof CASES / sizeof CASES[0])));
