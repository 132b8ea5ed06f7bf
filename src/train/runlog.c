/* runlog.c: the logs stage: the CSV rows of a run (loss.csv, grad_norms.csv, attention.csv,
 * attention maps), each written whole (runlog.h). */
#include "train/runlog.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "util/file_check.h"
#include "util/whole_write.h"

/* The log at path as a FILE for appending (util/whole_write.h's file_open_log: never through a
 * link, regular files only; fresh nonzero: replaced by an empty one). The FILE only holds the
 * descriptor: rows go out with whole_write. NULL after a message "cannot <verb> 'path'". */
static FILE *open_log_file(const char *path, int fresh, const char *verb) {
    char why[128];
    int fd = file_open_log(path, fresh, why, sizeof why);
    FILE *f = fd < 0 ? NULL : fdopen(fd, "a");
    if (fd >= 0 && !f) {
        snprintf(why, sizeof why, "%s", strerror(errno));
        close(fd);
    }
    if (!f) fprintf(stderr, "error: cannot %s '%s': %s\n", verb, path, why);
    return f;
}

/* Opens name in the run folder as a new, empty log (a file or link there is replaced, never
 * written through). */
static FILE *open_in(const RunLog *r, const char *name) {
    char path[1200];
    snprintf(path, sizeof path, "%s/%s", r->dir, name);
    return open_log_file(path, 1, "write");
}

/* Writes the file name of the run folder whole (temporary file + rename). */
static int write_whole(const RunLog *r, const char *name, const char *text) {
    char path[1200];
    snprintf(path, sizeof path, "%s/%s", r->dir, name);
    if (file_write_atomic(path, text, strlen(text)) == 0) return 0;
    fprintf(stderr, "error: cannot write '%s': %s\n", path, strerror(errno));
    return -1;
}

/* Writes a whole line (unbuffered: the FILE is only a holder of the descriptor), reporting the
 * file on failure; a write cut short by a full disk is cut back so no torn row stays. */
static int put_line(const RunLog *r, FILE *f, const char *name, const char *line) {
    if (whole_write(fileno(f), line, strlen(line)) != 0) {
        fprintf(stderr, "error: cannot write '%s/%s': %s\n", r->dir, name, strerror(errno));
        return -1;
    }
    return 0;
}

/* Writes name.tmp with the header and the rows of dir/name whose step (first field) is below
 * resume_step; the file itself is not touched yet (resume_commit). Lines that are not whole (no
 * newline: the run was killed mid-write, which put_line makes unlikely) are dropped too. */
static int resume_prepare(const RunLog *r, const char *name, long resume_step, AtomicFile *out) {
    char path[1200], why[128];
    snprintf(path, sizeof path, "%s/%s", r->dir, name);
    FILE *in = file_fopen_regular(path, FILE_MAX_LOG_BYTES, why, sizeof why);
    if (!in) {
        int refused = errno == EINVAL || errno == EFBIG; /* not a regular file, or too large */
        fprintf(stderr, "error: cannot resume: '%s': %s\n", path, why);
        return refused ? -2 : -1;
    }
    if (!atomic_open(out, path)) {
        fprintf(stderr, "error: cannot write '%s.tmp': %s\n", path, strerror(errno));
        fclose(in);
        return -1;
    }
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    int first = 1, bad = 0;
    while ((n = getline(&line, &cap, in)) > 0) {
        if (line[n - 1] != '\n') break;
        if (first || strtol(line, NULL, 10) < resume_step) bad |= fputs(line, out->f) == EOF;
        first = 0;
    }
    free(line);
    bad |= ferror(in) != 0;
    fclose(in);
    if (bad) {
        fprintf(stderr, "error: cannot rewrite '%s': %s\n", path, strerror(errno));
        atomic_discard(out);
        return -1;
    }
    return 0;
}

/* Renames the prepared name.tmp over name and opens it for appending. */
static FILE *resume_commit(const RunLog *r, const char *name, AtomicFile *prepared) {
    char path[1200];
    snprintf(path, sizeof path, "%s/%s", r->dir, name);
    if (atomic_commit(prepared, 0) != 0) {
        fprintf(stderr, "error: cannot rewrite '%s': %s\n", path, strerror(errno));
        return NULL;
    }
    return open_log_file(path, 0, "append to");
}

