/* test_guards.c: tripped guards (src/train/guards.c) are reported once per layer and head (or
 * per gradient bound), counted, and summed up at the end; end to end, a guard tripping at every
 * logged step of ./train prints one line per head, not one per step. */
#include "train/guards.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

static int count_substr(const char *text, const char *needle) {
    int n = 0;
    for (const char *p = text; (p = strstr(p, needle)); p += strlen(needle)) n++;
    return n;
}

START_TEST(test_once_per_slot_and_counts) {
    GuardLog g;
    static const double off[GUARD_KINDS] = {0};
    ck_assert_int_eq(guards_init(&g, 2, 3, off, 0), 0);
    FILE *f = tmpfile();
    ck_assert_ptr_nonnull(f);
    /* (kind, layer, head, step) trips; expected counts worked out by hand below */
    static const struct {
        GuardKind kind;
        int layer, head, step;
    } trips[] = {
        {GUARD_LOGIT_STD, 1, 2, 0},  {GUARD_LOGIT_STD, 1, 2, 10}, {GUARD_LOGIT_STD, 1, 2, 20},
        {GUARD_LOGIT_STD, 0, 2, 10}, {GUARD_MAX_WEIGHT, 1, 2, 20}, {GUARD_GRAD_MAX, 0, 0, 5},
        {GUARD_GRAD_MAX, 0, 0, 6},   {GUARD_GRAD_MIN, 0, 0, 7},
    };
    for (size_t i = 0; i < sizeof trips / sizeof trips[0]; i++)
        ck_assert_int_eq(guards_trip(&g, trips[i].kind, trips[i].layer, trips[i].head,
                                     trips[i].step, "x", 0, f), 0);
    ck_assert_int_eq(guards_count(&g, GUARD_LOGIT_STD, 1, 2), 3);
    ck_assert_int_eq(guards_count(&g, GUARD_LOGIT_STD, 0, 2), 1);
    ck_assert_int_eq(guards_count(&g, GUARD_LOGIT_STD, 2 - 1, 1), 0);
    ck_assert_int_eq(guards_count(&g, GUARD_MAX_WEIGHT, 1, 2), 1);
    ck_assert_int_eq(guards_count(&g, GUARD_GRAD_MAX, 0, 0), 2);
    ck_assert_int_eq(guards_count(&g, GUARD_GRAD_MIN, 0, 0), 1);
    ck_assert_int_eq(guards_summary(&g, f), 5); /* five slots tripped */
    rewind(f);
    char text[4096];
    size_t n = fread(text, 1, sizeof text - 1, f);
    text[n] = 0;
    fclose(f);
    ck_assert_int_eq(count_substr(text, "guard: step "), 5); /* one per slot, at its first trip */
    /* step 10: the first trip of layer 0 head 2 only (layer 1 head 2 was reported at step 0);
     * step 6: the gradient bound's second trip */
    ck_assert_msg(count_substr(text, "guard: step 10: x") == 1 && !strstr(text, "guard: step 6:"),
                  "%s", text);
    ck_assert_msg(strstr(text, "layer 1 head 2: attention-logit std above guard.logit_std_max at 3 "
                               "checks, first at step 0"), "%s", text);
    ck_assert_msg(strstr(text, "layer 0 head 2: attention-logit std above guard.logit_std_max at 1 "
                               "check, first at step 10"), "%s", text);
    ck_assert_msg(strstr(text, "guard.grad_norm_max at 2 steps, first at step 5"), "%s", text);
    ck_assert_msg(strstr(text, "guard.grad_norm_min at 1 step, first at step 7"), "%s", text);
    /* stop is passed through */
    f = tmpfile();
    ck_assert_int_eq(guards_trip(&g, GUARD_LOGIT_STD, 0, 0, 3, "y", 1, f), 1);
    fclose(f);
    guards_free(&g);
}
END_TEST

/* guards_check: each kind against its bound, the side that trips it, the message it prints;
 * expected lines written by hand from the guard keys' documentation */
