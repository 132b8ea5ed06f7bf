/* fuzz_config_set.c: libFuzzer harness for the --set parser (config_set). The input is split at
 * NUL bytes into command-line arguments (an argv string cannot hold a NUL), each applied in order
 * as one --set section.key=value to a default Config, as main.c does. Besides crashes, leaks and
 * undefined behaviour it checks that a rejected --set leaves the Config's settings untouched
 * (CONFIG_SETTINGS_SIZE: it marks the key unsure) and that the result survives config_write ->
 * config_load_text unchanged.
 * Build: make fuzz. Run: .ci/fuzz.sh, or
 *   build/fuzz/fuzz_config_set -dict=fuzz/config.dict build/fuzz/corpus/fuzz_config_set \
 *       fuzz/corpus/config_set */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "fuzz_common.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    fuzz_quiet(argc, argv);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static Config c, before;
    /* A NUL-terminated copy: config_set takes a C string, and the copy's exact size lets ASan
     * catch a read past the end of the argument. */
    char *text = malloc(size + 1);
    if (!text) return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    fuzz_defaults(&c);
    int argn = 1, accepted = 0;
    for (char *arg = text; arg <= text + size; arg += strlen(arg) + 1, argn++) {
        memcpy(&before, &c, sizeof c);
        if (config_set(&c, arg, argn) == 0) accepted++;
        else FUZZ_CHECK(memcmp(&c, &before, CONFIG_SETTINGS_SIZE) == 0,
                        "a rejected --set changed the Config");
    }
    if (accepted) {
        (void)config_validate(&c);
        fuzz_check_round_trip(&c);
    }
    free(text);
    return 0;
}
