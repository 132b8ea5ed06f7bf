/* test_runs.c: reading a run folder (src/report/read/runs.c): its tolerant config.ini reader (sections,
 * comments, quotes, a later line winning), the run's name, which files are required, the names
 * made unique, and the questions asked of one run's logs: last steps, layers, attention steps and
 * the status line (finished, stopped, diverged, skipped). Every expected value is worked out by
 * hand from the small files written here. (test_run_lock.c checks the "running" status.) */
#include "report/read/read.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

static char tmp[200];

static void setup(void) { tu_make_tmp(tmp, sizeof tmp, "/tmp/scaledot_test_runs_XXXXXX"); }
static void teardown(void) { tu_remove_tree(tmp); }

/* load_run with stderr captured into *err (the caller frees). */
static int load(Run *r, const char *path, char **err) {
    memset(r, 0, sizeof *r);
    TuCapture c;
    tu_capture_begin(&c, 2);
    int rc = load_run(r, path);
    *err = tu_capture_end(&c);
    return rc;
}

START_TEST(test_config_ini) {
    char dir[300], *err;
    tu_put_file(dir, sizeof dir, tmp, "a", "loss.csv", "step,train_loss\n0,1\n");
    tu_put_file(dir, sizeof dir, tmp, "a", "config.ini",
        "\xEF\xBB\xBF; provenance: scaledot x\n"
        "top = 1\n"
        "[ model ]\n"
        "d_model = 64   ; a comment\n"
        "n_heads=4#8\n"
        "init = \"a ; b\" ; quoted\n"
        "not a setting\n"
        "# a comment = 3\n"
        "[train]\n"
        "steps = 10\n"
        "empty =\n"
        "steps = 20\n"
        "  lr\t=\t3e-3  \r\n");
    Run r;
    ck_assert_int_eq(load(&r, dir, &err), 0);
    ck_assert(r.has_config);
    static const struct {
        const char *key, *want; /* want NULL: not set */
    } cases[] = {
        {".top", "1"},           /* before any section */
        {"model.d_model", "64"}, /* comment after a space stripped */
        {"model.n_heads", "4#8"}, /* '#' inside a value is not a comment */
        {"model.init", "a ; b"},
        {"train.steps", "20"},   /* the later line wins */
        {"train.empty", ""},
        {"train.lr", "3e-3"},
        {"not a setting", NULL},
        {"a comment", NULL},
        {"model.steps", NULL},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const char *v = ini_get(&r.config, cases[c].key);
        if (!cases[c].want)
            ck_assert_msg(v == NULL, "case %zu (%s): '%s', want not set", c, cases[c].key, v);
        else
            ck_assert_msg(v && strcmp(v, cases[c].want) == 0, "case %zu (%s): '%s', want '%s'", c,
                          cases[c].key, v ? v : "(not set)", cases[c].want);
    }
    /* order of first appearance, one entry per key */
    static const char *const ORDER[] = {".top", "model.d_model", "model.n_heads", "model.init",
                                        "train.steps", "train.empty", "train.lr"};
    ck_assert_int_eq(r.config.n, 7);
    for (int i = 0; i < 7; i++) ck_assert_str_eq(r.config.e[i].key, ORDER[i]);
    free_run(&r);
    free(err);
}
END_TEST

START_TEST(test_folders_and_names) {
    char dir[300], path[400], *err;
    tu_put_file(dir, sizeof dir, tmp, "plain", "loss.csv", "step,train_loss\n0,1\n");
    tu_put_file(dir, sizeof dir, tmp, "plain", "grad_norms.csv", "step,global\n0,1\n");
    tu_put_file(dir, sizeof dir, tmp, "nostep", "loss.csv", "iter,train_loss\n0,1\n");
    tu_put_file(dir, sizeof dir, tmp, "nostep", "x", "");
    tu_put_file(dir, sizeof dir, tmp, "noloss", "config.ini", "[run]\n");
    tu_put_file(dir, sizeof dir, tmp, ".", "file", "not a folder\n");
    /* rel: the path given, below tmp; name: the run's name; says: in stderr */
    static const struct {
        const char *rel, *name, *says;
        int rc;
    } cases[] = {
        {"plain", "plain", "config.ini", 0}, /* a note: no config.ini */
        {"plain///", "plain", "", 0},
        {"plain/.", "plain", "", 0},
        {"plain/../plain/..", NULL, "", -1},   /* tmp itself has no loss.csv */
        {"missing", "missing", "missing", -1},
        {"file", "file", "is not a folder", -1},
        {"noloss", "noloss", "loss.csv", -1},
        {"nostep", "nostep", "no 'step' column", -1},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        snprintf(path, sizeof path, "%s/%s", tmp, cases[c].rel);
        Run r;
        int rc = load(&r, path, &err);
        ck_assert_msg(rc == cases[c].rc, "case %zu (%s): rc %d\n%s", c, cases[c].rel, rc, err);
        ck_assert_msg(strstr(err, cases[c].says), "case %zu: stderr lacks '%s':\n%s", c,
                      cases[c].says, err);
        if (cases[c].name)
            ck_assert_msg(strcmp(r.name, cases[c].name) == 0, "case %zu: name '%s', want '%s'", c,
                          r.name, cases[c].name);
        if (c == 0) ck_assert(!r.has_config && r.has_grads && !r.has_attn && !r.has_map);
        free_run(&r);
        free(err);
    }
}
END_TEST

