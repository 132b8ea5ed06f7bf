/* fuzz_config_file.c: libFuzzer harness for the INI reader (config_load_text, the body of
 * config_load_file). The input is the bytes of a config file. Besides crashes, leaks and
 * undefined behaviour it checks two promises of config.h: a failed load leaves the Config
 * untouched, and a loaded Config survives config_write -> config_load_text unchanged.
 * Build: make fuzz. Run: .ci/fuzz.sh, or
 *   build/fuzz/fuzz_config_file -dict=fuzz/config.dict build/fuzz/corpus/fuzz_config_file \
 *       fuzz/corpus/config_file */
#include <stddef.h>
#include <stdint.h>
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
    fuzz_defaults(&c);
    memcpy(&before, &c, sizeof c);
    if (config_load_text(&c, "fuzz.ini", (const char *)data, size) != 0) {
        FUZZ_CHECK(memcmp(&c, &before, sizeof c) == 0, "a failed load changed the Config");
        return 0;
    }
    (void)config_validate(&c);
    fuzz_check_round_trip(&c);
    return 0;
}
