/* shell_word.c: a string as one shell word (shell_word.h). */
#include "util/shell_word.h"

#include <stdlib.h>
#include <string.h>

void shell_word(FILE *f, const char *s) {
    static const char PLAIN[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
                                "_-./+,:@%=";
    if (*s && *s != '=' && strspn(s, PLAIN) == strlen(s)) {
        fputs(s, f);
        return;
    }
    fputc('\'', f);
    for (; *s; s++) {
        if (*s == '\'') fputs("'\\''", f);
        else fputc(*s, f);
    }
    fputc('\'', f);
}

char *shell_word_dup(const char *s) {
    char *q = NULL;
    size_t n = 0;
    FILE *m = open_memstream(&q, &n);
    if (!m) return NULL;
    shell_word(m, s);
    if (fclose(m) != 0) {
        free(q);
        return NULL;
    }
    return q;
}
