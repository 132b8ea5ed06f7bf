/* fuzz_task_file.c: libFuzzer harness for the task-file reader (task.name = file) through
 * task_init_text, which parses text exactly as task_init parses the file. The input is the bytes
 * of a task file ('prompt | answer' lines). When the file is accepted, the harness also draws
 * training batches, formats rows and names every token, and checks what tasks.h promises: each
 * validation row is found by task_in_val, no training example is (duplicates are removed before
 * the split), and both sets are non-empty; with and without the separator token.
 * Build: make fuzz. Run: .ci/fuzz.sh, or
 *   build/fuzz/fuzz_task_file build/fuzz/corpus/fuzz_task_file fuzz/corpus/task_file */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "fuzz_common.h"
#include "tasks/tasks.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    fuzz_quiet(argc, argv);
    return 0;
}

static void exercise(Task *t) {
    size_t T = (size_t)t->seq_len;
    FUZZ_CHECK(t->n_val >= 1 && t->n_train_file >= 1, "empty validation or training set");
    FUZZ_CHECK(t->vocab_size == t->n_symbols + 2 && t->sep == t->n_symbols &&
                   t->pad == t->n_symbols + 1,
               "token ids");
    for (int k = 0; k < t->n_val; k++)
        FUZZ_CHECK(task_in_val(t, t->val_tokens + k * T, t->val_targets + k * T,
                               t->val_mask + k * T),
                   "a validation row is not found by task_in_val");
    for (int k = 0; k < t->n_train_file; k++)
        FUZZ_CHECK(!task_in_val(t, t->file_tokens + k * T, t->file_targets + k * T,
                                t->file_mask + k * T),
                   "a training example is also in the validation set");

    enum { B = 3 };
    int *tok = malloc(B * T * sizeof(int)), *tgt = malloc(B * T * sizeof(int));
    float *mask = malloc(B * T * sizeof(float));
    FUZZ_CHECK(tok && tgt && mask, "out of memory");
    task_train_batch(t, B, tok, tgt, mask);
    char small[8], big[1024];
    for (int b = 0; b < B; b++) {
        task_format(t, tok + b * T, tgt + b * T, mask + b * T, small, (int)sizeof small);
        task_format(t, tok + b * T, tgt + b * T, mask + b * T, big, (int)sizeof big);
        FUZZ_CHECK(strlen(small) < sizeof small && strlen(big) < sizeof big, "task_format");
    }
    task_format(t, t->val_tokens, t->val_targets, t->val_mask, big, (int)sizeof big);
    for (int id = -1; id <= t->vocab_size; id++) {
        task_token_name(t, id, small, (int)sizeof small);
        task_token_name(t, id, big, (int)sizeof big);
    }
    free(tok);
    free(tgt);
    free(mask);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static Config c;
    fuzz_defaults(&c);
    c.task = TASK_FILE;
    strcpy(c.task_file, "fuzz.txt");
    c.seed = 7;
    /* both layouts: prompt SEP answer, and prompt answer (where only the mask tells 'a b | c'
     * from 'a | b c') */
    for (int sep = 0; sep < 2; sep++) {
        c.task_separator = sep ? SEPARATOR_TRUE : SEPARATOR_FALSE;
        Task t;
        if (task_init_text(&t, &c, c.task_file, (const char *)data, size) == 0) exercise(&t);
        task_free(&t);
    }
    return 0;
}
