#include "testutil.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "xmlcheck.h"

static char *tu_scratch_dir; /* tu_run's, inherited by each test's process */

const char *tu_scratch(void) {
    ck_assert_msg(tu_scratch_dir != NULL, "tu_scratch outside tu_run");
    return tu_scratch_dir;
}

int tu_run(Suite *s) {
    /* a runner started inside a test (test_testutil's) has a folder of its own, removed when it
     * ends; the outer one's is back after */
    char dir[PATH_MAX], *outer = tu_scratch_dir;
    const char *tmp = getenv("TMPDIR"); /* .ci/mutation.sh: in its copy, which it removes */
    if (!tmp || !*tmp || strlen(tmp) > sizeof dir - 32) tmp = "/tmp";
    snprintf(dir, sizeof dir, "%s/scaledot_test.XXXXXX", tmp);
    if (!mkdtemp(dir)) {
        fprintf(stderr, "testutil: cannot make %s: %s\n", dir, strerror(errno));
        return EXIT_FAILURE;
    }
    tu_scratch_dir = dir;
    SRunner *sr = srunner_create(s);
    /* SCALEDOT_TEST_LOG=FILE (make mutation): Check's log, a line per test as it ends, so that a
     * failure is seen before the program ends. Read and removed here, so that a runner started
     * inside a test (test_testutil's) does not write there. */
    static char log[4096];
    const char *log_env = getenv("SCALEDOT_TEST_LOG");
    if (log_env && *log_env && strlen(log_env) < sizeof log) {
        strcpy(log, log_env);
        unsetenv("SCALEDOT_TEST_LOG");
        srunner_set_log(sr, log);
    }
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    tu_remove_tree(dir);
    tu_scratch_dir = outer;
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

/* The loop tests of TU_LOOP: a copy of the test and its range, found again by address. */
enum { TU_MAX_LOOPS = 64 };
static struct {
    TTest test;
    int start, end;
} tu_loops[TU_MAX_LOOPS];
static int tu_n_loops;

const TTest *tu_loop(const TTest *test, int start, int end) {
    if (tu_n_loops == TU_MAX_LOOPS) {
        fprintf(stderr, "testutil: more than %d TU_LOOP tests in one program\n", TU_MAX_LOOPS);
        exit(EXIT_FAILURE);
    }
    tu_loops[tu_n_loops].test = *test;
    tu_loops[tu_n_loops].start = start;
    tu_loops[tu_n_loops].end = end;
    return &tu_loops[tu_n_loops++].test;
}

/* Adds t to tc: as the loop test tu_loop made of it, or as a plain test. */
static void tu_add(TCase *tc, const TTest *t) {
    for (int k = 0; k < tu_n_loops; k++)
        if (t == &tu_loops[k].test) {
            tcase_add_loop_test(tc, t, tu_loops[k].start, tu_loops[k].end);
            return;
        }
    tcase_add_test(tc, t);
}

int tu_main(const char *name, double seconds, void (*setup)(void), void (*teardown)(void),
            const TTest *const *tests) {
    Suite *s = suite_create(name);
    TCase *tc = tcase_create(name);
    if (setup || teardown) tcase_add_checked_fixture(tc, setup, teardown);
    if (seconds > 0) tcase_set_timeout(tc, seconds);
    /* SCALEDOT_TEST_FIRST=NAME (make mutation): the tests called NAME first, then the others in
     * their order, so that a mutant whose test comes late in a slow program fails without the
     * tests before it. Read and removed here, like SCALEDOT_TEST_LOG (tu_run). */
    char first[256] = "";
    const char *first_env = getenv("SCALEDOT_TEST_FIRST");
    int has_first = first_env && *first_env && strlen(first_env) < sizeof first;
    if (has_first) {
        strcpy(first, first_env);
        unsetenv("SCALEDOT_TEST_FIRST");
    }
    for (int pass = has_first ? 0 : 1; pass < 2; pass++)
        for (const TTest *const *t = tests; *t; t++)
            if ((strcmp((*t)->name, first) == 0) == (pass == 0)) tu_add(tc, *t);
    suite_add_tcase(s, tc);
    return tu_run(s);
}

/* ------------------------------------------------------------- files and folders */

char *tu_make_tmp(char *dir, size_t n, const char *template_path) {
    /* in the program's scratch folder (tu_scratch), gone after its last test whatever the
     * outcome; where it does not fit dir (a long TMPDIR), as the template says */
    const char *base = strrchr(template_path, '/');
    if (!tu_scratch_dir || !base || strlen(tu_scratch_dir) + strlen(base) >= n)
        base = NULL;
    if (base) snprintf(dir, n, "%s%s", tu_scratch_dir, base);
    else snprintf(dir, n, "%s", template_path);
    ck_assert_ptr_nonnull(mkdtemp(dir));
    return dir;
}

void tu_remove_tree(const char *path) {
    struct stat st;
    if (lstat(path, &st) != 0) return;
    if (!S_ISDIR(st.st_mode)) {
        unlink(path);
        return;
    }
    DIR *d = opendir(path);
    if (d) {
        struct dirent *e;
        char child[PATH_MAX];
        while ((e = readdir(d)))
            if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
                snprintf(child, sizeof child, "%s/%s", path, e->d_name);
                tu_remove_tree(child);
            }
        closedir(d);
    }
    rmdir(path);
}

