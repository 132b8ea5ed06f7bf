/* task_config.c: the task's narrow settings (TaskConfig) made from the Config -- the one file of
 * the builders' side that reads a Config -- the kind names, and the messages that name a key and
 * where it was set. Below every builder: it calls none of them. Pipeline: config -> task (here)
 * -> model -> optimizer -> training loop -> logs -> report. */
#include "tasks/task_config.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
    char text[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    error_add(NULL, 0, o.s, "'%s': %s", key, text);
    return -1;
}

int task_error_at(const char *where, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    error_vadd(NULL, 0, 0, where, fmt, ap);
    va_end(ap);
    return -1;
}

/* The error for a task.file that cannot be read (err: its errno), and what to do: a relative path
 * says the folder it was read from; the shipped text configs' corpus is made, not shipped, so a
 * missing data/kjv.txt in a checkout (where the script is; elsewhere the folder is what is wrong)
 * names the script that makes it. */
void task_say_unreadable(const Config *c, int err) {
    struct stat st;
    char cwd[PATH_MAX], here[PATH_MAX + 64] = "";
    int link = err == ENOENT && lstat(c->task_file, &st) == 0 && S_ISLNK(st.st_mode);
    if (err == ENOENT && c->task_file[0] != '/' && getcwd(cwd, sizeof cwd))
        snprintf(here, sizeof here, " (a relative path: from the current folder, %s)", cwd);
    int corpus = err == ENOENT && strcmp(c->task_file, "data/kjv.txt") == 0 &&
                 access("experiments/text_corpus.sh", F_OK) == 0;
    error_add(NULL, 0, NULL, "task.file '%s' (%s) cannot be read: %s%s%s%s", c->task_file,
              config_origin(c, "task.file"), strerror(err),
              link ? " (a symbolic link to a file that is not there)" : "", here,
              corpus ? "; the King James Bible corpus is made by experiments/text_corpus.sh "
                       "(./train.sh text makes it first)"
                     : "");
}
