/* task_config.c: the task's narrow settings (TaskConfig) made from the Config -- the one file of
 * the builders' side that reads a Config -- the kind names, and the messages that name a key and
 * where it was set. Below every builder: it calls none of them. Pipeline: config -> task (here)
 * -> model -> optimizer -> training loop -> logs -> report. */
#include "tasks/task_config.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "util/error_list.h"

/* The keys the messages name, in the order of TaskConfig.origin. */
static const char *const KEYS[TASK_N_KEYS] = {
    "task.name",    "task.file",   "task.symbols",      "task.length",      "task.pairs",
    "task.seq_len", "task.val_size", "task.val_fraction", "model.max_seq_len",
};

int task_separator_of(const Config *c, TaskKind kind) {
    if (kind == TASK_TEXT) return 0;
    if (c->task_separator == SEPARATOR_TRUE) return 1;
    if (c->task_separator == SEPARATOR_FALSE) return 0;
    return kind != TASK_RECALL;
}

void task_config_from(TaskConfig *tc, const Config *c) {
    memset(tc, 0, sizeof *tc);
    tc->kind = c->task;
    tc->separator = task_separator_of(c, c->task);
    tc->symbols = c->task_symbols;
    tc->length = c->task_length;
    tc->pairs = c->task_pairs;
    tc->seq_len = c->task_seq_len;
    tc->val_size = c->val_size;
    tc->val_fraction = c->val_fraction;
    tc->max_seq_len = c->max_seq_len;
    tc->seed = c->seed;
    snprintf(tc->file, sizeof tc->file, "%s", c->task_file);
    for (int k = 0; k < TASK_N_KEYS; k++) {
        const char *s = config_origin(c, KEYS[k]);
        snprintf(tc->origin[k].s, sizeof tc->origin[k].s, "%s", s ? s : "default");
    }
}

const char *task_kind_name(TaskKind k) {
    switch (k) {
    case TASK_SORT: return "sort";
    case TASK_REVERSE: return "reverse";
    case TASK_COPY: return "copy";
    case TASK_RECALL: return "recall";
    case TASK_FILE: return "file";
    case TASK_TEXT: return "text";
    }
    return "?";
}

Origin task_origin_of(const TaskConfig *tc, const char *key) {
    for (int k = 0; k < TASK_N_KEYS; k++)
        if (strcmp(KEYS[k], key) == 0) return tc->origin[k];
    Origin o;
    snprintf(o.s, sizeof o.s, "(key %s not among the task's keys)", key);
    return o;
}

Origin task_set_at(const TaskConfig *tc, const char *key) {
    Origin o = task_origin_of(tc, key), r;
    if (strcmp(o.s, "default") == 0) return o;
    snprintf(r.s, sizeof r.s, "set at %.*s", (int)sizeof o.s - 8, o.s);
    return r;
}

int task_key_error(const TaskConfig *tc, const char *key, const char *fmt, ...) {
    Origin o = task_origin_of(tc, key);
    char text[4096]; /* it may quote a value: escaped (SHOWN) */
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    fprintf(stderr, "%s: key '%s': %s\n", SHOWN(o.s), key, SHOWN(text));
    return -1;
}
