/* shell_word.h: a string as one shell word, the one quoting rule of every command line scaledot
 * prints or writes for a shell (--where's --set options, --plan's lines, jobs.txt). */
#ifndef SCALEDOT_SHELL_WORD_H
#define SCALEDOT_SHELL_WORD_H

#include <stdio.h>

/* Writes s to f as one word that a POSIX sh reads back as s, in an ARGUMENT position (after the
 * command word). Left bare: a non-empty s of letters, digits and _-./+,:@%= only, not starting
 * with '='. None of those is special to sh there (POSIX XCU 2.2, 2.6, 2.13): the metacharacters
 * are | & ; < > ( ) space tab newline, the quotes ' " \, expansions start at $ `, pathname
 * expansion at * ? [, a comment at a word-initial #, tilde expansion at a word-initial ~ (and
 * after = or : in an assignment, which an argument is not); '=' makes an assignment only in a
 * word before the command name; '%' names a job only as a job-control builtin's argument; ','
 * and '@' matter only next to braces and parentheses (bash, zsh), which are quoted. A leading
 * '=' is quoted all the same: zsh, a shell users paste into, expands "=cmd" to a path. Anything
 * else (the empty string too) is single-quoted, inside which sh takes every character literally
 * but ' itself, which is written '\'' (close, an escaped quote, reopen): "it's" as 'it'\''s'.
 * As a command word a bare word could be an assignment (a=b) or a reserved word (if): callers
 * give this only absolute paths there, which begin with '/' and are neither. */
void shell_word(FILE *f, const char *s);

/* shell_word's word as a string (malloc'd, the caller frees); NULL when out of memory. */
char *shell_word_dup(const char *s);

#endif
