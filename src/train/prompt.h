/* prompt.h: ./train --eval RUN --prompt "3 1 2 ...": the model's greedy answer to a prompt of
 * the user's, its symbols checked against the task's alphabet. */
#ifndef SCALEDOT_PROMPT_H
#define SCALEDOT_PROMPT_H

#include <stdio.h>

#include "model/model.h"
#include "tasks/tasks.h"

/* Parses prompt (symbols separated by white space: the task's symbol names for a file task,
 * decimal ids 0..n_symbols-1 otherwise; a trailing "|" or "<sep>" is allowed and ignored), lays
 * it out like the first validation example with a prompt of the same length (else, for a file
 * task, the first training example), and prints "prompt: ...   model: ..." to out. Returns 0; 2
 * after an error message on stderr at where (the --prompt argument's place, "--prompt (argument
 * 4)") (a symbol outside the alphabet, no example with that many prompt symbols: the message
 * lists the lengths there are, an empty prompt); 1 when memory runs out. */
int prompt_answer(Model *m, const Task *t, const char *prompt, const char *where, FILE *out);

/* The number of prompt symbols of validation example b (before SEP, or up to and including the
 * last token before the first answer target when there is no separator). */
int prompt_length(const Task *t, int b);

#endif
