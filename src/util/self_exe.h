/* self_exe.h: where the running program is (/proc/self/exe, Linux), one home for it: a sweep
 * runs its children and writes jobs.txt with its path (sweep/sweep.c), and --where reads the lr
 * map's corpus from its folder, the checkout it was built in (train/corpus_match.h). */
#ifndef SCALEDOT_SELF_EXE_H
#define SCALEDOT_SELF_EXE_H

#include <stddef.h>

/* The program's own path, links resolved, into buf (n bytes). Returns 0, or -1 when it cannot
 * be read or does not fit. */
int self_exe_path(char *buf, size_t n);

/* The folder of self_exe_path ("/" for a program at the root), into buf (n bytes). Returns 0,
 * or -1 as self_exe_path. */
int self_exe_dir(char *buf, size_t n);

#endif
