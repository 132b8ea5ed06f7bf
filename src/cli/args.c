/* args.c: the argument-reading helpers the subcommands of src/cli/ share (args.h): --help, an
 * option's value in either spelling, decimal counts, the once-only options and the "error: ..."
 * exit. */
#include "cli/args.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "train/run_setup.h"
#include "util/dirs.h"
#include "util/error_list.h"
#include "util/exit_codes.h"
#include "util/whole_write.h"

int cli_is_help(const char *a) { return strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0; }

int cli_is_flag(const char *a, const char *flag) {
    size_t n = strlen(flag);
    return strncmp(a, flag, n) == 0 && (a[n] == '\0' || a[n] == '=');
}

const char *cli_flag_value(int argc, char **argv, int *i, const char *flag) {
    const char *a = argv[*i], *v = NULL;
    size_t n = strlen(flag);
    if (a[n] == '=') v = a + n + 1;
    /* "--out --plan" is a forgotten value, not a folder named --plan: an option is never
     * taken as the value (the "--out=--plan" spelling still can) */
    else if (*i + 1 < argc && strncmp(argv[*i + 1], "--", 2) != 0) v = argv[++*i];
    return v && *v ? v : NULL;
}

const char *cli_next(int argc, char **argv, int *i) {
    return *i + 1 < argc ? argv[++*i] : NULL;
}

int cli_parse_count(const char *s, size_t len, long lo, long hi, long *out) {
    if (len == 0 || len > 12) return -1;
    long v = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9') return -1;
        v = 10 * v + (s[i] - '0');
    }
    if (v < lo || v > hi) return -1;
    *out = v;
    return 0;
}

int cli_parse_u64(const char *s, uint64_t *out) {
    if (!s || !*s || *s < '0' || *s > '9') return -1; /* strtoull would accept "-1" and " 1" */
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end || v > UINT64_MAX) return -1;
    *out = (uint64_t)v;
    return 0;
}

int cli_fail(CliUsage *usage, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    error_vadd(NULL, 0, 0, NULL, fmt, ap);
    va_end(ap);
    if (usage) usage(stderr);
    return EXIT_CONFIG;
}

void cli_verror_at(ErrorList *errs, const char *option, int argn, const char *fmt, va_list ap) {
    char where[512]; /* an unknown option is its own place: room for a long one */
    error_place(where, sizeof where, option, argn);
    error_vadd(errs, argn, 0, where, fmt, ap);
}

int cli_fail_at(CliUsage *usage, const char *option, int argn, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    cli_verror_at(NULL, option, argn, fmt, ap);
    va_end(ap);
    if (usage) usage(stderr);
    return EXIT_CONFIG;
}

void cli_set_twice(ErrorList *errs, int argn, const char *key, int before) {
    char where[32];
    error_place(where, sizeof where, "--set", argn);
    error_add(errs, argn, where, "'%s' is already set by --set (argument %d); give it once", key,
              before);
}

int cli_once_to(CliOnce *o, const char *flag, int argn, ErrorList *errs) {
    for (int i = 0; i < o->n; i++)
        if (strcmp(o->flag[i], flag) == 0) {
            char where[64]; /* the second one's place; the first is named in the text */
            error_place(where, sizeof where, flag, argn);
            error_add(errs, argn, where, "given twice (first at argument %d); give it once",
                      o->argn[i]);
            return -1;
        }
    if (o->n < CLI_ONCE_MAX) { /* every command has fewer; more would go unchecked, not wrong */
        o->flag[o->n] = flag;
        o->argn[o->n++] = argn;
    }
    return 0;
}

int cli_once_argn(const CliOnce *o, const char *flag) {
    for (int i = 0; i < o->n; i++)
        if (strcmp(flag, o->flag[i]) == 0) return o->argn[i];
    return 0;
}

int cli_once(CliOnce *o, const char *flag, int argn) {
    return cli_once_to(o, flag, argn, NULL) != 0 ? EXIT_CONFIG : -1;
}

/* The bytes more than its own a path of a command's has to fit in PATH_MAX (the most the system
 * opens, its NUL included): the one home of that reserve. A folder a run writes: '/', its longest
 * file name and, when written, the whole-file writer's temporary suffix (whole_write.h); a file
 * written: the suffix. */
static size_t path_reserve(int folder, int writes) {
    return (folder ? 1 + train_run_name_max() : 0) + (writes ? ATOMIC_TEMP_SUFFIX_MAX : 0);
}

int cli_run_checkpoint(char out[PATH_MAX], const char *run_dir, const char *place, int writes) {
    size_t more = path_reserve(1, writes);
    if (strlen(run_dir) + more < PATH_MAX &&
        dirs_join(out, PATH_MAX, run_dir, "checkpoint.bin") == 0) /* "/": no "//" */
        return 0;
    error_add(NULL, 0, place, "run folder path '%s' is too long (%zu bytes): its files' paths "
                              "(up to %zu bytes more%s) would pass the %d bytes the system opens",
              run_dir, strlen(run_dir), more, writes ? ", with a write's temporary name" : "",
              PATH_MAX - 1);
    return -1;
}

int cli_check_written_path(const char *path, const char *place) {
    size_t more = path_reserve(0, 1);
    if (strlen(path) + more < PATH_MAX) return 0;
    error_add(NULL, 0, place, "'%s' is too long (%zu bytes): written through a temporary name "
                              "(up to %zu bytes more) it would pass the %d bytes the system opens",
              path, strlen(path), more, PATH_MAX - 1);
    return -1;
}
