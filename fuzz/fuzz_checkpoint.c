/* fuzz_checkpoint.c: libFuzzer harness for the checkpoint reader (src/train/checkpoint.c), the
 * path of ./train --resume / --eval: checkpoint_read_config, config_load_text of that text,
 * config_validate, then task, model and optimizer built from it and checkpoint_load. The input
 * is a checkpoint file. Its last 8 bytes are replaced by the FNV-1a hash of the rest before it
 * is read, so mutations get past the hash check into the parser (the check itself is covered by
 * tests/test_checkpoint.c). The reader takes a path, so each input is written to one temporary
 * file under /tmp (removed at exit). Models are built only when small (a fuzzed config may ask
 * for 8192-wide layers), and task.name = file is skipped (its path could name any file).
 * Build: make fuzz. Run: .ci/fuzz.sh, or
 *   build/fuzz/fuzz_checkpoint -max_len=16384 build/fuzz/corpus/fuzz_checkpoint \
 *       fuzz/corpus/checkpoint */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config/config.h"
#include "fuzz_common.h"
#include "model/model.h"
#include "optim/optim.h"
#include "tasks/tasks.h"
#include "train/checkpoint.h"
#include "train/train.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char path[] = "/tmp/scaledot_fuzz_checkpoint_XXXXXX";

static void remove_path(void) { unlink(path); }

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    fuzz_quiet(argc, argv);
    int fd = mkstemp(path);
    FUZZ_CHECK(fd >= 0, "mkstemp");
    close(fd);
    atexit(remove_path);
    return 0;
}

/* The hash checkpoint_save writes: FNV-1a 64 over every byte before it. */
static uint64_t fnv1a(const unsigned char *p, size_t n) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

static int small_enough(const Config *c) {
    return c->task != TASK_FILE && c->d_model <= 32 && c->n_layers <= 2 && c->d_ff <= 128 &&
           c->max_seq_len <= 64 && c->task_symbols <= 32 && c->task_length <= 16 &&
           c->task_pairs <= 16;
}

static void load_into_model(Config *c) {
    if (!small_enough(c)) return;
    c->val_size = c->val_size < 16 ? c->val_size : 16; /* shapes do not depend on it */
    Task t;
    if (task_init(&t, c) == 0) {
        ModelConfig mc = train_model_config(c, &t);
        Model m;
        Optimizer o;
        memset(&o, 0, sizeof o);
        if (mc.vocab_size <= 64 && mc.max_seq_len <= 64 && model_build(&m, &mc, 1) == 0) {
            if (train_optim_init(&o, c, m.n_params) == 0) {
                CheckpointState s;
                (void)checkpoint_load(path, &m, &o, &s);
                optim_free(&o);
            }
            model_free(&m);
        }
    }
    task_free(&t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    unsigned char *buf = malloc(size ? size : 1);
    if (!buf) return 0;
    memcpy(buf, data, size);
    if (size >= 8) {
        uint64_t h = fnv1a(buf, size - 8);
        memcpy(buf + size - 8, &h, sizeof h);
    }
    FILE *f = fopen(path, "wb");
    FUZZ_CHECK(f != NULL, "cannot write the temporary checkpoint");
    FUZZ_CHECK(fwrite(buf, 1, size, f) == size && fclose(f) == 0, "write error");
    free(buf);

    char *text = NULL;
    if (checkpoint_read_config(path, &text) != 0) {
        FUZZ_CHECK(text == NULL, "checkpoint_read_config failed but returned text");
        return 0;
    }
    FUZZ_CHECK(text != NULL, "checkpoint_read_config returned no text");
    static Config c;
    fuzz_defaults(&c);
    if (config_load_text(&c, "checkpoint", text, strlen(text)) == 0 && config_validate(&c) == 0)
        load_into_model(&c);
    free(text);
    return 0;
}
