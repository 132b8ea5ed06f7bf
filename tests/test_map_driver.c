/* test_map_driver.c: experiments/lr_map_lib.sh, the driver of text_map.sh and mup_map.sh (with
 * common.sh), on a map of its own in the scratch folder: a tiny sourcing script (one part, p16:
 * the sort task at d_model 16, one layer, 10 steps, two scales, two seeds, lrs 1e-3 and 2e-3,
 * init fan_in) run with ./train. It checks that publishing does not depend on LRS (a republish
 * with another subset of the lrs writes the same bytes; rows and runs by lr, the plan's columns
 * before its runs), that settings which would mix or lose published data are refused before any
 * work in one line naming the variable, with nothing under results/ or sweeps/ changed (JOBS,
 * LRS in two spellings, ONLY, PARTS, a base other than the published plan's), and that
 * COST_ONLY prints the cost and leaves nothing a later publish takes as the map's, that only
 * runs which ended get a published curve, and that rows written with other columns are merged
 * by column name. */
#include <check.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"

#ifndef SCALEDOT_SOURCE_DIR
#define SCALEDOT_SOURCE_DIR "."
#endif

static char g_tmp[64];

/* the sourcing script: what text_map.sh defines, for a map of 8 runs that train in a second */
static const char TINY_MAP[] =
    "#!/usr/bin/env bash\n"
    ". \"$(dirname \"$(readlink -f \"$0\")\")/common.sh\"\n"
    "PARTS=${PARTS:-p16}\n"
    "SEEDS=${SEEDS:-1,2}\n"
    "LRS=${LRS:-1e-3 2e-3}\n"
    "INIT=${INIT:-fan_in}\n"
    "part_width() { case $1 in p16 | q16) echo 16 ;; *) echo \"tiny.sh: unknown part $1\" >&2; exit 2 ;; esac; }\n"
    "run_seconds() { echo 1; }\n"
    "plan() {\n"
    "    local out\n"
    "    out=$(sweep_dir \"$1\" \"$2\")\n"
    "    ./train --sweep configs/scaled.ini --dk 16 --d-model \"$(part_width \"$1\")\" --scales sqrt_dk,none \\\n"
    "        --grid optim.lr=\"$2\" --seeds \"$SEEDS\" --set model.n_layers=1 --set init.scheme=\"$INIT\" \\\n"
    "        --steps 10 --out \"$out\" --plan >/dev/null || return 2\n"
    "    echo \"$out\"\n"
    "}\n"
    "MAP=tiny\n"
    ". experiments/lr_map_lib.sh\n"
    "map_main\n";

/* g_tmp: experiments/{common,lr_map_lib,curves}.sh and configs/scaled.ini copied from the tree,
 * ./train, and experiments/tiny_map.sh (common.sh's `make -s train` finds ./train made) */
static void make_tree(void) {
    tu_make_tmp(g_tmp, sizeof g_tmp, "/tmp/test_map_driver.XXXXXX");
    char cmd[PATH_MAX * 4], path[PATH_MAX];
    snprintf(cmd, sizeof cmd,
             "cd '%s' && mkdir experiments configs && "
             "cp '%s'/experiments/common.sh '%s'/experiments/lr_map_lib.sh '%s'/experiments/curves.sh experiments/ && "
             "cp '%s'/configs/scaled.ini configs/ && cp '%s' train",
             g_tmp, SCALEDOT_SOURCE_DIR, SCALEDOT_SOURCE_DIR, SCALEDOT_SOURCE_DIR, SCALEDOT_SOURCE_DIR,
             tu_train_bin());
    ck_assert_int_eq(system(cmd), 0);
    snprintf(path, sizeof path, "%s/experiments/tiny_map.sh", g_tmp);
    tu_write_file(path, TINY_MAP);
}
static void remove_tree(void) { tu_remove_tree(g_tmp); }

/* what `env ENV bash experiments/tiny_map.sh` printed in the tree (the caller frees); *rc its
 * exit code. Without make's variables: under make test, common.sh's `make -s train` would warn
 * that the jobserver is unavailable. */
static char *run_map(const char *env, int *rc) {
    char cmd[PATH_MAX + 512], out[PATH_MAX];
    snprintf(out, sizeof out, "%s.out", g_tmp);
    snprintf(cmd, sizeof cmd, "cd '%s' && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL JOBS=2 %s "
             "bash experiments/tiny_map.sh", g_tmp, env);
    return tu_shell_output(cmd, out, rc);
}

