/* task_config.h: the narrow settings the task builders read (TaskConfig), made once from the
 * whole Config by task_config_from, as the model reads a ModelConfig; and the messages every
 * builder gives, which name a config key and where it was set (the config reader's shape). The
 * builders (generated.c, file_task.c, text_task.c) and the readers below them see this, never
 * the Config. */
#ifndef SCALEDOT_TASK_CONFIG_H
#define SCALEDOT_TASK_CONFIG_H

#include "config/config.h"

#if defined(__GNUC__) || defined(__clang__)
#define PRINTF_LIKE(f, a) __attribute__((format(printf, f, a)))
#else
#define PRINTF_LIKE(f, a)
#endif

/* Where a key was set ("FILE:LINE", "--set (argument N)") or "default"; copied out of the
 * config, so that two origins in one message never share a buffer. */
typedef struct {
    char s[CONFIG_STR + 64];
} Origin;

/* The keys a task's messages name (TaskConfig.origin keeps where each was set). */
#define TASK_N_KEYS 9

typedef struct {
    TaskKind kind;        /* task.name */
    int separator;        /* 1: prompt SEP answer (task.separator resolved: task_has_separator) */
    int symbols;          /* task.symbols: alphabet of sort, reverse, copy, recall */
    int length;           /* task.length: input symbols of sort, reverse, copy */
    int pairs;            /* task.pairs: key-value pairs of recall */
    int seq_len;          /* task.seq_len: T of the text task, in bytes */
    int val_size;         /* task.val_size: held-out validation examples */
    double val_fraction;  /* task.val_fraction: the text's held-out tail */
    int max_seq_len;      /* model.max_seq_len: 0 = no limit */
    long seed;            /* run.seed: the validation set's and the training stream's */
    char file[CONFIG_STR];  /* task.file */
    Origin origin[TASK_N_KEYS];  /* where each of the messages' keys was set, in task_config.c's order */
} TaskConfig;

/* tc from c: its task keys, the separator resolved, and where each key was set. */
void task_config_from(TaskConfig *tc, const Config *c);

/* Whether c's task kind puts SEP between prompt and answer: task.separator true or false, or
 * with auto the kind's own format (every kind but recall); never for text (no prompt, no answer:
 * config_validate refuses true for it). */
int task_separator_of(const Config *c, TaskKind kind);

/* The task.name spelling of a task kind ("sort", ..., "file", "text"). */
const char *task_kind_name(TaskKind k);

/* Where key (one of the task's keys, e.g. "task.val_size") was set, or "default". */
Origin task_origin_of(const TaskConfig *tc, const char *key);

/* "set at FILE:LINE" or "default", for a second key named inside a message. */
Origin task_set_at(const TaskConfig *tc, const char *key);

/* Writes "error: ORIGIN: 'KEY': message" (error_add: escaped) -- the same shape as the config
 * reader's errors, ORIGIN where key was set -- and returns -1. */
PRINTF_LIKE(3, 4) int task_key_error(const TaskConfig *tc, const char *key, const char *fmt, ...);

/* Writes the error for a task.file that cannot be read (err: its errno): the path, where it was
 * set, why, and what to do (a relative path names the current folder; a missing data/kjv.txt in a
 * checkout names the script that makes it). The train command and the sweep's plan say it alike. */
void task_say_unreadable(const Config *c, int err);

/* Writes "error: WHERE: message" (error_add: escaped; WHERE a place such as an origin of
 * task_origin_of, or a file's "PATH:LINE") and returns -1. */
PRINTF_LIKE(2, 3) int task_error_at(const char *where, const char *fmt, ...);

#endif
