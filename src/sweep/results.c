/* results.c: a run folder read into one sweep.csv row (the marker for status, exit code, wall
 * time and version; loss.csv, attention.csv, grad_norms.csv and config.ini for the numbers), and
 * sweep.csv written whole from the rows. Columns: report/read/sweep_columns.c. */
#include "sweep/results.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "config/config.h"
#include "runlog/csv_read.h"
#include "runlog/log_query.h"
#include "util/error_list.h"
#include "util/file_check.h"
#include "util/run_lock.h"
#include "report/read/read.h"
#include "report/table/table.h"
#include "tasks/tasks.h"
#include "train/evaluate.h"
#include "train/train.h"

int results_final(int exit_code) { return exit_code == 0 || exit_code == 3 || exit_code == 4; }

int results_marker_read(const char *run_dir, RunMarker *m) {
    char path[SWEEP_PATH + 32];
    snprintf(path, sizeof path, "%s/%s", run_dir, SWEEP_MARKER);
    char why[128];
    FILE *f = file_fopen_regular(path, FILE_MAX_TEXT_BYTES, why, sizeof why);
    if (!f) {
        if (errno == ENOENT) return -1;
        fprintf(stderr, "warning: '%s': %s; its status is unknown\n", SHOWN(path), why);
        return -2;
    }
    memset(m, 0, sizeof *m);
    m->wall_s = NAN;
    int got = 0;
    const char *bad = NULL; /* why the marker is not one results_marker_write wrote */
    char line[256];
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        if (strncmp(line, "exit_code ", 10) == 0) {
            /* once, and an exit status: a whole number in [0, 255] */
            char *end;
            errno = 0;
            long v = strtol(line + 10, &end, 10);
            if (got++) bad = "exit_code given twice";
            else if (end == line + 10 || *end || errno || v < 0 || v > 255 || line[10] == ' ')
                bad = "exit_code is not an exit status (a whole number 0-255)";
            else m->exit_code = (int)v;
        } else if (strncmp(line, "wall_s ", 7) == 0) m->wall_s = strtod(line + 7, NULL);
        else if (strncmp(line, "version ", 8) == 0)
            snprintf(m->version, sizeof m->version, "%.63s", line + 8);
    }
    fclose(f);
    if (bad) fprintf(stderr, "warning: '%s': %s; its status is unknown\n", SHOWN(path), bad);
    return got && !bad ? 0 : -2;
}

int results_marker_write(const char *run_dir, const RunMarker *m) {
    char path[SWEEP_PATH + 32], text[256];
    snprintf(path, sizeof path, "%s/%s", run_dir, SWEEP_MARKER);
    int n = snprintf(text, sizeof text, "exit_code %d\nwall_s %.3f\nversion %s\n", m->exit_code,
                     m->wall_s, m->version);
    return sweep_write_atomic(path, text, (size_t)n);
}

SweepStatus results_status(const RunState *s) {
    if (s->has_folder && s->mismatch) return ST_MISMATCH;
    if (s->refused) return ST_REFUSED;
    if (!s->has_folder) return ST_MISSING;
    if (s->marker == -2) return ST_UNKNOWN;
    if (s->marker == -1) return s->live ? ST_RUNNING : ST_STOPPED;
    switch (s->exit_code) {
    case 0: return s->short_log ? ST_INCOMPLETE : ST_OK;
    case 3: return ST_DIVERGED;
    case 4: return ST_GUARD;
    default: return ST_FAILED;
    }
}

/* The first line of config text a (section.key = value) that differs from b's, as "KEY = A, the
 * plan's B" into why. Both are config_write's text: the same keys in the same order. */
static void first_difference(const char *a, const char *b, char *why, size_t n) {
    char section[64] = "";
    snprintf(why, n, "a setting differs");
    while (*a && *b) {
        size_t la = strcspn(a, "\n"), lb = strcspn(b, "\n");
        if (*a == '[') snprintf(section, sizeof section, "%.*s", (int)strcspn(a + 1, "]"), a + 1);
        if (la != lb || strncmp(a, b, la) != 0) {
            int kl = (int)strcspn(a, " =");
            const char *va = a + kl + strspn(a + kl, " ="), *vb = b + kl + strspn(b + kl, " =");
            snprintf(why, n, "%s.%.*s = %.*s, the plan's %.*s", section, kl, a,
                     (int)(la - (size_t)(va - a)), va, (int)(lb - (size_t)(vb - b)), vb);
            return;
        }
        a += la + (a[la] != '\0'), b += lb + (b[lb] != '\0');
    }
}