START_TEST(test_unique_names) {
    static const struct {
        const char *in[4], *want[4];
        int n;
    } cases[] = {
        {{"x", "x", "y", "x"}, {"x", "x (2)", "y", "x (3)"}, 4},
        {{"a (2)", "a", "a"}, {"a (2)", "a", "a (3)"}, 3}, /* "a (2)" is taken already */
        {{"p", "q"}, {"p", "q"}, 2},
        {{"one"}, {"one"}, 1},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        Run runs[4];
        memset(runs, 0, sizeof runs);
        for (int i = 0; i < cases[c].n; i++) snprintf(runs[i].name, RUN_NAME_LEN, "%s", cases[c].in[i]);
        make_names_unique(runs, cases[c].n);
        for (int i = 0; i < cases[c].n; i++)
            ck_assert_msg(strcmp(runs[i].name, cases[c].want[i]) == 0,
                          "case %zu, run %d: '%s', want '%s'", c, i, runs[i].name,
                          cases[c].want[i]);
    }
}
END_TEST

/* A name too long for " (2)" is cut, and never inside a UTF-8 character: 239 'a' then "\xc3\xa9"
 * (e-acute) on bytes 239-240 then "zz": the cut at 240 would split the e-acute, so it goes before
 * it. A 3-byte character on bytes 238-240 likewise goes whole. */
START_TEST(test_unique_names_cut_on_characters) {
    static const struct {
        int a;             /* leading 'a's */
        const char *ch;    /* then this character, then "zz" */
    } cases[] = {{239, "\xc3\xa9"}, {238, "\xe2\x88\x9a"}, {240, "\xc3\xa9"}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        Run runs[2];
        memset(runs, 0, sizeof runs);
        char name[RUN_NAME_LEN];
        memset(name, 'a', (size_t)cases[c].a);
        snprintf(name + cases[c].a, sizeof name - (size_t)cases[c].a, "%szz", cases[c].ch);
        snprintf(runs[0].name, RUN_NAME_LEN, "%s", name);
        snprintf(runs[1].name, RUN_NAME_LEN, "%s", name);
        make_names_unique(runs, 2);
        char want[RUN_NAME_LEN];
        memset(want, 'a', (size_t)cases[c].a);
        /* the character fits whole only when it ends at or before byte 240 */
        int fits = cases[c].a + (int)strlen(cases[c].ch) <= 240;
        snprintf(want + cases[c].a, sizeof want - (size_t)cases[c].a, "%s (2)",
                 fits ? cases[c].ch : "");
        ck_assert_msg(strcmp(runs[1].name, want) == 0, "case %zu: '%s'", c, runs[1].name);
    }
}
END_TEST

