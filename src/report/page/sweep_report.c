/* sweep_report.c: the sweep report (see page.h). Reading order: which rows count, the
 * summary over seeds (after the verdict, verdict.c), the outlying seeds, sweep_report (LR
 * sensitivity and figures come from
 * lr_sensitivity.c and sweep_figures.c), and before it the check that the folder holds no file of
 * the user's that the report would replace. The text is built once in memory, its lines escaped
 * (shown_lines), and then written both to the terminal and to summary.txt, so the two never
 * differ. */

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "report/table/table.h"
#include "report/read/read.h"
#include "report/figure/figure.h"
#include "report/page/page_internal.h"
#include "report/plot/plot.h"
#include "util/error_list.h"
#include "util/exit_codes.h"
#include "util/file_check.h"
#include "util/owned_dir.h"
#include "util/whole_write.h"

/* A seed this many accuracy points (of 100) from its group's median is named. */
#define OUTLIER_POINTS 20.0
/* Rows that did not train named one by one; a sweep not yet run has hundreds. */
#define MAX_LISTED 20

/* ------------------------------------------------------------------ which rows count */

static void print_rows_used(FILE *f, const SweepTable *t, const char *path) {
    int n_ok = 0, n_div = 0, n_guard = 0, left = 0, n_mismatch = 0;
    for (int i = 0; i < t->n_rows; i++) {
        const char *s = t->rows[i].status;
        n_mismatch += sweep_status_find(s) == ST_MISMATCH;
        n_ok += strcmp(s, "ok") == 0;
        n_div += strcmp(s, "diverged") == 0;
        n_guard += strcmp(s, "guard") == 0;
        left += !t->rows[i].in_stats;
    }
    fprintf(f, SWEEP_REPORT_MARK "%s: %d run%s", path, t->n_rows, t->n_rows == 1 ? "" : "s");
    fprintf(f, "; varied: ");
    for (int k = 0; k < t->n_keys; k++) fprintf(f, "%s%s", k ? ", " : "", sweep_key_name(t, k));
    fprintf(f, "%s\n", t->n_keys ? "" : "nothing");
    fprintf(f, "in the statistics: %d (ok %d, diverged %d, guard %d)\n", n_ok + n_div + n_guard,
            n_ok, n_div, n_guard);
    if (left) {
        fprintf(f, "left out of the statistics: %d (did not train to the end%s):\n", left,
                n_mismatch ? ", or not the plan's run" : "");
        for (int i = 0, shown = 0; i < t->n_rows; i++) {
            const SweepRow *r = &t->rows[i];
            if (r->in_stats) continue;
            if (shown++ == MAX_LISTED) {
                fprintf(f, "  ... and %d more (status in sweep.csv)\n", left - MAX_LISTED);
                break;
            }
            fprintf(f, "  line %d: %s: %s", r->line, *r->run ? r->run : "(no run name)", r->status);
            if (r->has[SW_EXIT]) fprintf(f, " (exit code %.0f)", r->v[SW_EXIT]);
            fputc('\n', f);
        }
    }
    if (n_mismatch)
        fprintf(f, "status mismatch: %d run folder%s a run of another configuration than the "
                   "plan's row (--collect names the setting that differs); not counted as the "
                   "plan's\n", n_mismatch, n_mismatch > 1 ? "s hold" : " holds");
    /* what the reading warned about (warnings.c): this sweep.csv's rows skipped and, after a
     * collection, the run logs' */
    if (warnings_count() || warnings_dropped()) {
        fprintf(f, "read with warnings: %d (rows skipped; sweep.csv: %d)\n",
                warnings_count() + warnings_dropped(), t->n_malformed);
        for (int i = 0; i < warnings_count(); i++) fprintf(f, "  %s\n", warnings_at(i));
        if (warnings_dropped())
            fprintf(f, "  ... and %d more (printed above)\n", warnings_dropped());
    }
}

/* ------------------------------------------------------------------ summary over seeds */

/* "median [min-max]" of s, or "-" when nothing was measured; fmt formats one number. */
static void range_cell(char *out, size_t n, SweepStat s, const char *fmt) {
    if (s.n == 0) {
        snprintf(out, n, "-");
        return;
    }
    char a[24], b[24], c[24];
    snprintf(a, sizeof a, fmt, s.median);
    snprintf(b, sizeof b, fmt, s.lo);
    snprintf(c, sizeof c, fmt, s.hi);
    if (s.n == 1) snprintf(out, n, "%s", a);
    else snprintf(out, n, "%s [%s-%s]", a, b, c);
}

static void median_cell(char *out, size_t n, SweepStat s, const char *fmt) {
    if (s.n == 0) snprintf(out, n, "-");
    else snprintf(out, n, fmt, s.median);
}

