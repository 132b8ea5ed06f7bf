/* runlog.c: the logs stage: the CSV rows of a run (loss.csv, grad_norms.csv, attention.csv,
 * attn_steps.csv, attention maps), each written whole (runlog.h) through the log writer runlog/csv_write.h. */
#include "train/runlog.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "runlog/csv_write.h"
#include "train/attn_steps.h"
#include "util/error_list.h"
#include "util/whole_write.h"

enum { RUNLOG_PATH = PATH_MAX + 32 }; /* a file of the run folder: the folder, '/', its name */

/* dir/name of the run folder into path (RUNLOG_PATH bytes: the folder is under PATH_MAX, a
 * name is short). */
static const char *path_in(const RunLog *r, const char *name, char path[RUNLOG_PATH]) {
    snprintf(path, RUNLOG_PATH, "%s/%s", r->dir, name);
    return path;
}

/* Opens name in the run folder as a new, empty log (a file or link there is replaced, never
 * written through). */
static FILE *open_in(const RunLog *r, const char *name) {
    char path[RUNLOG_PATH];
    return csv_log_create(path_in(r, name, path));
}

/* The one message of a file of the run folder not written (err: its errno); returns -1. */
static int cannot_write(const RunLog *r, const char *name, int err) {
    error_add(NULL, 0, NULL, "cannot write '%s/%s': %s", r->dir, name, strerror(err));
    return -1;
}

/* Writes the file name of the run folder whole (temporary file + rename). */
static int write_whole(const RunLog *r, const char *name, const char *text) {
    char path[RUNLOG_PATH];
    path_in(r, name, path);
    if (file_write_atomic(path, text, strlen(text)) == 0) return 0;
    int err = errno; /* kept for the caller: the message's output may set errno */
    cannot_write(r, name, err);
    errno = err;
    return -1;
}

/* Writes a whole row to the log name of the run folder (runlog/csv_write.h). */
static int put_line(const RunLog *r, FILE *f, const char *name, const char *line) {
    char path[RUNLOG_PATH];
    return csv_log_row(f, path_in(r, name, path), line);
}

/* The logs a run keeps, in RunLog order; attn_steps.csv only with a seq_len (runlog_open_with). */
static const char *const LOGS[4] = {"loss.csv", "grad_norms.csv", "attention.csv", ATTN_STEPS_FILE};

/* The layout of the rows a run of m writes (runlog_open_with's val_bpb and seq_len) into r, with
 * its row buffers, each allocated once: nothing is opened. Returns 0, or -1 when out of memory
 * (runlog_close frees what was allocated). */
static int runlog_layout(RunLog *r, const char *dir, const Model *m, int val_bpb, int seq_len) {
    memset(r, 0, sizeof *r);
    r->val_bpb = val_bpb;
    snprintf(r->dir, sizeof r->dir, "%s", dir);
    r->n_layers = m->cfg.n_layers;
    r->d_model = m->cfg.d_model;
    r->scale_col = m->cfg.learned_scale;
    r->clip_col = m->cfg.qk_clip > 0;
    r->gain_col = m->cfg.qk_norm == MODEL_QK_NORM_RMSNORM;
    size_t cap = 64 + (size_t)(m->n_tensors + 3 * m->cfg.n_layers + 1) * (MODEL_NAME_LEN + 16);
    r->line = malloc(cap);
    r->line_cap = cap;
    if (!r->line) return -1;
    if (seq_len > 0) { /* attn_steps.csv's row buffer, sized once for its longest row */
        r->steps_T = seq_len;
        r->steps_side = attn_steps_map_side(seq_len);
        size_t row = attn_steps_row_max(r->steps_side, m->max_batch, seq_len);
        size_t head = attn_steps_header_max(r->steps_side);
        r->steps_cap = (row > head ? row : head) + 1;
        r->steps_line = malloc(r->steps_cap);
        if (!r->steps_line) return -1;
    }
    return 0;
}

