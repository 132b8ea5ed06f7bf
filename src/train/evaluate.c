/* evaluate.c: the training loop's evaluation (evaluate.h): validation loss and accuracy on the
 * held-out set, per token and per answer. */
#include "train/evaluate.h"

#include <stdlib.h>
#include <string.h>

/* Index of the largest of n logits (the first on ties). */
static int argmax(const real *z, int n) {
    int best = 0;
    for (int v = 1; v < n; v++)
        if (z[v] > z[best]) best = v;
    return best;
}

/* The validation pass; with right non-NULL also, per example, 1 when its whole answer is right
 * (teacher forcing, which for a whole right answer is what greedy decoding gives too). With stop
 * non-NULL, it is asked before each batch; when it answers non-zero the pass ends there and
 * *stopped is set (the result is then of part of the set, not to be used). */
static EvalResult validation_pass(Model *m, const Task *t, unsigned char *right, int (*stop)(void),
                                  int *stopped) {
    int T = t->seq_len, V = m->cfg.vocab_size;
    double loss_sum = 0, mask_sum = 0, tok_right = 0, tok_total = 0, ans_right = 0;
    for (int start = 0; start < t->n_val; start += m->max_batch) {
        if (stop && stop()) {
            *stopped = 1;
            break;
        }
        int B = t->n_val - start < m->max_batch ? t->n_val - start : m->max_batch;
        const int *targets = t->val_targets + (size_t)start * T;
        const float *mask = t->val_mask + (size_t)start * T;
        model_forward(m, t->val_tokens + (size_t)start * T, targets, mask, B, T);
        for (int b = 0; b < B; b++) {
            int all_right = 1;
            for (int i = 0; i < T; i++) {
                size_t n = (size_t)b * T + i;
                if (mask[n] == 0) continue;
                int right = argmax(m->logits + n * V, V) == targets[n];
                tok_right += right;
                tok_total += 1;
                all_right &= right;
                loss_sum += mask[n] * (double)m->losses[n];
                mask_sum += mask[n];
            }
            ans_right += all_right;
            if (right) right[start + b] = (unsigned char)all_right;
        }
    }
    EvalResult r = {
        .loss = mask_sum > 0 ? loss_sum / mask_sum : 0,
        .token_acc = tok_total > 0 ? tok_right / tok_total : 0,
        .answer_acc = t->n_val > 0 ? ans_right / t->n_val : 0,
    };
    if (t->kind == TASK_TEXT) r.answer_acc = r.token_acc; /* no answers: see evaluate.h */
    return r;
}

double evaluate_bits_per_byte(double nats_per_token) {
    return nats_per_token / 0.693147180559945309417232121458176568; /* ln 2 */
}

EvalResult evaluate_validation(Model *m, const Task *t) {
    return validation_pass(m, t, NULL, NULL, NULL);
}

int evaluate_validation_until(Model *m, const Task *t, int (*stop)(void), EvalResult *out) {
    int stopped = 0;
    EvalResult r = validation_pass(m, t, NULL, stop, &stopped);
    if (stopped) return 1;
    *out = r;
    return 0;
}

int evaluate_greedy(Model *m, const Task *t, int b, int *tokens, int *out) {
    memcpy(tokens, t->val_tokens + (size_t)b * t->seq_len, sizeof(int) * (size_t)t->seq_len);
    return evaluate_greedy_tokens(m, t, b, tokens, out);
}

int evaluate_greedy_tokens(Model *m, const Task *t, int b, int *tokens, int *out) {
    size_t off = (size_t)b * (size_t)t->seq_len;
    return evaluate_greedy_layout(m, t, t->val_targets + off, t->val_mask + off, tokens, out);
}

int evaluate_greedy_layout(Model *m, const Task *t, const int *targets, const float *mask,
                           int *tokens, int *out) {
    int T = t->seq_len, V = m->cfg.vocab_size, n = 0;
    for (int i = 0; i < T; i++) {
        if (mask[i] == 0) continue;
        model_forward(m, tokens, targets, mask, 1, T);
        int best = argmax(m->logits + (size_t)i * V, V);
        out[n++] = best;
        if (i + 1 < T) tokens[i + 1] = best; /* the next input is the model's own answer */
    }
    return n;
}



/* One example's line: "prompt | answer   model: ...   right" or "WRONG". */
static void print_example(Model *m, const Task *t, int b, int *tokens, int *answer, FILE *f) {
    int T = t->seq_len;
    char prompt[4096], name[128];
    const int *targets = t->val_targets + (size_t)b * T;
    const float *mask = t->val_mask + (size_t)b * T;
    task_format(t, t->val_tokens + (size_t)b * T, targets, mask, prompt, sizeof prompt);
    int n = evaluate_greedy(m, t, b, tokens, answer);
    fprintf(f, "  %s   model:", prompt);
    int right = 1;
    for (int i = 0, k = 0; i < T; i++)
        if (mask[i] != 0) right &= answer[k++] == targets[i];
    for (int i = 0; i < n; i++) {
        task_token_name(t, answer[i], name, sizeof name);
        fprintf(f, " %s", name);
    }
    fprintf(f, "   %s\n", right ? "right" : "WRONG");
}

int evaluate_print_examples(Model *m, const Task *t, int n_examples, FILE *f) {
    int T = t->seq_len;
    int *tokens = malloc(sizeof(int) * (size_t)T), *answer = malloc(sizeof(int) * (size_t)T);
    unsigned char *right = malloc((size_t)(t->n_val > 0 ? t->n_val : 1));
    int rc = tokens && answer && right ? 0 : -1;
    if (rc == 0) {
        validation_pass(m, t, right, NULL, NULL);
        int wrong = 0;
        for (int b = 0; b < t->n_val; b++) wrong += !right[b];
        int shown_wrong = wrong < n_examples ? wrong : n_examples;
        fprintf(f, "%d of %d validation answers wrong", wrong, t->n_val);
        if (shown_wrong > 0)
            fprintf(f, "; the first %d of them%s:\n", shown_wrong,
                    shown_wrong < n_examples ? ", then right ones" : "");
        else
            fprintf(f, "; the first right ones:\n");
        /* the mistakes first: they say what the model has not learned */
        for (int pass = 0, shown = 0; pass < 2; pass++)
            for (int b = 0; b < t->n_val && shown < n_examples; b++)
                if (right[b] == pass) {
                    print_example(m, t, b, tokens, answer, f);
                    shown++;
                }
    }
    free(tokens);
    free(answer);
    free(right);
    return rc;
}
