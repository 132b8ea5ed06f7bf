/* error_list.h: the one way an error about bad input reaches the terminal, and the list that
 * gathers every such error of one command line (its config file's, then its arguments') so that a
 * single run names them all, in argument order, each once.
 *
 * Every line is "error: WHERE: TEXT" ("error: TEXT" without a place), the form most of the
 * program's messages had. A line holds user text (a config line, a --set, a path, a jobs.txt
 * line), and a raw CR or escape sequence in it would make the quoted text look right on a terminal
 * while the bytes are not, so WHERE and TEXT are written by one rule, byte for byte:
 *   - the C0 controls 0x00-0x1f and DEL 0x7f as \r, \n, \t, else \xNN;
 *   - valid UTF-8 as it is ("données/ā.ini" stays readable), but the C1 controls U+0080-U+009F
 *     (C2 80 - C2 9F; U+009B is a CSI like ESC [) as their two bytes, "\xc2\x9b";
 *   - and the invisible characters that reorder or break the line, the bidi marks, embeddings,
 *     overrides and isolates U+200E, U+200F, U+202A-U+202E, U+2066-U+2069 (U+202E would show
 *     the rest of the line reversed) and the separators U+2028, U+2029, as their three bytes,
 *     "\xe2\x80\xae";
 *   - every byte that is not part of valid UTF-8 as \xNN: a lone 0x9b (8-bit terminals read it as
 *     CSI), a cut sequence (C3 at the end), an overlong form (C0 80 for NUL, E0 80 80), a
 *     surrogate (ED A0 80) or a code point above U+10FFFF.
 * A backslash is written as itself (paths and regexes stay readable), so "\r" in a message is a
 * CR only when the text had none. The other lines that quote user text (a warning, a note, a path
 * on stdout) write it with error_shown, by the same rule. */
#ifndef SCALEDOT_ERROR_LIST_H
#define SCALEDOT_ERROR_LIST_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

/* The errors one list names; any more are counted, and one line says how many. */
#define ERRORS_NAMED 20

typedef struct {
    struct {
        int order;         /* where it sorts: 0 for the config file, else its argument's number */
        long line;         /* then by this: the config file's line, 0 for none (first) */
        char *where, *text; /* malloc'd; where may be NULL */
    } e[ERRORS_NAMED];
    int n;     /* named: e[0..n), sorted by (order, line), equal ones as they came */
    long more; /* counted, not named */
} ErrorList;

/* Adds one error (text from fmt) at place where (NULL: none) to l, which must be zeroed ({0})
 * before its first error. Sorted by order, equal orders kept as they came; only the first
 * ERRORS_NAMED in that order are kept, the rest counted (out of memory: counted too). With l
 * NULL the line is written to stderr at once. errno is kept: a caller may read it after. */
void error_add(ErrorList *l, int order, const char *where, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/* error_add with a second sort key under order: line, the config file's line the error is about
 * (order 0), so that a file's errors are named in the order of its lines whichever step of the
 * reading found them (a bad value at its line, a check between keys after the whole file);
 * error_add's errors have line 0, sorting before the lines of their order. */
void error_add_line(ErrorList *l, int order, long line, const char *where, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;
void error_vadd(ErrorList *l, int order, long line, const char *where, const char *fmt,
                va_list ap);

/* The errors added to l so far (named and counted). */
long error_count(const ErrorList *l);

/* Writes l's named errors to stderr in their order, then, when more were counted, "error: WHERE:
 * 20 errors named; N more after this one, not named" (WHERE: the last named one's place).
 * Empties l (ready for reuse) and returns how many errors it held: 0 when none. */
long error_flush(ErrorList *l);

/* Empties l without writing anything (a --help seen after a mistake). */
void error_drop(ErrorList *l);

/* The place of a command-line option's value, as every error line and every config key's origin
 * writes it: "OPTION (argument N)" for argn > 0 (N counts the whole command line), "OPTION
 * (default)" for argn 0 (the value the option takes when not given), OPTION itself for argn < 0
 * (OPTION is then a whole place, a file and line such as "plan.txt:12"). Into buf (n bytes). */
void error_place(char *buf, size_t n, const char *option, int argn);

/* Writes s to f escaped as error lines write it (the rule above). */
void error_put_text(FILE *f, const char *s);

/* s escaped as error lines write it, into buf (n bytes, n >= 4; a text that does not fit is cut
 * after a whole character and ends in "..."); returns buf. For a "%s" of user text (a path, a run
 * name, a value) in a line that is not an error: a warning, a note, a progress line, stdout. */
const char *error_shown(char *buf, size_t n, const char *s);

/* Room for error_shown of any path (PATH_MAX 4096 bytes, each escaped in at most 4) whole. */
#define ERROR_SHOWN_MAX (4 * 4096 + 1)

/* error_shown of s into a buffer that lives to the end of the enclosing block, for a printf
 * argument: printf("wrote %s\n", SHOWN(path)). */
#define SHOWN(s) error_shown((char[ERROR_SHOWN_MAX]){0}, ERROR_SHOWN_MAX, (s))

#endif
