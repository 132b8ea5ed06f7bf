/* validate.c: the checks between keys once the file and every --set are read (d_model and
 * n_heads, task.name and task.file, min_lr and lr), and where each value came from for their
 * messages. Last step of the config stage, before the task module's own checks. */
#include <stdio.h>

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

static int check_heads(const Config *c) {
    if (c->d_model % c->n_heads == 0) return 0;
    int dm = cfg_find_key("model", "d_model"), nh = cfg_find_key("model", "n_heads");
    char at[sizeof c->origin[0] + 8];
    /* Lead with the key the user set, so the location points at something editable. */
    if (*c->origin[dm])
        error_add(NULL, 0, cfg_origin_of(c, dm),
                  "'model.d_model' = %d is not divisible by 'model.n_heads' = %d (%s)", c->d_model,
                  c->n_heads, set_at(c, nh, at, sizeof at));
    else
        error_add(NULL, 0, cfg_origin_of(c, nh),
                  "'model.n_heads' = %d does not divide 'model.d_model' = %d (%s)", c->n_heads,
                  c->d_model, set_at(c, dm, at, sizeof at));
    return -1;
}

/* model.block = llama rotates q and k by channel pairs (RoPE): d_k must be even. */
static int check_llama(const Config *c) {
    if (c->block != BLOCK_LLAMA || c->d_model % c->n_heads != 0 ||
        (c->d_model / c->n_heads) % 2 == 0)
        return 0;
    int bl = cfg_find_key("model", "block"), nh = cfg_find_key("model", "n_heads"),
        dm = cfg_find_key("model", "d_model");
    char at[sizeof c->origin[0] + 8], at_dm[sizeof c->origin[0] + 8];
    /* both settings named: either may be the one to change */
    error_add(NULL, 0, cfg_origin_of(c, bl),
              "'model.block' = llama rotates each head's q and k by channel pairs "
              "(RoPE), so d_k = model.d_model / model.n_heads must be even; it is %d / %d "
              "= %d ('model.d_model' %s, 'model.n_heads' %s)",
              c->d_model, c->n_heads, c->d_model / c->n_heads, set_at(c, dm, at_dm, sizeof at_dm),
              set_at(c, nh, at, sizeof at));
    return -1;
}

static int check_task_file(const Config *c) {
    int tn = cfg_find_key("task", "name"), tf = cfg_find_key("task", "file");
    char at[sizeof c->origin[0] + 8];
    int uses_file = c->task == TASK_FILE || c->task == TASK_TEXT;
    /* a task.file the generated task would silently ignore: the user meant task.name = file */
    if (!uses_file && c->task_file[0]) {
        error_add(NULL, 0, cfg_origin_of(c, tf),
                  "'task.file' = '%s' is set, but 'task.name' is neither file nor text "
                  "(%s): set task.name = file (or text) to train on the file, or remove "
                  "task.file",
                  c->task_file, set_at(c, tn, at, sizeof at));
        return -1;
    }
    if (!uses_file || c->task_file[0]) return 0;
    error_add(NULL, 0, cfg_origin_of(c, tn),
              "'task.name' = %s needs a path in 'task.file', which is empty (%s)",
              c->task == TASK_TEXT ? "text" : "file", set_at(c, tf, at, sizeof at));
    return -1;
}

/* The text task has no prompt and answer to separate (every byte is predicted): a separator it
 * cannot have was recorded and silently meant nothing. auto and false both mean none. */
static int check_text_separator(const Config *c) {
    if (c->task != TASK_TEXT || c->task_separator != SEPARATOR_TRUE) return 0;
    int sp = cfg_find_key("task", "separator"), tn = cfg_find_key("task", "name");
    char at[sizeof c->origin[0] + 8];
    error_add(NULL, 0, cfg_origin_of(c, sp),
              "'task.separator' = true, but 'task.name' = text (%s) has no prompt and "
              "answer to separate: every byte is predicted. Remove the key, or set it to "
              "auto or false",
              set_at(c, tn, at, sizeof at));
    return -1;
}

static int check_min_lr(const Config *c) {
    if (c->schedule != SCHED_COSINE || c->min_lr <= c->lr) return 0;
    int ml = cfg_find_key("optim", "min_lr"), lr = cfg_find_key("optim", "lr");
    char at[sizeof c->origin[0] + 8];
    error_add(NULL, 0, cfg_origin_of(c, ml),
              "'optim.min_lr' = %g is larger than 'optim.lr' = %g (%s); the cosine "
              "schedule decays from optim.lr down to optim.min_lr",
              c->min_lr, c->lr, set_at(c, lr, at, sizeof at));
    return -1;
}

/* Keys of the attention fixes that would be silently ignored, or could not work, together. */
static int check_attention(const Config *c) {
    int si = cfg_find_key("attention", "scale_init"), sc = cfg_find_key("attention", "scale");
    int qc = cfg_find_key("attention", "qk_clip"), qn = cfg_find_key("attention", "qk_norm");
    char at[sizeof c->origin[0] + 8];
    /* by value, not by origin: config.ini writes every key, its default 1 included */
    if (c->scale_init != 1.0 && c->scale_mode != SCALE_LEARNED) {
        error_add(NULL, 0, cfg_origin_of(c, si),
                  "'attention.scale_init' = %g is set, but 'attention.scale' is not learned "
                  "(%s): it is the learned factor's start; set attention.scale = learned, "
                  "or remove attention.scale_init",
                  c->scale_init, set_at(c, sc, at, sizeof at));
        return -1;
    }
    if (c->qk_clip > 0 && c->qk_norm != QK_NORM_NONE) {
        /* the normalised q and k do not change when their weights shrink: the clip would run
         * every step and bound nothing */
        error_add(NULL, 0, cfg_origin_of(c, qc),
                  "'attention.qk_clip' = %g cannot bound the logits with "
                  "'attention.qk_norm' on (%s): qk-norm undoes the shrinking of the q and k "
                  "weights; use one of the two",
                  c->qk_clip, set_at(c, qn, at, sizeof at));
        return -1;
    }
    return 0;
}

int config_validate(const Config *c) {
    int bad = 0;
    bad |= check_heads(c);
    bad |= check_llama(c);
    bad |= check_task_file(c);
    bad |= check_text_separator(c);
    bad |= check_min_lr(c);
    bad |= check_attention(c);
    return bad ? -1 : 0;
}

const char *config_origin(const Config *c, const char *section_key) {
    int i = config_key_index(section_key);
    return i < 0 ? "(unknown key)" : cfg_origin_of(c, i);
}