/* Everything left in f, as a malloc'd string; NULL on a read error or without memory. */
static char *read_rest(FILE *f, size_t *len) {
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        n += fread(buf + n, 1, cap - n - 1, f);
        if (ferror(f)) {
            free(buf);
            return NULL;
        }
        if (n + 1 < cap) break; /* a short read without an error: the end of the file */
        char *bigger = realloc(buf, cap *= 2);
        if (!bigger) free(buf);
        buf = bigger;
    }
    if (!buf) return NULL;
    buf[n] = '\0';
    if (len) *len = n;
    return buf;
}

char *tu_read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    char *text = read_rest(f, len);
    fclose(f);
    return text;
}

char *tu_csv_columns(const char *text, int n_cols, int from_line, const char *skip_prefix) {
    char *out = calloc(strlen(text) + 1, 1), *o = out;
    if (!out) return NULL;
    int row = 0;
    for (const char *line = text; *line; row++) {
        size_t len = strcspn(line, "\n");
        if (row >= from_line &&
            !(skip_prefix && strncmp(line, skip_prefix, strlen(skip_prefix)) == 0)) {
            const char *p = line;
            for (int commas = 0; p < line + len && commas < n_cols; p++) commas += *p == ',';
            memcpy(o, line, (size_t)(p - line));
            o += p - line;
            *o++ = '\n';
        }
        line += len + (line[len] == '\n');
    }
    return out;
}

int tu_in_order(const char *doc, const char *const *needles, int n) {
    const char *p = doc;
    for (int i = 0; i < n; i++) {
        const char *q = strstr(p, needles[i]);
        if (!q) return i;
        p = q + strlen(needles[i]);
    }
    return -1;
}

int tu_file_contains(const char *path, const char *needle) {
    char *text = tu_read_file(path, NULL);
    int found = text && strstr(text, needle) != NULL;
    free(text);
    return found;
}

