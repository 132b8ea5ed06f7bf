/* test_provenance.c: the provenance comment lines of src/util/provenance.c, exactly: the four
 * lines provenance_write gives (build, compiler and flags, command line with newlines made
 * spaces, start time, threads in the singular or plural, CPU read here from /proc/cpuinfo), and
 * provenance_print_lines picking them back out of a config text. (test_main.c checks that a run's
 * config.ini, --eval and the report carry them.) */
#include "util/provenance.h"

#include <check.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "testutil.h"
#include "util/version.h"

/* What f printed, as a malloc'd string. */
static char *printed(FILE *f, char **buf) {
    ck_assert_int_eq(fclose(f), 0);
    ck_assert_ptr_nonnull(*buf);
    return *buf;
}

/* The first "model name" value of /proc/cpuinfo, read here; "unknown" without one. */
static void cpu_here(char *out, size_t n) {
    snprintf(out, n, "unknown");
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[512];
    while (f && fgets(line, sizeof line, f)) {
        char *colon = strchr(line, ':');
        if (strncmp(line, "model name", 10) != 0 || !colon) continue;
        char *v = colon + 1;
        while (*v == ' ' || *v == '\t') v++;
        v[strcspn(v, "\n")] = 0;
        snprintf(out, n, "%s", v);
        break;
    }
    if (f) fclose(f);
}

/* "0.12.0" alone, or "0.12.0 (git <12 hex>)" / "(git <12 hex>, modified)". */
static int build_ok(const char *b) {
    size_t v = strlen(SCALEDOT_VERSION);
    if (strncmp(b, SCALEDOT_VERSION, v) != 0) return 0;
    if (b[v] == 0) return 1;
    if (strncmp(b + v, " (git ", 6) != 0) return 0;
    const char *h = b + v + 6;
    for (int i = 0; i < 12; i++)
        if (!isxdigit((unsigned char)h[i])) return 0;
    return strcmp(h + 12, ")") == 0 || strcmp(h + 12, ", modified)") == 0;
}

START_TEST(test_write_gives_four_lines) {
    ck_assert_msg(build_ok(provenance_build()), "build '%s'", provenance_build());
    /* the Makefile compiles its CFLAGS in; the compiler string is the one this test was built by */
    ck_assert_msg(strstr(provenance_flags(), "-std=c11") != NULL, "flags '%s'", provenance_flags());
    ck_assert_str_eq(provenance_compiler(), __VERSION__);
    char cpu[256];
    cpu_here(cpu, sizeof cpu);
    static char *argv[] = {"./train", "--set", "run.name=a\nb", "x\r\ny"};
    /* threads and the command: their lines as they must read, the rest built below */
    static const struct {
        int threads, argc;
        const char *command, *threads_text;
    } cases[] = {
        {1, 4, "./train --set run.name=a b x  y", "1 thread"},
        {2, 1, "./train", "2 threads"},
        {0, 0, "unknown", "0 threads"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        provenance_set_command(cases[c].argc, argv);
        char *buf = NULL, before[32], after[32];
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        ck_assert_ptr_nonnull(f);
        time_t t0 = time(NULL);
        provenance_write(f, cases[c].threads);
        time_t t1 = time(NULL);
        char *text = printed(f, &buf);
        strftime(before, sizeof before, "%Y-%m-%dT%H:%M:%SZ", gmtime(&t0));
        strftime(after, sizeof after, "%Y-%m-%dT%H:%M:%SZ", gmtime(&t1));
        /* the start time is one of the two seconds around the call */
        char want[2048], want2[2048];
        const char *fmt = "%sscaledot %s\n%scompiler %s, flags %s\n%scommand %s\n"
                          "%sstarted %s, %s, cpu %s\n";
        snprintf(want, sizeof want, fmt, PROVENANCE_PREFIX, provenance_build(), PROVENANCE_PREFIX,
                 __VERSION__, provenance_flags(), PROVENANCE_PREFIX, cases[c].command,
                 PROVENANCE_PREFIX, before, cases[c].threads_text, cpu);
        snprintf(want2, sizeof want2, fmt, PROVENANCE_PREFIX, provenance_build(),
                 PROVENANCE_PREFIX, __VERSION__, provenance_flags(), PROVENANCE_PREFIX,
                 cases[c].command, PROVENANCE_PREFIX, after, cases[c].threads_text, cpu);
        ck_assert_msg(strcmp(text, want) == 0 || strcmp(text, want2) == 0,
                      "case %zu:\n%s\nwant:\n%s", c, text, want);
        free(text);
    }
    provenance_set_command(0, NULL);
}
END_TEST

START_TEST(test_print_lines_picks_the_prefixed_lines) {
    static const struct {
        const char *text, *want;
        int n;
    } cases[] = {
        {"; provenance: scaledot 1\n; provenance: command ./train\n[run]\nname = x\n",
         "> scaledot 1\n> command ./train\n", 2},
        {"[run]\n; provenance: late\nname = x", "> late\n", 1},     /* anywhere in the text */
        {"; provenance: no newline at the end", "> no newline at the end\n", 1},
        {"; provenance: \n", "> \n", 1},                            /* the prefix alone */
        {"; provenance:x\n;provenance: y\n  ; provenance: z\n", "", 0}, /* not the prefix */
        {"; a comment\n\n\n", "", 0},
        {"", "", 0},
        {NULL, "", 0},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        ck_assert_ptr_nonnull(f);
        int n = provenance_print_lines(cases[c].text, "> ", f);
        char *text = printed(f, &buf);
        ck_assert_msg(n == cases[c].n, "case %zu: %d lines, want %d", c, n, cases[c].n);
        ck_assert_msg(strcmp(text, cases[c].want) == 0, "case %zu: '%s', want '%s'", c, text,
                      cases[c].want);
        free(text);
    }
}
END_TEST

TU_MAIN("provenance", test_write_gives_four_lines, test_print_lines_picks_the_prefixed_lines);