static int has_column(const SweepTable *t, SweepMetric m) {
    for (int i = 0; i < t->n_rows; i++)
        if (t->rows[i].has[m]) return 1;
    return 0;
}

static void print_sweep_summary(FILE *f, const SweepTable *t, const SweepGroup *g, int n) {
    int w = 5, with_99 = t->col[SW_FIRST99] >= 0, with_pass = has_column(t, SW_PASS), any_stop = 0;
    int text = t->acc == SWEEP_ACC_NEXT_BYTE; /* bits per byte: the measure of text */
    for (int k = 0; k < n; k++)
        if ((int)strlen(g[k].label) > w) w = (int)strlen(g[k].label);
    /* the sort sweeps' wording, unchanged: acc is val_answer_acc */
    char acc_is[160] = "final val_answer_acc";
    if (t->acc != SWEEP_ACC_ANSWER)
        snprintf(acc_is, sizeof acc_is, "final %s (val_answer_acc = val_token_acc on text)",
                 sweep_acc_name(t));
    fprintf(f, "\nsummary over seeds: acc = %s (%%), median [min-max]; >=99%% = "
               "seeds that reached 99 %% at some validation pass;\nstep99 = median first_step_99 "
               "of those seeds; val_loss, %sstd0 (logit_std0), sat (saturated_final)%s = "
               "medians\n\n", acc_is, text ? "bpb (val_loss / ln 2, bits per byte), " : "",
            with_pass ? ", pass (softmax_pass_final)" : "");
    fprintf(f, "  %-*s  %4s  %-22s  %6s  %6s  %9s", w, "group", "n", "acc", ">=99%", "step99",
            "val_loss");
    if (text) fprintf(f, "  %7s", "bpb");
    fprintf(f, "  %8s  %6s", "std0", "sat");
    if (with_pass) fprintf(f, "  %6s", "pass");
    fputc('\n', f);
    for (int k = 0; k < n; k++) {
        char acc[96], s99[16] = "-", step[16], loss[16], bpb[16], std[16], sat[16], pass[16],
            nn[16];
        int stopped = 0, reached = 0;
        for (int i = 0; i < g[k].n; i++) {
            const SweepRow *r = &t->rows[g[k].rows[i]];
            stopped |= r->stopped;
            reached += r->has[SW_FIRST99] && isfinite(r->v[SW_FIRST99]);
        }
        any_stop |= stopped;
        snprintf(nn, sizeof nn, "%d%s", g[k].n, stopped ? "*" : "");
        if (with_99) snprintf(s99, sizeof s99, "%d/%d", reached, g[k].n);
        range_cell(acc, sizeof acc, sweep_stat(t, &g[k], SW_VAL_ACC, 100), "%.1f");
        median_cell(step, sizeof step, sweep_stat(t, &g[k], SW_FIRST99, 1), "%.0f");
        median_cell(loss, sizeof loss, sweep_stat(t, &g[k], SW_VAL_LOSS, 1), "%.4g");
        median_cell(bpb, sizeof bpb, sweep_stat(t, &g[k], SW_VAL_LOSS, 1 / log(2.0)), "%.4f");
        median_cell(std, sizeof std, sweep_stat(t, &g[k], SW_STD0, 1), "%.3g");
        median_cell(sat, sizeof sat, sweep_stat(t, &g[k], SW_SAT, 1), "%.3f");
        median_cell(pass, sizeof pass, sweep_stat(t, &g[k], SW_PASS, 1), "%.3f");
        fprintf(f, "  %-*s  %4s  %-22s  %6s  %6s  %9s", w, g[k].label, nn, acc, s99, step, loss);
        if (text) fprintf(f, "  %7s", bpb);
        fprintf(f, "  %8s  %6s", std, sat);
        if (with_pass) fprintf(f, "  %6s", pass);
        fputc('\n', f);
    }
    if (any_stop)
        fprintf(f, "  * the group has runs that diverged or tripped a guard; their numbers are "
                   "from the last validation pass before they stopped\n");
}

/* Seeds whose final accuracy is more than OUTLIER_POINTS from their group's median. */
static void print_outliers(FILE *f, const SweepTable *t, const SweepGroup *g, int n) {
    int seed = sweep_key(t, "seed"), any = 0;
    for (int k = 0; k < n; k++) {
        SweepStat s = sweep_stat(t, &g[k], SW_VAL_ACC, 100);
        for (int i = 0; s.n > 1 && i < g[k].n; i++) {
            const SweepRow *r = &t->rows[g[k].rows[i]];
            double acc = 100 * r->v[SW_VAL_ACC];
            if (!r->has[SW_VAL_ACC] || isnan(acc) || !(fabs(acc - s.median) > OUTLIER_POINTS))
                continue;
            if (!any++)
                fprintf(f, "\noutlying seeds (final accuracy more than %.0f points from the "
                           "group's median):\n", OUTLIER_POINTS);
            if (seed >= 0) fprintf(f, "  %s: seed %s: %.1f %%", g[k].label,
                                   sweep_key_value(t, r, seed), acc);
            else fprintf(f, "  %s: run %s: %.1f %%", g[k].label, r->run, acc);
            fprintf(f, " (median %.1f %%, %s)\n", s.median, r->status);
        }
    }
}