void tu_wait_for_file(const char *path, const char *needle, pid_t pid, int seconds) {
    struct timespec nap = {0, 2000000}, now, end;
    clock_gettime(CLOCK_MONOTONIC, &end);
    end.tv_sec += seconds;
    while (!tu_file_contains(path, needle)) {
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (now.tv_sec > end.tv_sec || (now.tv_sec == end.tv_sec && now.tv_nsec >= end.tv_nsec))
            break;
        siginfo_t info;
        memset(&info, 0, sizeof info);
        if (pid > 0 && waitid(P_PID, (id_t)pid, &info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
            info.si_pid == pid)
            break;
        nanosleep(&nap, NULL);
    }
    ck_assert_msg(tu_file_contains(path, needle), "'%s' never appeared in %s", needle, path);
}

int tu_file_holds(const char *path, const char *text) {
    size_t n;
    char *got = tu_read_file(path, &n);
    int same = got && n == strlen(text) && memcmp(got, text, n) == 0;
    free(got);
    return same;
}

void tu_write_file(const char *path, const char *text) {
    FILE *f = fopen(path, "w");
    ck_assert_msg(f != NULL, "cannot create %s", path);
    fputs(text, f);
    ck_assert_int_eq(fclose(f), 0);
}

const char *tu_put_file(char *dir, size_t n, const char *base, const char *sub, const char *file,
                        const char *text) {
    char folder[PATH_MAX], path[PATH_MAX + 256];
    snprintf(folder, sizeof folder, "%s/%s", base, sub);
    ck_assert_msg(mkdir(folder, 0777) == 0 || errno == EEXIST, "cannot create %s", folder);
    snprintf(path, sizeof path, "%s/%s", folder, file);
    tu_write_file(path, text);
    if (dir) snprintf(dir, n, "%s", folder);
    return dir;
}

int tu_count_lines(const char *path) {
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    int n = 0, ch;
    while ((ch = fgetc(f)) != EOF) n += ch == '\n';
    fclose(f);
    return n;
}

static int cmp_names(const void *a, const void *b) {
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

char *tu_list_dir(const char *dir, int (*match)(const char *name)) {
    DIR *d = opendir(dir);
    ck_assert_msg(d != NULL, "cannot read folder %s", dir);
    char *names[512], *out = NULL;
    size_t n = 0, len = 0;
    for (struct dirent *e; (e = readdir(d)) && n < 512;)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0 &&
            (!match || match(e->d_name)))
            names[n++] = strdup(e->d_name);
    closedir(d);
    qsort(names, n, sizeof *names, cmp_names);
    FILE *m = open_memstream(&out, &len);
    ck_assert(m != NULL);
    for (size_t i = 0; i < n; i++) {
        fprintf(m, "%s%s", i ? " " : "", names[i]);
        free(names[i]);
    }
    ck_assert_int_eq(fclose(m), 0);
    return out;
}

/* ------------------------------------------------------------- XML */

#ifndef SCALEDOT_SOURCE_DIR
#define SCALEDOT_SOURCE_DIR "."
#endif

const char *tu_train_bin(void) {
    const char *b = getenv("SCALEDOT_TRAIN_BIN");
    return b && *b ? b : SCALEDOT_SOURCE_DIR "/train";
}

int tu_run_train(const char *dir, const char *args) { return tu_run_train_within(dir, 0, args); }

int tu_run_train_within(const char *dir, int seconds, const char *args) {
    char cmd[2 * 4096], limit[48] = ""; /* room for a path of PATH_MAX bytes in args */
    if (seconds > 0) snprintf(limit, sizeof limit, "timeout -k 5 %d ", seconds);
    int n = snprintf(cmd, sizeof cmd, "cd %s && %s%s %s >%s/out.txt 2>&1", dir, limit,
                     tu_train_bin(), args, dir);
    ck_assert(n > 0 && (size_t)n < sizeof cmd);
    int st = system(cmd);
    ck_assert_msg(WIFEXITED(st), "'%s' did not exit normally", cmd);
    return WEXITSTATUS(st);
}

int tu_train_output_contains(const char *dir, const char *needle) {
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/out.txt", dir);
    return tu_file_contains(path, needle);
}

void tu_assert_well_formed(const char *doc, const char *what) {
    size_t at = 0;
    const char *msg = xml_check(doc, &at);
    ck_assert_msg(msg == NULL, "%s is not well-formed: %s at offset %zu: ...%.60s", what,
                  msg ? msg : "", at, doc + (at > 20 ? at - 20 : 0));
}

char *tu_read_xml(const char *path) {
    char *doc = tu_read_file(path, NULL);
    ck_assert_msg(doc != NULL, "missing %s", path);
    const char *name = strrchr(path, '/');
    tu_assert_well_formed(doc, name ? name + 1 : path);
    return doc;
}

char *tu_page_verdict(const char *doc) {
    static const char open[] = "<p class=\"verdict\" id=\"verdict\"><b>Verdict:</b> ";
    static const char *const ENT[][2] = {{"<br/>\n", "\n"}, {"&amp;", "&"}, {"&lt;", "<"},
                                         {"&gt;", ">"},     {"&quot;", "\""}, {"&#39;", "'"}};
    enum { N_ENT = sizeof ENT / sizeof ENT[0] };
    const char *p = strstr(doc, open), *end = p ? strstr(p, "</p>") : NULL;
    ck_assert_msg(p && end, "the page has no verdict paragraph");
    p += strlen(open);
    char *text = malloc((size_t)(end - p) + 2), *q = text;
    ck_assert_ptr_nonnull(text);
    while (p < end) {
        int k = 0;
        while (k < N_ENT && strncmp(p, ENT[k][0], strlen(ENT[k][0])) != 0) k++;
        if (k < N_ENT) {
            *q++ = ENT[k][1][0]; /* every entity stands for one character */
            p += strlen(ENT[k][0]);
        } else {
            *q++ = *p++;
        }
    }
    strcpy(q, "\n");
    return text;
}

char *tu_expect_verdict_last(const char *out, const char *page_path, const char *shown) {
    char *doc = tu_read_file(page_path, NULL);
    ck_assert_msg(doc != NULL, "missing %s", page_path);
    char *lines = tu_page_verdict(doc), tail[PATH_MAX + 16];
    free(doc);
    snprintf(tail, sizeof tail, "report: %s\n", shown);
    const char *v = strstr(out, "\nverdict:\n");
    ck_assert_msg(v != NULL, "no verdict in the output:\n%s", out);
    v += strlen("\nverdict:\n");
    size_t nl = strlen(lines);
    ck_assert_msg(strlen(v) == nl + strlen(tail) && strncmp(v, lines, nl) == 0 &&
                      strcmp(v + nl, tail) == 0,
                  "the output ends with\n%swant the page's verdict\n%sthen %s", v, lines, tail);
    return lines;
}

int tu_series_points(const char *doc, const char *run, const char *name) {
    char key[256];
    snprintf(key, sizeof key,
             "<path class=\"series\" data-run=\"%s\" data-series=\"%s\" data-points=\"", run, name);
    const char *p = strstr(doc, key);
    return p ? atoi(p + strlen(key)) : -1;
}

/* ------------------------------------------------------------- captured output */

void tu_capture_begin(TuCapture *c, int fd) {
    fflush(stdout);
    fflush(stderr);
    c->fd = fd;
    c->tmp = tmpfile();
    ck_assert_ptr_nonnull(c->tmp);
    c->saved = dup(fd);
    ck_assert_int_ge(c->saved, 0);
    ck_assert_int_ge(dup2(fileno(c->tmp), fd), 0);
}

char *tu_capture_end(TuCapture *c) {
    fflush(stdout);
    fflush(stderr);
    ck_assert_int_ge(dup2(c->saved, c->fd), 0);
    close(c->saved);
    rewind(c->tmp);
    char *text = read_rest(c->tmp, NULL);
    fclose(c->tmp);
    ck_assert_ptr_nonnull(text);
    return text;
}

TuResult tu_vcall(int (*cmd)(int argc, char **argv), const char *first, va_list more) {
    const char *args[TU_MAX_ARGS + 1];
    int argc = 0;
    for (const char *a = first; a && argc < TU_MAX_ARGS; a = va_arg(more, const char *))
        args[argc++] = a;
    args[argc] = NULL;
    return tu_call(cmd, args);
}

TuResult tu_run_cmd(int (*cmd)(int argc, char **argv), const char *first, ...) {
    va_list ap;
    va_start(ap, first);
    TuResult r = tu_vcall(cmd, first, ap);
    va_end(ap);
    return r;
}

TuResult tu_call(int (*cmd)(int argc, char **argv), const char *const *args) {
    char *argv[TU_MAX_ARGS + 1];
    int argc = 0;
    while (args[argc] && argc < TU_MAX_ARGS) argv[argc] = (char *)args[argc], argc++;
    argv[argc] = NULL;
    TuCapture out, err;
    tu_capture_begin(&out, 1);
    tu_capture_begin(&err, 2);
    TuResult r;
    r.rc = cmd(argc, argv);
    r.out = tu_capture_end(&out);
    r.err = tu_capture_end(&err);
    return r;
}

void tu_result_free(TuResult *r) {
    free(r->out);
    free(r->err);
}

char *tu_shell_output(const char *cmd, const char *out_path, int *rc) {
    size_t n = strlen(cmd) + strlen(out_path) + 32;
    char *full = malloc(n);
    ck_assert_ptr_nonnull(full);
    snprintf(full, n, "%s > '%s' 2>&1 < /dev/null", cmd, out_path);
    int status = system(full);
    free(full);
    ck_assert_msg(WIFEXITED(status), "'%s' did not exit normally", cmd);
    *rc = WEXITSTATUS(status);
    char *text = tu_read_file(out_path, NULL);
    ck_assert_ptr_nonnull(text);
    remove(out_path);
    return text;
}

const char *tu_table_line(const char *out, const char *label, char *buf, size_t n) {
    char key[160];
    snprintf(key, sizeof key, "\n  %s", label);
    const char *p = strstr(out, key);
    ck_assert_msg(p != NULL, "no table row '%s' in:\n%s", label, out);
    p += 1;
    snprintf(buf, n, "%.*s", (int)strcspn(p, "\n"), p);
    return buf;
}

void tu_assert_no_raw_control(const char *text, const char *what) {
    for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
        /* a lead byte's continuation bytes: 110xxxxx one, 1110xxxx two, 11110xxx three */
        int more = *p >= 0xc2 && *p <= 0xdf ? 1 : *p >= 0xe0 && *p <= 0xef ? 2
                   : *p >= 0xf0 && *p <= 0xf4                             ? 3
                                                                          : 0;
        int ok = (*p >= 0x20 && *p < 0x7f) || *p == '\n';
        if (more && !(p[0] == 0xc2 && p[1] <= 0x9f)) {
            int k = 1;
            while (k <= more && p[k] >= 0x80 && p[k] <= 0xbf) k++;
            if (k > more) ok = 1, p += more;
        }
        ck_assert_msg(ok, "%s: a raw byte 0x%02x at offset %ld of:\n%.2000s", what, *p,
                      (long)((const char *)p - text), text);
    }
}