START_TEST(test_log_queries) {
    char a[300], b[300], *err;
    tu_put_file(a, sizeof a, tmp, "a", "loss.csv",
                "step,train_loss,val_loss\n0,2,2\n50,1,\n100,0.5,\n");
    tu_put_file(a, sizeof a, tmp, "a", "grad_norms.csv",
        "step,global,blocks.0.attn.qkv.weight.q,blocks.0.attn.qkv.weight.k,"
        "blocks.1.attn.qkv.weight.q,blocks.1.attn.qkv.weight.k,blocks.3.attn.qkv.weight.q\n"
        "0,1,1,1,1,1,1\n");
    tu_put_file(a, sizeof a, tmp, "a", "attention.csv",
        "step,layer,head,logit_std\n10,0,0,1\n10,2,0,1\n10,1,0,1\n90,0,0,1\n90,2,0,1\n");
    tu_put_file(b, sizeof b, tmp, "b", "loss.csv",
                "step,train_loss,val_loss\n0,2,2\n60,1,1\n80,,1.5\n");
    tu_put_file(b, sizeof b, tmp, "b", "attention.csv", "step,layer,head,logit_std\n");
    Run runs[2];
    ck_assert_int_eq(load(&runs[0], a, &err), 0);
    free(err);
    ck_assert_int_eq(load(&runs[1], b, &err), 0);
    free(err);
    ck_assert_int_eq(max_last_step(runs, 2, "step"), 100);
    ck_assert_int_eq(max_last_step(runs, 2, "train_loss"), 100);
    ck_assert_int_eq(max_last_step(runs, 2, "val_loss"), 80);     /* b's, a logs it at 0 only */
    ck_assert_int_eq(max_last_step(runs + 1, 1, "train_loss"), 60); /* the empty field at 80 */
    ck_assert_int_eq(max_last_step(runs, 2, "missing"), 0);
    ck_assert_int_eq(grad_layers(&runs[0]), 2); /* 0 and 1; layer 3 after a gap is not counted */
    ck_assert_int_eq(grad_layers(&runs[1]), 0); /* no grad_norms.csv */
    ck_assert_int_eq(attn_layers(&runs[0]), 3);
    ck_assert_int_eq(attn_layers(&runs[1]), 0); /* header only */
    ck_assert_int_eq(attn_step(&runs[0], 0), 10);
    ck_assert_int_eq(attn_step(&runs[0], 1), 90);
    ck_assert_int_eq(attn_step(&runs[1], 0), -1);
    for (int i = 0; i < 2; i++) free_run(&runs[i]);
}
END_TEST

#define HDR "step,train_loss,val_loss,grad_norm"
START_TEST(test_status) {
    static const struct {
        const char *loss, *steps; /* steps: train.steps of config.ini, NULL: no config.ini */
        const char *want;
    } cases[] = {
        {HDR "\n0,2,2,1\n40,1,1,1\n", "40", "finished @40"},
        {HDR "\n0,2,2,1\n40,1,1,1\n", "100", "stopped @40"},
        {HDR "\n0,2,2,1\n40,1,1,1\n", NULL, "finished @40"},
        {HDR "\n0,2,2,1\n40,1,1,1\n", "20", "finished @40"},
        {HDR "\n0,2,2,1\n30,nan,,1\n40,,nan,\n", "100", "diverged @30"},
        {HDR "\n0,2,2,1\n30,1,,inf\n", "100", "diverged @30"},           /* the norm too */
        {HDR "\n0,2,2,1\n20,nan,,1\n30,inf,,1\n", "100", "diverged @20"}, /* the first bad */
        {HDR "\n0,2,2,1\n20,nan,,1\n30,1,,1\n40,1,1,1\n", "40", "finished @40, 1 skipped"},
        {HDR "\n0,2,2,1\n20,nan,,1\n30,1,,1\n40,-inf,,1\n", "40", "diverged @40"},
        {HDR ",skipped_steps\n0,2,2,1,0\n20,nan,,1,1\n40,1,1,1,3\n", "50", "stopped @40, 3 skipped"},
        {HDR "\n0,2,2,1\n20,1,,\n30,,nan,\n", "30", "diverged @30"}, /* no training step after */
        {HDR "\n", "10", "stopped @0"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        char rel[32], dir[300], ini[64], *err;
        snprintf(rel, sizeof rel, "s%zu", c);
        tu_put_file(dir, sizeof dir, tmp, rel, "loss.csv", cases[c].loss);
        if (cases[c].steps) {
            snprintf(ini, sizeof ini, "[train]\nsteps = %s\n", cases[c].steps);
            tu_put_file(dir, sizeof dir, tmp, rel, "config.ini", ini);
        }
        Run r;
        ck_assert_msg(load(&r, dir, &err) == 0, "case %zu: %s", c, err);
        char status[64];
        run_status(&r, status, sizeof status);
        ck_assert_msg(strcmp(status, cases[c].want) == 0, "case %zu: '%s', want '%s'", c, status,
                      cases[c].want);
        free_run(&r);
        free(err);
    }
}
END_TEST

TU_MAIN_FIXTURE("runs", setup, teardown, test_config_ini, test_folders_and_names, test_unique_names,
                test_unique_names_cut_on_characters,
                test_log_queries, test_status);