int results_same_config(const Config *c, const char *origin, const char *text, char *why, size_t n) {
    Config *k = malloc(sizeof *k);
    if (!k) return -1;
    config_defaults(k);
    int same = -1;
    if (config_load_text(k, origin, text, strlen(text)) == 0) {
        task_read_stored_separator(k);
        memcpy(k->run_dir, c->run_dir, sizeof k->run_dir);
        memcpy(k->run_name, c->run_name, sizeof k->run_name);
        k->threads = c->threads;
        k->progress = c->progress;
        char *a = config_text(k), *b = config_text(c);
        same = a && b && strcmp(a, b) == 0;
        if (!same && a && b && why) first_difference(a, b, why, n);
        free(a);
        free(b);
    }
    free(k);
    return same;
}

/* 1 when run_dir/config.ini, what the run in it trains, is not plan run r (why says which setting
 * differs); 0 when it is, or when there is no config.ini or plan text to compare. */
static int mismatched(const Plan *p, int r, const char *run_dir, char *why, size_t n) {
    char path[SWEEP_PATH + 32], msg[128];
    if (!p->text) return 0;
    snprintf(path, sizeof path, "%s/config.ini", run_dir);
    size_t len;
    char *text = file_read_regular(path, 1 << 20, &len, msg, sizeof msg);
    Config *c = text ? malloc(sizeof *c) : NULL;
    int differs = c && plan_row_config(p, r, run_dir, "plan.txt", c) == 0 &&
                  results_same_config(c, path, text, why, n) != 1;
    free(c);
    free(text);
    return differs;
}

int results_config_edited(const Plan *p, int r, const char *out, char *why, size_t n) {
    char path[SWEEP_PATH + PLAN_CELL + 16], runs[SWEEP_PATH + 8];
    plan_config_path(path, sizeof path, out, p->names[r]);
    snprintf(runs, sizeof runs, "%s/runs", out);
    Config *k = p->text ? malloc(2 * sizeof *k) : NULL;
    char *text = NULL;
    int edited = 0;
    /* read as --sweep-run reads it (task.separator resolved), against the plan's row */
    if (k && sweep_load_run_config(path, &k[0]) == 0 && (text = config_text(&k[0])) &&
        plan_row_config(p, r, runs, "plan.txt", &k[1]) == 0)
        edited = results_same_config(&k[1], path, text, why, n) == 0;
    free(text);
    free(k);
    return edited;
}

/* The numbers of a row; has_* say which were measured. */
typedef struct {
    int has_steps, has_val, has_best, has_loss0, has_std0, has_sat, has_pass, has_grad, has_pred;
    /* the layer whose head-mean logit std peaked highest (log_logit_growth), and the first step
     * at which any layer's exceeded 10x its step-0 value (-1: none) */
    int has_peak, peak_layer;
    double peak, peak_step, first_10x;
    double steps_done, val_loss, val_acc, val_tok, best_loss, best_acc, loss0, std0, sat, pass,
        gq, gk, pred, val_step;
    const char *init; /* init.scheme from config.ini; "" when not read */
    const char *task; /* task.name from config.ini; NULL when not read */
    TimeToLearn ttl;
} Measured;

static int load(Csv *t, const char *dir, const char *file) {
    char path[SWEEP_PATH + 32];
    return log_read(t, dir, file, path, sizeof path, 0);
}

