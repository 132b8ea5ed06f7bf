/* shell_word.c: a string as one shell word (shell_word.h). */
#include "util/shell_word.h"

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
