/* resolved.c: a configuration as its run uses it (resolved.h). The rules themselves have their
 * homes elsewhere (train_model_config, task_has_separator); this file only applies them. */
#include "train/resolved.h"

#include <string.h>

#include "tasks/tasks.h"
#include "train/train.h"

void train_resolve_config(Config *c, int T) {
    Task t;
    memset(&t, 0, sizeof t);
    t.seq_len = T;
    ModelConfig mc = train_model_config(c, &t);
    c->d_ff = mc.d_ff;
    c->max_seq_len = mc.max_seq_len;
    if (c->window >= T) c->window = 0;
    c->task_separator = task_has_separator(c) ? SEPARATOR_TRUE : SEPARATOR_FALSE;
}
