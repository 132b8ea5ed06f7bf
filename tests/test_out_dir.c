/* test_out_dir.c: the default report folder of --compare (src/report/page/out_dir.c): plain names
 * kept, spaces and parentheses replaced, long lists shortened, and two different run lists never
 * given the same folder. */
#include "report/page/page_internal.h"

#include <check.h>
#include <stdio.h>
#include <string.h>

#include "testutil.h"

/* Only [A-Za-z0-9._-] after "reports/", and no leading '.'. */
static int clean(const char *dir) {
    if (strncmp(dir, "reports/", 8) != 0 || dir[8] == '.' || dir[8] == 0) return 0;
    for (const char *p = dir + 8; *p; p++)
        if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-", *p))
            return 0;
    return 1;
}

START_TEST(test_names) {
    /* want: the whole folder, or (ending in '*') its beginning followed by 8 hex digits */
    static const struct {
        const char *names[4];
        int n;
        const char *want;
    } cases[] = {
        {{"scaled", "unscaled"}, 2, "reports/scaled_vs_unscaled"},
        {{"recall_scaled", "recall_unscaled"}, 2, "reports/recall_scaled_vs_recall_unscaled"},
        {{"scaled (2)", "unscaled"}, 2, "reports/scaled_2_vs_unscaled_*"},
        {{"my run", "x"}, 2, "reports/my_run_vs_x_*"},
        {{"..", "a/b"}, 2, "reports/run_vs_a_b_*"},
        {{"one"}, 1, "reports/one"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char out[256];
        out_dir_default(out, sizeof out, cases[i].names, cases[i].n);
        ck_assert_msg(clean(out), "case %zu: '%s' has a character a folder name should not", i, out);
        size_t wl = strlen(cases[i].want);
        if (cases[i].want[wl - 1] == '*') {
            ck_assert_msg(strncmp(out, cases[i].want, wl - 1) == 0 && strlen(out) == wl - 1 + 8,
                          "case %zu: '%s', want '%s' + 8 hex digits", i, out, cases[i].want);
        } else {
            ck_assert_msg(strcmp(out, cases[i].want) == 0, "case %zu: '%s', want '%s'", i, out,
                          cases[i].want);
        }
    }
}
END_TEST

/* Four runs with 25-character names: the joined name is too long, so the folder is shortened;
 * another set of four (one name differs) must get another folder, the same set the same one. */
START_TEST(test_long_lists_stay_apart) {
    const char *a[] = {"scaled_seed1_lr3e-3_dk064", "scaled_seed2_lr3e-3_dk064",
                       "unscaled_seed1_lr3e-3_dk64", "unscaled_seed2_lr3e-3_dk64"};
    const char *b[] = {"scaled_seed1_lr3e-3_dk064", "scaled_seed2_lr3e-3_dk064",
                       "unscaled_seed1_lr3e-3_dk64", "unscaled_seed3_lr3e-3_dk64"};
    char oa[256], ob[256], oa2[256];
    out_dir_default(oa, sizeof oa, a, 4);
    out_dir_default(ob, sizeof ob, b, 4);
    out_dir_default(oa2, sizeof oa2, a, 4);
    ck_assert(clean(oa) && clean(ob));
    ck_assert_msg(strlen(oa) <= 8 + OUT_DIR_MAX_NAME, "'%s' too long", oa);
    ck_assert_msg(strcmp(oa, ob) != 0, "two run lists share '%s'", oa);
    ck_assert_str_eq(oa, oa2);
    ck_assert_msg(strncmp(oa, "reports/scaled_seed1_lr3e-3_dk064_vs_3_more_", 44) == 0, "'%s'", oa);
    /* names that sanitize alike stay apart too */
    const char *c[] = {"a b", "x"}, *d[] = {"a(b", "x"};
    out_dir_default(oa, sizeof oa, c, 2);
    out_dir_default(ob, sizeof ob, d, 2);
    ck_assert_msg(strcmp(oa, ob) != 0, "'a b' and 'a(b' share '%s'", oa);
}
END_TEST

TU_MAIN("out_dir", test_names, test_long_lists_stay_apart);