/* True when the header (first line) of dir/name has the column `col`. */
static int header_has(const RunLog *r, const char *name, const char *col) {
    char path[1200];
    snprintf(path, sizeof path, "%s/%s", r->dir, name);
    char why[128];
    FILE *f = file_fopen_regular(path, FILE_MAX_LOG_BYTES, why, sizeof why);
    if (!f) return 0;
    char *line = NULL;
    size_t cap = 0;
    int found = 0;
    if (getline(&line, &cap, f) > 0) {
        line[strcspn(line, "\r\n")] = 0;
        char *save = NULL;
        for (char *t = strtok_r(line, ",", &save); t && !found; t = strtok_r(NULL, ",", &save))
            found = strcmp(t, col) == 0;
    }
    free(line);
    fclose(f);
    return found;
}

int runlog_open(RunLog *r, const char *dir, const Model *m, const char *config_text,
                long resume_step) {
    return runlog_open_bpb(r, dir, m, config_text, resume_step, 0);
}

int runlog_open_bpb(RunLog *r, const char *dir, const Model *m, const char *config_text,
                    long resume_step, int val_bpb) {
    memset(r, 0, sizeof *r);
    r->val_bpb = val_bpb;
    snprintf(r->dir, sizeof r->dir, "%s", dir);
    r->n_layers = m->cfg.n_layers;
    r->d_model = m->cfg.d_model;
    if (make_dirs(dir) != 0) {
        fprintf(stderr, "error: cannot create run folder '%s': %s\n", dir, strerror(errno));
        return -1;
    }
    size_t cap = 64 + (size_t)(m->n_tensors + 3 * m->cfg.n_layers + 1) * (MODEL_NAME_LEN + 16);
    r->line = malloc(cap);
    r->line_cap = cap;
    if (!r->line) return -1;
    if (resume_step >= 0) {
        /* every log is read and its kept rows written aside before any of them, or config.ini,
         * is replaced: a resume that fails here changes nothing */
        static const char *const logs[3] = {"loss.csv", "grad_norms.csv", "attention.csv"};
        AtomicFile tmp[3];
        int rc = 0, done = 0;
        for (; done < 3 && rc == 0; done++) rc = resume_prepare(r, logs[done], resume_step, &tmp[done]);
        if (rc != 0) {
            for (int i = 0; i < done - 1; i++) atomic_discard(&tmp[i]);
            return rc;
        }
        r->loss = resume_commit(r, "loss.csv", &tmp[0]);
        r->grad_norms = r->loss ? resume_commit(r, "grad_norms.csv", &tmp[1]) : NULL;
        r->attention = r->grad_norms ? resume_commit(r, "attention.csv", &tmp[2]) : NULL;
        for (int i = 0; i < 3; i++) atomic_discard(&tmp[i]); /* those not committed */
        r->attention_old = r->attention && !header_has(r, "attention.csv", "dprob_norm");
        return r->loss && r->grad_norms && r->attention ? write_whole(r, "config.ini", config_text) : -1;
    }
    if (write_whole(r, "config.ini", config_text) != 0) return -1;
    r->loss = open_in(r, "loss.csv");
    r->grad_norms = open_in(r, "grad_norms.csv");
    r->attention = open_in(r, "attention.csv");
    if (!r->loss || !r->grad_norms || !r->attention) return -1;
    if (put_line(r, r->loss, "loss.csv",
                 val_bpb ? "step,train_loss,val_loss,val_bpb,val_token_acc,val_answer_acc,lr,"
                           "grad_norm,elapsed_s,tokens_per_s,skipped_steps\n"
                         : "step,train_loss,val_loss,val_token_acc,val_answer_acc,lr,grad_norm,"
                           "elapsed_s,tokens_per_s,skipped_steps\n") != 0 ||
        put_line(r, r->attention, "attention.csv",
                 "step,layer,head,logit_mean,logit_std,logit_absmax,entropy,entropy_norm,max_weight,"
                 "saturated_frac,dlogit_norm,dprob_norm,softmax_pass,blocked_rows\n") != 0)
        return -1;
    /* header: step, tensor names, q/k/v thirds, global */
    char *line = r->line;
    size_t len = (size_t)snprintf(line, cap, "step");
    for (int i = 0; i < m->n_tensors; i++)
        len += (size_t)snprintf(line + len, cap - len, ",%s", m->tensors[i].name);
    for (int l = 0; l < m->cfg.n_layers; l++)
        len += (size_t)snprintf(line + len, cap - len,
                                ",blocks.%d.attn.qkv.weight.q,blocks.%d.attn.qkv.weight.k,"
                                "blocks.%d.attn.qkv.weight.v", l, l, l);
    snprintf(line + len, cap - len, ",global\n");
    return put_line(r, r->grad_norms, "grad_norms.csv", line);
}

