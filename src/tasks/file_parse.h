/* file_parse.h: a task file's text as examples (file_parse.c), used by file_task.c; and the
 * message naming a task file's line, which text_task.c gives too. */
#ifndef SCALEDOT_FILE_PARSE_H
#define SCALEDOT_FILE_PARSE_H

#include <stddef.h>

#include "tasks/task.h"
#include "tasks/task_config.h"

typedef struct {
    char *text;      /* the whole file, NUL-terminated */
    size_t size;
    char **names;    /* symbol names in order of first appearance */
    int n_names;
    int slots[2 * TASK_MAX_FILE_SYMBOLS];  /* hash table of names: index or -1 */
    int *ids;        /* every example's symbol ids, concatenated */
    size_t n_ids, cap_ids;
    size_t *start;   /* per example: offset into ids, prompt length, answer length */
    int *plen, *alen;
    int *line;       /* per example: its line in the file, for messages */
    int n_ex, cap_ex;
    int *order;      /* distinct examples, then shuffled */
    int *ex_slots;   /* hash table of examples for deduplication */
} FileParse;

/* Writes "error: FILE:LINE: message (task.file, set at ORIGIN)" (task_error_at; line 0 = the
 * file as a whole: "error: FILE: ...") and returns -1. */
PRINTF_LIKE(4, 5) int task_file_error(const TaskConfig *c, const char *path, int line,
                                      const char *fmt, ...);

/* A fresh FileParse (every slot empty, room for the names), or NULL with a message. */
FileParse *task_parse_new(void);

/* Frees fp and everything it holds; safe on NULL members. */
void task_parse_free(FileParse *fp);

/* Puts the task file's content into fp->text: read from path when text is NULL, else copied from
 * text[0..len). Returns 0, or -1 after a message naming the file. */
int task_parse_load(FileParse *fp, const TaskConfig *c, const char *path, const char *text,
                    size_t len);

/* Splits fp->text into examples of interned symbol ids (ids in order of first appearance).
 * Returns 0, or -1 after a message naming the file and line. */
int task_parse_lines(FileParse *fp, const TaskConfig *c, const char *path);

#endif
