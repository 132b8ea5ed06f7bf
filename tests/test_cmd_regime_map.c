/* test_cmd_regime_map.c: ./train --regime-map's arguments (src/cli/cmd_regime_map.c): --help, the
 * mistakes that end with exit code 2 before any work (nothing written, no folder made), a
 * sweep.csv that cannot be parsed (exit 1, no folder made) and one good line. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "testutil.h"

#define regime_map(...) tu_run_cmd(cli_regime_map, __VA_ARGS__)

static char g_tmp[64];
static void make_tmp(void) { tu_make_tmp(g_tmp, sizeof g_tmp, "/tmp/test_cmd_regime_map.XXXXXX"); }
static void remove_tmp(void) { tu_remove_tree(g_tmp); }

static const char SWEEP[] = "run,scale,seed,status,val_loss,val_answer_acc,first_step_90,"
                            "last_eval_step,predicted_logit_std,init_scheme\n"
                            "s,sqrt_dk,1,ok,0.1,1,200,1000,1,fan_in\n"
                            "n,none,1,ok,0.5,0.5,,1000,8,fan_in\n";

START_TEST(test_mistakes_exit_2) {
    char sw[128], sw2[160], empty[128], out[128];
    tu_put_file(sw, sizeof sw, g_tmp, "sw", "sweep.csv", SWEEP);
    snprintf(sw2, sizeof sw2, "%s/../sw/.", sw);
    snprintf(empty, sizeof empty, "%s/empty", g_tmp);
    mkdir(empty, 0755);
    snprintf(out, sizeof out, "%s/out", g_tmp);
    static const struct {
        const char *a[4];
        const char *err;
    } CASES[] = {
        {{NULL}, "needs --out DIR"},
        {{"--out", NULL}, "--out needs a folder"},
        {{"--out", "OUT", NULL}, "needs at least one sweep folder"},
        {{"--out", "OUT", "EMPTY", NULL}, "holds no readable sweep.csv"},
        {{"--out", "OUT", "SW", "--bogus"}, "unknown option '--bogus'"},
        {{"SW", NULL}, "needs --out DIR"},
        {{"--out", "OUT", "--out=OUT", "SW"}, "' and 'x')"}, /* the second value, not argv[i] */
        {{"--out", "OUT", "SW", "SW2"}, "is given twice"},   /* the same folder spelled twice */
    };
    for (size_t i = 0; i < sizeof CASES / sizeof *CASES; i++) {
        const char *args[5] = {NULL};
        for (int k = 0; k < 4 && CASES[i].a[k]; k++) {
            const char *a = CASES[i].a[k];
            args[k] = strcmp(a, "OUT") == 0 ? out : strcmp(a, "SW") == 0 ? sw
                    : strcmp(a, "SW2") == 0 ? sw2
                    : strcmp(a, "EMPTY") == 0 ? empty : strcmp(a, "--out=OUT") == 0 ? "--out=x" : a;
        }
        TuResult r = regime_map(args[0], args[1], args[2], args[3], NULL);
        ck_assert_msg(r.rc == 2 && strstr(r.err, CASES[i].err), "case %zu: rc %d, stderr: %s", i,
                      r.rc, r.err);
        struct stat st;
        ck_assert_msg(stat(out, &st) != 0, "case %zu: the out folder was made", i);
        tu_result_free(&r);
    }
}
END_TEST

/* A sweep.csv that cannot be parsed: exit 1, and DIR is not made (it is made only after every
 * sweep.csv was read). */
START_TEST(test_bad_csv_makes_no_folder) {
    char bad[128], out[160];
    tu_put_file(bad, sizeof bad, g_tmp, "bad", "sweep.csv", "a,b\n1,2\n");
    snprintf(out, sizeof out, "%s/out", g_tmp);
    TuResult r = regime_map("--out", out, bad, NULL);
    ck_assert_msg(r.rc == 1 && strstr(r.err, "no column"), "rc %d, stderr: %s", r.rc, r.err);
    struct stat st;
    ck_assert_msg(stat(out, &st) != 0, "the out folder was made");
    tu_result_free(&r);
}
END_TEST

START_TEST(test_help_and_good_line) {
    TuResult r = regime_map("--help", NULL);
    ck_assert_int_eq(r.rc, 0);
    ck_assert_ptr_nonnull(strstr(r.out, "usage: ./train --regime-map --out DIR SWEEP_DIR"));
    tu_result_free(&r);
    char sw[128], out[128], path[256];
    tu_put_file(sw, sizeof sw, g_tmp, "sw", "sweep.csv", SWEEP);
    snprintf(out, sizeof out, "%s/new/out", g_tmp);
    r = regime_map("--out", out, sw, NULL);
    ck_assert_msg(r.rc == 0, "rc %d: %s", r.rc, r.err);
    snprintf(path, sizeof path, "%s/regime_map.csv", out);
    ck_assert_int_eq(tu_count_lines(path), 3);
    tu_result_free(&r);
}
END_TEST

TU_MAIN_FIXTURE("cli_regime_map", make_tmp, remove_tmp, test_mistakes_exit_2,
                test_bad_csv_makes_no_folder, test_help_and_good_line);