/* Appends ",value", or "," when the value was not measured (present = 0). */
static size_t field(char *buf, size_t cap, size_t len, int present, double v, const char *fmt) {
    if (len >= cap) return len;
    if (!present) return len + (size_t)snprintf(buf + len, cap - len, ",");
    if (isnan(v)) return len + (size_t)snprintf(buf + len, cap - len, ",nan");
    if (isinf(v)) return len + (size_t)snprintf(buf + len, cap - len, v > 0 ? ",inf" : ",-inf");
    int n = snprintf(buf + len, cap - len, ",");
    return len + (size_t)n + (size_t)snprintf(buf + len + n, cap - len - (size_t)n, fmt, v);
}

int runlog_loss_row(RunLog *r, const LossRow *w) {
    char line[512];
    size_t len = (size_t)snprintf(line, sizeof line, "%d", w->step);
    len = field(line, sizeof line, len, w->has_train, w->train_loss, "%.6g");
    len = field(line, sizeof line, len, w->has_val, w->val_loss, "%.6g");
    if (r->val_bpb) len = field(line, sizeof line, len, w->has_val, w->val_bpb, "%.6g");
    len = field(line, sizeof line, len, w->has_val, w->val_token_acc, "%.6g");
    len = field(line, sizeof line, len, w->has_val, w->val_answer_acc, "%.6g");
    len = field(line, sizeof line, len, w->has_train, w->lr, "%.6g");
    len = field(line, sizeof line, len, w->has_train, w->grad_norm, "%.6g");
    len = field(line, sizeof line, len, 1, w->elapsed_s, "%.3f");
    len = field(line, sizeof line, len, !isnan(w->tokens_per_s), w->tokens_per_s, "%.0f");
    len = field(line, sizeof line, len, 1, (double)w->skipped_steps, "%.0f");
    snprintf(line + len, sizeof line - len, "\n");
    return put_line(r, r->loss, "loss.csv", line);
}

int runlog_grad_row(RunLog *r, int step, const Model *m, double global_norm) {
    size_t cap = r->line_cap;
    char *line = r->line;
    size_t len = (size_t)snprintf(line, cap, "%d", step);
    for (int i = 0; i < m->n_tensors; i++)
        len = field(line, cap, len, 1, model_norm(m->grads + m->tensors[i].offset, m->tensors[i].numel),
                    "%.6g");
    size_t third = (size_t)m->cfg.d_model * m->cfg.d_model;
    for (int l = 0; l < m->cfg.n_layers; l++) {
        const real *g = m->g.block[l].qkv_w;
        for (int part = 0; part < 3; part++)
            len = field(line, cap, len, 1, model_norm(g + part * third, third), "%.6g");
    }
    len = field(line, cap, len, 1, global_norm, "%.6g");
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
    snprintf(line + n, sizeof line - (size_t)n, "\n");
    return put_line(r, r->attention, "attention.csv", line);
}

int runlog_write_file(RunLog *r, const char *name, const char *text) {
    return write_whole(r, name, text);
}

/* Writes the text of f (an open_memstream) to the file name of the run folder, whole. */
static int put_text(const RunLog *r, const char *name, FILE *f, char **text, size_t *len) {
    int bad = fclose(f) != 0 || !*text;
    if (!bad) bad = write_whole(r, name, *text) != 0;
    free(*text);
    *text = NULL;
    *len = 0;
    return bad;
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
    if (!f) return -1;
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
    int bad = put_text(r, file, f, &text, &len);
    if (!tokens_file) {
        if (bad) fprintf(stderr, "error: cannot write '%s/%s': %s\n", r->dir, file, strerror(errno));
        return bad ? -1 : 0;
    }
    FILE *g = open_memstream(&text, &len);
    if (!g) return -1;
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
    bad |= put_text(r, tokens_file, g, &text, &len);
    if (bad) fprintf(stderr, "error: cannot write the attention map in '%s': %s\n", r->dir, strerror(errno));
    return bad ? -1 : 0;
}

int runlog_close(RunLog *r) {
    int rc = 0;
    if (r->loss && fclose(r->loss) != 0) rc = -1;
    if (r->grad_norms && fclose(r->grad_norms) != 0) rc = -1;
    if (r->attention && fclose(r->attention) != 0) rc = -1;
    r->loss = r->grad_norms = r->attention = NULL;
    free(r->line);
    r->line = NULL;
    return rc;
}