/* attention.csv's header: the columns every run has (but the pass-through ones in a log that
 * predates them: attention_old), then those of the fixes it uses; runlog_attention_row's. */
static const char *attention_header(const RunLog *r, char *buf, size_t n) {
    snprintf(buf, n, "step,layer,head,logit_mean,logit_std,logit_absmax,entropy,entropy_norm,"
                     "max_weight,saturated_frac,dlogit_norm%s%s%s%s\n",
             r->attention_old ? "" : ",dprob_norm,softmax_pass,blocked_rows",
             r->scale_col ? ",attn_scale" : "", r->clip_col ? ",clipped_steps" : "",
             r->gain_col ? ",qk_gain_rms" : "");
    return buf;
}

/* The earlier layouts of attention.csv a resume goes on in, its rows written in the log's own
 * columns (older runs resume): a run's from before qk_gain_rms, and one from before dprob_norm,
 * softmax_pass and blocked_rows (11 columns, which predate qk_gain_rms too). */
static const struct {
    int old, no_gain; /* attention_old; gain_col off */
} EARLIER_ATTENTION[] = {{0, 1}, {1, 1}};

/* Sets r's attention.csv layout to that of the header of the log at path: this run's, or the
 * earlier one it is (EARLIER_ATTENTION); r keeps this run's when it is none of them. */
static void continue_attention(RunLog *r, const char *path) {
    char head[256];
    int gain = r->gain_col;
    if (csv_log_header_is(path, attention_header(r, head, sizeof head))) return;
    for (size_t k = 0; k < sizeof EARLIER_ATTENTION / sizeof *EARLIER_ATTENTION; k++) {
        r->attention_old = EARLIER_ATTENTION[k].old;
        r->gain_col = gain && !EARLIER_ATTENTION[k].no_gain;
        if (csv_log_header_is(path, attention_header(r, head, sizeof head))) return;
    }
    r->attention_old = 0; /* none of them: this run's, which the header check refuses, naming it */
    r->gain_col = gain;
}

/* grad_norms.csv's header into r->line: step, the tensor names, the q/k/v thirds, global. */
static const char *grad_header(RunLog *r, const Model *m) {
    char *line = r->line;
    size_t cap = r->line_cap, len = (size_t)snprintf(line, cap, "step");
    for (int i = 0; i < m->n_tensors; i++)
        len += (size_t)snprintf(line + len, cap - len, ",%s", m->tensors[i].name);
    for (int l = 0; l < m->cfg.n_layers; l++)
        len += (size_t)snprintf(line + len, cap - len,
                                ",blocks.%d.attn.qkv.weight.q,blocks.%d.attn.qkv.weight.k,"
                                "blocks.%d.attn.qkv.weight.v", l, l, l);
    snprintf(line + len, cap - len, ",global\n");
    return line;
}

/* The header row ('\n' ended) of LOGS[i] as r writes its rows: the one home of each log's
 * columns, for a new log and for what a resumed one must begin with. loss.csv's is a constant,
 * grad_norms.csv's is built in r->line, attn_steps.csv's in r->steps_line, attention.csv's in
 * buf (n bytes). NULL for attn_steps.csv when r keeps none. */
static const char *log_header(RunLog *r, const Model *m, int i, char *buf, size_t n) {
    switch (i) {
    case 0:
        return r->val_bpb ? "step,train_loss,val_loss,val_bpb,val_token_acc,val_answer_acc,lr,"
                            "grad_norm,elapsed_s,tokens_per_s,skipped_steps\n"
                          : "step,train_loss,val_loss,val_token_acc,val_answer_acc,lr,grad_norm,"
                            "elapsed_s,tokens_per_s,skipped_steps\n";
    case 1: return grad_header(r, m);
    case 2: return attention_header(r, buf, n);
    default:
        return r->steps_line &&
                       attn_steps_header(r->steps_line, r->steps_cap, r->steps_side) != 0
                   ? r->steps_line
                   : NULL;
    }
}

