/* test_shell_word.c: shell_word (src/util/shell_word.c): each case's word written by hand from
 * the rule in shell_word.h, and each word read back by sh itself (printf '%s\n' WORD through
 * popen, which runs /bin/sh -c) as the original string. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "util/shell_word.h"

static const struct {
    const char *s, *word;
} CASES[] = {
    {"optim.lr=6e-4", "optim.lr=6e-4"},                     /* '=' inside: bare */
    {"/tmp/a_b/c-1.2+x,y:z@w%v", "/tmp/a_b/c-1.2+x,y:z@w%v"}, /* every plain punctuation */
    {"", "''"},                                             /* empty: a word still */
    {"it's", "'it'\\''s'"},                                 /* a quote: closed, escaped, reopened */
    {"'", "''\\'''"},
    {"a b", "'a b'"},
    {"~/x", "'~/x'"},                                       /* tilde expansion at the start */
    {"=x", "'=x'"},                                         /* zsh's =cmd */
    {"task.file=\"\"", "'task.file=\"\"'"},
    {"$HOME`x`*?[a]\\;|&<>(){}!#", "'$HOME`x`*?[a]\\;|&<>(){}!#'"},
    {"a\nb", "'a\nb'"},
};

#define N_CASES ((int)(sizeof CASES / sizeof CASES[0]))

static char *word_of(const char *s) {
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    ck_assert_ptr_nonnull(f);
    shell_word(f, s);
    ck_assert_int_eq(fclose(f), 0);
    return buf;
}

START_TEST(test_word) {
    char *w = word_of(CASES[_i].s);
    ck_assert_str_eq(w, CASES[_i].word);
    free(w);
}
END_TEST

/* sh reads the word back as the string: printf prints its one argument and a newline. */
START_TEST(test_sh_reads_it_back) {
    char *w = word_of(CASES[_i].s), cmd[512], out[512];
    snprintf(cmd, sizeof cmd, "printf '%%s\\n' %s", w);
    FILE *p = popen(cmd, "r");
    ck_assert_ptr_nonnull(p);
    size_t n = fread(out, 1, sizeof out - 1, p);
    out[n] = 0;
    ck_assert_int_eq(pclose(p), 0);
    ck_assert_msg(n == strlen(CASES[_i].s) + 1 && out[n - 1] == '\n' &&
                      memcmp(out, CASES[_i].s, n - 1) == 0,
                  "sh read %s as '%s'", w, out);
    free(w);
}
END_TEST

TU_MAIN("shell_word", TU_LOOP(test_word, 0, N_CASES),
        TU_LOOP(test_sh_reads_it_back, 0, N_CASES));
