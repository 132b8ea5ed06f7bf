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

EvalResult evaluate_validation(Model *m, const Task *t) {
    int T = t->seq_len, V = m->cfg.vocab_size;
    double loss_sum = 0, mask_sum = 0, tok_right = 0, tok_total = 0, ans_right = 0;
    for (int start = 0; start < t->n_val; start += m->max_batch) {
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
        }
    }
    EvalResult r = {
        .loss = mask_sum > 0 ? loss_sum / mask_sum : 0,
        .token_acc = tok_total > 0 ? tok_right / tok_total : 0,
        .answer_acc = t->n_val > 0 ? ans_right / t->n_val : 0,
    };
    return r;
}

int evaluate_greedy(Model *m, const Task *t, int b, int *tokens, int *out) {
    int T = t->seq_len, V = m->cfg.vocab_size, n = 0;
    const int *targets = t->val_targets + (size_t)b * T;
    const float *mask = t->val_mask + (size_t)b * T;
    memcpy(tokens, t->val_tokens + (size_t)b * T, sizeof(int) * (size_t)T);
    for (int i = 0; i < T; i++) {
        if (mask[i] == 0) continue;
        model_forward(m, tokens, targets, mask, 1, T);
        int best = argmax(m->logits + (size_t)i * V, V);
        out[n++] = best;
        if (i + 1 < T) tokens[i + 1] = best; /* the next input is the model's own answer */
    }
    return n;
}


int evaluate_print_examples(Model *m, const Task *t, int n_examples, FILE *f) {
    int T = t->seq_len;
    int *tokens = malloc(sizeof(int) * (size_t)T), *answer = malloc(sizeof(int) * (size_t)T);
    char prompt[4096], name[128];
    int rc = tokens && answer ? 0 : -1;
    for (int b = 0; rc == 0 && b < n_examples && b < t->n_val; b++) {
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
    free(tokens);
    free(answer);
    return rc;
}
