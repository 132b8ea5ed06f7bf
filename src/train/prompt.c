/* prompt.c: the model's answer to a prompt of the user's (see prompt.h). */
#include "train/prompt.h"

#include <stdlib.h>
#include <string.h>

#include "train/evaluate.h"
#include "util/error_list.h"

/* The number of prompt symbols of the example whose mask row (T floats) is mask. */
static int mask_prompt_length(const Task *t, const float *mask) {
    int T = t->seq_len;
    int p0 = 0;
    while (p0 < T && mask[p0] == 0) p0++;
    /* position p0 predicts the first answer token: it is SEP, or the prompt's last symbol */
    return t->separator ? p0 : p0 + 1;
}

int prompt_length(const Task *t, int b) {
    return mask_prompt_length(t, t->val_mask + (size_t)b * t->seq_len);
}

/* Example r of the layouts a prompt can take: the validation examples, then a file task's
 * training examples (whose prompts may have lengths no validation example has). */
static size_t layout(const Task *t, int r, const int **tokens, const int **targets,
                     const float **mask) {
    int val = r < t->n_val;
    size_t off = (size_t)(val ? r : r - t->n_val) * (size_t)t->seq_len;
    *tokens = (val ? t->val_tokens : t->file_tokens) + off;
    *targets = (val ? t->val_targets : t->file_targets) + off;
    *mask = (val ? t->val_mask : t->file_mask) + off;
    return off;
}

/* "N symbols, but the task's prompts have A, B or C" at where: every length among the layouts. */
static void wrong_length(const Task *t, int n, const char *where) {
    int T = t->seq_len, n_layouts = t->n_val + t->n_train_file, k = 0, count = 0;
    char *seen = calloc((size_t)T + 1, 1);
    const int *tok, *tgt;
    const float *mask;
    for (int r = 0; seen && r < n_layouts; r++) {
        layout(t, r, &tok, &tgt, &mask);
        int len = mask_prompt_length(t, mask);
        if (len >= 0 && len <= T && !seen[len]) seen[len] = 1, count++;
    }
    char lens[1024] = ""; /* the lengths; a long list is cut, not overrun */
    size_t at = 0;
    for (int len = 0; seen && len <= T && at < sizeof lens; len++)
        if (seen[len]) {
            k++;
            at += (size_t)snprintf(lens + at, sizeof lens - at, "%s%d",
                                   k == 1 ? "" : k == count ? " or " : ", ", len);
        }
    error_add(NULL, 0, where, "%d symbol%s, but the prompts of this task have %s", n,
              n == 1 ? "" : "s", count == 0 ? "none (no example)" : lens);
    free(seen);
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

/* The alphabet as the message names it (its first 24 symbols), into out (ALPHABET_TEXT bytes). */
#define ALPHABET_TEXT (24 * 128 + 32)
static void alphabet_text(const Task *t, char *out) {
    char buf[128];
    size_t len = 0;
    if (!t->symbol_names) {
        snprintf(out, ALPHABET_TEXT, "0 .. %d", t->n_symbols - 1);
        return;
    }
    for (int v = 0; v < t->n_symbols && v < 24; v++) {
        task_token_name(t, v, buf, sizeof buf);
        len += (size_t)snprintf(out + len, ALPHABET_TEXT - len, "%s%s", v ? " " : "", buf);
    }
    if (t->n_symbols > 24)
        snprintf(out + len, ALPHABET_TEXT - len, " ... (%d symbols)", t->n_symbols);
}

/* Splits copy (cut in place) into at most T + 2 words, then drops a trailing "|" or "<sep>" (the
 * words first, so one at the end can be told from one inside). Returns 0, or 2 after the message
 * when there are more words. */
static int split_words(char *copy, int T, char **words, int *n_words, const char *where) {
    *n_words = 0;
    for (char *save = NULL, *w = strtok_r(copy, " \t\r\n", &save); w;
         w = strtok_r(NULL, " \t\r\n", &save)) {
        if (*n_words == T + 2) {
            error_add(NULL, 0, where, "more than %d symbols; this model reads %d tokens", T, T);
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
static int parse_symbols(const Task *t, char **words, int n_words, int *sym, int *n,
                         const char *where) {
    int T = t->seq_len;
    *n = 0;
    for (int i = 0; i < n_words; i++) {
        int id = symbol_id(t, words[i]);
        if (id < 0) {
            char alphabet[ALPHABET_TEXT];
            alphabet_text(t, alphabet);
            error_add(NULL, 0, where, "'%s' (symbol %d) is not in the task's alphabet (%s)",
                      words[i], i + 1, alphabet);
            return 2;
        }
        if (*n >= T) {
            error_add(NULL, 0, where, "more than %d symbols; this model reads %d tokens", T, T);
            return 2;
        }
        sym[(*n)++] = id;
    }
    return 0;
}

/* The first layout (validation examples, then a file task's training examples) whose prompt has
 * n symbols, or -1 after the message (n is 0, or no example has that many). */
static int example_for(const Task *t, int n, const char *where) {
    if (n == 0) {
        error_add(NULL, 0, where, "no symbols given");
        return -1;
    }
    const int *tok, *tgt;
    const float *mask;
    for (int r = 0; r < t->n_val + t->n_train_file; r++) {
        layout(t, r, &tok, &tgt, &mask);
        if (mask_prompt_length(t, mask) == n) return r;
    }
    wrong_length(t, n, where);
    return -1;
}

/* The greedy answer to the n symbols sym laid out like layout r (example_for), printed as
 * "prompt: ...   model: ..." to out; tokens and answer hold seq_len ints each. */
static void print_answer(Model *m, const Task *t, int r, const int *sym, int n, int *tokens,
                         int *answer, FILE *out) {
    int T = t->seq_len;
    const int *lay_tokens, *lay_targets;
    const float *lay_mask;
    layout(t, r, &lay_tokens, &lay_targets, &lay_mask);
    /* layout r's SEP, answer positions and padding, with the user's prompt */
    memcpy(tokens, lay_tokens, sizeof(int) * (size_t)T);
    memcpy(tokens, sym, sizeof(int) * (size_t)n);
    int k = evaluate_greedy_layout(m, t, lay_targets, lay_mask, tokens, answer);
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

int prompt_answer(Model *m, const Task *t, const char *prompt, const char *where, FILE *out) {
    int T = t->seq_len;
    int *sym = malloc(sizeof(int) * (size_t)(T + 1)), *tokens = malloc(sizeof(int) * (size_t)T);
    int *answer = malloc(sizeof(int) * (size_t)T);
    char *copy = strdup(prompt);
    char **words = malloc(sizeof(char *) * (size_t)(T + 2));
    int rc = 1, n_words = 0, n = 0;
    if (!sym || !tokens || !answer || !copy || !words) {
        fprintf(stderr, "error: out of memory\n");
    } else if ((rc = split_words(copy, T, words, &n_words, where)) == 0 &&
               (rc = parse_symbols(t, words, n_words, sym, &n, where)) == 0) {
        int b = example_for(t, n, where);
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
