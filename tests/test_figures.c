/* test_figures.c: the figures of --compare (src/report/figure/figures.c): the loss axis is logarithmic
 * by default when the plotted losses span more than 30x, linear otherwise, and --log-scale /
 * --linear choose it; the attention maps show step 0 and the end, masked cells hatched and the
 * prompt/answer boundary marked, each head's maps in one column whatever the run names, and
 * beyond two heads the most and least saturated head per layer with the rest folded; the
 * accuracy figure draws chance level where the task says it; a text pair's page speaks of bytes
 * (bits per byte, the 8-bit uniform guess, one next-byte accuracy panel, no answer rows); the
 * gradient caption quotes the runs on the page. */
#include "cli/cli.h" /* the report through its command line: cli_compare */

#include <check.h>
#include <limits.h>
#include <math.h>
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

/* The run folder g_tmp/name's config.ini. */
static void write_config(const char *name, const char *text) {
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s/config.ini", g_tmp, name);
    tu_write_file(path, text);
}

/* The chance lines of the accuracy figure: (y0, y1) and (x0, x1) of each panel's plot area
 * (frame), and the y and the x ends of each chance line, in order; returns the number of chance
 * lines (at most 2). */
static int chance_lines(const char *doc, double frame_y[2][2], double frame_x[2][2],
                        double line_y[2], double line_x[2][2]) {
    const char *p = doc;
    for (int i = 0; i < 2; i++) {
        p = strstr(p, "fill=\"none\" stroke=\"#888888\"/>");
        ck_assert_ptr_nonnull(p);
        const char *r = p;
        while (r > doc && strncmp(r, "<rect ", 6) != 0) r--;
        double x, w, h;
        ck_assert_int_eq(sscanf(r, "<rect x=\"%lf\" y=\"%lf\" width=\"%lf\" height=\"%lf\"", &x,
                                &frame_y[i][0], &w, &h), 4);
        frame_y[i][1] = frame_y[i][0] + h;
        frame_x[i][0] = x, frame_x[i][1] = x + w;
        p++;
    }
    int n = 0;
    /* data-run is the line's label in the page's Show bar: "chance", never "reference" */
    ck_assert_msg(!strstr(doc, "data-run=\"reference\""), "a line named reference");
    for (p = doc; n < 2 && (p = strstr(p, "data-run=\"chance\" data-series=\"chance level"));
         n++) {
        const char *d = strstr(p, " d=\"M");
        ck_assert_ptr_nonnull(d);
        double x0, y0, x1, y1;
        ck_assert_int_eq(sscanf(d, " d=\"M%lf %lf L%lf %lf", &x0, &y0, &x1, &y1), 4);
        ck_assert_double_eq(y0, y1); /* horizontal */
        line_y[n] = y0;
        line_x[n][0] = x0, line_x[n][1] = x1;
        p = d;
    }
    return n;
}

/* Chance level in the accuracy figure: 1/symbols per token; per whole answer 1/symbols^length,
 * drawn only when it stands clear of the axis. Expected positions: y = bottom - chance/100 *
 * height of the 0..100 % axis. */