/* run_map that must exit 0 */
static void run_ok(const char *env) {
    int rc;
    char *out = run_map(env, &rc);
    ck_assert_msg(rc == 0, "%s: exit code %d:\n%s", env, rc, out);
    free(out);
}

/* every path under the folders dirs (e.g. "results sweeps") and the checksum of each file: the
 * tree's state, compared whole (the caller frees) */
static char *snapshot(const char *dirs) {
    char cmd[PATH_MAX + 256], out[PATH_MAX];
    snprintf(out, sizeof out, "%s.snap", g_tmp);
    snprintf(cmd, sizeof cmd, "(cd '%s' && find %s -print 2>/dev/null | LC_ALL=C sort && "
             "find %s -type f 2>/dev/null | LC_ALL=C sort | xargs -r md5sum)", g_tmp, dirs, dirs);
    int rc;
    char *s = tu_shell_output(cmd, out, &rc);
    ck_assert_int_eq(rc, 0);
    return s;
}

/* runs the shell command cmd in the tree; it must succeed */
static void in_tree(const char *cmd) {
    char full[PATH_MAX + 256];
    snprintf(full, sizeof full, "cd '%s' && %s", g_tmp, cmd);
    ck_assert_msg(system(full) == 0, "%s failed", cmd);
}

/* the file of the tree at rel (the caller frees) */
static char *tree_file(const char *rel) {
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", g_tmp, rel);
    char *s = tu_read_file(path, NULL);
    ck_assert_msg(s != NULL, "%s is missing", rel);
    return s;
}

/* Publishing again, with any subset of the lrs or in any order, or over a publication that listed
 * the runs in another order, writes the same bytes when no run changed: trained in the order 2e-3
 * 1e-3, the published rows and plan runs are still by lr (1e-3 first), the columns line before
 * the runs. */
START_TEST(test_republish_same_bytes) {
    run_ok("LRS='2e-3 1e-3'");
    char *plan = tree_file("results/tiny/p16/plan.txt"), *csv = tree_file("results/tiny/p16/sweep.csv");
    ck_assert_msg(strstr(plan, "\naxis optim.lr 1e-3,2e-3\n"), "%s", plan);
    const char *cols = strstr(plan, "\ncolumns "), *run = strstr(plan, "\nrun ");
    ck_assert_msg(cols && run && cols < run, "the columns line is not before the runs:\n%s", plan);
    ck_assert_msg(strstr(cols + 1, "\ncolumns ") == NULL, "two columns lines:\n%s", plan);
    ck_assert_msg(strncmp(run, "\nrun dk16_sqrt_dk_lr-1e-3_s1 ", 29) == 0, "first run:\n%s", plan);
    const char *row = strchr(csv, '\n');
    ck_assert_msg(row && strncmp(row, "\ndk16_sqrt_dk_lr-1e-3_s1,", 25) == 0, "first row:\n%s", csv);
    /* the last row: the last run of the higher lr */
    const char *last = strstr(csv, "\ndk16_none_lr-2e-3_s2,");
    ck_assert_msg(last && strchr(last + 1, '\n') == csv + strlen(csv) - 1, "last row:\n%s", csv);
    free(plan);
    free(csv);
    char *before = snapshot("results");
    static const char *const REPUBLISH[] = {"PUBLISH_ONLY=1 LRS=2e-3", "PUBLISH_ONLY=1 LRS=1e-3",
                                            "PUBLISH_ONLY=1 LRS='2e-3 1e-3'", "PUBLISH_ONLY=1"};
    for (size_t i = 0; i < sizeof REPUBLISH / sizeof *REPUBLISH; i++) {
        run_ok(REPUBLISH[i]);
        char *after = snapshot("results");
        ck_assert_msg(strcmp(before, after) == 0, "%s changed results/:\n%s\nnow:\n%s", REPUBLISH[i],
                      before, after);
        free(after);
    }
    /* a plan and rows an earlier publication listed in another order (the run lines and the rows
     * reversed): publishing again orders them as above, also the lr no local sweep holds here */
    in_tree("f=results/tiny/p16/plan.txt && awk '/^run / { r[++n] = $0; next } { print } "
            "END { for (i = n; i > 0; i--) print r[i] }' $f > x && mv x $f");
    in_tree("f=results/tiny/p16/sweep.csv && (head -n 1 $f && tail -n +2 $f | tac) > x && mv x $f");
    in_tree("mv sweeps/tiny_p16/lr-1e-3 lr-1e-3.aside");
    run_ok("PUBLISH_ONLY=1 LRS=2e-3");
    in_tree("mv lr-1e-3.aside sweeps/tiny_p16/lr-1e-3");
    char *after = snapshot("results");
    ck_assert_msg(strcmp(before, after) == 0, "a reversed publication stayed so:\n%s\nnow:\n%s",
                  before, after);
    free(after);
    free(before);
}
END_TEST

