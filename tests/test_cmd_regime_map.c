/* test_cmd_regime_map.c: ./train --regime-map's arguments (src/cli/cmd_regime_map.c): --help, the
 * mistakes that end with exit code 2 before any work (nothing written, no folder made), a
 * sweep.csv that cannot be parsed (exit 1, no folder made), one good line, and an --out that
 * is a link or holds the user's files of the map's names (exit 2, nothing written); paths with
 * control bytes quoted escaped on stderr and stdout. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "temp_names.h"
#include "testutil.h"

#define regime_map(...) tu_run_cmd(cli_regime_map, __VA_ARGS__)

static char g_tmp[64];
static void make_tmp(void) { tu_make_tmp(g_tmp, sizeof g_tmp, "/tmp/test_cmd_regime_map.XXXXXX"); }
static void remove_tmp(void) { tu_remove_tree(g_tmp); }

/* two lrs: the map over lr x width is drawn too (regime_map_lr.*) */
static const char SWEEP[] = "run,d_model,scale,seed,optim.lr,status,val_loss,val_answer_acc,"
                            "first_step_90,last_eval_step,predicted_logit_std,init_scheme\n"
                            "s,64,sqrt_dk,1,1e-3,ok,0.1,1,200,1000,1,fan_in\n"
                            "n,64,none,1,2e-3,ok,0.5,0.5,,1000,8,fan_in\n";

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
        {{"--out", NULL}, "error: --out (argument 2): needs a folder\n"},
        {{"--out", "OUT", NULL}, "needs at least one sweep folder"},
        {{"--out", "OUT", "EMPTY", NULL}, "holds no readable sweep.csv"},
        {{"--out", "OUT", "SW", "--bogus"}, "error: --bogus (argument 5): unknown option for "
                                             "--regime-map\nusage:"},
        {{"SW", NULL}, "needs --out DIR"},
        /* the arguments holding the two values (OUT is argument 3 after ./train --regime-map) */
        {{"--out", "OUT", "--out=OUT", "SW"},
         "--out (argument 4): given twice (first at argument 3); give it once"},
        {{"--out", "OUT", "SW", "SW2"}, "is given twice"},   /* the same folder spelled twice */
        /* the user's path quoted escaped (util/error_list.h) */
        {{"--out", "OUT", "sw\x1b[2J\r\xc2\x9b\x9b", NULL},
         "error: 'sw\\x1b[2J\\r\\xc2\\x9b\\x9b' holds no readable sweep.csv"},
        {{"--out", "OUT", "--bogus\x1b", NULL},
         "error: --bogus\\x1b (argument 4): unknown option for --regime-map\n"},
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
        tu_assert_no_raw_control(r.err, "stderr");
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
    snprintf(path, sizeof path, "%s/regime_map_lr.csv", out);
    ck_assert_int_eq(tu_count_lines(path), 3);
    tu_result_free(&r);
    /* a folder whose path holds an escape sequence, a CR, a C1 CSI and a lone 0x9b: its files
     * named escaped on stdout (util/error_list.h) */
    snprintf(out, sizeof out, "%s/o\x1b[2J\r\xc2\x9b\x9b", g_tmp);
    r = regime_map("--out", out, sw, NULL);
    ck_assert_msg(r.rc == 0, "rc %d: %s", r.rc, r.err);
    static const char *const FILES[] = {"regime_map.svg", "regime_map.csv", "regime_map_lr.svg",
                                        "regime_map_lr.csv"};
    for (int i = 0; i < 4; i++) {
        snprintf(path, sizeof path, "wrote %s/o\\x1b[2J\\r\\xc2\\x9b\\x9b/%s\n", g_tmp,
                 FILES[i]);
        ck_assert_msg(strstr(r.out, path), "'%s' not in:\n%s", path, r.out);
    }
    tu_assert_no_raw_control(r.out, "stdout");
    tu_result_free(&r);
}
END_TEST

/* --out that is a link, or a folder holding a regime_map[_lr].svg / .csv the user made (or a
 * link there): exit 2 before any work, the user's files unchanged and nothing written beside them.
 * The map's own folder, drawn again, is replaced (exit 0). */