/* attn_steps.csv, new, with its header (runlog_open_with with a seq_len). */
static int open_attn_steps(RunLog *r, const Model *m) {
    r->attn_steps = open_in(r, ATTN_STEPS_FILE);
    const char *head = r->attn_steps ? log_header(r, m, 3, NULL, 0) : NULL;
    return head ? put_line(r, r->attn_steps, ATTN_STEPS_FILE, head) : -1;
}

/* 1 when there is nothing at dir/name (lstat: a dangling link is something), else 0. */
static int absent(const char *dir, const char *name) {
    char path[RUNLOG_PATH];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return lstat(path, &st) != 0 && errno == ENOENT;
}

const char *runlog_first_present(const char *dir) {
    for (int i = 0; i < 4; i++)
        if (!absent(dir, LOGS[i])) return LOGS[i];
    return NULL;
}

const char *runlog_first_missing(const char *dir) {
    for (int i = 0; i < 3; i++) /* LOGS[3], attn_steps.csv: resume_logs begins it */
        if (absent(dir, LOGS[i])) return LOGS[i];
    return NULL;
}

int runlog_check_headers(const char *dir, const Model *m, int val_bpb, int seq_len,
                         const char *where) {
    RunLog r;
    int rc = runlog_layout(&r, dir, m, val_bpb, seq_len);
    if (rc != 0) error_add(NULL, 0, where, "out of memory reading the logs of '%s'", dir);
    for (int i = 0; i < 4 && rc == 0; i++) {
        char path[RUNLOG_PATH], head[256];
        path_in(&r, LOGS[i], path);
        if (absent(dir, LOGS[i])) continue;
        if (i == 2) continue_attention(&r, path);
        /* attn_steps.csv of a run that keeps none (want NULL): only its header whole */
        const char *want = log_header(&r, m, i, head, sizeof head);
        if (csv_log_check_header(path, want, where) != 0) rc = -1;
    }
    runlog_close(&r);
    return rc;
}

long runlog_last_step(const char *dir) {
    char path[RUNLOG_PATH];
    snprintf(path, sizeof path, "%s/loss.csv", dir);
    long last = csv_log_last_step_before(path, LONG_MAX);
    return last < 0 ? -1 : last;
}

/* config.ini's new text written aside (its temporary file, flushed) into *ini: the first
 * step of a resume, so that a config.ini that cannot be replaced (made read-only, a full disk)
 * stops it before a log loses a row. Returns 0 (commit or discard *ini), or -1 after a message. */
static int config_aside(const RunLog *r, const char *config_text, AtomicFile *ini) {
    char path[RUNLOG_PATH];
    path_in(r, "config.ini", path);
    size_t len = strlen(config_text);
    if (!atomic_open(ini, path)) {
        error_add(NULL, 0, NULL, "cannot write '%s': %s", path, strerror(errno));
        return -1;
    }
    if (fwrite(config_text, 1, len, ini->f) != len || fflush(ini->f) != 0) {
        int err = errno ? errno : EIO;
        atomic_discard(ini);
        error_add(NULL, 0, NULL, "cannot write '%s': %s", ini->tmp, strerror(err));
        return -1;
    }
    return 0;
}

/* The resumed logs: config.ini's new text and every log's rows before resume_step are written
 * aside before any of them is replaced, so a resume that fails here changes nothing
 * (runlog_open); config.ini is replaced last. A run of a version before attn_steps.csv has
 * none: it starts anew, header and rows from the resume step on. */