/* Each refused setting: exit 2 before any work, one line naming it, nothing under results/ or
 * sweeps/ changed. setup (undone by undo after) changes the tree first: HIDE moves the local
 * sweeps away (another machine: only the published plan knows the part), STRAY adds a local
 * folder that spells 1e-3 otherwise. */
#define HIDE "mv sweeps sweeps.aside", "mv sweeps.aside sweeps"
#define STRAY "mkdir sweeps/tiny_p16/lr-0.001 && touch sweeps/tiny_p16/lr-0.001/plan.txt", \
              "rm -r sweeps/tiny_p16/lr-0.001"
/* DROPPED: the published plan without its init.scheme line (an older ./train's, which did not
 * write it and trained it at its default, fan_in), the local sweeps moved away */
#define DROPPED "mv sweeps sweeps.aside && cp results/tiny/p16/plan.txt plan.keep && " \
                "sed -i '/^base init.scheme = /d' results/tiny/p16/plan.txt",            \
                "mv sweeps.aside sweeps && mv plan.keep results/tiny/p16/plan.txt"
static const struct {
    const char *env, *setup, *undo, *needle[3];
} REFUSED[] = {
    {"JOBS=0", NULL, NULL, {"JOBS must be", "not '0'"}},
    {"JOBS=-1", NULL, NULL, {"JOBS must be", "not '-1'"}},
    {"JOBS=x", NULL, NULL, {"JOBS must be", "not 'x'"}},
    {"LRS='2e-3 0.002'", NULL, NULL, {"LRS: 2e-3 and 0.002 are the same lr"}},
    {"LRS='1e-3 1e-3'", NULL, NULL, {"LRS: 1e-3 and 1e-3 are the same lr"}},
    {"LRS='1e-3 fast'", NULL, NULL, {"LRS: \"fast\" is not a positive number"}},
    {"LRS=0.002", NULL, NULL, {"LRS: 0.002 is the lr 2e-3 of ", "write it 2e-3"}},
    {"LRS=0.002", HIDE, {"LRS: 0.002 is the lr 2e-3 of results/tiny/p16/plan.txt: write it 2e-3"}},
    {"LRS=1e-3", STRAY, {"LRS: the lr 1e-3 is spelled 1e-3 in results/tiny/p16/plan.txt but 0.001 in "
                         "sweeps/tiny_p16/lr-0.001"}},
    {"ONLY='('", NULL, NULL, {"ONLY: '(' is not an extended regular expression"}},
    {"PARTS=bogus", NULL, NULL, {"unknown part bogus"}},
    {"PARTS='p16 q16 p16'", NULL, NULL, {"PARTS: p16 is given twice"}},
    {"SEEDS=01,2", NULL, NULL, {"SEEDS: '01,2' spells a seed with a leading zero"}},
    {"INIT=gpt2", HIDE, {"part p16: the new plan has init.scheme = gpt2", "results/tiny/p16/plan.txt has init.scheme = fan_in"}},
    {"INIT=gpt2 COST_ONLY=1", HIDE, {"the new plan has init.scheme = gpt2", "init.scheme = fan_in"}},
    {"INIT=gpt2 COST_ONLY=1", DROPPED, {"the new plan has init.scheme = gpt2, which "
                                        "results/tiny/p16/plan.txt does not list (its runs trained "
                                        "at the default fan_in)"}},
};