START_TEST(test_accuracy_chance_line) {
    static const struct {
        const char *config;
        int lines;            /* 2: both panels; 1: the token panel only; 0: none */
        double answer, token; /* chance in percent */
    } cases[] = {
        {"[task]\nname = recall\nsymbols = 16\npairs = 8\n", 2, 6.25, 6.25}, /* one token */
        {"[task]\nname = sort\nlength = 8\nsymbols = 16\n", 1, 0, 6.25},  /* 16^-8: none */
        {"[task]\nname = copy\nlength = 2\nsymbols = 4\n", 2, 6.25, 25},  /* 4^-2, 4^-1 */
        {"[task]\nname = file\nfile = x.txt\n", 0, 0, 0}, /* text: test_text_page */
        {NULL, 0, 0, 0}, /* no config.ini */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tu_make_tmp(g_tmp, sizeof g_tmp, "/tmp/test_figures.XXXXXX");
        write_run("a", 2, 1);
        write_run("b", 2, 1.5);
        if (cases[i].config) write_config("a", cases[i].config), write_config("b", cases[i].config);
        char a[PATH_MAX], b[PATH_MAX], out[PATH_MAX], svg[PATH_MAX + 16];
        snprintf(a, sizeof a, "%s/a", g_tmp);
        snprintf(b, sizeof b, "%s/b", g_tmp);
        snprintf(out, sizeof out, "%s/rep", g_tmp);
        TuResult r = compare(a, b, "--out", out, NULL);
        ck_assert_msg(r.rc == 0, "case %zu: rc %d: %s", i, r.rc, r.err);
        snprintf(svg, sizeof svg, "%s/accuracy.svg", out);
        char *doc = tu_read_xml(svg);
        double fy[2][2], fx[2][2], ly[2], lx[2][2];
        int n = chance_lines(doc, fy, fx, ly, lx);
        ck_assert_msg(n == cases[i].lines, "case %zu: %d chance lines, want %d", i, n,
                      cases[i].lines);
        ck_assert_msg(n == 0 || strstr(doc, ">chance level (guessing uniformly"),
                      "case %zu: not in the legend", i);
        for (int k = 0; k < n; k++) {
            /* the token panel is the second; with one line it is that one */
            int panel = n == 2 ? k : 1;
            double c = panel == 0 ? cases[i].answer : cases[i].token;
            double want = fy[panel][1] - c / 100 * (fy[panel][1] - fy[panel][0]);
            ck_assert_msg(fabs(ly[k] - want) < 0.01, "case %zu line %d at y %g, want %g", i, k,
                          ly[k], want);
            /* it spans the plot: from the left edge to beyond the right one (clipped there) */
            ck_assert_msg(fabs(lx[k][0] - fx[panel][0]) < 0.01 && lx[k][1] >= fx[panel][1],
                          "case %zu: line %g..%g, plot %g..%g", i, lx[k][0], lx[k][1],
                          fx[panel][0], fx[panel][1]);
        }
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

/* The x of each heatmap's title (its left edge) for heads 0 and 1, in document order; returns
 * how many were found. */
static int map_columns(const char *doc, double x[][2], int cap) {
    int n = 0;
    for (const char *p = doc; n < cap && (p = strstr(p, "<g class=\"heatmap\"")); n++) {
        const char *t = strstr(p, "<text x=\"");
        ck_assert_ptr_nonnull(t);
        double tx = strtod(t + 9, NULL);
        const char *head = strstr(t, ", head ");
        ck_assert_ptr_nonnull(head);
        int h = head[7] - '0';
        ck_assert(h == 0 || h == 1);
        x[n][h] = tx, x[n][1 - h] = NAN;
        p = t;
    }
    return n;
}

/* Two runs, one with a long name (its titles are wider than the maps): every map of a head sits
 * in the same column, so the rows line up. */
START_TEST(test_maps_aligned) {
    tu_make_tmp(g_tmp, sizeof g_tmp, "/tmp/test_figures.XXXXXX");
    static const char *const names[] = {"m", "a_much_longer_run_name_than_the_first"};
    char args[1024], runs[2][PATH_MAX], out[PATH_MAX], svg[PATH_MAX + 32];
    for (int i = 0; i < 2; i++) {
        snprintf(args, sizeof args, "--set task.name=copy --set task.length=3 "
                 "--set task.symbols=6 --set task.val_size=32 --set model.d_model=16 "
                 "--set model.n_heads=2 --set model.n_layers=1 --set train.steps=2 "
                 "--set train.batch_size=8 --set log.every=1 --set train.eval_every=1 "
                 "--set log.progress=0 --set run.threads=1 --set run.name=%s", names[i]);
        ck_assert_int_eq(tu_run_train(g_tmp, args), 0);
        snprintf(runs[i], sizeof runs[i], "%s/runs/%s", g_tmp, names[i]);
    }
    snprintf(out, sizeof out, "%s/rep", g_tmp);
    TuResult r = compare(runs[0], runs[1], "--out", out, NULL);
    ck_assert_msg(r.rc == 0, "rc %d: %s", r.rc, r.err);
    snprintf(svg, sizeof svg, "%s/attn_maps.svg", out);
    char *doc = tu_read_xml(svg);
    double x[16][2], col[2] = {NAN, NAN};
    int n = map_columns(doc, x, 16);
    ck_assert_int_eq(n, 2 /* runs */ * 2 /* heads */ * 2 /* step 0, end */);
    for (int i = 0; i < n; i++)
        for (int h = 0; h < 2; h++) {
            if (isnan(x[i][h])) continue;
            if (isnan(col[h])) col[h] = x[i][h];
            ck_assert_msg(fabs(x[i][h] - col[h]) < 0.01, "map %d (head %d) at x %g, column at %g",
                          i, h, x[i][h], col[h]);
        }
    ck_assert(col[1] > col[0]);
    free(doc);
    tu_result_free(&r);
    tu_remove_tree(g_tmp);
}
END_TEST

/* The value of attribute attr ("data-y") of the series path of run measuring series, copied
 * into out; fails the test when there is none. */
static void series_attr(const char *doc, const char *run, const char *series, const char *attr,
                        char *out, size_t n) {
    char key[256];
    snprintf(key, sizeof key, "data-run=\"%s\" data-series=\"%s\"", run, series);
    const char *p = strstr(doc, key);
    ck_assert_msg(p != NULL, "no series %s / %s", run, series);
    snprintf(key, sizeof key, " %s=\"", attr);
    p = strstr(p, key);
    ck_assert_ptr_nonnull(p);
    p += strlen(key);
    snprintf(out, n, "%.*s", (int)strcspn(p, "\""), p);
}

/* The y of the first vertex of the series path of run measuring series. */
static double series_y0(const char *doc, const char *run, const char *series) {
    char d[4096];
    series_attr(doc, run, series, "d", d, sizeof d);
    double x, y;
    ck_assert_int_eq(sscanf(d, "M%lf %lf", &x, &y), 2);
    return y;
}

/* A pair of text runs speaks of bytes: losses in bits per byte (train_loss / ln 2, val_bpb as
 * logged) with the uniform guess at 8 bits per byte, whose line passes through the first
 * training point (ln 256 nats = 8 bits); one accuracy panel, next-byte; no answer-accuracy rows
 * in the summary; the samples and the verdict before the figures; the gradient caption's final
 * losses in bits per byte. */
START_TEST(test_text_page) {
    tu_make_tmp(g_tmp, sizeof g_tmp, "/tmp/test_figures.XXXXXX");
    static const char *const HEAD =
        "step,train_loss,val_loss,val_bpb,val_token_acc,val_answer_acc,lr,grad_norm,elapsed_s,"
        "tokens_per_s\n";
    char text[1024], a[PATH_MAX], b[PATH_MAX], out[PATH_MAX], path[PATH_MAX + 32];
    /* 5.545177444479562 = ln 256: 8 bits per byte; 2.0 nats = 2.88539 bits */
    snprintf(text, sizeof text, "%s0,5.545177444479562,5.5,7.935,0.01,0.01,0.001,1,0,\n"
             "30,2.0,2.2,3.1,0.3,0.3,0.001,1,1,100\n60,1.5,2.1,3.0296,0.4,0.4,0.001,1,2,100\n",
             HEAD);
    tu_put_file(a, sizeof a, g_tmp, "t1", "loss.csv", text);
    tu_put_file(NULL, 0, g_tmp, "t1", "config.ini", "[task]\nname = text\n[train]\nsteps = 60\n");
    tu_put_file(NULL, 0, g_tmp, "t1", "sample.txt", "# prompt: 3 characters\nIn the beginning\n");
    snprintf(text, sizeof text, "%s0,5.6,5.6,8.07,0.01,0.01,0.001,1,0,\n"
             "30,2.6,2.7,3.8,0.3,0.3,0.001,1,1,100\n60,2.4,2.43,3.5,0.35,0.35,0.001,1,2,100\n",
             HEAD);
    tu_put_file(b, sizeof b, g_tmp, "t2", "loss.csv", text);
    tu_put_file(NULL, 0, g_tmp, "t2", "config.ini", "[task]\nname = text\n[train]\nsteps = 60\n");
    for (int i = 0; i < 2; i++)
        tu_put_file(NULL, 0, g_tmp, i ? "t2" : "t1", "grad_norms.csv",
                    "step,global,blocks.0.attn.qkv.weight.q,blocks.0.attn.qkv.weight.k\n"
                    "0,4,1,1\n60,2,0.5,0.25\n");
    snprintf(out, sizeof out, "%s/rep", g_tmp);
    TuResult r = compare(a, b, "--out", out, NULL);
    ck_assert_msg(r.rc == 0, "rc %d: %s", r.rc, r.err);
    snprintf(path, sizeof path, "%s/loss.svg", out);
    char *doc = tu_read_xml(path), y[256];
    ck_assert_msg(strstr(doc, "data-y-label=\"bits per byte\""), "no bits-per-byte axis");
    ck_assert_ptr_null(strstr(doc, "nats"));
    series_attr(doc, "t1", "train loss", "data-y", y, sizeof y);
    ck_assert_str_eq(y, "8 2.88539 2.16404"); /* 1.5 / ln 2 = 2.16404 */
    series_attr(doc, "t1", "val loss", "data-y", y, sizeof y);
    ck_assert_str_eq(y, "7.935 3.1 3.0296");
    const char *uniform = "uniform guess over the 256 byte values (8 bits per byte)";
    series_attr(doc, "chance", uniform, "data-y", y, sizeof y);
    ck_assert_str_eq(y, "8 8");
    ck_assert_double_eq_tol(series_y0(doc, "chance", uniform), series_y0(doc, "t1", "train loss"),
                            0.01);
    free(doc);
    snprintf(path, sizeof path, "%s/accuracy.svg", out);
    doc = tu_read_xml(path);
    ck_assert_int_eq(count_substr(doc, "<g class=\"chart\""), 1);
    ck_assert_msg(strstr(doc, "validation next-byte accuracy"), "no next-byte panel");
    ck_assert_ptr_null(strstr(doc, "answer"));
    series_attr(doc, "t2", "val next-byte acc", "data-y", y, sizeof y);
    ck_assert_str_eq(y, "1 30 35");
    free(doc);
    snprintf(path, sizeof path, "%s/index.html", out);
    doc = tu_read_xml(path);
    static const char *const ORDER[] = {
        "<p class=\"verdict\" id=\"verdict\"><b>Verdict:</b> t1: 3.030 bits per byte",
        "<h2 id=\"samples\">Samples</h2>", "</span>the beginning",
        "<h2 id=\"figures\">Figures</h2>", "in bits per byte",
        /* the gradient caption: val_bpb as logged, 3.0296 and 3.5, to 3 digits */
        "(step 60), final validation loss 3.03 bits per byte",
        "(step 60), final validation loss 3.5 bits per byte", "<h2 id=\"summary\">Summary</h2>",
        "<td>next-byte acc, final (step 60)</td><td>40.0%</td><td>35.0%</td>",
    };
    int miss = tu_in_order(doc, ORDER, (int)(sizeof ORDER / sizeof *ORDER));
    ck_assert_msg(miss < 0, "missing or out of order: '%s'", miss < 0 ? "" : ORDER[miss]);
    ck_assert_ptr_null(strstr(doc, "answer acc &gt;="));
    ck_assert_ptr_null(strstr(doc, "recall"));
    free(doc);
    tu_result_free(&r);
    tu_remove_tree(g_tmp);
}
END_TEST

/* The gradient figure's caption quotes the runs on the page (their last W_q, W_k norms of
 * layer 0 and final validation loss), not the numbers of another pair; the attention figure's
 * quotes their step-0 logit spread and d_k. */
START_TEST(test_gradient_caption_computed) {
    tu_make_tmp(g_tmp, sizeof g_tmp, "/tmp/test_figures.XXXXXX");
    write_run("a", 2, 0.5);
    write_run("b", 2, 1.25);
    static const char HEAD[] = "step,global,blocks.0.attn.qkv.weight.q,blocks.0.attn.qkv.weight.k\n";
    char text[256], a[PATH_MAX], b[PATH_MAX], out[PATH_MAX], path[PATH_MAX + 32];
    snprintf(text, sizeof text, "%s0,4,1,1\n20,2.5,0.125,0.0625\n", HEAD);
    tu_put_file(a, sizeof a, g_tmp, "a", "grad_norms.csv", text);
    snprintf(text, sizeof text, "%s0,4,1,1\n10,3,0.75,1.5\n", HEAD);
    tu_put_file(b, sizeof b, g_tmp, "b", "grad_norms.csv", text);
    /* attention.csv: layer 0's logit std at step 0, mean over two heads: a (1 + 3) / 2 = 2,
     * b (8 + 8) / 2 = 8; d_k = 64 / 4 = 16 for both */
    static const char ATT[] = "step,layer,head,logit_std\n";
    snprintf(text, sizeof text, "%s0,0,0,1\n0,0,1,3\n20,0,0,2\n20,0,1,2\n", ATT);
    tu_put_file(NULL, 0, g_tmp, "a", "attention.csv", text);
    snprintf(text, sizeof text, "%s0,0,0,8\n0,0,1,8\n", ATT);
    tu_put_file(NULL, 0, g_tmp, "b", "attention.csv", text);
    write_config("a", "[model]\nd_model = 64\nn_heads = 4\n");
    write_config("b", "[model]\nd_model = 64\nn_heads = 4\n");
    snprintf(a, sizeof a, "%s/a", g_tmp);
    snprintf(b, sizeof b, "%s/b", g_tmp);
    snprintf(out, sizeof out, "%s/rep", g_tmp);
    TuResult r = compare(a, b, "--out", out, NULL);
    ck_assert_msg(r.rc == 0, "rc %d: %s", r.rc, r.err);
    snprintf(path, sizeof path, "%s/index.html", out);
    char *doc = tu_read_xml(path);
    ck_assert_msg(strstr(doc, "Here, layer 0 at its first logged step: a logit std 2 at step 0 "
                              "(d_k 16); b logit std 8 at step 0 (d_k 16)."),
                  "the attention caption does not quote the runs");
    const char *cap = strstr(doc, "<b>Gradient norms against step.</b>");
    ck_assert_ptr_nonnull(cap);
    const char *end = strstr(cap, "</figcaption>");
    static const char *const WANT[] = {
        "a layer 0 W<sub>q</sub> 0.125, W<sub>k</sub> 0.0625 (step 20), final validation loss 0.5 "
        "nats per answer token",
        "b layer 0 W<sub>q</sub> 0.75, W<sub>k</sub> 1.5 (step 10), final validation loss 1.25 "
        "nats per answer token",
    };
    for (int i = 0; i < 2; i++) {
        const char *hit = strstr(cap, WANT[i]);
        ck_assert_msg(hit && hit < end, "caption lacks '%s': %.*s", WANT[i], (int)(end - cap), cap);
    }
    ck_assert_ptr_null(strstr(doc, "0.002 against 0.34")); /* the shipped pair's numbers */
    free(doc);
    tu_result_free(&r);
    tu_remove_tree(g_tmp);
}
END_TEST

/* Four heads: attn_maps.svg shows the most and the least saturated (mean over query rows 1 and 2
 * of the largest weight: head 0 (0.6 + 0.5) / 2 = 0.55, head 1 (0.5 + 0.4) / 2 = 0.45, head 2
 * (0.99 + 0.97) / 2 = 0.98, head 3 (0.7 + 0.6) / 2 = 0.65); heads 0 and 3 go to
 * attn_maps_more.svg, which the page folds behind a <details> toggle. */
START_TEST(test_maps_most_and_least_saturated) {
    tu_make_tmp(g_tmp, sizeof g_tmp, "/tmp/test_figures.XXXXXX");
    write_run("m", 2, 1);
    tu_put_file(NULL, 0, g_tmp, "m", "attn_map.csv",
                "layer,head,query,k0,k1,k2\n"
                "0,0,0,1,0,0\n0,0,1,0.6,0.4,0\n0,0,2,0.5,0.3,0.2\n"
                "0,1,0,1,0,0\n0,1,1,0.5,0.5,0\n0,1,2,0.4,0.3,0.3\n"
                "0,2,0,1,0,0\n0,2,1,0.99,0.01,0\n0,2,2,0.01,0.02,0.97\n"
                "0,3,0,1,0,0\n0,3,1,0.7,0.3,0\n0,3,2,0.2,0.2,0.6\n");
    char run[PATH_MAX], out[PATH_MAX], path[PATH_MAX + 32];
    snprintf(run, sizeof run, "%s/m", g_tmp);
    snprintf(out, sizeof out, "%s/rep", g_tmp);
    TuResult r = compare(run, "--out", out, NULL);
    ck_assert_msg(r.rc == 0, "rc %d: %s", r.rc, r.err);
    snprintf(path, sizeof path, "%s/attn_maps.svg", out);
    char *doc = tu_read_xml(path);
    ck_assert_int_eq(count_substr(doc, "<g class=\"heatmap\""), 2);
    ck_assert_int_eq(count_substr(doc, "m: layer 0, head 2, end"), 1);
    ck_assert_int_eq(count_substr(doc, "m: layer 0, head 1, end"), 1);
    free(doc);
    snprintf(path, sizeof path, "%s/attn_maps_more.svg", out);
    doc = tu_read_xml(path);
    ck_assert_int_eq(count_substr(doc, "<g class=\"heatmap\""), 2);
    ck_assert_int_eq(count_substr(doc, "m: layer 0, head 0, end"), 1);
    ck_assert_int_eq(count_substr(doc, "m: layer 0, head 3, end"), 1);
    free(doc);
    snprintf(path, sizeof path, "%s/index.html", out);
    doc = tu_read_xml(path);
    ck_assert_msg(strstr(doc, "m layer 0: head 2 (0.98) and head 1 (0.45)"), "caption");
    const char *fold = strstr(doc, "<details class=\"more\"><summary>");
    ck_assert_ptr_nonnull(fold);
    const char *more = strstr(doc, "<figure id=\"attn_maps_more\">"), *shut = strstr(fold, "</details>");
    ck_assert(more && more > fold && shut && more < shut);
    const char *main_map = strstr(doc, "<figure id=\"attn_maps\">");
    ck_assert(main_map && main_map < fold);
    free(doc);
    tu_result_free(&r);
    tu_remove_tree(g_tmp);
}
END_TEST

TU_MAIN_TIMEOUT("figures", 60, test_loss_axis_choice, test_maps_at_step0_and_end,
                test_accuracy_chance_line, test_maps_aligned, test_text_page,
                test_gradient_caption_computed, test_maps_most_and_least_saturated);