START_TEST(test_check_table) {
    static const struct {
        GuardKind kind;
        double value;
        int tripped;
        const char *line; /* the report of the first trip; "" when none */
    } cases[] = {
        {GUARD_LOGIT_STD, 8.05, 1, "guard: step 7: layer 1 head 0: attention-logit std 8.05 > guard.logit_std_max 2"},
        {GUARD_LOGIT_STD, 2.0, 0, ""}, /* at the bound: not past it */
        {GUARD_LOGIT_STD, 1.5, 0, ""},
        {GUARD_MAX_WEIGHT, 0.995, 1, "guard: step 7: layer 1 head 0: mean row-max attention weight 0.995 > guard.max_weight_max 0.9"},
        {GUARD_MAX_WEIGHT, 0.5, 0, ""},
        {GUARD_GRAD_MIN, 0.001, 1, "guard: step 7: global gradient norm 0.001 < guard.grad_norm_min 0.01"},
        {GUARD_GRAD_MIN, 0.5, 0, ""}, /* a lower bound: large values pass */
        {GUARD_GRAD_MAX, 12.5, 1, "guard: step 7: global gradient norm 12.5 > guard.grad_norm_max 10"},
        {GUARD_GRAD_MAX, 0.001, 0, ""}, /* an upper bound: small values pass */
    };
    const double bound[GUARD_KINDS] = {[GUARD_LOGIT_STD] = 2, [GUARD_MAX_WEIGHT] = 0.9,
                                       [GUARD_GRAD_MIN] = 0.01, [GUARD_GRAD_MAX] = 10};
    static const double off[GUARD_KINDS] = {0};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        for (int on = 0; on <= 1; on++) { /* a guard that is off (bound 0) never trips */
            GuardLog g;
            ck_assert_int_eq(guards_init(&g, 2, 2, on ? bound : off, 1), 0);
            FILE *f = tmpfile();
            ck_assert_ptr_nonnull(f);
            int got = guards_check(&g, cases[i].kind, cases[i].value, 1, 0, 7, f);
            rewind(f);
            char text[512];
            size_t n = fread(text, 1, sizeof text - 1, f);
            text[n] = 0;
            fclose(f);
            int want = on && cases[i].tripped;
            ck_assert_msg(got == want, "case %zu (on %d): got %d, want %d", i, on, got, want);
            ck_assert_int_eq(guards_count(&g, cases[i].kind, 1, 0), want);
            char line[256] = "";
            if (want) snprintf(line, sizeof line, "%s (guard.action = stop)\n", cases[i].line);
            ck_assert_msg(strcmp(text, line) == 0, "case %zu: got '%s', want '%s'", i, text, line);
            guards_free(&g);
        }
    }
}
END_TEST

START_TEST(test_train_reports_once_per_head) {
    char dir[256];
    tu_make_tmp(dir, sizeof dir, "/tmp/scaledot_test_guards_XXXXXX");
    /* unscaled, d_k 32: every logged step is far above std 2; 2 layers x 2 heads, 5 logged steps */
    ck_assert_int_eq(tu_run_train(dir, "--set attention.scale=none --set model.d_model=64 "
                                       "--set model.n_heads=2 --set model.n_layers=2 "
                                       "--set train.steps=20 --set log.every=5 --set train.eval_every=10 "
                                       "--set train.batch_size=8 --set task.val_size=32 "
                                       "--set guard.logit_std_max=2 --set log.progress=0 --set run.threads=1"),
                     0);
    char path[512];
    snprintf(path, sizeof path, "%s/out.txt", dir);
    char *out = tu_read_file(path, NULL);
    ck_assert_ptr_nonnull(out);
    ck_assert_msg(count_substr(out, "guard: step ") == 4, "want one line per layer and head:\n%s", out);
    ck_assert_msg(count_substr(out, "checks, first at step 0") == 4, "no summary:\n%s", out);
    free(out);
    tu_remove_tree(dir);
}
END_TEST

TU_MAIN_TIMEOUT("guards", 120, test_once_per_slot_and_counts, test_check_table,
                test_train_reports_once_per_head);