START_TEST(test_refused) {
    run_ok("");
    for (size_t i = 0; i < sizeof REFUSED / sizeof *REFUSED; i++) {
        if (REFUSED[i].setup) in_tree(REFUSED[i].setup);
        char *before = snapshot("results sweeps");
        int rc;
        char *out = run_map(REFUSED[i].env, &rc);
        ck_assert_msg(rc == 2, "%s: exit code %d:\n%s", REFUSED[i].env, rc, out);
        char *nl = strchr(out, '\n');
        ck_assert_msg(nl && nl[1] == '\0', "%s: not one line:\n%s", REFUSED[i].env, out);
        for (int k = 0; k < 3 && REFUSED[i].needle[k]; k++)
            ck_assert_msg(strstr(out, REFUSED[i].needle[k]), "%s: no '%s' in:\n%s", REFUSED[i].env,
                          REFUSED[i].needle[k], out);
        char *after = snapshot("results sweeps");
        ck_assert_msg(strcmp(before, after) == 0, "%s changed results/ or sweeps/", REFUSED[i].env);
        free(before);
        free(after);
        free(out);
        if (REFUSED[i].undo) in_tree(REFUSED[i].undo);
    }
}
END_TEST

/* COST_ONLY with a seed set not planned yet (seeds 1-3 at 1e-3: the 2 runs of seed 3 left)
 * prints the cost and changes nothing: a later publish writes the same bytes (no never-trained
 * seed-3 rows, no seed 3 in the plan). SEEDS=2 (seeds 1..2) is the default set: with the runs
 * only local, nothing to train, and no lr-<L>_seeds-2 folder. */
START_TEST(test_cost_only_changes_nothing) {
    run_ok("");
    char *before = snapshot("results sweeps");
    int rc;
    char *out = run_map("COST_ONLY=1 SEEDS=3 LRS=1e-3", &rc);
    ck_assert_msg(rc == 0 && strstr(out, "part p16: 2 runs to train"), "exit code %d:\n%s", rc, out);
    free(out);
    /* ONLY is an extended regular expression with intervals (mawk's ~ reads {1} as text) */
    out = run_map("COST_ONLY=1 SEEDS=3 LRS=1e-3 ONLY='none_lr-1e-3_s[3]{1}$'", &rc);
    ck_assert_msg(rc == 0 && strstr(out, "part p16: 1 runs to train"), "exit code %d:\n%s", rc, out);
    free(out);
    char *after = snapshot("results sweeps");
    ck_assert_msg(strcmp(before, after) == 0, "COST_ONLY changed results/ or sweeps/:\n%s\nnow:\n%s",
                  before, after);
    free(after);
    free(before);
    before = snapshot("results");
    run_ok("PUBLISH_ONLY=1 SEEDS=3");
    after = snapshot("results");
    ck_assert_msg(strcmp(before, after) == 0, "the publish after COST_ONLY changed results/");
    free(after);
    free(before);
    in_tree("rm -r results");
    before = snapshot("sweeps");
    out = run_map("COST_ONLY=1 SEEDS=2", &rc);
    ck_assert_msg(rc == 0 && strstr(out, "part p16: 0 runs to train"), "exit code %d:\n%s", rc, out);
    free(out);
    after = snapshot("sweeps");
    ck_assert_msg(strcmp(before, after) == 0, "SEEDS=2 planned a folder:\n%s", after);
    free(after);
    free(before);
}
END_TEST

/* A part none of whose runs has ended (q16, planned, nothing trained: ONLY='^$') is not published,
 * said so, and the part after it is (before: --sweep-report's "no run ... has trained" ended the
 * script with exit 1 and a temporary folder left). */
START_TEST(test_part_without_ended_runs_skipped) {
    run_ok("");
    char *before = snapshot("results");
    in_tree("rm -r results/tiny/p16/summary.txt");
    int rc;
    char *out = run_map("ONLY='^$' PARTS='q16 p16'", &rc);
    ck_assert_msg(rc == 0 && strstr(out, "== results/tiny/q16: no run has ended yet: nothing published"),
                  "exit code %d:\n%s", rc, out);
    /* said once, in the driver's words: not as an error of ./train --sweep --collect */
    ck_assert_msg(!strstr(out, "error"), "an error printed for a normal state:\n%s", out);
    free(out);
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/results/tiny/q16", g_tmp);
    ck_assert_msg(access(path, F_OK) != 0, "%s was made", path);
    char *after = snapshot("results"); /* p16 published again: its summary back, the same bytes */
    ck_assert_msg(strcmp(before, after) == 0, "p16 not published as before:\n%s\nnow:\n%s", before,
                  after);
    free(after);
    free(before);
}
END_TEST