START_TEST(test_out_refused_unless_ours) {
    char sw[128], dir[128], link[160], path[256], other[256];
    tu_put_file(sw, sizeof sw, g_tmp, "sw", "sweep.csv", SWEEP);
    /* a link to a folder */
    snprintf(dir, sizeof dir, "%s/real", g_tmp);
    mkdir(dir, 0755);
    snprintf(link, sizeof link, "%s/link", g_tmp);
    ck_assert_int_eq(symlink(dir, link), 0);
    TuResult r = regime_map("--out", link, sw, NULL);
    ck_assert_msg(r.rc == 2 && strstr(r.err, "symbolic link"), "rc %d: %s", r.rc, r.err);
    tu_result_free(&r);
    snprintf(path, sizeof path, "%s/regime_map.csv", dir);
    ck_assert_msg(access(path, F_OK) != 0, "written through the link");
    /* the user's own files of those names, and a link named like one of ours */
    static const struct {
        const char *name, *text;
    } USER[] = {
        {"regime_map.svg", "<svg>my own figure</svg>\n"},
        {"regime_map.csv", "a,b\n1,2\n"},
        {"regime_map.csv", "sweep,run\n"}, /* a prefix of our header is not our header */
        {"regime_map_lr.svg", "<svg>mine</svg>\n"},
        {"regime_map_lr.csv", "d_model,scale\n64,none\n"},
        /* the other map's header is not this one's */
        {"regime_map_lr.csv", "sweep,run,scale,init_scheme,predicted_logit_std,val_answer_acc,"
                              "slowdown_90,slowdown_90_bound\n"},
    };
    for (size_t i = 0; i < sizeof USER / sizeof *USER; i++) {
        char d[128], sub[16];
        snprintf(sub, sizeof sub, "user%zu", i);
        tu_put_file(d, sizeof d, g_tmp, sub, USER[i].name, USER[i].text);
        snprintf(path, sizeof path, "%s/%s", d, USER[i].name);
        r = regime_map("--out", d, sw, NULL);
        ck_assert_msg(r.rc == 2 && strstr(r.err, "is not a file ./train --regime-map wrote"),
                      "case %zu: rc %d: %s", i, r.rc, r.err);
        tu_result_free(&r);
        ck_assert_msg(tu_file_holds(path, USER[i].text), "case %zu: the user's file changed", i);
        snprintf(other, sizeof other, "%s/%s", d,
                 strstr(USER[i].name, ".svg") ? "regime_map.csv" : "regime_map.svg");
        ck_assert_msg(access(other, F_OK) != 0, "case %zu: written beside the user's file", i);
    }
    /* our own folder, twice */
    snprintf(dir, sizeof dir, "%s/ours", g_tmp);
    for (int k = 0; k < 2; k++) {
        r = regime_map("--out", dir, sw, NULL);
        ck_assert_msg(r.rc == 0, "pass %d: rc %d: %s", k, r.rc, r.err);
        tu_result_free(&r);
    }
    /* a link named like one of ours, even to a map of ours: the user's link would be replaced */
    static const char *const LINKED[] = {"regime_map.svg", "regime_map_lr.csv"};
    for (int k = 0; k < 2; k++) {
        char d[160];
        snprintf(other, sizeof other, "%s/%s", dir, LINKED[k]);
        snprintf(d, sizeof d, "%s/linked%d", g_tmp, k);
        mkdir(d, 0755);
        snprintf(path, sizeof path, "%s/%s", d, LINKED[k]);
        ck_assert_int_eq(symlink(other, path), 0);
        r = regime_map("--out", d, sw, NULL);
        ck_assert_msg(r.rc == 2, "a link named %s: rc %d: %s", LINKED[k], r.rc, r.err);
        tu_result_free(&r);
        struct stat st;
        ck_assert(lstat(path, &st) == 0 && S_ISLNK(st.st_mode));
    }
}
END_TEST

/* The same runs with other accuracies: every file of the map differs from SWEEP's. */
static const char SWEEP2[] = "run,d_model,scale,seed,optim.lr,status,val_loss,val_answer_acc,"
                             "first_step_90,last_eval_step,predicted_logit_std,init_scheme\n"
                             "s,64,sqrt_dk,1,1e-3,ok,0.1,0.97,200,1000,1,fan_in\n"
                             "n,64,none,1,2e-3,ok,0.5,0.25,,1000,8,fan_in\n";

static const char *const SET[] = {"regime_map.csv", "regime_map.svg", "regime_map_lr.csv",
                                  "regime_map_lr.svg"};

/* A map drawn over an earlier one from sweeps of one lr: the earlier lr map is removed (it would
 * stand beside the new map as if of the same runs), and stdout says so. */
