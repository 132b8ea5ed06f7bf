/* tasks.c: the task's entry points -- task_init picks the builder for task.name (generated.c,
 * file_task.c or text_task.c), task_free, the kind names -- and the messages every builder gives, which name the
 * config key and where it was set. Pipeline: config -> task (here) -> model -> optimizer ->
 * training loop -> logs -> report. */
#include "tasks/tasks.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tasks/tasks_internal.h"

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

/* ---- messages --------------------------------------------------------------------------- */

Origin task_origin_of(const Config *c, const char *key) {
    Origin o;
    const char *s = config_origin(c, key);
    snprintf(o.s, sizeof o.s, "%s", s ? s : "default");
    return o;
}

Origin task_set_at(const Config *c, const char *key) {
    Origin o = task_origin_of(c, key), r;
    if (strcmp(o.s, "default") == 0) return o;
    snprintf(r.s, sizeof r.s, "set at %.*s", (int)sizeof o.s - 8, o.s);
    return r;
}

int task_key_error(const Config *c, const char *key, const char *fmt, ...) {
    Origin o = task_origin_of(c, key);
    fprintf(stderr, "%s: key '%s': ", o.s, key);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return -1;
}

/* ---- public --------------------------------------------------------------------------------- */

/* Whether the task's sequences hold SEP between prompt and answer (see SeparatorMode). Text has
 * neither prompt nor answer (every byte is a target): never, whatever auto means elsewhere;
 * config_validate refuses true for it. */
static int has_separator(const Config *c, TaskKind kind) {
    if (kind == TASK_TEXT) return 0;
    if (c->task_separator == SEPARATOR_TRUE) return 1;
    if (c->task_separator == SEPARATOR_FALSE) return 0;
    return kind != TASK_RECALL;
}

int task_has_separator(const Config *c) { return has_separator(c, c->task); }

void task_read_stored_separator(Config *c) {
    if (c->task == TASK_TEXT && c->task_separator == SEPARATOR_TRUE)
        c->task_separator = SEPARATOR_FALSE;
}

int task_init(Task *t, const Config *c) {
    memset(t, 0, sizeof *t);
    t->kind = c->task;
    t->separator = has_separator(c, c->task);
    int rc;
    switch (c->task) {
    case TASK_SORT:
    case TASK_REVERSE:
    case TASK_COPY:
    case TASK_RECALL: rc = task_init_generated(t, c); break;
    case TASK_FILE: rc = task_init_file(t, c, c->task_file, NULL, 0); break;
    case TASK_TEXT: rc = task_init_text_file(t, c, c->task_file); break;
    default: rc = task_key_error(c, "task.name", "unknown task kind %d", (int)c->task); break;
    }
    if (rc != 0) task_free(t);
    return rc;
}

int task_init_model_only(Task *t, const Config *c) {
    if (c->task != TASK_TEXT) return task_init(t, c);
    memset(t, 0, sizeof *t);
    t->kind = TASK_TEXT;
    t->separator = has_separator(c, TASK_TEXT);
    int rc = task_init_text_shape(t, c);
    if (rc != 0) task_free(t);
    return rc;
}

int task_init_text(Task *t, const Config *c, const char *name, const char *text, size_t len) {
    memset(t, 0, sizeof *t);
    t->kind = TASK_FILE;
    t->separator = has_separator(c, TASK_FILE);
    int rc = task_init_file(t, c, name, text, len);
    if (rc != 0) task_free(t);
    return rc;
}

void task_free(Task *t) {
    free(t->val_tokens);
    free(t->val_targets);
    free(t->val_mask);
    free(t->val_hashes);
    free(t->val_slots);
    free(t->file_tokens);
    free(t->file_targets);
    free(t->file_mask);
    if (t->symbol_names)
        for (int i = 0; i < t->n_symbols; i++) free(t->symbol_names[i]);
    free(t->symbol_names);
    free(t->scratch);
    free(t->text);
    memset(t, 0, sizeof *t);
}