/* A part whose local sweeps hold no ended run (planned again on a clean machine) but whose
 * published rows do, written by an older ./train with the status column last: published again
 * (its summary drawn), not skipped as a part with nothing ended. */
START_TEST(test_published_ended_runs_kept) {
    run_ok("");
    in_tree("rm -r sweeps/tiny_p16 results/tiny/p16/summary.txt && "
            "awk -F, -v OFS=, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == \"status\") k = i } "
            "{ s = $k; for (i = k; i < NF; i++) $i = $(i + 1); $NF = s; print }' "
            "results/tiny/p16/sweep.csv > x && mv x results/tiny/p16/sweep.csv");
    int rc;
    char *out = run_map("ONLY='^$' PARTS=p16", &rc);
    ck_assert_msg(rc == 0 && !strstr(out, "nothing published"), "exit code %d:\n%s", rc, out);
    free(out);
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/results/tiny/p16/summary.txt", g_tmp);
    ck_assert_msg(access(path, F_OK) == 0, "p16 not published: no %s", path);
}
END_TEST

/* On a clean machine (no local sweeps) a run published as ended is not trained again, except one
 * a guard stopped (status guard): COST_ONLY counts 1 run to train, 0 with the row back at ok. */
START_TEST(test_published_guard_retrained) {
    run_ok("");
    in_tree("rm -r sweeps && sed -i '/^dk16_sqrt_dk_lr-1e-3_s1,/s/,ok,/,guard,/' "
            "results/tiny/p16/sweep.csv && grep -q '^dk16_sqrt_dk_lr-1e-3_s1,.*,guard,' "
            "results/tiny/p16/sweep.csv");
    int rc;
    char *out = run_map("COST_ONLY=1", &rc);
    ck_assert_msg(rc == 0 && strstr(out, "part p16: 1 runs to train"), "exit code %d:\n%s", rc, out);
    free(out);
    in_tree("sed -i '/^dk16_sqrt_dk_lr-1e-3_s1,/s/,guard,/,ok,/' results/tiny/p16/sweep.csv");
    out = run_map("COST_ONLY=1", &rc);
    ck_assert_msg(rc == 0 && strstr(out, "part p16: 0 runs to train"), "exit code %d:\n%s", rc, out);
    free(out);
}
END_TEST

/* Curves only of runs that ended: X (published whole) interrupted in the local folder (its marker
 * gone, loss.csv cut to its first step) keeps its published row and whole curve; Y, unpublished and
 * interrupted, gets its row (stopped) and no curve, and the partial curve an earlier publication
 * left for it is removed. */
START_TEST(test_curves_only_for_ended_runs) {
    run_ok("");
    static const char X[] = "dk16_sqrt_dk_lr-1e-3_s1", Y[] = "dk16_none_lr-2e-3_s2";
    char *whole = tree_file("results/tiny/p16/curves/dk16_sqrt_dk_lr-1e-3_s1.csv");
    char cmd[512];
    static const char *const STOPPED[] = {X, Y};
    for (int i = 0; i < 2; i++) {
        snprintf(cmd, sizeof cmd, "d=sweeps/tiny_p16/lr-%s/runs/%s && rm $d/sweep_result.txt && "
                 "head -n 2 $d/loss.csv > x && mv x $d/loss.csv", i ? "2e-3" : "1e-3", STOPPED[i]);
        in_tree(cmd);
    }
    snprintf(cmd, sizeof cmd, "sed -i '/^%s,/d' results/tiny/p16/sweep.csv && "
             "head -n 2 results/tiny/p16/curves/%s.csv > x && mv x results/tiny/p16/curves/%s.csv", Y, Y, Y);
    in_tree(cmd);
    run_ok("PUBLISH_ONLY=1");
    char *now = tree_file("results/tiny/p16/curves/dk16_sqrt_dk_lr-1e-3_s1.csv");
    ck_assert_msg(strcmp(whole, now) == 0, "the published whole curve of %s was replaced:\n%s", X,
                  now);
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/results/tiny/p16/curves/%s.csv", g_tmp, Y);
    ck_assert_msg(access(path, F_OK) != 0, "%s has a curve but did not end", Y);
    char *csv = tree_file("results/tiny/p16/sweep.csv");
    char row[64];
    snprintf(row, sizeof row, "\n%s,", X);
    const char *r = strstr(csv, row);
    ck_assert_msg(r && strstr(r, ",ok,") && strstr(r, ",ok,") < strchr(r + 1, '\n'),
                  "%s's row:\n%s", X, csv);
    snprintf(row, sizeof row, "\n%s,", Y);
    r = strstr(csv, row);
    ck_assert_msg(r && strstr(r, ",stopped,") && strstr(r, ",stopped,") < strchr(r + 1, '\n'),
                  "%s's row:\n%s", Y, csv);
    free(csv);
    free(now);
    free(whole);
}
END_TEST

