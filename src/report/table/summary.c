/* summary.c: the summary table of ./train --compare: rows of loss, accuracy, gradient-norm and
 * attention-logit values per run, built from the logs and printed with aligned columns. */
#include "report/table/table.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "runlog/log_query.h"

/* Appends a row and returns its index, or -1 when out of memory (then cell() ignores it). */
static int table_add(Table *t, int section, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int table_add(Table *t, int section, const char *fmt, ...) {
    if (t->n == t->cap) {
        int cap = t->cap ? 2 * t->cap : 64;
        Row *r = realloc(t->row, (size_t)cap * sizeof *r);
        if (!r) {
            t->failed = 1;
            return -1;
        }
        t->row = r;
        t->cap = cap;
    }
    Row *r = &t->row[t->n];
    r->cell = calloc((size_t)t->n_runs, sizeof *r->cell);
    if (!r->cell) {
        t->failed = 1;
        return -1;
    }
    r->section = section;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->label, sizeof r->label, fmt, ap);
    va_end(ap);
    return t->n++;
}

static void cell(Table *t, int row, int run, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void cell(Table *t, int row, int run, const char *fmt, ...) {
    if (row < 0) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(t->row[row].cell[run], CELL_LEN, fmt, ap);
    va_end(ap);
}

/* v, marked "(@step)" when it was logged at a step other than the row's. */
static void logged_cell(Table *t, int row, int run, const char *v, int step, int row_step) {
    if (step != row_step)
        cell(t, row, run, "%s (@%d)", v, step);
    else
        cell(t, row, run, "%s", v);
}

void summary_free(Table *t) {
    for (int i = 0; i < t->n; i++) free(t->row[i].cell);
    free(t->row);
    memset(t, 0, sizeof *t);
}

/* A loss.csv column at (about) target. A value logged at a different step carries "(@step)";
 * none within tol steps of the target gives "-", so a run that stopped early shows no number
 * for the steps it never reached. final: the last logged value, wherever it is. */
static void value_cell(Table *t, int row, int run, const Run *r, const char *col, double target,
                       double tol, int final, const char *fmt, double scale) {
    const Csv *l = &r->loss;
    int c = csv_col(l, col);
    int i = final ? log_last_row(l, c) : log_nearest_row(l, c, target);
    if (i < 0 || (!final && fabs(log_step(l, i) - target) > tol)) {
        cell(t, row, run, "-");
        return;
    }
    char v[32];
    log_format_value(v, sizeof v, csv_num(l, i, c), fmt, scale);
    logged_cell(t, row, run, v, log_step(l, i), (int)target);
}

/* Rows of one loss.csv metric at 0, ~10%, ~25%, 50% of the longest run and at the end. The steps
 * are the logged steps (of the run that logged this metric longest) nearest to those fractions,
 * so runs that share a logging schedule get exact values. */
static void metric_rows(Table *t, const Run *runs, int n, const char *col, const char *what,
                        const char *fmt, double scale) {
    static const double FRACS[] = {0, 0.1, 0.25, 0.5};
    int longest = max_last_step(runs, n, "step"), total = max_last_step(runs, n, col);
    const Run *ref = NULL;
    for (int i = 0; i < n; i++) {
        int r = log_last_row(&runs[i].loss, csv_col(&runs[i].loss, col));
        if (r >= 0 && log_step(&runs[i].loss, r) == total && !ref) ref = &runs[i];
    }
    double tol = fmax(1, 0.05 * total);
    int prev = -1;
    for (size_t k = 0; k < sizeof FRACS / sizeof *FRACS; k++) {
        int target = (int)lround(FRACS[k] * longest);
        if (ref) {
            int r = log_nearest_row(&ref->loss, csv_col(&ref->loss, col), target);
            if (r >= 0) target = log_step(&ref->loss, r);
        }
        if (target == prev || target >= total) continue;
        prev = target;
        int row = table_add(t, 0, "%s @ step %d", what, target);
        for (int i = 0; i < n; i++)
            value_cell(t, row, i, &runs[i], col, target, tol, 0, fmt, scale);
    }
    int row = table_add(t, 0, "%s, final (step %d)", what, total);
    for (int i = 0; i < n; i++) value_cell(t, row, i, &runs[i], col, total, tol, 1, fmt, scale);
}

/* A row for key when one of the runs sets it to `unusual`, its value per run (`usual` where a
 * run's config.ini lacks the key); no row otherwise. */
static void optional_row(Table *t, const Run *runs, int n, const char *key, const char *unusual,
                         const char *usual) {
    int any = 0;
    for (int i = 0; i < n; i++) {
        const char *v = ini_get(&runs[i].config, key);
        any |= v && strcmp(v, unusual) == 0;
    }
    if (!any) return;
    int row = table_add(t, 0, "%s", key);
    for (int i = 0; i < n; i++) {
        const char *v = ini_get(&runs[i].config, key);
        cell(t, row, i, "%s", v ? v : usual);
    }
}

static void summary_config_rows(Table *t, const Run *runs, int n) {
    static const char *const KEYS[] = {"attention.scale", "init.scheme", "task.name"};
    int row = table_add(t, 0, "status");
    for (int i = 0; i < n; i++) {
        char s[CELL_LEN];
        run_status(&runs[i], s, sizeof s);
        cell(t, row, i, "%s", s);
    }
    for (size_t k = 0; k < sizeof KEYS / sizeof *KEYS; k++) {
        row = table_add(t, 0, "%s", KEYS[k]);
        for (int i = 0; i < n; i++) {
            const char *v = ini_get(&runs[i].config, KEYS[k]);
            cell(t, row, i, "%s", v ? v : "?");
        }
    }
    /* model.block only when a run uses the LLaMA block, model.matmul only when a run uses bf16,
     * so that the tables of runs without them (all runs before the keys existed) stay as they
     * were; a run without the key has its default. */
    optional_row(t, runs, n, "model.block", "llama", "gpt2");
    optional_row(t, runs, n, "model.matmul", "bf16", "float32");
    /* d_k tells how much larger unscaled logits are: their std grows like sqrt(d_k). */
    row = table_add(t, 0, "d_k = d_model / n_heads");
    for (int i = 0; i < n; i++) {
        const char *dm = ini_get(&runs[i].config, "model.d_model");
        const char *nh = ini_get(&runs[i].config, "model.n_heads");
        if (dm && nh && atoi(nh) > 0)
            cell(t, row, i, "%d", atoi(dm) / atoi(nh));
        else
            cell(t, row, i, "?");
    }
}

static void summary_accuracy_rows(Table *t, const Run *runs, int n) {
    if (runs_are_text(runs, n)) {
        /* on text every next byte is an answer: one accuracy, and no answer-threshold steps */
        table_add(t, 1, "validation next-byte accuracy (%%)");
        metric_rows(t, runs, n, "val_token_acc", "next-byte acc", "%.1f%%", 100);
        return;
    }
    table_add(t, 1, "validation accuracy (%%)");
    metric_rows(t, runs, n, "val_answer_acc", "answer acc", "%.1f%%", 100);
    metric_rows(t, runs, n, "val_token_acc", "token acc", "%.1f%%", 100);
    /* time to learn: the first validation pass at each threshold; "never (by N)" names the last
     * pass, where a run that never got there was last seen */
    for (int k = 0; k < TTL_N; k++) {
        int row = table_add(t, 0, "answer acc >= %s%% first at step", TTL_NAME[k]);
        for (int i = 0; i < n; i++) {
            TimeToLearn ttl = time_to_learn(&runs[i].loss);
            if (!ttl.has_eval) cell(t, row, i, "n/a");
            else if (ttl.reached[k]) cell(t, row, i, "%d", ttl.step[k]);
            else cell(t, row, i, "never (by %d)", ttl.last_eval_step);
        }
    }
}

static void summary_gradient_rows(Table *t, const Run *runs, int n) {
    int layers = 0, total = 0;
    for (int i = 0; i < n; i++) {
        if (grad_layers(&runs[i]) > layers) layers = grad_layers(&runs[i]);
        if (runs[i].has_grads && runs[i].grads.n_rows > 0 &&
            log_step(&runs[i].grads, runs[i].grads.n_rows - 1) > total)
            total = log_step(&runs[i].grads, runs[i].grads.n_rows - 1);
    }
    table_add(t, 1, "gradient L2 norm at the last logged step (before clipping)");
    for (int l = -1; l < layers; l++)
        for (int part = 0; part < (l < 0 ? 1 : 2); part++) {
            char col[96];
            int row;
            if (l < 0) {
                snprintf(col, sizeof col, "global");
                row = table_add(t, 0, "global");
            } else {
                snprintf(col, sizeof col, "blocks.%d.attn.qkv.weight.%c", l, "qk"[part]);
                row = table_add(t, 0, "layer %d W_%c", l, "qk"[part]);
            }
            for (int i = 0; i < n; i++) {
                const Csv *g = &runs[i].grads;
                int c = runs[i].has_grads ? csv_col(g, col) : -1;
                int r = log_last_row(g, c);
                if (r < 0) {
                    cell(t, row, i, "n/a");
                    continue;
                }
                char v[32];
                log_format_value(v, sizeof v, csv_num(g, r, c), "%#.3g", 1);
                logged_cell(t, row, i, v, log_step(g, r), total);
            }
        }
}

/* How far each layer's logits grew (log_logit_growth): the peak of the head-mean logit std with
 * its step, and the first step at which it exceeded 10x its step-0 value. */
static void summary_growth_rows(Table *t, const Run *runs, int n, int layers) {
    for (int l = 0; l < layers; l++) {
        int peak = table_add(t, 0, "layer %d logit std, peak", l);
        int tenx = table_add(t, 0, "layer %d logit std first > 10x step 0", l);
        for (int i = 0; i < n; i++) {
            LogitGrowth g;
            if (!runs[i].has_attn || log_logit_growth(&runs[i].attn, l, &g) != 0) {
                cell(t, peak, i, "n/a");
                cell(t, tenx, i, "n/a");
                continue;
            }
            char v[32];
            log_format_value(v, sizeof v, g.peak, "%#.3g", 1);
            cell(t, peak, i, "%s @ step %ld", v, g.peak_step);
            if (g.first_10x >= 0)
                cell(t, tenx, i, "step %ld", g.first_10x);
            else
                cell(t, tenx, i, isnan(g.std0) ? "n/a (no step 0)" : "never");
        }
    }
}

static void summary_attention_rows(Table *t, const Run *runs, int n) {
    int layers = 0, total = 0;
    for (int i = 0; i < n; i++) {
        if (attn_layers(&runs[i]) > layers) layers = attn_layers(&runs[i]);
        if (attn_step(&runs[i], 1) > total) total = attn_step(&runs[i], 1);
    }
    if (layers == 0) return;
    table_add(t, 1, "attention logits (mean over heads)");
    static const char *const COLS[] = {"logit_std", "saturated_frac"};
    static const char *const WHAT[] = {"logit std", "saturated fraction"};
    for (int l = 0; l < layers; l++)
        for (int k = 0; k < 2; k++)
            for (int last = 0; last < 2; last++) {
                int row = last ? table_add(t, 0, "layer %d %s, final", l, WHAT[k])
                               : table_add(t, 0, "layer %d %s @ step 0", l, WHAT[k]);
                for (int i = 0; i < n; i++) {
                    int step = attn_step(&runs[i], last);
                    if (step < 0 || l >= attn_layers(&runs[i])) {
                        cell(t, row, i, "n/a");
                        continue;
                    }
                    char v[32];
                    double mean = log_head_mean(&runs[i].attn, step, l, COLS[k], NULL);
                    log_format_value(v, sizeof v, mean, k ? "%.1f%%" : "%#.3g", k ? 100 : 1);
                    logged_cell(t, row, i, v, step, last ? total : 0);
                }
            }
    summary_growth_rows(t, runs, n, layers);
}

/* Mean over heads and logged steps of attention.csv column `name` at one layer (rows where it
 * is not empty); NAN when there is none. */
static double attn_mean_over_steps(const Csv *attn, int layer, const char *name) {
    int cl = csv_col(attn, "layer"), cv = csv_col(attn, name), count = 0;
    double sum = 0;
    for (int i = 0; cl >= 0 && cv >= 0 && i < attn->n_rows; i++)
        if (csv_num(attn, i, cl) == layer && !csv_empty(attn, i, cv)) {
            sum += csv_num(attn, i, cv);
            count++;
        }
    return count ? sum / count : NAN;
}

/* The softmax pass-through: softmax_pass at step 0 and at the end, and the share of blocked rows
 * over the whole run; "n/a" for a run whose attention.csv predates these columns, and no section
 * at all when no run has them. */
static void summary_passthru_rows(Table *t, const Run *runs, int n) {
    int layers = 0, total = 0, any = 0;
    for (int i = 0; i < n; i++) {
        int has = runs[i].has_attn && csv_col(&runs[i].attn, "softmax_pass") >= 0;
        any |= has;
        if (has && attn_layers(&runs[i]) > layers) layers = attn_layers(&runs[i]);
        if (has && attn_step(&runs[i], 1) > total) total = attn_step(&runs[i], 1);
    }
    if (!any || layers == 0) return;
    table_add(t, 1, "softmax pass-through |dL/dZ| / |dL/dP| (mean over heads)");
    for (int l = 0; l < layers; l++)
        for (int k = 0; k < 3; k++) {
            int row = k == 0 ? table_add(t, 0, "layer %d softmax_pass @ step 0", l)
                    : k == 1 ? table_add(t, 0, "layer %d softmax_pass, final", l)
                             : table_add(t, 0, "layer %d blocked rows (pass < 1%%), mean over "
                                               "steps", l);
            for (int i = 0; i < n; i++) {
                const Csv *a = &runs[i].attn;
                int step = attn_step(&runs[i], k == 1);
                if (step < 0 || l >= attn_layers(&runs[i]) ||
                    csv_col(a, k < 2 ? "softmax_pass" : "blocked_rows") < 0) {
                    cell(t, row, i, "n/a");
                    continue;
                }
                char v[32];
                if (k < 2) {
                    log_format_value(v, sizeof v, log_head_mean(a, step, l, "softmax_pass", NULL),
                                     "%#.3g", 1);
                    logged_cell(t, row, i, v, step, k ? total : 0);
                } else {
                    log_format_value(v, sizeof v, attn_mean_over_steps(a, l, "blocked_rows"),
                                     "%.1f%%", 100);
                    cell(t, row, i, "%s", v);
                }
            }
        }
}

int summary_build(Table *t, const Run *runs, int n) {
    memset(t, 0, sizeof *t);
    t->n_runs = n;
    table_add(t, 1, "setup");
    summary_config_rows(t, runs, n);
    int text = runs_are_text(runs, n);
    table_add(t, 1, text ? "loss (nats/byte)" : "loss (nats/token)");
    metric_rows(t, runs, n, "train_loss", "train loss", "%.4f", 1);
    metric_rows(t, runs, n, "val_loss", "val loss", "%.4f", 1);
    /* the text task's loss.csv has val_bpb (bits per byte); other tasks' logs do not */
    int bpb = 0;
    for (int i = 0; i < n; i++) bpb |= csv_col(&runs[i].loss, "val_bpb") >= 0;
    if (text) {
        table_add(t, 1, "bits per byte (loss / ln 2; a uniform guess: 8)");
        metric_rows(t, runs, n, "train_loss", "train bpb", "%.4f", 1 / log(2.0));
        metric_rows(t, runs, n, "val_bpb", "val bpb", "%.4f", 1);
    } else if (bpb) {
        table_add(t, 1, "validation bits per byte (text task: val loss / ln 2)");
        metric_rows(t, runs, n, "val_bpb", "val bpb", "%.4f", 1);
    }
    summary_accuracy_rows(t, runs, n);
    summary_gradient_rows(t, runs, n);
    summary_attention_rows(t, runs, n);
    summary_passthru_rows(t, runs, n);
    return t->failed ? -1 : 0;
}

static void print_repeat(FILE *f, char c, int n) {
    for (int i = 0; i < n; i++) fputc(c, f);
}

void summary_print(const Table *t, const Run *runs, FILE *f) {
    int label_w = 3, total;
    int *w = calloc((size_t)t->n_runs, sizeof *w);
    if (!w) return;
    /* Headings stand on their own lines, so only row labels set the width. */
    for (int r = 0; r < t->n; r++)
        if (!t->row[r].section && (int)strlen(t->row[r].label) + 2 > label_w)
            label_w = (int)strlen(t->row[r].label) + 2;
    total = label_w;
    for (int i = 0; i < t->n_runs; i++) {
        w[i] = (int)strlen(runs[i].name);
        for (int r = 0; r < t->n; r++)
            if ((int)strlen(t->row[r].cell[i]) > w[i]) w[i] = (int)strlen(t->row[r].cell[i]);
        total += 3 + w[i];
    }
    fprintf(f, "%-*s", label_w, "run");
    for (int i = 0; i < t->n_runs; i++) fprintf(f, "   %*s", w[i], runs[i].name);
    fputc('\n', f);
    print_repeat(f, '=', total);
    fputc('\n', f);
    for (int r = 0; r < t->n; r++) {
        const Row *row = &t->row[r];
        if (row->section) {
            if (r > 0) fputc('\n', f);
            fprintf(f, "%s\n", row->label);
            continue;
        }
        fprintf(f, "  %-*s", label_w - 2, row->label);
        for (int i = 0; i < t->n_runs; i++) fprintf(f, "   %*s", w[i], row->cell[i]);
        fputc('\n', f);
    }
    print_repeat(f, '=', total);
    fprintf(f, "\n(@N): logged at step N, the nearest to the row's step; -: not logged near that "
               "step; n/a: not in this run's logs\n");
    free(w);
}
