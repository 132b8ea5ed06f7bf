/* test_figures.c: the figures of --compare (src/report/figures.c): the loss axis is logarithmic
 * by default when the plotted losses span more than 30x, linear otherwise, and --log-scale /
 * --linear choose it; the attention maps show step 0 and the end, masked cells hatched and the
 * prompt/answer boundary marked. */
#include "cli/cli.h" /* the report through its command line: cli_compare */

#include <check.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "testutil.h"

static char g_tmp[64];

#define compare(...) tu_run_cmd(cli_compare, __VA_ARGS__)

/* A run folder holding a loss.csv whose losses run from hi down to lo. */
static void write_run(const char *name, double hi, double lo) {
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", g_tmp, name);
    ck_assert_int_eq(mkdir(path, 0777), 0);
    snprintf(path, sizeof path, "%s/%s/loss.csv", g_tmp, name);
    char text[1024];
    snprintf(text, sizeof text,
             "step,train_loss,val_loss,val_token_acc,val_answer_acc,lr,grad_norm,elapsed_s,tokens_per_s\n"
             "0,%g,%g,0.1,0,0.001,1,0,\n"
             "10,%g,%g,0.5,0.2,0.001,1,1,100\n"
             "20,%g,%g,0.9,0.8,0.001,1,2,100\n",
             hi, hi, (hi + lo) / 2, (hi + lo) / 2, lo, lo);
    tu_write_file(path, text);
}

START_TEST(test_loss_axis_choice) {
    static const struct {
        double hi, lo;   /* the losses span hi / lo */
        const char *flag; /* NULL: the default */
        int want_log;
    } cases[] = {
        {0.337, 0.0027, NULL, 1},        /* 125x: the runs */
        {1.45, 0.08, NULL, 0},           /* 18x */
        {0.337, 0.0027, "--linear", 0},
        {1.45, 0.08, "--log-scale", 1},
        {3.1, 0.1, NULL, 1},             /* 31x */
        {2.9, 0.1, NULL, 0},             /* 29x */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tu_make_tmp(g_tmp, sizeof g_tmp, "/tmp/test_figures.XXXXXX");
        write_run("a", cases[i].hi, cases[i].lo);
        write_run("b", cases[i].hi, (cases[i].hi + cases[i].lo) / 2);
        char a[PATH_MAX], b[PATH_MAX], out[PATH_MAX], svg[PATH_MAX + 16];
        snprintf(a, sizeof a, "%s/a", g_tmp);
        snprintf(b, sizeof b, "%s/b", g_tmp);
        snprintf(out, sizeof out, "%s/rep", g_tmp);
        TuResult r = cases[i].flag ? compare(cases[i].flag, a, b, "--out", out, NULL)
                                   : compare(a, b, "--out", out, NULL);
        ck_assert_msg(r.rc == 0, "case %zu: rc %d: %s", i, r.rc, r.err);
        snprintf(svg, sizeof svg, "%s/loss.svg", out);
        char *doc = tu_read_xml(svg);
        int is_log = strstr(doc, "loss (nats/token, log scale)") != NULL;
        ck_assert_msg(is_log == cases[i].want_log, "case %zu: %s axis, want %s", i,
                      is_log ? "log" : "linear", cases[i].want_log ? "log" : "linear");
        ck_assert_msg(is_log || strstr(doc, "loss (nats/token)"), "case %zu: no axis label", i);
        free(doc);
        tu_result_free(&r);
        tu_remove_tree(g_tmp);
    }
}
END_TEST

static int count_substr(const char *text, const char *needle) {
    int n = 0;
    for (const char *p = text; (p = strstr(p, needle)); p += strlen(needle)) n++;
    return n;
}

/* A real run: ./train writes the step-0 and the final map, the report draws both, with the
 * masked triangle hatched and the prompt/answer boundary marked. Copy task of length 3: the
 * inputs are 3 symbols, a separator and the first 2 answer symbols (the last is a target only):
 * T = 6, the answer tokens start at position 4. */
START_TEST(test_maps_at_step0_and_end) {
    tu_make_tmp(g_tmp, sizeof g_tmp, "/tmp/test_figures.XXXXXX");
    ck_assert_int_eq(tu_run_train(g_tmp, "--set task.name=copy --set task.length=3 "
                                         "--set task.symbols=6 --set task.val_size=32 --set model.d_model=16 "
                                         "--set model.n_heads=2 --set model.n_layers=1 --set train.steps=10 "
                                         "--set train.batch_size=8 --set log.every=5 --set train.eval_every=5 "
                                         "--set log.progress=0 --set run.threads=1 --set run.name=m"),
                     0);
    char run[PATH_MAX], out[PATH_MAX], svg[PATH_MAX + 32];
    snprintf(run, sizeof run, "%s/runs/m", g_tmp);
    snprintf(out, sizeof out, "%s/rep", g_tmp);
    snprintf(svg, sizeof svg, "%s/attn_map_tokens.csv", run);
    ck_assert(tu_file_contains(svg, "position,token,answer\n"));
    ck_assert(tu_file_contains(svg, "\n3,\"<sep>\",0\n4,"));
    TuResult r = compare(run, "--out", out, NULL);
    ck_assert_msg(r.rc == 0, "rc %d: %s", r.rc, r.err);
    snprintf(svg, sizeof svg, "%s/attn_maps.svg", out);
    char *doc = tu_read_xml(svg);
    int T = 6, maps = 2 /* heads */ * 2 /* step 0, end */;
    ck_assert_int_eq(count_substr(doc, "<g class=\"heatmap\""), maps);
    ck_assert_int_eq(count_substr(doc, "m: layer 0, head 1, step 0"), 1);
    ck_assert_int_eq(count_substr(doc, "m: layer 0, head 1, end"), 1);
    ck_assert_int_eq(count_substr(doc, "class=\"masked\""), maps * T * (T - 1) / 2);
    ck_assert_int_eq(count_substr(doc, "class=\"boundary\""), maps);
    free(doc);
    tu_result_free(&r);
    tu_remove_tree(g_tmp);
}
END_TEST

int main(void) {
    Suite *s = suite_create("figures");
    TCase *tc = tcase_create("loss axis");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_loss_axis_choice);
    tcase_add_test(tc, test_maps_at_step0_and_end);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