static void read_loss(const char *dir, Measured *m) {
    Csv t = {0};
    if (load(&t, dir, "loss.csv") == 0 && t.n_rows > 0) {
        int acc = csv_col(&t, "val_answer_acc"), loss = csv_col(&t, "val_loss");
        int tok = csv_col(&t, "val_token_acc"), last = log_last_row(&t, acc);
        m->has_steps = log_step(&t, t.n_rows - 1) >= 0;
        m->steps_done = log_step(&t, t.n_rows - 1);
        if (last >= 0) {
            m->has_val = 1;
            m->val_loss = csv_num(&t, last, loss);
            m->val_acc = csv_num(&t, last, acc);
            m->val_tok = csv_num(&t, last, tok);
            m->val_step = log_step(&t, last);
        }
        for (int i = 0; i < t.n_rows; i++) {
            if (csv_empty(&t, i, acc)) continue;
            double a = csv_num(&t, i, acc), l = csv_num(&t, i, loss);
            if (!m->has_best) m->best_loss = l, m->best_acc = a, m->has_best = 1;
            if (l < m->best_loss || (isnan(m->best_loss) && !isnan(l))) m->best_loss = l;
            if (a > m->best_acc || (isnan(m->best_acc) && !isnan(a))) m->best_acc = a;
            if (log_step(&t, i) == 0 && !csv_empty(&t, i, loss)) m->has_loss0 = 1, m->loss0 = l;
        }
        m->ttl = time_to_learn(&t);
    }
    csv_free(&t);
}

/* The step-0 logit std predicted from the run's config.ini (model.h); works on the folders of
 * older programs, which wrote the same file. Not measured when it cannot be read. */
static void read_config(const char *dir, Measured *m) {
    char path[SWEEP_PATH + 32];
    struct stat st;
    if (log_path(path, sizeof path, dir, "config.ini") != 0 || stat(path, &st) != 0) return;
    Config c;
    config_defaults(&c);
    if (config_load_file(&c, path) != 0 || c.n_heads <= 0 || c.d_model % c.n_heads) return;
    m->pred = train_predicted_logit_std(&c);
    m->has_pred = 1;
    m->init = c.init == INIT_GPT2 ? "gpt2" : "fan_in";
    m->task = config_task_name(c.task);
}

/* Mean of column name over every row (layers and heads) of the last step in attention.csv. */
static int last_step_mean(const Csv *t, const char *name, double *out) {
    int cs = csv_col(t, "step"), cv = csv_col(t, name);
    if (cs < 0 || cv < 0 || t->n_rows == 0) return 0;
    double last = csv_num(t, t->n_rows - 1, cs), sum = 0;
    int n = 0;
    for (int i = 0; i < t->n_rows; i++)
        if (csv_num(t, i, cs) == last && !csv_empty(t, i, cv)) sum += csv_num(t, i, cv), n++;
    if (n) *out = sum / n;
    return n > 0;
}

static void read_attention(const char *dir, Measured *m) {
    Csv t = {0};
    if (load(&t, dir, "attention.csv") == 0) {
        int n;
        m->std0 = log_head_mean(&t, 0, 0, "logit_std", &n);
        m->has_std0 = n > 0;
        m->has_sat = last_step_mean(&t, "saturated_frac", &m->sat);
        m->has_pass = last_step_mean(&t, "softmax_pass", &m->pass);
        m->first_10x = -1;
        LogitGrowth g;
        for (int l = 0; log_logit_growth(&t, l, &g) == 0; l++) {
            if (!m->has_peak || g.peak > m->peak)
                m->has_peak = 1, m->peak = g.peak, m->peak_step = (double)g.peak_step,
                m->peak_layer = l;
            if (g.first_10x >= 0 && (m->first_10x < 0 || g.first_10x < m->first_10x))
                m->first_10x = (double)g.first_10x;
        }
    }
    csv_free(&t);
}

static void read_grads(const char *dir, Measured *m) {
    Csv t = {0};
    if (load(&t, dir, "grad_norms.csv") == 0 && t.n_rows > 0) {
        int q = csv_col(&t, "blocks.0.attn.qkv.weight.q"), k = csv_col(&t, "blocks.0.attn.qkv.weight.k");
        m->has_grad = q >= 0 && k >= 0;
        m->gq = csv_num(&t, t.n_rows - 1, q);
        m->gk = csv_num(&t, t.n_rows - 1, k);
    }
    csv_free(&t);
}

/* The field of a number; "" when not measured; NaN / Inf stay visible as nan / inf. */
static void put_num(char *out, size_t n, int present, double v, const char *fmt) {
    out[0] = '\0';
    if (present) log_format_value(out, n, v, fmt, 1);
}

