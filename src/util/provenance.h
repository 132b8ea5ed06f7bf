/* provenance.h: where a run came from (program version, git commit, compiler and flags, command
 * line, start time, threads, CPU), written as ';' comment lines at the top of each run's
 * config.ini and of the configuration its checkpoint stores, so a result can be traced to the
 * build and machine that made it. Comments: a config reader skips them, so a run's config.ini
 * still repeats the run. */
#ifndef SCALEDOT_PROVENANCE_H
#define SCALEDOT_PROVENANCE_H

#include <stdio.h>

/* The line prefix of every provenance comment; --eval and the report look for it. */
#define PROVENANCE_PREFIX "; provenance: "

/* Records the command line (main calls it once, first). argv is kept, not copied. */
void provenance_set_command(int argc, char **argv);

/* The build: "0.10.0 (git 1be91f1, modified)" or "0.10.0" outside a git checkout. Static. */
const char *provenance_build(void);

/* The compiler's own version string (__VERSION__) and the CFLAGS of the build (they say which
 * -march= the binary needs). Static strings; "unknown" when the build did not record them. */
const char *provenance_compiler(void);
const char *provenance_flags(void);

/* Writes the provenance comment lines (each starting with PROVENANCE_PREFIX, ending in '\n') to
 * f: version and commit, compiler and flags, command line, start time (UTC, ISO 8601), threads,
 * CPU model (from /proc/cpuinfo; "unknown" elsewhere). */
void provenance_write(FILE *f, int threads);

/* provenance_write's lines for this process, with its thread count (OpenMP's maximum; 1 in a
 * build without OpenMP), as one malloc'd string: what a run's config.ini and checkpoint and an
 * export's metadata start with. NULL when out of memory. */
char *provenance_text(void);

/* Prints each provenance line of text (a stored config.ini) to f without the prefix, indented
 * by indent, escaped as error lines write text (util/error_list.h); returns how many it
 * printed. */
int provenance_print_lines(const char *text, const char *indent, FILE *f);

#endif