/* ------------------------------------------------------------------ the folder */

/* For the entry name of dir: -1 when it is none of the files the report writes (summary.txt,
 * index.html, *.svg; sweep.csv is the sweep's), 1 when it is one a sweep report wrote (see
 * sweep_report_check_folder), else 0: the user's. */
static int report_file_ours(const char *dir, const char *name) {
    static const struct {
        const char *name, *mark;
    } files[] = {{"summary.txt", SWEEP_REPORT_MARK}, {"index.html", SWEEP_PAGE_MARK}};
    const char *mark = NULL;
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++)
        if (strcmp(name, files[i].name) == 0) mark = files[i].mark;
    size_t len = strlen(name);
    int svg = len > 4 && strcmp(name + len - 4, ".svg") == 0;
    if (!mark && !svg) return -1;
    char path[PATH_MAX + 300], why[128];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (lstat(path, &st) != 0 || !S_ISREG(st.st_mode)) return 0;
    char *text = file_read_regular(path, FILE_MAX_LOG_BYTES, &len, why, sizeof why);
    int ours = text && (svg ? svg_is_ours(text)
                            : mark == files[0].mark ? strncmp(text, mark, strlen(mark)) == 0
                                                    : strstr(text, mark) != NULL);
    free(text);
    return ours;
}

int sweep_report_check_name(const char *dir) {
    size_t dir_len = strlen(dir);
    if (dir_len <= SWEEP_DIR_MAX) return 0;
    error_add(NULL, 0, NULL, "the sweep folder's name is %zu bytes long, over the %d the report "
                             "takes (its files' paths must fit): '%.60s...'; nothing was written",
              dir_len, SWEEP_DIR_MAX, dir);
    return -1;
}

/* The report's owner rule (util/owned_dir.h): in a folder of an earlier version (no manifest),
 * a file the report writes is adopted when it is one a sweep report wrote (report_file_ours). */
static int adopt_report_file(const char *dir, const char *name) {
    return report_file_ours(dir, name) == 1;
}

static const char *const REPORT_NAMES[] = {"summary.txt", "index.html", SWEEP_FIGURE_NAMES};

static const OwnedWriter REPORT_WRITER = {
    .id = "sweep-report",
    .what = "sweep folder",
    .who = "a sweep into this folder",
    .would = "the sweep's report would replace it",
    .names = REPORT_NAMES,
    .n_names = (int)(sizeof REPORT_NAMES / sizeof *REPORT_NAMES),
    .adopt = adopt_report_file,
    .advice = "Use another --out, or move it away",
};

const char *sweep_report_folder_mark(const char *dir) {
    static const char *const PAGES[] = {"summary.txt", "index.html"};
    for (size_t i = 0; i < sizeof PAGES / sizeof *PAGES; i++)
        if (report_file_ours(dir, PAGES[i]) == 1) return PAGES[i];
    return NULL;
}

int sweep_report_check_folder(const char *dir) {
    if (sweep_report_check_name(dir) != 0) return -1;
    return owned_dir_check(dir, &REPORT_WRITER, NULL);
}

/* ------------------------------------------------------------------ the report */

/* The whole text of the report; figures are written on the way. Returns 0 or -1; *trained is
 * the number of groups of rows in the statistics (0: no run trained). */
static int report_text(FILE *f, const SweepTable *t, const char *csv_path, const char *dir,
                       int *trained) {
    print_rows_used(f, t, csv_path);
    int seed = sweep_key(t, "seed");
    SweepGroup *g;
    int n = sweep_groups(t, seed >= 0 ? 1u << seed : 0u, &g);
    if (n < 0) {
        error_add(NULL, 0, NULL, "out of memory grouping %s", csv_path);
        return -1;
    }
    *trained = n;
    if (n > 0) {
        fputc('\n', f); /* the verdict first (verdict.c): the page shows it at the top */
        if (verdict_sweep(f, t) != 0) {
            sweep_groups_free(g, n);
            return -1;
        }
        print_sweep_summary(f, t, g, n);
        print_outliers(f, t, g, n);
        if (slowdown_print(f, t) != 0) {
            sweep_groups_free(g, n);
            return -1;
        }
    } else {
        fprintf(f, "\nno run in %s trained: nothing to summarise\n", csv_path);
    }
    sweep_groups_free(g, n);
    LrGroup *lr;
    int n_lr = lr_analyse(t, &lr);
    if (n_lr < 0) return -1;
    if (n_lr > 0) lr_print(f, lr, n_lr);
    fprintf(f, "\nfigures in %s/:\n", dir);
    int rc = sweep_figures_write(t, lr, n_lr, dir, f);
    if (rc == 0) fprintf(f, "(none: no column but the seed varied over two trained values)\n");
    free(lr);
    return rc < 0 ? -1 : 0;
}