char *results_header(const Plan *p) {
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) return NULL;
    fputs(SWEEP_RUN_COLUMN, f); /* then the plan's columns (SWEEP_PLAN_COLUMNS and --grid), the results */
    for (int c = 0; c < p->n_cols; c++) fprintf(f, ",%s", p->col_names[c]);
    for (int c = 0; c < SC_N; c++) fprintf(f, ",%s", SWEEP_COLUMNS[c].name);
    return fclose(f) == 0 ? buf : (free(buf), NULL);
}

/* The plan's train.steps of run r (its steps column), or -1 when the plan has none. */
static long planned_steps(const Plan *p, int r) {
    for (int c = 0; c < p->n_cols; c++)
        if (strcmp(p->col_names[c], SWEEP_PLAN_COLUMNS[PC_STEPS].name) == 0) {
            char *end;
            long v = strtol(p->cells[r * p->n_cols + c], &end, 10);
            return *end ? -1 : v;
        }
    return -1;
}

char *results_row(const Plan *p, int r, const char *run_dir, RowInfo *info) {
    return results_row_as(p, r, run_dir, -1, info);
}

char *results_row_as(const Plan *p, int r, const char *run_dir, int refused, RowInfo *info) {
    struct stat sb;
    RunState rs = {0};
    rs.has_folder = stat(run_dir, &sb) == 0 && S_ISDIR(sb.st_mode);
    RunMarker mk;
    rs.marker = rs.has_folder ? results_marker_read(run_dir, &mk) : -1;
    int has_marker = rs.marker == 0, code = refused >= 0 ? refused : has_marker ? mk.exit_code : -1;
    if (has_marker) rs.exit_code = mk.exit_code;
    rs.refused = refused >= 0;
    rs.live = rs.has_folder && !has_marker && run_lock_holder(run_dir) != 0;
    char why[256] = "";
    rs.mismatch = rs.has_folder && mismatched(p, r, run_dir, why, sizeof why);
    Measured m = {0};
    if (rs.has_folder) {
        read_loss(run_dir, &m);
        read_attention(run_dir, &m);
        read_grads(run_dir, &m);
        read_config(run_dir, &m);
    }
    /* "ok" but its loss.csv stops short of train.steps (cut, or tampered with): not a finished
     * run, and its numbers are not the run's final ones */
    long steps = planned_steps(p, r);
    rs.short_log = steps >= 0 && (!m.has_steps || m.steps_done < (double)steps);
    SweepStatus st = results_status(&rs);
    const char *status = SWEEP_STATUSES[st].name;
    /* only how far it got is kept, and what it is (the task is no number of the run's); a run of
     * another configuration keeps none of its numbers on the plan's row */
    if ((has_marker && mk.exit_code == 0 && rs.short_log) || st == ST_MISMATCH)
        m = (Measured){.has_steps = m.has_steps, .steps_done = m.steps_done, .task = m.task};
    int text = m.task && strcmp(m.task, config_task_name(TASK_TEXT)) == 0;
    if (info)
        *info = (RowInfo){status, m.has_val, m.val_acc, text, evaluate_bits_per_byte(m.val_loss),
                          (long)m.val_step, has_marker ? mk.wall_s : NAN, code, ""};
    if (info && st == ST_MISMATCH) snprintf(info->mismatch, sizeof info->mismatch, "%s", why);
    char cell[SC_N][72];
    snprintf(cell[SC_STATUS], sizeof cell[0], "%s", status);
    put_num(cell[SC_EXIT_CODE], sizeof cell[0], code >= 0, code, "%.0f");
    put_num(cell[SC_STEPS_DONE], sizeof cell[0], m.has_steps, m.steps_done, "%.0f");
    put_num(cell[SC_VAL_LOSS], sizeof cell[0], m.has_val, m.val_loss, "%.6g");
    put_num(cell[SC_VAL_ACC], sizeof cell[0], m.has_val, m.val_acc, "%.6g");
    put_num(cell[SC_VAL_TOK], sizeof cell[0], m.has_val, m.val_tok, "%.6g");
    put_num(cell[SC_BEST_LOSS], sizeof cell[0], m.has_best, m.best_loss, "%.6g");
    put_num(cell[SC_BEST_ACC], sizeof cell[0], m.has_best, m.best_acc, "%.6g");
    for (int k = 0; k < TTL_N; k++)
        put_num(cell[SC_FIRST(k)], sizeof cell[0], m.ttl.reached[k], m.ttl.step[k], "%.0f");
    put_num(cell[SC_LAST_EVAL], sizeof cell[0], m.ttl.has_eval, m.ttl.last_eval_step, "%.0f");
    put_num(cell[SC_LOSS0], sizeof cell[0], m.has_loss0, m.loss0, "%.6g");
    put_num(cell[SC_STD0], sizeof cell[0], m.has_std0, m.std0, "%.6g");
    put_num(cell[SC_PRED_STD], sizeof cell[0], m.has_pred, m.pred, "%.6g");
    snprintf(cell[SC_INIT], sizeof cell[0], "%s", m.init ? m.init : "");
    snprintf(cell[SC_TASK], sizeof cell[0], "%s", m.task ? m.task : "");
    put_num(cell[SC_SAT], sizeof cell[0], m.has_sat, m.sat, "%.6g");
    put_num(cell[SC_PASS], sizeof cell[0], m.has_pass, m.pass, "%.6g");
    put_num(cell[SC_STD_PEAK], sizeof cell[0], m.has_peak, m.peak, "%.6g");
    put_num(cell[SC_STD_PEAK_STEP], sizeof cell[0], m.has_peak, m.peak_step, "%.0f");
    put_num(cell[SC_STD_PEAK_LAYER], sizeof cell[0], m.has_peak, m.peak_layer, "%.0f");
    put_num(cell[SC_STD_10X], sizeof cell[0], m.has_peak && m.first_10x >= 0, m.first_10x, "%.0f");
    put_num(cell[SC_GQ], sizeof cell[0], m.has_grad, m.gq, "%.6g");
    put_num(cell[SC_GK], sizeof cell[0], m.has_grad, m.gk, "%.6g");
    put_num(cell[SC_WALL], sizeof cell[0], has_marker && !isnan(mk.wall_s),
            has_marker ? mk.wall_s : 0, "%.3f");
    snprintf(cell[SC_VERSION], sizeof cell[0], "%s", has_marker ? mk.version : "");
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) return NULL;
    fputs(p->names[r], f);
    for (int c = 0; c < p->n_cols; c++) fprintf(f, ",%s", p->cells[r * p->n_cols + c]);
    for (int c = 0; c < SC_N; c++) fprintf(f, ",%s", cell[c]);
    return fclose(f) == 0 ? buf : (free(buf), NULL);
}

