/* resume_checks.c: the checks on a run folder before its checkpoint is used (resume_checks.h). */
#include "train/resume_checks.h"

#include "train/checkpoint.h"
#include "train/checkpoint_config.h"
#include "train/runlog.h"
#include "train/task_source.h"
#include "util/dirs.h"
#include "util/error_list.h"
#include "util/file_check.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int checkpoint_check_present(const char *run_dir, const char *what) {
    struct stat st;
    if (stat(run_dir, &st) != 0) {
        if (errno == ENOENT) error_add(NULL, 0, what, "no such run folder '%s'", run_dir);
        else error_add(NULL, 0, what, "run folder '%s': %s", run_dir, strerror(errno));
        return -1;
    }
    if (!S_ISDIR(st.st_mode)) {
        error_add(NULL, 0, what, "'%s' is not a folder (a run folder holds checkpoint.bin)",
                  run_dir);
        return -1;
    }
    char path[PATH_MAX + 32], ini[PATH_MAX + 32], settings[PATH_MAX + 64] = "";
    snprintf(path, sizeof path, "%s/checkpoint.bin", run_dir);
    if (lstat(path, &st) == 0 || errno != ENOENT) return 0;
    dirs_join(ini, sizeof ini, run_dir, "config.ini"); /* "/": "/config.ini", not "//config.ini" */
    /* named only when it is there (a folder made by hand, or one only locked, has none) */
    if (lstat(ini, &st) == 0 && S_ISREG(st.st_mode))
        snprintf(settings, sizeof settings, " (its settings are in %s)", ini);
    error_add(NULL, 0, what, "the folder '%s' holds no checkpoint (checkpoint.bin), so there is "
                             "nothing to %s: its run stopped before writing one (a second Ctrl-C "
                             "or SIGTERM stops at once, as does a kill or a crash) or never "
                             "trained. Train it again from step 0 with the command that started "
                             "it%s, which replaces the folder's logs",
              run_dir,
              strncmp(what, "--eval", 6) == 0     ? "evaluate"
              : strncmp(what, "--export", 8) == 0 ? "export"
                                                  : "resume",
              settings);
    return -1;
}

/* 1 when "section.key" is one a resume may change, or where the run lives. */
static int may_differ(const char *key) {
    if (strcmp(key, "run.dir") == 0 || strcmp(key, "run.name") == 0) return 1;
    for (const char *const *k = config_resumable_keys; *k; k++)
        if (strcmp(key, *k) == 0) return 1;
    return 0;
}

/* Appends to list (", "-separated) every key whose line differs between the config_write texts
 * a and b (one key table, so their lines pair up) and may not differ. Returns how many. */
static int differing_keys(const char *a, const char *b, char *list, size_t n) {
    char section[64] = "";
    int count = 0;
    list[0] = '\0';
    while (*a && *b) {
        size_t la = strcspn(a, "\n"), lb = strcspn(b, "\n");
        if (*a == '[') snprintf(section, sizeof section, "%.*s", (int)(strcspn(a + 1, "]")), a + 1);
        else if (*a != ';' && la > 0 && (la != lb || memcmp(a, b, la) != 0)) {
            char key[160];
            snprintf(key, sizeof key, "%s.%.*s", section, (int)strcspn(a, " ="), a);
            if (!may_differ(key)) {
                size_t used = strlen(list);
                snprintf(list + used, n - used, "%s%s", count ? ", " : "", key);
                count++;
            }
        }
        a += la + (a[la] == '\n');
        b += lb + (b[lb] == '\n');
    }
    return count;
}

int checkpoint_check_resume(const char *path, const char *run_dir, const Config *c,
                            const char *what) {
    char *stored = NULL;
    if (checkpoint_read_config(path, &stored) != 0) return -1;
    int rc = task_source_check(stored, c, what);
    free(stored);
    return rc == 0 ? checkpoint_check_folder(path, run_dir, what) : rc;
}

int checkpoint_check_folder(const char *path, const char *run_dir, const char *what) {
    char *stored = NULL;
    if (checkpoint_read_config(path, &stored) != 0) return -1;
    int rc = 0;
    char ini_path[PATH_MAX + 32], why[128];
    size_t len = 0;
    char *ini = NULL;
    if (rc == 0 && run_dir) {
        snprintf(ini_path, sizeof ini_path, "%s/config.ini", run_dir);
        ini = file_read_regular(ini_path, FILE_MAX_TEXT_BYTES, &len, why, sizeof why);
        const char *log = NULL;
        if (!ini && errno != ENOENT) {
            error_add(NULL, 0, NULL, "%s: cannot read '%s': %s", what, ini_path, why);
            rc = -1;
        } else if (!ini && (log = runlog_first_present(run_dir))) {
            /* nothing to compare the checkpoint with, but logs it would continue or be
             * reported under: another run's checkpoint copied in would mix two runs */
            error_add(NULL, 0, what, "'%s' is missing, so '%s' cannot be checked to be the run of "
                                     "the folder's logs (%s/%s); another run's checkpoint would "
                                     "mix two runs. Put the run's config.ini back (a copy of the "
                                     "folder keeps one), or train a new run; nothing was changed",
                      ini_path, path, run_dir, log);
            rc = -1;
        }
    }
    Config *k = ini ? malloc(2 * sizeof *k) : NULL;
    if (ini && !k) {
        fprintf(stderr, "error: out of memory\n");
        rc = -1;
    }
    if (k) {
        char *a = NULL, *b = NULL, keys[1024];
        config_defaults(&k[0]);
        config_defaults(&k[1]);
        if (checkpoint_config_parse(&k[0], path, stored) != 0 ||
            checkpoint_config_parse(&k[1], ini_path, ini) != 0) {
            error_add(NULL, 0, NULL, "%s: '%s' cannot be compared with %s", what, ini_path, path);
            rc = -1;
        } else if (!(a = config_text(&k[0])) || !(b = config_text(&k[1]))) {
            fprintf(stderr, "error: out of memory\n");
            rc = -1;
        } else if (differing_keys(a, b, keys, sizeof keys) > 0) {
            error_add(NULL, 0, NULL, "%s: %s holds a run of another configuration than its "
                                     "folder's %s (differing: %s); it would mix two runs in one "
                                     "folder. Put the folder's own checkpoint back, or train a new "
                                     "run", what, path, ini_path, keys);
            rc = -1;
        }
        free(a);
        free(b);
        free(k);
    }
    free(ini);
    free(stored);
    return rc;
}