START_TEST(test_stale_lr_map_removed) {
    char sw[128], one[128], out[160], path[256];
    tu_put_file(sw, sizeof sw, g_tmp, "sw", "sweep.csv", SWEEP);
    tu_put_file(one, sizeof one, g_tmp, "one", "sweep.csv",
                "run,d_model,scale,seed,optim.lr,status,val_loss,val_answer_acc,"
                "predicted_logit_std,init_scheme\ns,64,sqrt_dk,1,1e-3,ok,0.1,1,1,fan_in\n");
    snprintf(out, sizeof out, "%s/out", g_tmp);
    TuResult r = regime_map("--out", out, sw, NULL);
    ck_assert_msg(r.rc == 0, "rc %d: %s", r.rc, r.err);
    tu_result_free(&r);
    r = regime_map("--out", out, one, NULL);
    ck_assert_msg(r.rc == 0, "rc %d: %s", r.rc, r.err);
    for (int i = 2; i < 4; i++) {
        char said[400];
        snprintf(path, sizeof path, "%s/%s", out, SET[i]);
        ck_assert_msg(access(path, F_OK) != 0, "the earlier %s is left", SET[i]);
        snprintf(said, sizeof said, "removed %s: an earlier map's, and these sweeps draw no map "
                                    "over lr x width\n", path);
        ck_assert_msg(strstr(r.out, said), "%s", r.out);
    }
    tu_result_free(&r);
    snprintf(path, sizeof path, "%s/regime_map.csv", out);
    ck_assert_int_eq(tu_count_lines(path), 2);
}
END_TEST

/* A file of the set that cannot be written (folders at its temporary names: temp_names.h), the
 * folder holding an earlier map: exit 1 naming the file, and every file of the set is then the
 * new map's or gone, never the earlier map's beside new ones (the sweeps differ, so every file
 * does); the failed one is gone. */
START_TEST(test_failed_write_mixes_nothing) {
    char sw[128], sw2[128], ref[160];
    tu_put_file(sw, sizeof sw, g_tmp, "sw", "sweep.csv", SWEEP);
    tu_put_file(sw2, sizeof sw2, g_tmp, "sw2", "sweep.csv", SWEEP2);
    snprintf(ref, sizeof ref, "%s/ref", g_tmp);
    TuResult r = regime_map("--out", ref, sw2, NULL);
    ck_assert_msg(r.rc == 0, "rc %d: %s", r.rc, r.err);
    tu_result_free(&r);
    for (int k = 0; k < 4; k++) {
        char out[160], path[256], tmp[300];
        snprintf(out, sizeof out, "%s/fail%d", g_tmp, k);
        r = regime_map("--out", out, sw, NULL);
        ck_assert_msg(r.rc == 0, "rc %d: %s", r.rc, r.err);
        tu_result_free(&r);
        snprintf(path, sizeof path, "%s/%s", out, SET[k]);
        temp_names_take(path, tmp, sizeof tmp);
        r = regime_map("--out", out, sw2, NULL);
        snprintf(path, sizeof path, "error: cannot write '%s/%s'", out, SET[k]);
        ck_assert_msg(r.rc == 1 && strstr(r.err, path), "case %d: rc %d: %s", k, r.rc, r.err);
        tu_result_free(&r);
        for (int i = 0; i < 4; i++) {
            char want[256];
            snprintf(path, sizeof path, "%s/%s", out, SET[i]);
            snprintf(want, sizeof want, "%s/%s", ref, SET[i]);
            char *text = tu_read_file(want, NULL);
            ck_assert_ptr_nonnull(text);
            /* written before the failure: new; the failed one: gone; the rest new or gone */
            if (i < k)
                ck_assert_msg(tu_file_holds(path, text), "case %d: %s is not new", k, SET[i]);
            else
                ck_assert_msg(access(path, F_OK) != 0 || (i > k && tu_file_holds(path, text)),
                              "case %d: the earlier %s is left beside the new files", k, SET[i]);
            free(text);
        }
    }
}
END_TEST

TU_MAIN_FIXTURE("cli_regime_map", make_tmp, remove_tmp, test_mistakes_exit_2,
                test_bad_csv_makes_no_folder, test_help_and_good_line, test_out_refused_unless_ours,
                test_stale_lr_map_removed, test_failed_write_mixes_nothing);