/* Rows an older ./train wrote with other columns are merged by column name: the published rows
 * of lr 2e-3 (no local sweep now) in a layout without gq_norm and with a column this ./train does
 * not write (old_col, after status), republished beside lr 1e-3's fresh rows: the header is this
 * ./train's columns then old_col; every row has the header's field count; an old row keeps its
 * status and wall_s under their names, gq_norm empty, old_col 7; a fresh row has old_col empty.
 * (Before, the old rows were printed verbatim under the first header read.) */
START_TEST(test_publish_merges_columns_by_name) {
    run_ok("");
    char *fresh = tree_file("results/tiny/p16/sweep.csv");
    char hdr[2048];
    snprintf(hdr, sizeof hdr, "%.*s,old_col\n", (int)strcspn(fresh, "\n"), fresh);
    /* the old layout: gq_norm dropped, old_col inserted after status (value 7 in every row) */
    in_tree("f=results/tiny/p16/sweep.csv && awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i } "
            "{ s = \"\"; for (i = 1; i <= NF; i++) { if (i == c[\"gq_norm\"]) continue; "
            "s = s (s == \"\" ? \"\" : \",\") $i; if (i == c[\"status\"]) s = s \",\" (NR == 1 ? \"old_col\" : 7) } "
            "print s }' $f > x && mv x $f && mv sweeps/tiny_p16/lr-2e-3 lr-2e-3.aside");
    run_ok("PUBLISH_ONLY=1 LRS=1e-3");
    in_tree("mv lr-2e-3.aside sweeps/tiny_p16/lr-2e-3");
    char *csv = tree_file("results/tiny/p16/sweep.csv");
    ck_assert_msg(strncmp(csv, hdr, strlen(hdr)) == 0, "header:\n%s\nwanted:\n%s", csv, hdr);
    /* each row against the fresh publication's row of its run, by column name */
    char check[4096];
    snprintf(check, sizeof check,
             "awk -F, 'FNR == 1 { n = NF; for (i = 1; i <= NF; i++) c[FILENAME, $i] = i; f[++k] = FILENAME; next } "
             "FILENAME == f[1] { for (i = 1; i <= NF; i++) want[$1, i] = $i; next } "
             "NF != n { print \"fields\", $1; bad = 1 } "
             "{ o = $c[FILENAME, \"old_col\"]; g = $c[FILENAME, \"gq_norm\"]; two = $1 ~ /lr-2e-3/; "
             "  if ($c[FILENAME, \"status\"] != want[$1, c[f[1], \"status\"]] || "
             "      $c[FILENAME, \"wall_s\"] != want[$1, c[f[1], \"wall_s\"]]) { print \"values\", $1; bad = 1 } "
             "  if (two ? (o != 7 || g != \"\") : (o != \"\" || g != want[$1, c[f[1], \"gq_norm\"]])) { print \"cols\", $1; bad = 1 } } "
             "END { exit bad }' fresh.csv results/tiny/p16/sweep.csv");
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/fresh.csv", g_tmp);
    tu_write_file(path, fresh);
    in_tree(check);
    free(csv);
    free(fresh);
}
END_TEST

TU_MAIN_FIXTURE_TIMEOUT("map_driver", make_tree, remove_tree, 120, test_republish_same_bytes,
                        test_refused, test_cost_only_changes_nothing,
                        test_part_without_ended_runs_skipped, test_published_ended_runs_kept,
                        test_published_guard_retrained, test_curves_only_for_ended_runs,
                        test_publish_merges_columns_by_name);