static int resume_logs(RunLog *r, const Model *m, const char *config_text, long resume_step) {
    char path[4][RUNLOG_PATH], head[256];
    int n = 3, steps_new = 0;
    if (r->steps_line) {
        path_in(r, LOGS[3], path[3]);
        steps_new = access(path[3], F_OK) != 0 && errno == ENOENT;
        n = steps_new ? 3 : 4;
    }
    continue_attention(r, path_in(r, LOGS[2], path[2]));
    AtomicFile tmp[4], ini;
    if (config_aside(r, config_text, &ini) != 0) return -1;
    int rc = 0, done = 0;
    /* each log's header is the one its rows are written in (runlog_check_headers checked it
     * before the lock; a log swapped since is refused here all the same) */
    for (; done < n && rc == 0; done++)
        rc = csv_log_keep_before(path_in(r, LOGS[done], path[done]), resume_step,
                                 log_header(r, m, done, head, sizeof head), &tmp[done]);
    if (rc != 0) {
        for (int i = 0; i < done - 1; i++) atomic_discard(&tmp[i]);
        atomic_discard(&ini);
        return rc;
    }
    FILE **logs[4] = {&r->loss, &r->grad_norms, &r->attention, &r->attn_steps};
    for (int i = 0, ok = 1; i < n; i++) /* committed in order while each succeeds */
        if (ok && !(*logs[i] = csv_log_keep_commit(path[i], &tmp[i]))) ok = 0;
    for (int i = 0; i < n; i++) atomic_discard(&tmp[i]); /* those not committed */
    for (int i = 0; i < n; i++)
        if (!*logs[i]) {
            atomic_discard(&ini);
            return -1;
        }
    if (steps_new && open_attn_steps(r, m) != 0) {
        atomic_discard(&ini);
        return -1;
    }
    if (atomic_commit(&ini, 0) == 0) return 0;
    error_add(NULL, 0, NULL, "cannot write '%s': %s", ini.path, strerror(errno));
    return -1;
}

int runlog_check_not_behind(const char *dir, long step, int log_every, int eval_every,
                            const char *where) {
    long due = step - 1; /* the last step before `step` that logged a row */
    while (due > 0 && due % log_every != 0 && due % eval_every != 0) due--;
    if (due < 0) return 0;
    for (int i = 0; i < 3; i++) {
        char path[RUNLOG_PATH];
        snprintf(path, sizeof path, "%s/%s", dir, LOGS[i]);
        long last = csv_log_last_step_before(path, step);
        if (last == -2 || last >= due) continue;
        char ends[64] = "has no row", since[64] = "";
        if (last >= 0) snprintf(ends, sizeof ends, "ends at step %ld", last);
        if (last >= 0) snprintf(since, sizeof since, " after step %ld", last);
        error_add(NULL, 0, where, "'%s' %s, but the checkpoint is at step %ld: its rows%s up to "
                                 "step %ld are missing (a copy of the folder taken while it "
                                 "trained?), "
                                 "and a resume would never write them. Put back the logs that go "
                                 "with this checkpoint, or train the run again from step 0 with "
                                 "its config.ini; nothing was changed",
                  path, ends, step, since, due);
        return -1;
    }
    return 0;
}

int runlog_open(RunLog *r, const char *dir, const Model *m, const char *config_text,
                long resume_step) {
    return runlog_open_with(r, dir, m, config_text, resume_step, 0, 0);
}

int runlog_open_bpb(RunLog *r, const char *dir, const Model *m, const char *config_text,
                    long resume_step, int val_bpb) {
    return runlog_open_with(r, dir, m, config_text, resume_step, val_bpb, 0);
}

int runlog_open_with(RunLog *r, const char *dir, const Model *m, const char *config_text,
                     long resume_step, int val_bpb, int seq_len) {
    int rc = runlog_layout(r, dir, m, val_bpb, seq_len);
    if (make_dirs(dir) != 0) {
        error_add(NULL, 0, NULL, "cannot create run folder '%s': %s", dir, strerror(errno));
        return -1;
    }
    if (rc != 0) return -1;
    if (resume_step >= 0) return resume_logs(r, m, config_text, resume_step);
    if (write_whole(r, "config.ini", config_text) != 0) return -1;
    FILE **logs[3] = {&r->loss, &r->grad_norms, &r->attention};
    char head[256];
    for (int i = 0; i < 3; i++) /* attn_steps.csv below, only with a seq_len */
        if (!(*logs[i] = open_in(r, LOGS[i])) ||
            put_line(r, *logs[i], LOGS[i], log_header(r, m, i, head, sizeof head)) != 0)
            return -1;
    return r->steps_line ? open_attn_steps(r, m) : 0;
}

