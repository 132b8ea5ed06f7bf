/* run_print.c: the print of a run folder a resume checked, and its check under the lock
 * (run_print.h). */
#include "train/run_print.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/error_list.h"
#include "util/file_check.h"
#include "util/fnv1a.h"

/* The hash of the file dir/name into *hash; returns 0 or the errno that kept it from being read. */
static int hash_file(const char *dir, const char *name, uint64_t *hash) {
    char path[PATH_MAX + 32], why[128]; /* the folder (under PATH_MAX) and a name */
    snprintf(path, sizeof path, "%s/%s", dir, name);
    *hash = 0;
    int fd = file_open_regular(path, SIZE_MAX / 2, why, sizeof why); /* as checkpoint_load */
    if (fd < 0) return errno ? errno : EIO;
    uint64_t h = FNV1A64_BASIS;
    unsigned char buf[65536];
    ssize_t n;
    while ((n = read(fd, buf, sizeof buf)) > 0) h = fnv1a64(h, buf, (size_t)n);
    int err = n < 0 ? errno : 0;
    close(fd);
    if (err == 0) *hash = h;
    return err;
}

void run_print_take(const char *dir, const char *what, RunPrint *p) {
    snprintf(p->what, sizeof p->what, "%s", what);
    p->checkpoint_err = hash_file(dir, "checkpoint.bin", &p->checkpoint);
    p->config_ini_err = hash_file(dir, "config.ini", &p->config_ini);
}

int run_print_verify(const char *dir, const RunPrint *checked) {
    RunPrint now;
    run_print_take(dir, checked->what, &now);
    const char *changed = now.checkpoint != checked->checkpoint ||
                                  now.checkpoint_err != checked->checkpoint_err
                              ? "checkpoint.bin"
                          : now.config_ini != checked->config_ini ||
                                  now.config_ini_err != checked->config_ini_err
                              ? "config.ini"
                              : NULL;
    if (!changed) return 0;
    error_add(NULL, 0, checked->what,
              "'%s/%s' changed while this resume checked it (another ./train started a run in "
              "the folder, or a file was copied in): it would continue a run it did not check. "
              "Nothing was trained; look at the folder, then resume again",
              dir, changed);
    return -1;
}