int results_write_csv(const char *path, const Plan *p, char *const *rows) {
    char *head = results_header(p), *buf = NULL;
    size_t len = 0;
    FILE *f = head ? open_memstream(&buf, &len) : NULL;
    if (!f) {
        free(head);
        error_add(NULL, 0, NULL, "out of memory writing '%s'", path);
        return -1;
    }
    fprintf(f, "%s\n", head);
    for (int r = 0; r < p->n_runs; r++) fprintf(f, "%s\n", rows[r] ? rows[r] : "");
    free(head);
    if (fclose(f) != 0) {
        free(buf);
        return -1;
    }
    int rc = sweep_write_atomic(path, buf, len);
    free(buf);
    return rc;
}

int sweep_load_run_config(const char *cfg_path, Config *c) {
    config_defaults(c);
    if (config_load_file(c, cfg_path) != 0 || config_validate_stored(c) != 0) return -1;
    /* resolved as the run stores it (train.c), so that its stored copies compare equal */
    c->task_separator = task_has_separator(c) ? SEPARATOR_TRUE : SEPARATOR_FALSE;
    return 0;
}

int sweep_finished_run_matches(const Config *c, const char *run_dir) {
    char path[SWEEP_PATH + 32], why[128];
    snprintf(path, sizeof path, "%s/config.ini", run_dir);
    size_t len;
    char *text = file_read_regular(path, 1 << 20, &len, why, sizeof why);
    int same = text && results_same_config(c, path, text, NULL, 0) == 1;
    free(text);
    return same;
}