int runlog_loss_row(RunLog *r, const LossRow *w) {
    char line[512];
    size_t len = (size_t)snprintf(line, sizeof line, "%d", w->step);
    len = csv_log_field(line, sizeof line, len, w->has_train, w->train_loss, "%.6g");
    len = csv_log_field(line, sizeof line, len, w->has_val, w->val_loss, "%.6g");
    if (r->val_bpb) len = csv_log_field(line, sizeof line, len, w->has_val, w->val_bpb, "%.6g");
    len = csv_log_field(line, sizeof line, len, w->has_val, w->val_token_acc, "%.6g");
    len = csv_log_field(line, sizeof line, len, w->has_val, w->val_answer_acc, "%.6g");
    len = csv_log_field(line, sizeof line, len, w->has_train, w->lr, "%.6g");
    len = csv_log_field(line, sizeof line, len, w->has_train, w->grad_norm, "%.6g");
    len = csv_log_field(line, sizeof line, len, 1, w->elapsed_s, "%.3f");
    len = csv_log_field(line, sizeof line, len, !isnan(w->tokens_per_s), w->tokens_per_s, "%.0f");
    len = csv_log_field(line, sizeof line, len, 1, (double)w->skipped_steps, "%.0f");
    snprintf(line + len, sizeof line - len, "\n");
    return put_line(r, r->loss, "loss.csv", line);
}

int runlog_grad_row(RunLog *r, int step, const Model *m, double global_norm) {
    size_t cap = r->line_cap;
    char *line = r->line;
    size_t len = (size_t)snprintf(line, cap, "%d", step);
    for (int i = 0; i < m->n_tensors; i++)
        len = csv_log_field(line, cap, len, 1,
                            model_norm(m->grads + m->tensors[i].offset, m->tensors[i].numel), "%.6g");
    size_t third = (size_t)m->cfg.d_model * m->cfg.d_model;
    for (int l = 0; l < m->cfg.n_layers; l++) {
        const real *g = m->g.block[l].qkv_w;
        for (int part = 0; part < 3; part++)
            len = csv_log_field(line, cap, len, 1, model_norm(g + part * third, third), "%.6g");
    }
    len = csv_log_field(line, cap, len, 1, global_norm, "%.6g");
    snprintf(line + len, cap - len, "\n");
    return put_line(r, r->grad_norms, "grad_norms.csv", line);
}

int runlog_attention_row(RunLog *r, int step, int layer, int head, const HeadStats *s) {
    char line[512];
    int n = snprintf(line, sizeof line, "%d,%d,%d,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g", step,
                     layer, head, s->logit_mean, s->logit_std, s->logit_absmax, s->entropy,
                     s->entropy_norm, s->max_weight, s->saturated_frac, s->dlogit_norm);
    if (!r->attention_old)
        n += snprintf(line + n, sizeof line - (size_t)n, ",%.6g,%.6g,%.6g", s->dprob_norm,
                      s->softmax_pass, s->blocked_rows);
    if (r->scale_col) n += snprintf(line + n, sizeof line - (size_t)n, ",%.6g", s->attn_scale);
    if (r->clip_col) n += snprintf(line + n, sizeof line - (size_t)n, ",%d", s->clipped_steps);
    if (r->gain_col) n += snprintf(line + n, sizeof line - (size_t)n, ",%.6g", s->qk_gain_rms);
    snprintf(line + n, sizeof line - (size_t)n, "\n");
    return put_line(r, r->attention, "attention.csv", line);
}

