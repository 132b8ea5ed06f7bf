/* prompt.c: the model's answer to a prompt of the user's (see prompt.h). */
#include "train/prompt.h"

#include <stdlib.h>
#include <string.h>

#include "train/evaluate.h"

int prompt_length(const Task *t, int b) {
    int T = t->seq_len;
    const float *mask = t->val_mask + (size_t)b * T;
    int p0 = 0;
    while (p0 < T && mask[p0] == 0) p0++;
    /* position p0 predicts the first answer token: it is SEP, or the prompt's last symbol */
    return t->separator ? p0 : p0 + 1;
}

/* The id of symbol name, or -1 when it is not in the alphabet. */
static int symbol_id(const Task *t, const char *name) {
    char buf[128];
    for (int v = 0; v < t->n_symbols; v++) {
        task_token_name(t, v, buf, sizeof buf);
        if (strcmp(buf, name) == 0) return v;
    }
    return -1;
}

static void print_alphabet(const Task *t, FILE *f) {
    char buf[128];
    if (!t->symbol_names) {
        fprintf(f, "0 .. %d", t->n_symbols - 1);
        return;
    }
    for (int v = 0; v < t->n_symbols && v < 24; v++) {
        task_token_name(t, v, buf, sizeof buf);
        fprintf(f, "%s%s", v ? " " : "", buf);
    }
    if (t->n_symbols > 24) fprintf(f, " ... (%d symbols)", t->n_symbols);
}

/* Splits copy (cut in place) into at most T + 2 words, then drops a trailing "|" or "<sep>" (the
 * words first, so one at the end can be told from one inside). Returns 0, or 2 after the message
 * when there are more words. */
static int split_words(char *copy, int T, char **words, int *n_words) {
    *n_words = 0;
    for (char *save = NULL, *w = strtok_r(copy, " \t\r\n", &save); w;
         w = strtok_r(NULL, " \t\r\n", &save)) {
        if (*n_words == T + 2) {
            fprintf(stderr, "error: --prompt: more than %d symbols; this model reads %d tokens\n", T, T);
            return 2;
        }
        words[(*n_words)++] = w;
    }
    if (*n_words > 0 &&
        (strcmp(words[*n_words - 1], "|") == 0 || strcmp(words[*n_words - 1], "<sep>") == 0))
        (*n_words)--;
    return 0;
}

/* The ids of the n_words words into sym (*n of them, at most seq_len). Returns 0, or 2 after the
 * message naming the first word outside the alphabet, or when there are more than seq_len. */
static int parse_symbols(const Task *t, char **words, int n_words, int *sym, int *n) {
    int T = t->seq_len;
    *n = 0;
    for (int i = 0; i < n_words; i++) {
        int id = symbol_id(t, words[i]);
        if (id < 0) {
            fprintf(stderr, "error: --prompt: '%s' (symbol %d) is not in the task's alphabet (",
                    words[i], i + 1);
            print_alphabet(t, stderr);
            fprintf(stderr, ")\n");
            return 2;
        }
        if (*n >= T) {
            fprintf(stderr, "error: --prompt: more than %d symbols; this model reads %d tokens\n", T, T);
            return 2;
        }
        sym[(*n)++] = id;
    }
    return 0;
}

/* The first validation example whose prompt has n symbols, or -1 after the message (n is 0, or
 * no example has that many). */
static int example_for(const Task *t, int n) {
    if (n == 0) {
        fprintf(stderr, "error: --prompt: no symbols given\n");
        return -1;
    }
    for (int i = 0; i < t->n_val; i++)
        if (prompt_length(t, i) == n) return i;
    fprintf(stderr, "error: --prompt: %d symbols, but the prompts of this task have %d "
                    "(validation example 1)\n", n, t->n_val > 0 ? prompt_length(t, 0) : 0);
    return -1;
}

/* The greedy answer to the n symbols sym laid out like validation example b, printed as
 * "prompt: ...   model: ..." to out; tokens and answer hold seq_len ints each. */
static void print_answer(Model *m, const Task *t, int b, const int *sym, int n, int *tokens,
                         int *answer, FILE *out) {
    int T = t->seq_len;
    /* validation example b's layout (SEP, answer positions, padding) with the user's prompt */
    memcpy(tokens, t->val_tokens + (size_t)b * T, sizeof(int) * (size_t)T);
    memcpy(tokens, sym, sizeof(int) * (size_t)n);
    int k = evaluate_greedy_tokens(m, t, b, tokens, answer);
    char name[128];
    fprintf(out, "prompt:");
    for (int i = 0; i < n; i++) {
        task_token_name(t, sym[i], name, sizeof name);
        fprintf(out, " %s", name);
    }
    fprintf(out, "   model:");
    for (int i = 0; i < k; i++) {
        task_token_name(t, answer[i], name, sizeof name);
        fprintf(out, " %s", name);
    }
    fprintf(out, "\n");
}

int prompt_answer(Model *m, const Task *t, const char *prompt, FILE *out) {
    int T = t->seq_len;
    int *sym = malloc(sizeof(int) * (size_t)(T + 1)), *tokens = malloc(sizeof(int) * (size_t)T);
    int *answer = malloc(sizeof(int) * (size_t)T);
    char *copy = strdup(prompt);
    char **words = malloc(sizeof(char *) * (size_t)(T + 2));
    int rc = 1, n_words = 0, n = 0;
    if (!sym || !tokens || !answer || !copy || !words) {
        fprintf(stderr, "error: out of memory\n");
    } else if ((rc = split_words(copy, T, words, &n_words)) == 0 &&
               (rc = parse_symbols(t, words, n_words, sym, &n)) == 0) {
        int b = example_for(t, n);
        if (b < 0)
            rc = 2;
        else
            print_answer(m, t, b, sym, n, tokens, answer, out);
    }
    free(words);
    free(sym);
    free(tokens);
    free(answer);
    free(copy);
    return rc;
}