/* text (NUL-terminated, as open_memstream leaves it) with every line escaped as error lines are
 * (util/error_list.h): the report quotes sweep.csv's run names, column names, grid values and
 * statuses and the run logs' warnings, any of which may hold a control byte; escaping the
 * finished text line by line covers every line that names one, on the terminal, in summary.txt
 * and on the page alike (text already escaped stays as it is). Returns a malloc'd text (its
 * length in *len), or NULL when memory runs out. text is left as it was. */
static char *shown_lines(char *text, size_t *len) {
    char *shown = NULL;
    FILE *m = open_memstream(&shown, len);
    if (!m) return NULL;
    for (char *line = text; *line;) {
        char *nl = strchr(line, '\n');
        if (nl) *nl = '\0';
        error_put_text(m, line);
        if (!nl) break;
        *nl = '\n';
        fputc('\n', m);
        line = nl + 1;
    }
    if (fclose(m) != 0) {
        free(shown);
        return NULL;
    }
    return shown;
}

int sweep_report(const char *out_dir, FILE *out) {
    char csv_path[SWEEP_DIR_MAX + 64], txt_path[SWEEP_DIR_MAX + 64];
    if (sweep_report_check_folder(out_dir) != 0) return 1; /* also out_dir's length */
    snprintf(csv_path, sizeof csv_path, "%s/sweep.csv", out_dir);
    snprintf(txt_path, sizeof txt_path, "%s/summary.txt", out_dir);
    SweepTable t;
    int loaded = sweep_table_load(&t, csv_path);
    if (loaded != 0) return loaded == -2 ? EXIT_CONFIG : EXIT_RUNTIME; /* not a sweep.csv: bad input */
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    if (!mem) {
        fprintf(stderr, "error: out of memory writing the sweep report\n");
        sweep_table_free(&t);
        return 1;
    }
    /* locked while it is written (a second report into the folder waits), and the figures of
     * an earlier report that this one does not draw go (owned_dir.h) */
    int owned = owned_dir_open(out_dir, &REPORT_WRITER, OWNED_LOCK_WAIT, NULL);
    if (owned < 0) {
        fclose(mem);
        free(text);
        sweep_table_free(&t);
        return owned == -2 ? EXIT_CONFIG : 1;
    }
    /* What was computed is shown even when a figure could not be written. */
    int trained = 0;
    int rc = report_text(mem, &t, csv_path, out_dir, &trained);
    static const char *const figures[] = {SWEEP_FIGURE_NAMES};
    owned_dir_remove_stale(owned, figures, 1);
    int closed = fclose(mem) == 0;
    char *raw = text; /* the report as written; what is shown is its lines escaped */
    text = closed && raw ? shown_lines(raw, &len) : NULL;
    free(raw);
    if (!text) {
        fprintf(stderr, "error: out of memory writing the sweep report\n");
        rc = -1;
    } else {
        if (fwrite(text, 1, len, out) != len || fflush(out) != 0) {
            error_add(NULL, 0, NULL, "cannot print the sweep report: %s", strerror(errno));
            rc = -1;
        }
        int bad = file_write_atomic(txt_path, text, len) != 0;
        if (bad) error_add(NULL, 0, NULL, "cannot write '%s': %s", txt_path, strerror(errno));
        if (bad) {
            rc = -1;
        } else {
            fprintf(out, "\nwrote %s\n", SHOWN(txt_path));
            /* the page says summary.txt beside it holds the same text */
            if (sweep_page_write(out_dir, text) != 0) rc = -1;
            else fprintf(out, "wrote %s/index.html\n", SHOWN(out_dir));
        }
    }
    owned_dir_close(owned);
    free(text);
    sweep_table_free(&t);
    /* the files are written all the same (they say which runs are missing), but a script's
     * `--collect && publish` must not go on with a report of nothing */
    if (!rc && !trained) {
        error_add(NULL, 0, NULL, "no run in %s has trained (none ok, diverged or guard): the "
                                 "report summarises nothing; exit code 1", csv_path);
        rc = -1;
    }
    return rc ? 1 : 0;
}
