/* evaluate.h: accuracy of the model on the held-out validation set. */
#ifndef SCALEDOT_EVALUATE_H
#define SCALEDOT_EVALUATE_H

#include <stdio.h>

#include "model/model.h"
#include "tasks/tasks.h"

typedef struct {
    double loss;        /* masked mean cross-entropy over the answer tokens, nats */
    double token_acc;   /* fraction of answer tokens whose argmax is right */
    double answer_acc;  /* fraction of examples whose every answer token is right; with teacher
                           forcing this equals greedy exact-match accuracy, since a fully right
                           answer is reproduced token by token by greedy decoding. The text task
                           has no answers (every position is scored): there it is token_acc, the
                           next-byte accuracy, so the answer-accuracy columns stay meaningful */
} EvalResult;

/* Bits per byte of a mean cross-entropy in nats per byte-level token: nats / ln 2 (a token of
 * the text task is one byte, so bits per token = bits per byte). Non-finite stays non-finite. */
double evaluate_bits_per_byte(double nats_per_token);

/* Evaluates the model on the whole validation set, in batches of up to m->max_batch, with the
 * correct previous answer tokens as input (teacher forcing). */
EvalResult evaluate_validation(Model *m, const Task *t);

/* evaluate_validation that asks stop() before each batch (of m->max_batch examples): returns 0
 * with *out filled, or 1, *out untouched, when stop() answered non-zero (the training loop's
 * Ctrl-C: a pass over a large validation set must not delay it; a partial result is never
 * given out). */
int evaluate_validation_until(Model *m, const Task *t, int (*stop)(void), EvalResult *out);

/* Greedy decoding of validation example b: each answer token is predicted from the prompt and
 * the model's own previous answer tokens. tokens is scratch of t->seq_len ints; the answer is
 * written to out (answer positions in order) and its length returned. */
int evaluate_greedy(Model *m, const Task *t, int b, int *tokens, int *out);

/* evaluate_greedy on tokens given by the caller (T of them, laid out like validation example
 * b, whose mask says which positions are answered): the prompt positions are read, the answer
 * positions overwritten. For a prompt of the user's (--prompt). */
int evaluate_greedy_tokens(Model *m, const Task *t, int b, int *tokens, int *out);

/* evaluate_greedy_tokens with the layout given as one example's targets and mask (T each): the
 * mask's nonzero positions are answered. For a prompt laid out like a training example. */
int evaluate_greedy_layout(Model *m, const Task *t, const int *targets, const float *mask,
                           int *tokens, int *out);

/* Prints how many validation answers are wrong, then n_examples examples as "prompt | answer
 * model: ...   right" or "WRONG": the wrong ones first (in validation order), then right ones.
 * Returns 0, or -1 when out of memory. */
int evaluate_print_examples(Model *m, const Task *t, int n_examples, FILE *f);

#endif
