/* run_print.h: what a resume checked of its run folder, so that it can make sure, once it holds
 * the folder's lock, that it continues that and nothing else.
 *
 * ./train --resume reads checkpoint.bin and config.ini for its checks before it takes the lock
 * (taking it creates .lock, and a refused or finished resume changes nothing): a new run in the
 * same folder could replace both in between and the resume would then continue that run's
 * checkpoint with its own configuration, mixing two runs in one loss.csv. The print of both
 * files, taken before the checks and again under the lock, must be the same. */
#ifndef SCALEDOT_RUN_PRINT_H
#define SCALEDOT_RUN_PRINT_H

#include <stdint.h>

/* The FNV-1a 64 hash (util/fnv1a.h) of the bytes of DIR/checkpoint.bin and DIR/config.ini, or
 * for each the errno that kept it from being read (ENOENT: absent), the hash then 0. */
typedef struct {
    uint64_t checkpoint, config_ini;
    int checkpoint_err, config_ini_err;
    char what[48]; /* the place the resume's messages start with: "--resume (argument 2)" */
} RunPrint;

/* Takes the print of the run folder dir into *p, what its place in messages (never fails: a
 * file that cannot be read is recorded so; the checks that read it say why). */
void run_print_take(const char *dir, const char *what, RunPrint *p);

/* Under the lock of dir: 0 when dir's print now is *checked; else -1 after an error at
 * checked's place naming the file that changed since it was checked. */
int run_print_verify(const char *dir, const RunPrint *checked);

#endif
