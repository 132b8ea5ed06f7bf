/* tasks.c: the task's entry points -- task_init makes the narrow TaskConfig once from the Config
 * (task_config.c) and picks the builder for task.name (generated.c, file_task.c or text_task.c),
 * which sees only that; task_free; the separator a config means. Pipeline: config -> task (here) -> model -> optimizer ->
 * training loop -> logs -> report. */
#include "tasks/tasks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tasks/file_task.h"
#include "tasks/generated.h"
#include "tasks/text_task.h"

int task_has_separator(const Config *c) { return task_separator_of(c, c->task); }

void task_read_stored_separator(Config *c) {
    if (c->task == TASK_TEXT && c->task_separator == SEPARATOR_TRUE)
        c->task_separator = SEPARATOR_FALSE;
}

/* t emptied, then filled by the builder of tc's kind (the file task from path, or from
 * text[0..len) when text is not NULL), or only with the text task's shape (shape_only); freed
 * again on failure. Returns the builder's 0 or -1. */
static int build(Task *t, const TaskConfig *tc, const char *path, const char *text, size_t len,
                 int shape_only) {
    memset(t, 0, sizeof *t);
    t->kind = tc->kind;
    t->separator = tc->separator;
    int rc;
    switch (tc->kind) {
    case TASK_SORT:
    case TASK_REVERSE:
    case TASK_COPY:
    case TASK_RECALL: rc = task_init_generated(t, tc); break;
    case TASK_FILE: rc = task_init_file(t, tc, path, text, len); break;
    case TASK_TEXT: rc = shape_only ? task_init_text_shape(t, tc) : task_init_text_file(t, tc, path); break;
    default: rc = task_key_error(tc, "task.name", "unknown task kind %d", (int)tc->kind); break;
    }
    if (rc != 0) task_free(t);
    return rc;
}

int task_init(Task *t, const Config *c) {
    TaskConfig tc;
    task_config_from(&tc, c);
    return build(t, &tc, tc.file, NULL, 0, 0);
}

int task_init_model_only(Task *t, const Config *c) {
    if (c->task != TASK_TEXT) return task_init(t, c);
    TaskConfig tc;
    task_config_from(&tc, c);
    return build(t, &tc, tc.file, NULL, 0, 1);
}

int task_init_text(Task *t, const Config *c, const char *name, const char *text, size_t len) {
    TaskConfig tc;
    task_config_from(&tc, c);
    tc.kind = TASK_FILE;
    tc.separator = task_separator_of(c, TASK_FILE);
    return build(t, &tc, name, text, len, 0);
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