int runlog_attn_steps_row(RunLog *r, int step, const Model *m, int layer, int head,
                          const long hist[DIAG_HIST_BINS + 1]) {
    if (!r->attn_steps) return 0;
    int T = m->T;
    const real *map = m->acts[layer].att + (size_t)head * T * T; /* example 0 of the batch */
    size_t len = T == r->steps_T ? attn_steps_row(r->steps_line, r->steps_cap, step, layer, head,
                                                  hist, map, T, r->steps_side)
                                 : r->steps_cap;
    if (len >= r->steps_cap) { /* a forward of another length, or a row past its bound: a bug */
        error_add(NULL, 0, NULL, "%s/%s: the row of step %d does not fit its bound", r->dir,
                  ATTN_STEPS_FILE, step);
        return -1;
    }
    return put_line(r, r->attn_steps, ATTN_STEPS_FILE, r->steps_line);
}

int runlog_write_file(RunLog *r, const char *name, const char *text) {
    return write_whole(r, name, text);
}

/* Writes the text of f (an open_memstream) to the file name of the run folder, whole. Returns 0,
 * or -1 after one message naming the file and its failure's errno (write_whole's own, or the
 * stream's here): the caller adds none. */
static int put_text(const RunLog *r, const char *name, FILE *f, char **text, size_t *len) {
    int err = 0;
    if (fclose(f) != 0) err = errno ? errno : EIO;
    else if (!*text) err = ENOMEM; /* the stream's memory */
    int rc = err ? cannot_write(r, name, err) : write_whole(r, name, *text);
    free(*text);
    *text = NULL;
    *len = 0;
    return rc;
}

int runlog_attn_map(RunLog *r, const Model *m, const Task *t, int b) {
    return runlog_attn_map_as(r, m, t, b, "attn_map.csv", "attn_map_tokens.csv");
}

int runlog_attn_map_as(RunLog *r, const Model *m, const Task *t, int b, const char *file,
                       const char *tokens_file) {
    int T = m->T, NH = m->cfg.n_heads;
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) return cannot_write(r, file, errno);
    fprintf(f, "layer,head,query");
    for (int j = 0; j < T; j++) fprintf(f, ",k%d", j);
    fputc('\n', f);
    for (int l = 0; l < m->cfg.n_layers; l++)
        for (int h = 0; h < NH; h++)
            for (int i = 0; i < T; i++) {
                const real *p = m->acts[l].att + (((size_t)b * NH + h) * T + i) * T;
                fprintf(f, "%d,%d,%d", l, h, i);
                for (int j = 0; j < T; j++) fprintf(f, ",%.5g", (double)p[j]);
                fputc('\n', f);
            }
    int rc = put_text(r, file, f, &text, &len); /* each file's failure said once, there */
    if (!tokens_file) return rc;
    FILE *g = open_memstream(&text, &len);
    if (!g) return cannot_write(r, tokens_file, errno);
    fprintf(g, "position,token,answer\n");
    char name[128];
    for (int i = 0; i < T; i++) {
        task_token_name(t, m->tokens[(size_t)b * T + i], name, sizeof name);
        /* a symbol from a task file may hold a comma or quote: quote it the CSV way */
        fprintf(g, "%d,\"", i);
        for (const char *c = name; *c; c++) {
            if (*c == '"') fputc('"', g);
            fputc(*c, g);
        }
        /* answer: this input token belongs to the answer (the previous position's target is
         * scored); the figure marks where the prompt ends */
        int answer = i > 0 && t->val_mask && t->val_mask[(size_t)b * T + i - 1] > 0;
        fprintf(g, "\",%d\n", answer);
    }
    if (put_text(r, tokens_file, g, &text, &len) != 0) rc = -1;
    return rc;
}

int runlog_close(RunLog *r) {
    int rc = 0;
    if (r->loss && fclose(r->loss) != 0) rc = -1;
    if (r->grad_norms && fclose(r->grad_norms) != 0) rc = -1;
    if (r->attention && fclose(r->attention) != 0) rc = -1;
    if (r->attn_steps && fclose(r->attn_steps) != 0) rc = -1;
    r->loss = r->grad_norms = r->attention = r->attn_steps = NULL;
    free(r->line);
    free(r->steps_line);
    r->line = r->steps_line = NULL;
    return rc;
}
