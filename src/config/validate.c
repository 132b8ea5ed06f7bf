/* validate.c: the checks between keys once the file and every --set are read (d_model and
 * n_heads, task.name and task.file, min_lr and lr, ...), and where each value came from for their
 * messages. Last step of the config stage, before the task module's own checks. A check that
 * involves a key marked unsure (a refused value, a sweep's axis) is left out: it would judge a
 * value the user did not give. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "config/config_internal.h"
#include "util/error_list.h"

/* The origin of key i, or "default"; used where a message names where a value came from. */
const char *cfg_origin_of(const Config *c, int i) {
    return *c->origin[i] ? c->origin[i] : "default";
}

/* "set at FILE:LINE" or "default", for the parenthesised second key of a message. */
static const char *set_at(const Config *c, int i, char *buf, size_t n) {
    if (!*c->origin[i]) return "default";
    snprintf(buf, n, "set at %s", c->origin[i]);
    return buf;
}

/* True when one of the keys (indices; -1: none) is marked unsure: the check is left out. */
static int left_out(const Config *c, int k1, int k2, int k3) {
    return (k1 >= 0 && c->unsure[k1]) || (k2 >= 0 && c->unsure[k2]) || (k3 >= 0 && c->unsure[k3]);
}

/* Adds a check's message at key lead: where it was set, sorted by that argument. Returns -1. */
static int fail_at(const Config *c, ErrorList *errs, int lead, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
static int fail_at(const Config *c, ErrorList *errs, int lead, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    error_vadd(errs, c->origin_order[lead], c->origin_line[lead], cfg_origin_of(c, lead), fmt,
               ap);
    va_end(ap);
    return -1;
}

static int check_heads(const Config *c, ErrorList *errs) {
    int dm = cfg_find_key("model", "d_model"), nh = cfg_find_key("model", "n_heads");
    if (c->d_model % c->n_heads == 0 || left_out(c, dm, nh, -1)) return 0;
    char at[sizeof c->origin[0] + 8];
    /* Lead with the key the user set, so the location points at something editable. */
    if (*c->origin[dm])
        return fail_at(c, errs, dm,
                       "'model.d_model' = %d is not divisible by 'model.n_heads' = %d (%s)",
                       c->d_model, c->n_heads, set_at(c, nh, at, sizeof at));
    return fail_at(c, errs, nh, "'model.n_heads' = %d does not divide 'model.d_model' = %d (%s)",
                   c->n_heads, c->d_model, set_at(c, dm, at, sizeof at));
}

/* model.block = llama rotates q and k by channel pairs (RoPE): d_k must be even. */
static int check_llama(const Config *c, ErrorList *errs) {
    int bl = cfg_find_key("model", "block"), nh = cfg_find_key("model", "n_heads"),
        dm = cfg_find_key("model", "d_model");
    if (c->block != BLOCK_LLAMA || c->d_model % c->n_heads != 0 ||
        (c->d_model / c->n_heads) % 2 == 0 || left_out(c, bl, nh, dm))
        return 0;
    char at[sizeof c->origin[0] + 8], at_dm[sizeof c->origin[0] + 8];
    /* both settings named: either may be the one to change */
    return fail_at(c, errs, bl,
                   "'model.block' = llama rotates each head's q and k by channel pairs "
                   "(RoPE), so d_k = model.d_model / model.n_heads must be even; it is %d / %d "
                   "= %d ('model.d_model' %s, 'model.n_heads' %s)",
                   c->d_model, c->n_heads, c->d_model / c->n_heads,
                   set_at(c, dm, at_dm, sizeof at_dm), set_at(c, nh, at, sizeof at));
}

static int check_task_file(const Config *c, ErrorList *errs) {
    int tn = cfg_find_key("task", "name"), tf = cfg_find_key("task", "file");
    if (left_out(c, tn, tf, -1)) return 0;
    char at[sizeof c->origin[0] + 8];
    int uses_file = c->task == TASK_FILE || c->task == TASK_TEXT;
    /* a task.file the generated task would silently ignore: the user meant task.name = file */
    if (!uses_file && c->task_file[0])
        return fail_at(c, errs, tf,
                       "'task.file' = '%s' is set, but 'task.name' is neither file nor text "
                       "(%s): set task.name = file (or text) to train on the file, or remove "
                       "task.file",
                       c->task_file, set_at(c, tn, at, sizeof at));
    if (!uses_file || c->task_file[0]) return 0;
    return fail_at(c, errs, tn, "'task.name' = %s needs a path in 'task.file', which is empty (%s)",
                   c->task == TASK_TEXT ? "text" : "file", set_at(c, tf, at, sizeof at));
}

/* The text task has no prompt and answer to separate (every byte is predicted): a separator it
 * cannot have was recorded and silently meant nothing. auto and false both mean none. */
static int check_text_separator(const Config *c, ErrorList *errs) {
    int sp = cfg_find_key("task", "separator"), tn = cfg_find_key("task", "name");
    if (c->task != TASK_TEXT || c->task_separator != SEPARATOR_TRUE || left_out(c, sp, tn, -1))
        return 0;
    char at[sizeof c->origin[0] + 8];
    return fail_at(c, errs, sp,
                   "'task.separator' = true, but 'task.name' = text (%s) has no prompt and "
                   "answer to separate: every byte is predicted. Remove the key, or set it to "
                   "auto or false",
                   set_at(c, tn, at, sizeof at));
}

static int check_min_lr(const Config *c, ErrorList *errs) {
    int ml = cfg_find_key("optim", "min_lr"), lr = cfg_find_key("optim", "lr"),
        sc = cfg_find_key("optim", "schedule");
    if (c->schedule != SCHED_COSINE || c->min_lr <= c->lr || left_out(c, ml, lr, sc)) return 0;
    char at[sizeof c->origin[0] + 8];
    return fail_at(c, errs, ml,
                   "'optim.min_lr' = %g is larger than 'optim.lr' = %g (%s); the cosine "
                   "schedule decays from optim.lr down to optim.min_lr",
                   c->min_lr, c->lr, set_at(c, lr, at, sizeof at));
}

/* Keys of the attention fixes that would be silently ignored, or could not work, together; each
 * pair is judged on its own, so that one problem does not hide the other. */
static int check_attention(const Config *c, ErrorList *errs) {
    int si = cfg_find_key("attention", "scale_init"), sc = cfg_find_key("attention", "scale");
    int qc = cfg_find_key("attention", "qk_clip"), qn = cfg_find_key("attention", "qk_norm");
    char at[sizeof c->origin[0] + 8];
    int bad = 0;
    /* by value, not by origin: config.ini writes every key, its default 1 included */
    char v[40]; /* the value as written back (%g would print 1.0000001 as 1) */
    cfg_format_double(v, sizeof v, c->scale_init);
    if (c->scale_init != 1.0 && c->scale_mode != SCALE_LEARNED && !left_out(c, si, sc, -1))
        bad = fail_at(c, errs, si,
                      "'attention.scale_init' = %s is set, but 'attention.scale' is not learned "
                      "(%s): it is the learned factor's start; set attention.scale = learned, "
                      "or remove attention.scale_init",
                      v, set_at(c, sc, at, sizeof at));
    /* the normalised q and k do not change when their weights shrink: the clip would run every
     * step and bound nothing */
    if (c->qk_clip > 0 && c->qk_norm != QK_NORM_NONE && !left_out(c, qc, qn, -1))
        bad = fail_at(c, errs, qc,
                      "'attention.qk_clip' = %g cannot bound the logits with "
                      "'attention.qk_norm' on (%s): qk-norm undoes the shrinking of the q and k "
                      "weights; use one of the two",
                      c->qk_clip, set_at(c, qn, at, sizeof at));
    return bad;
}

/* Keys model.param makes the run not read, given off their default: they would train the same
 * numbers as without them, yet a config, --where or a sweep's ranking would take them for a
 * difference. Judged by value, as attention.scale_init: config.ini writes every key, defaults
 * included. init.k_mult is not one: mup draws W_k as standard does. */
static int check_param(const Config *c, ErrorList *errs) {
    int pa = cfg_find_key("model", "param"), bw = cfg_find_key("model", "base_width"),
        qm = cfg_find_key("init", "q_mult");
    char at[sizeof c->origin[0] + 8];
    int bad = 0;
    if (c->param != PARAM_MUP && c->base_width != atoi(cfg_keys[bw].def) &&
        !left_out(c, bw, pa, -1))
        bad = fail_at(c, errs, bw,
                      "'model.base_width' = %d is set, but 'model.param' is not mup (%s): it is "
                      "muP's base width, which the standard parametrisation does not read; set "
                      "model.param = mup, or remove model.base_width",
                      c->base_width, set_at(c, pa, at, sizeof at));
    char v[40]; /* the value as written back (%g would print 1.0000000001 as 1) */
    cfg_format_double(v, sizeof v, c->init_q_mult);
    if (c->param == PARAM_MUP && c->init_q_mult != 1.0 && !left_out(c, qm, pa, -1))
        bad = fail_at(c, errs, qm,
                      "'init.q_mult' = %s has nothing to multiply with 'model.param' = mup (%s): "
                      "muP starts W_q at 0, whatever its init factor; its learning-rate factor "
                      "optim.lr_q_mult still acts. Remove init.q_mult, or set model.param = "
                      "standard",
                      v, set_at(c, pa, at, sizeof at));
    return bad;
}

/* The checks; stored: a configuration this program wrote earlier (config_validate_stored). */
static int validate(const Config *c, ErrorList *errs, int stored) {
    int bad = 0;
    bad |= check_heads(c, errs);
    bad |= check_llama(c, errs);
    bad |= check_task_file(c, errs);
    bad |= check_text_separator(c, errs);
    bad |= check_min_lr(c, errs);
    bad |= check_attention(c, errs);
    if (!stored) bad |= check_param(c, errs);
    return bad ? -1 : 0;
}

int config_validate_to(const Config *c, ErrorList *errs) { return validate(c, errs, 0); }

int config_validate_stored_to(const Config *c, ErrorList *errs) { return validate(c, errs, 1); }

/* validate with its messages printed */
static int validate_printed(const Config *c, int stored) {
    ErrorList errs = {0};
    int rc = validate(c, &errs, stored);
    error_flush(&errs);
    return rc;
}

int config_validate(const Config *c) { return validate_printed(c, 0); }

int config_validate_stored(const Config *c) { return validate_printed(c, 1); }

int config_mark_unsure(Config *c, const char *section_key) {
    int i = config_key_index(section_key);
    if (i < 0) return -1;
    c->unsure[i] = 1;
    return 0;
}

const char *config_origin(const Config *c, const char *section_key) {
    int i = config_key_index(section_key);
    return i < 0 ? "(unknown key)" : cfg_origin_of(c, i);
}
