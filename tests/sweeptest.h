/* sweeptest.h: helpers shared by the end-to-end tests of ./train --sweep (test_sweep: planning,
 * running and collecting a sweep; test_sweep_restart: a sweep or a run started again after an
 * interruption or an edit): each test's fresh folder g_tmp, the tiny config written there, a
 * --sweep command run in it and its captured output, whether a path exists.
 *
 * Static inline, in a header like ckpttest.h: only these two programs use them. */
#ifndef SCALEDOT_SWEEPTEST_H
#define SCALEDOT_SWEEPTEST_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "testutil.h"

/* The current test's folder (one per test: each runs in its own forked process). */
static char g_tmp[64];
static inline void make_tmp(void) { tu_make_tmp(g_tmp, sizeof g_tmp, "/tmp/test_sweep.XXXXXX"); }
static inline void remove_tmp(void) { tu_remove_tree(g_tmp); }

/* A copy task of 3 symbols over 6, one layer: a run of a few steps takes a moment. */
static const char TINY_INI[] = "[task]\nname = copy\nlength = 3\nsymbols = 6\nval_size = 32\n"
                               "[model]\nn_layers = 1\n[train]\nbatch_size = 8\n";

/* TINY_INI as g_tmp/tiny.ini. */
static inline void write_ini(void) {
    char path[128];
    snprintf(path, sizeof path, "%s/tiny.ini", g_tmp);
    tu_write_file(path, TINY_INI);
}

/* ./train --sweep with the arguments fmt (one %s: out) in g_tmp, its output in g_tmp/out.txt.
 * Returns its exit code. */
static inline int sweep_cmd(const char *fmt, const char *out) {
    char args[1024] = "--sweep ";
    snprintf(args + 8, sizeof args - 8, fmt, out);
    return tu_run_train(g_tmp, args);
}

/* The last ./train output of g_tmp (out.txt), malloc'd; "" when there is none. */
static inline char *out_text(void) {
    char path[128];
    snprintf(path, sizeof path, "%s/out.txt", g_tmp);
    char *t = tu_read_file(path, NULL);
    return t ? t : strdup("");
}

/* True when path exists (stat follows links). */
static inline int exists(const char *path) {
    struct stat st;
    return stat(path, &st) == 0;
}

#endif
