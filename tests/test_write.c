/* test_write.c: a Config written back as INI (src/config/write.c): every key under its section
 * with a help comment, and the text reads back into the same Config (defaults, every key set,
 * doubles needing 17 digits, each named attention.scale, odd bytes in a text). */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "configcheck.h"
#include "testutil.h"

/* config_text of c: each key line is preceded by a "; help" line, one header per section (9);
 * the text loads back into fresh defaults and equals c. */
static void round_trip(const Config *c, const char *what) {
    char *text = config_text(c);
    ck_assert_ptr_nonnull(text);
    int keys = 0, sections = 0;
    const char *prev = "";
    for (const char *line = text; *line; line = strchr(line, '\n') + 1) {
        if (line[0] == '[') sections++;
        else if (line[0] != ';' && line[0] != '\n') {
            keys++;
            ck_assert_msg(prev[0] == ';' && prev[1] == ' ' && prev[2] != '\n',
                          "%s: key line without a help comment: %.60s", what, line);
        }
        prev = line;
        ck_assert_ptr_nonnull(strchr(line, '\n')); /* every line ends in one */
    }
    ck_assert_int_eq(keys, config_key_count());
    ck_assert_int_eq(sections, 9);

    Config back;
    config_defaults(&back);
    char err[4096];
    int rc = cc_load(&back, text, 0, err, sizeof err);
    ck_assert_msg(rc == 0, "%s: written text does not load: %s", what, err);
    cc_assert_config_eq(&back, c, what);
    free(text);
}

START_TEST(test_write_round_trip) {
    Config c;
    config_defaults(&c);
    round_trip(&c, "defaults"); /* empty task.file included */
    cc_load_ok(&c, CC_FULL);
    round_trip(&c, "every key non-default");
    ck_assert_int_eq(config_set(&c, "optim.lr=0.30000000000000004", 1), 0);
    ck_assert_int_eq(config_set(&c, "attention.scale=0.123456789012345678", 2), 0);
    ck_assert_int_eq(config_set(&c, "run.seed=9223372036854775807", 3), 0);
    round_trip(&c, "17 digits");
}
END_TEST

/* config_write to a FILE writes what config_text returns, each double in its shortest form. */
START_TEST(test_write_to_file) {
    Config c;
    config_defaults(&c);
    ck_assert_int_eq(config_set(&c, "optim.min_lr=1e-05", 1), 0);
    char *buf = NULL, *text = config_text(&c);
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    ck_assert_ptr_nonnull(f);
    config_write(&c, f);
    ck_assert_int_eq(ferror(f), 0);
    ck_assert_int_eq(fclose(f), 0);
    ck_assert_str_eq(buf, text);
    static const char head[] = "; scaledot configuration: every key, defaults included\n\n[run]\n";
    ck_assert(strncmp(buf, head, sizeof head - 1) == 0);
    cc_assert_contains(buf, "\nmin_lr = 1e-05\n");
    cc_assert_contains(buf, "\nlr = 0.001\n");
    cc_assert_contains(buf, "\nname = \"run\"\n");
    free(buf);
    free(text);
}
END_TEST

START_TEST(test_write_scale_modes) {
    static const char *const modes[] = {"sqrt_dk", "none", "inv_dk"};
    for (int m = 0; m < 3; m++) {
        Config c;
        config_defaults(&c);
        ck_assert_int_eq(config_set(&c, "attention.scale=2.5", 1), 0);
        char set[64];
        snprintf(set, sizeof set, "attention.scale=%s", modes[m]);
        ck_assert_int_eq(config_set(&c, set, 2), 0);
        ck_assert_int_eq(c.scale_mode, (ScaleMode)m);
        ck_assert(c.scale_value == 0.0); /* a stale number would not survive a round trip */
        char *text = config_text(&c);
        ck_assert_ptr_nonnull(text);
        char want[64];
        snprintf(want, sizeof want, "\nscale = %s\n", modes[m]);
        cc_assert_contains(text, want);
        free(text);
        round_trip(&c, modes[m]);
    }
}
END_TEST

/* The C/d_k form is written as typed, C in its shortest form, and reads back to the same mode
 * and C (a number would lose the d_k it is divided by). */
START_TEST(test_write_scale_over_dk) {
    static const struct {
        const char *set, *want;
        double c;
    } cases[] = {{"attention.scale=8/d_k", "\nscale = 8/d_k\n", 8.0},
                 {"attention.scale=0.30/d_k", "\nscale = 0.3/d_k\n", 0.3},
                 {"attention.scale=1e-6/d_k", "\nscale = 1e-06/d_k\n", 1e-6}};
    for (int i = 0; i < 3; i++) {
        Config c;
        config_defaults(&c);
        ck_assert_int_eq(config_set(&c, cases[i].set, 1), 0);
        ck_assert_int_eq(c.scale_mode, SCALE_OVER_DK);
        ck_assert(c.scale_value == cases[i].c);
        char *text = config_text(&c);
        ck_assert_ptr_nonnull(text);
        cc_assert_contains(text, cases[i].want);
        free(text);
        round_trip(&c, cases[i].set);
    }
}
END_TEST

/* found by fuzzing (fuzz_config_set): line breaks and the other control bytes are refused
 * (test_value); other odd bytes (blanks at the ends, ';' and '#', UTF-8) stay allowed and survive
 * the round trip. */
START_TEST(test_write_odd_bytes) {
    Config c;
    config_defaults(&c);
    ck_assert_int_eq(config_set(&c, "task.file=\" a b ;#c\xc3\xa9 \"", 1), 0);
    round_trip(&c, "odd bytes");
}
END_TEST

TU_MAIN("write", test_write_round_trip, test_write_to_file, test_write_scale_modes, test_write_scale_over_dk,
        test_write_odd_bytes);
