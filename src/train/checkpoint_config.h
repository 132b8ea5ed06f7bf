/* checkpoint_config.h: the configuration a checkpoint stores, as a run reads it back: where the
 * run lives is its folder's (the stored run.name and run.dir are not read), and what an older
 * version meant by a key it did not write. */
#ifndef SCALEDOT_CHECKPOINT_CONFIG_H
#define SCALEDOT_CHECKPOINT_CONFIG_H

#include "config/config.h"

#include <stddef.h>

/* The configuration text (a checkpoint's, or a folder's config.ini) parsed into c on top of what
 * c holds, with origin (a path) in messages, as a checkpoint's is read: its [run] name and dir
 * lines turned into comments (text is changed in place), and no task.separator meaning the old
 * fixed format (task_read_stored_separator). Returns 0, or -1 after config_load_text's message
 * (c is then unchanged). */
int checkpoint_config_parse(Config *c, const char *origin, char *text);

/* Reads the configuration stored in the checkpoint at path into c (which should hold defaults),
 * its errors at place what (error_add's: the argument that named the run folder, "--resume
 * (argument 2)"; NULL: none; the file is named in each):
 * checkpoint_read_config, then config_load_text with the checkpoint's path in messages, then what
 * an older checkpoint meant by a key it lacks: one without task.separator was written when every
 * task, recall included, put a separator before the answer, so it gets task.separator = true.
 * The stored run.name and run.dir are not read (c keeps its own): where a run lives is its
 * folder's, which the caller sets, and a bad name an older version wrote stays readable.
 * Returns 0, or -1 after printing what is wrong (c is then unchanged). */
int checkpoint_load_config(const char *path, Config *c, const char *what);

/* The run.dir stored in the checkpoint at path (the one the run was started with, or last
 * resumed under), into dir (n bytes). Returns 0, or -1 when the checkpoint cannot be read
 * (after a message), stores none or it does not fit. */
int checkpoint_stored_run_dir(const char *path, char *dir, size_t n);

/* A copy of the configuration text of a checkpoint (checkpoint_read_config) whose [run] name line
 * says name (written as config_write writes it: name = "NAME"); text unchanged when it has no
 * such line. Malloc'd (the caller frees); NULL when memory runs out. */
char *checkpoint_config_named(const char *text, const char *name);

#endif
