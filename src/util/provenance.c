/* provenance.c: the build, command line and machine a run came from, as config comment lines. */
#include "util/provenance.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "util/error_list.h"
#include "util/version.h"

/* Set by the Makefile for this file alone (see its provenance rule); absent in other builds. */
#ifndef SCALEDOT_GIT
#define SCALEDOT_GIT ""
#endif
#ifndef SCALEDOT_CFLAGS
#define SCALEDOT_CFLAGS "unknown"
#endif

static int cmd_argc;
static char **cmd_argv;

void provenance_set_command(int argc, char **argv) {
    cmd_argc = argc;
    cmd_argv = argv;
}

const char *provenance_build(void) {
    static char buf[160];
    if (SCALEDOT_GIT[0])
        snprintf(buf, sizeof buf, "%s (git %s)", SCALEDOT_VERSION, SCALEDOT_GIT);
    else
        snprintf(buf, sizeof buf, "%s", SCALEDOT_VERSION);
    return buf;
}

const char *provenance_compiler(void) {
#ifdef __VERSION__
    return __VERSION__;
#else
    return "unknown";
#endif
}

const char *provenance_flags(void) { return SCALEDOT_CFLAGS; }

/* The first "model name" of /proc/cpuinfo (Linux); "unknown" when there is none. */
static void cpu_model(char *out, size_t n) {
    snprintf(out, n, "unknown");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f) return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "model name", 10) != 0) continue;
        const char *v = strchr(line, ':');
        if (!v) continue;
        v++;
        while (*v == ' ' || *v == '\t') v++;
        snprintf(out, n, "%.*s", (int)strcspn(v, "\n"), v);
        break;
    }
    fclose(f);
}

void provenance_write(FILE *f, int threads) {
    char cpu[256], when[32];
    cpu_model(cpu, sizeof cpu);
    time_t now = time(NULL);
    struct tm tm;
    if (gmtime_r(&now, &tm)) strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
    else snprintf(when, sizeof when, "unknown");
    fprintf(f, PROVENANCE_PREFIX "scaledot %s\n", provenance_build());
    fprintf(f, PROVENANCE_PREFIX "compiler %s, flags %s\n", provenance_compiler(), provenance_flags());
    fputs(PROVENANCE_PREFIX "command", f);
    for (int i = 0; i < cmd_argc; i++) {
        /* one line: a newline inside an argument would end the comment */
        fputc(' ', f);
        for (const char *p = cmd_argv[i]; *p; p++) fputc(*p == '\n' || *p == '\r' ? ' ' : *p, f);
    }
    if (cmd_argc == 0) fputs(" unknown", f);
    fputc('\n', f);
    fprintf(f, PROVENANCE_PREFIX "started %s, %d thread%s, cpu %s\n", when, threads,
            threads == 1 ? "" : "s", cpu);
}

char *provenance_text(void) {
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) return NULL;
#ifdef _OPENMP
    provenance_write(f, omp_get_max_threads());
#else
    provenance_write(f, 1);
#endif
    if (fclose(f) != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

int provenance_print_lines(const char *text, const char *indent, FILE *f) {
    int n = 0;
    size_t plen = strlen(PROVENANCE_PREFIX);
    for (const char *p = text; p && *p;) {
        size_t len = strcspn(p, "\n");
        if (len >= plen && strncmp(p, PROVENANCE_PREFIX, plen) == 0) {
            /* the command line holds the user's arguments: escaped as error lines write them */
            char *line = strndup(p + plen, len - plen);
            fputs(indent, f);
            error_put_text(f, line ? line : "(out of memory)");
            fputc('\n', f);
            free(line);
            n++;
        }
        p += len;
        if (*p) p++;
    }
    return n;
}
