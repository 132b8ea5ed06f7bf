/* cmd_export.c: ./train --export RUN_DIR FILE.safetensors [--val VAL.safetensors] (command layer):
 * the run's checkpoint loaded as --eval loads it, its parameters written under their reference
 * names (../shared/reference/README.md, the model's tensor table) by the safetensors writer
 * (util/safetensors.h), with the run's configuration and provenance in __metadata__. --val also
 * writes the validation set, the model's logits on its first batch and the loss and accuracies
 * the model gets on it, so that another implementation (twin/load.py) can check itself against
 * this one. */
#define _XOPEN_SOURCE 700 /* realpath */
#include "cli/cli.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "cli/cli_internal.h"
#include "config/config.h"
#include "optim/optim.h"
#include "report/map/map.h"
#include "report/page/page.h"
#include "sweep/sweep.h"
#include "train/checkpoint.h"
#include "train/checkpoint_config.h"
#include "train/evaluate.h"
#include "train/resume_checks.h"
#include "train/task_source.h"
#include "train/train.h"
#include "util/dirs.h"
#include "util/error_list.h"
#include "util/owned_dir.h"
#include "util/provenance.h"
#include "util/run_lock.h"
#include "util/safetensors.h"
#include "util/whole_write.h"

_Static_assert(sizeof(real) == sizeof(float), "the export writes the float32 build's parameters");
_Static_assert(sizeof(int) == 4, "validation tokens are written as I32");

static void usage(FILE *f) {
    fprintf(f,
            "usage: ./train --export RUN_DIR FILE.safetensors [--val VAL.safetensors]\n"
            "Writes the parameters of RUN_DIR/checkpoint.bin to FILE in the safetensors format\n"
            "(float32, the names and [out, in] shapes of PyTorch's nn.Linear, e.g.\n"
            "blocks.0.attn.qkv.weight [3C, C]), with the run's config.ini and provenance in the\n"
            "header's __metadata__. --val VAL also writes the validation set (tokens, targets,\n"
            "mask [N, T]), the model's logits on its first batch and its validation loss and\n"
            "accuracies (what twin/load.py checks the PyTorch twin against).\n"
            "An existing FILE or VAL is never overwritten, nor written into a folder ./train\n"
            "writes (a run's, training or not; a sweep's, its configs/ and runs/, a report's;\n"
            "also one an earlier version wrote) or under a name a run writes.\n"
            "Exit codes: 0 done, 1 cannot write, 2 bad arguments or run folder.\n");
}

typedef struct {
    const char *run_dir, *out, *val;
    int run_dir_argn, out_argn, val_argn; /* their argument numbers on the whole command line */
} ExportArgs;

/* The realpath of path's folder (".", when it names none) into dir, and where its last part
 * starts in path; -1 when the folder cannot be resolved. */
static int split_real(const char *path, char dir[PATH_MAX], const char **base) {
    const char *slash = strrchr(path, '/');
    char folder[PATH_MAX];
    size_t n = slash ? (size_t)(slash - path) : 0;
    if (n >= sizeof folder) return -1;
    memcpy(folder, path, n);
    folder[n] = 0;
    if (!slash) strcpy(folder, ".");
    else if (n == 0) strcpy(folder, "/");
    *base = slash ? slash + 1 : path;
    return realpath(folder, dir) ? 0 : -1;
}

/* 1 when the paths a and b name one file: the same device and inode when both exist, else the
 * same realpath of their folders and the same last part (e.g. e.safetensors, ./e.safetensors and
 * $PWD/e.safetensors), else (a folder that does not resolve) the same text. */
static int same_file(const char *a, const char *b) {
    struct stat sa, sb;
    if (stat(a, &sa) == 0 && stat(b, &sb) == 0)
        return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    char da[PATH_MAX], db[PATH_MAX];
    const char *ba, *bb;
    if (split_real(a, da, &ba) == 0 && split_real(b, db, &bb) == 0)
        return strcmp(da, db) == 0 && strcmp(ba, bb) == 0;
    return strcmp(a, b) == 0;
}

/* Returns -1 when the export is to go on, else the exit code (0 after --help, 2 after a
 * message). */
static int parse_args(ExportArgs *a, int argc, char **argv) {
    *a = (ExportArgs){0};
    CliOnce once = {0}; /* argv starts after --export: argument i + 2 of the command line */
    for (int i = 0; i < argc; i++) {
        if (cli_is_help(argv[i])) {
            usage(stdout);
            return EXIT_OK;
        } else if (cli_is_flag(argv[i], "--val")) {
            if (!(a->val = cli_flag_value(argc, argv, &i, "--val")))
                return cli_fail_at(NULL, "--val", i + 2, "needs a file name (VAL.safetensors)");
            int rc = cli_once(&once, "--val", i + 2);
            if (rc >= 0) return rc;
            a->val_argn = i + 2;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return cli_fail_at(usage, argv[i], i + 2, "unknown option for --export (a folder or "
                                                      "file whose name starts with '-' is spelled "
                                                      "'./%s')",
                               argv[i]);
        } else if (!a->run_dir) {
            a->run_dir = argv[i];
            a->run_dir_argn = i + 2;
        } else if (!a->out) {
            a->out = argv[i];
            a->out_argn = i + 2;
        } else {
            return cli_fail_at(usage, argv[i], i + 2, "a third argument: --export takes one run "
                                                      "folder and one file (arguments %d and %d)",
                               a->run_dir_argn, a->out_argn);
        }
    }
    if (!a->run_dir) return cli_fail(usage, "--export needs a run folder");
    if (!*a->run_dir) return cli_fail_at(NULL, "--export", a->run_dir_argn, "needs a run folder, "
                                                                          "got an empty argument");
    /* one name given: say which it was taken for (after --val FILE, it is the run folder) */
    if (!a->out)
        return cli_fail(usage, "--export needs the file to write: '%s' (argument %d) is the run "
                               "folder",
                        a->run_dir, a->run_dir_argn);
    if (!*a->out) return cli_fail_at(NULL, "--export", a->out_argn, "needs the file to write, got "
                                                                   "an empty argument");
    if (a->val && same_file(a->val, a->out))
        return cli_fail_at(NULL, "--val", a->val_argn,
                           "'%s' is the export file itself", a->val);
    return -1;
}

/* The file in dir that makes it a sweep or report folder of a version before manifests
 * (util/owned_dir.h; a current one holds a manifest, train_run_folder_mark's): what a sweep, a
 * sweep report, --compare or --regime-map wrote there, read as each writer's owner rule would
 * adopt it; NULL when dir holds none. */
static const char *old_folder_mark(const char *dir) {
    const char *mark = sweep_folder_mark(dir);
    if (!mark) mark = sweep_report_folder_mark(dir);
    if (!mark) mark = compare_folder_mark(dir);
    if (!mark) mark = regime_map_folder_mark(dir);
    return mark;
}

/* "configs" or "runs" when dir is, or lies below, that subfolder of a sweep folder (its parent
 * holds what sweep_folder_mark names: plan.txt, which a sweep writes first), the sweep folder's
 * real path into sweep, the file that marks it into *mark and into *below 1 when dir lies below
 * the subfolder (a planned run's folder made before the sweep runs it: the sweep's run then
 * refuses it as holding a file it did not write); else NULL. Each folder of dir's real path is
 * tried, nearest first. */
static const char *sweep_part(const char *dir, char sweep[PATH_MAX], const char **mark,
                              int *below) {
    char real[PATH_MAX];
    if (!realpath(dir, real)) return NULL;
    *below = 0;
    /* real[0..end) is dir or a folder above it, real[start..end) its last part */
    for (size_t end = strlen(real), start; end > 0; end = start - 1, *below = 1) {
        for (start = end; real[start - 1] != '/';) start--; /* a real path starts with '/' */
        size_t n = end - start;
        const char *part = n == 7 && strncmp(real + start, "configs", 7) == 0 ? "configs"
                           : n == 4 && strncmp(real + start, "runs", 4) == 0  ? "runs"
                                                                               : NULL;
        if (!part) continue;
        size_t parent = start > 1 ? start - 1 : 1; /* "/runs": the root's */
        memcpy(sweep, real, parent);
        sweep[parent] = '\0';
        if ((*mark = sweep_folder_mark(sweep))) return part;
    }
    return NULL;
}

/* 1 when dir holds nothing but a .lock as a run's lock leaves it (run_lock.h: an empty regular
 * file), the folder of a run that has begun or was stopped before it wrote anything: a new run
 * there takes it as its own, and would fail on a file put beside it; else 0. */
static int lock_only(const char *dir) {
    DIR *d = opendir(dir);
    if (!d) return 0;
    int lock = 0, other = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        if (strcmp(e->d_name, RUN_LOCK_FILE) == 0) lock = 1;
        else other = 1;
    }
    closedir(d);
    char path[PATH_MAX + 8];
    struct stat st;
    snprintf(path, sizeof path, "%s/" RUN_LOCK_FILE, dir);
    return lock && !other && lstat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 0;
}

/* What a folder ./train writes is, by the writer its manifest names first (util/owned_dir.h;
 * the ids of the OwnedWriters of run_setup.c, sweep/, report/), and why an export must stay
 * out of it; the first also for a folder without a manifest a run marks (checkpoint.bin,
 * config.ini, its .lock only). */
#define FAILS_A_RUN                                                                              \
    "a run there fails on a file it did not write. Write the export outside the run's folder"
#define AMONG_ITS_FILES(folder)                                                                  \
    "the export would lie among its files. Write the export outside " folder
static const struct {
    const char *id, *what, *why;
} KINDS[] = {
    {"run", "a run folder", FAILS_A_RUN},
    {"sweep-run", "a sweep's run folder", FAILS_A_RUN},
    {"sweep", "a sweep folder", AMONG_ITS_FILES("the sweep folder")},
    {"sweep-report", "a sweep folder", AMONG_ITS_FILES("the sweep folder")},
    {"compare", "a --compare report folder", AMONG_ITS_FILES("that folder")},
    {"regime-map", "a --regime-map folder", AMONG_ITS_FILES("that folder")},
};

/* KINDS' row of dir, marked by mark (train_run_folder_mark's, or lock_only's). */
static int folder_kind(const char *dir, const char *mark) {
    char id[64];
    if (strcmp(mark, OWNED_MANIFEST) != 0 || !owned_dir_writer(dir, id, sizeof id)) return 0;
    for (int k = 0; k < (int)(sizeof KINDS / sizeof *KINDS); k++)
        if (strcmp(KINDS[k].id, id) == 0) return k;
    return 0; /* a writer of a later version: "a run folder" is the strictest reading */
}

/* 0 when path's folder is no folder ./train writes (a run's, a sweep's or its configs/ or
 * runs/, a report's; of this version or an earlier one) and its name none a run writes, else
 * -1 after a message at place: in a run's folder, the export would be a file the run (training
 * now, or resumed later) is right to refuse as not its own, failing at its last step; in the
 * others, the user's file would lie among ours, and go with them when the folder is removed. */
static int check_outside_runs(const char *path, const char *dir, const char *place) {
    char sweep[PATH_MAX];
    int below = 0;
    const char *mark = train_run_folder_mark(dir), *slash = strrchr(path, '/');
    if (!mark && lock_only(dir)) mark = "only the " RUN_LOCK_FILE " of a run begun there";
    const char *name = slash ? slash + 1 : path, *old = mark ? NULL : old_folder_mark(dir);
    const char *part = mark || old ? NULL : sweep_part(dir, sweep, &old, &below);
    int named = !mark && !old && train_run_writes_name(name);
    if (mark)
        error_add(NULL, 0, place, "'%s' would be written into '%s', %s ./train writes (it holds "
                                  "%s): %s",
                  path, dir, KINDS[folder_kind(dir, mark)].what, mark,
                  KINDS[folder_kind(dir, mark)].why);
    else if (part && old) /* sweep_part sets old with part */
        error_add(NULL, 0, place, "'%s' would be written into '%s', %sthe %s/ of the sweep folder "
                                  "'%s' (it holds %s), where the sweep writes: the export would "
                                  "lie among its files. Write the export outside the sweep folder",
                  path, dir, below ? "a folder in " : "", part, sweep, old);
    else if (old)
        error_add(NULL, 0, place, "'%s' would be written into '%s', a sweep or report folder an "
                                  "earlier ./train wrote (it holds %s): the export would lie "
                                  "among its files. Write the export outside that folder",
                  path, dir, old);
    else if (named)
        error_add(NULL, 0, place, "'%s' has a name a run writes in its folder (%s): a run there "
                                  "would fail on it. Choose another name (FILE.safetensors)",
                  path, name);
    return mark || old || named ? -1 : 0;
}

/* 0 when nothing is at path, its folder exists and is no run's (check_outside_runs), else -1
 * after a message at place (path's argument's): checked before any work (the writer checks
 * again, just before it links the finished file). */
static int check_new_file(const char *path, const char *what, const char *place) {
    struct stat st;
    size_t len = strlen(path);
    if (cli_check_written_path(path, place) != 0) return -1;
    if (len > 0 && path[len - 1] == '/') { /* not "its folder 'x.st' does not exist" */
        error_add(NULL, 0, place, "%s '%s' names a folder (it ends with '/'): it needs a file "
                                  "name (FILE.safetensors)", what, path);
        return -1;
    }
    if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode)) { /* "x/.", "x/..", a folder's name */
        error_add(NULL, 0, place, "%s '%s' names a folder: it needs a file name (FILE.safetensors)",
                  what, path);
        return -1;
    }
    if (lstat(path, &st) == 0) {
        error_add(NULL, 0, place, "%s '%s' exists already; it is never overwritten: choose another "
                                  "name or remove it first", what, path);
        return -1;
    }
    if (errno != ENOENT) {
        error_add(NULL, 0, place, "%s '%s': %s", what, path, strerror(errno));
        return -1;
    }
    /* the owner rule's first part (util/owned_dir.h): nothing is written through a link, also
     * one among the file's parents */
    if (dirs_refuse_link(path, what, place) != 0) return -1;
    char dir[4096];
    const char *slash = strrchr(path, '/');
    size_t n = slash ? (size_t)(slash - path) : 1;
    if (n >= sizeof dir) n = sizeof dir - 1;
    memcpy(dir, slash ? path : ".", n);
    dir[n] = 0;
    if (slash == path) strcpy(dir, "/");
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        error_add(NULL, 0, place, "%s '%s': its folder '%s' does not exist", what, path, dir);
        return -1;
    }
    return check_outside_runs(path, dir, place);
}

/* The model's parameters, one tensor per entry of its tensor table (names, shapes, order). */
static int write_params(const char *path, const Model *m, const char *config_text,
                        const char *provenance, long step) {
    SafetensorsTensor *t = calloc((size_t)m->n_tensors, sizeof *t);
    if (!t) {
        fprintf(stderr, "error: out of memory\n");
        return -1;
    }
    for (int i = 0; i < m->n_tensors; i++) {
        const TensorInfo *ti = &m->tensors[i];
        t[i] = (SafetensorsTensor){.name = ti->name, .dtype = SAFETENSORS_F32, .ndim = ti->ndim,
                                   .data = m->params + ti->offset};
        for (int d = 0; d < ti->ndim; d++) t[i].shape[d] = (size_t)ti->shape[d];
    }
    char step_s[32], scale_s[40];
    snprintf(step_s, sizeof step_s, "%ld", step);
    snprintf(scale_s, sizeof scale_s, "%.9g", (double)m->cfg.scale);
    const SafetensorsMeta meta[] = {
        {"format", "pt"}, /* what Hugging Face's loaders look for: PyTorch tensors */
        {"scaledot.config", config_text},
        {"scaledot.step", step_s},
        {"scaledot.attention_scale", scale_s},
        {"scaledot.export_provenance", provenance},
    };
    int rc = safetensors_write(path, t, m->n_tensors, meta, (int)(sizeof meta / sizeof *meta));
    free(t);
    return rc;
}

/* The validation set the run evaluates on, what this model gets on it (evaluate.h) and its
 * logits [B, T, V] on the first B examples (B = the model's batch): a sharper check of another
 * implementation than the loss. */
static int write_val(const char *path, Model *m, const Task *task, long step) {
    EvalResult ev = evaluate_validation(m, task);
    size_t N = (size_t)task->n_val, T = (size_t)task->seq_len, V = (size_t)m->cfg.vocab_size;
    int B = task->n_val < m->max_batch ? task->n_val : m->max_batch;
    model_forward(m, task->val_tokens, task->val_targets, task->val_mask, B, task->seq_len);
    const SafetensorsTensor t[] = {
        {"tokens", SAFETENSORS_I32, 2, {N, T}, task->val_tokens},
        {"targets", SAFETENSORS_I32, 2, {N, T}, task->val_targets},
        {"mask", SAFETENSORS_F32, 2, {N, T}, task->val_mask},
        {"logits", SAFETENSORS_F32, 3, {(size_t)B, T, V}, m->logits},
    };
    char loss[40], tok[40], ans[40], step_s[32];
    snprintf(loss, sizeof loss, "%.17g", ev.loss);
    snprintf(tok, sizeof tok, "%.17g", ev.token_acc);
    snprintf(ans, sizeof ans, "%.17g", ev.answer_acc);
    snprintf(step_s, sizeof step_s, "%ld", step);
    const SafetensorsMeta meta[] = {
        {"scaledot.val_loss", loss},
        {"scaledot.token_accuracy", tok},
        {"scaledot.answer_accuracy", ans},
        {"scaledot.step", step_s},
    };
    return safetensors_write(path, t, 4, meta, 4);
}

/* The configuration text the export stores, into *text (malloc'd): the checkpoint's, the run
 * named after its folder as --resume names it: a bad name an older version stored (a resumed
 * copy "tiny copy") is not passed on; a folder of no legal name keeps the stored one. Returns -1,
 * or an exit code after a message at place, the folder's (*text then NULL). */
static int exported_config(const char *checkpoint, const char *run_dir, const Config *c,
                           const char *place, char **text) {
    if (checkpoint_read_config(checkpoint, text) != 0) return EXIT_CONFIG;
    Config named = *c;
    if (cli_split_run_dir(run_dir, &named, place, 0) < 0) { /* as --eval: named */
        free(*text);
        *text = NULL;
        return EXIT_CONFIG;
    }
    if (config_run_name_problem(named.run_name)) return -1;
    char *renamed = checkpoint_config_named(*text, named.run_name);
    free(*text);
    if (!(*text = renamed)) {
        fprintf(stderr, "error: out of memory\n");
        return EXIT_RUNTIME;
    }
    return -1;
}


/* The run folder run_dir as --eval reads it, every error at place (its argument's): the folder
 * there with a checkpoint (said as --eval and --resume say it: no such folder, no checkpoint in
 * it), the checkpoint's path, its own configuration into c and the text the export stores into
 * *stored (exported_config). Returns -1, or an exit code after a message. */
static int read_run(const char *run_dir, const char *place, char checkpoint[PATH_MAX],
                    Config *c, char **stored) {
    if (cli_run_checkpoint(checkpoint, run_dir, place, 0) != 0) return EXIT_CONFIG;
    if (checkpoint_check_present(run_dir, place) != 0) return EXIT_CONFIG;
    config_defaults(c);
    if (checkpoint_load_config(checkpoint, c, place) != 0 || config_validate_stored(c) != 0)
        return EXIT_CONFIG;
    return exported_config(checkpoint, run_dir, c, place, stored);
}

int cli_export(int argc, char **argv) {
    ExportArgs a;
    int rc = parse_args(&a, argc, argv);
    if (rc >= 0) return rc;
    char checkpoint[PATH_MAX], place[48], out_place[48], val_place[48];
    error_place(place, sizeof place, "--export", a.run_dir_argn);
    error_place(out_place, sizeof out_place, "--export", a.out_argn);
    error_place(val_place, sizeof val_place, "--val", a.val_argn);
    Config c;
    char *stored = NULL;
    if ((rc = read_run(a.run_dir, place, checkpoint, &c, &stored)) >= 0) return rc;
    /* as --eval and --resume check it: its task file unchanged, its folder's own run. The
     * parameters of a text run need no data (its vocabulary is the 256 bytes): its file may have
     * moved away; --val writes the validation set, which is read from it */
    int no_data = c.task == TASK_TEXT && !a.val;
    if ((no_data ? checkpoint_check_folder(checkpoint, a.run_dir, place)
                 : checkpoint_check_resume(checkpoint, a.run_dir, &c, place)) != 0 ||
        check_new_file(a.out, "export file", out_place) != 0 ||
        (a.val && check_new_file(a.val, "validation file", val_place) != 0)) {
        free(stored);
        return EXIT_CONFIG;
    }
#ifdef _OPENMP
    if (c.threads > 0) omp_set_num_threads(c.threads);
#endif
    Task task;
    Model m = {0};
    Optimizer opt = {0};
    CheckpointState st;
    char *prov = NULL;
    rc = (no_data ? task_init_model_only(&task, &c) : task_init(&task, &c)) != 0 ? EXIT_CONFIG
                                                                                  : EXIT_RUNTIME;
    if (rc == EXIT_CONFIG) goto done;
    ModelConfig mc = train_model_config(&c, &task);
    /* the batch --eval uses, so that --val's numbers are --eval's */
    if (model_build(&m, &mc, c.batch_size < 64 ? c.batch_size : 64) != 0) goto done;
    if (train_optim_init(&opt, &c, m.n_params) != 0 ||
        !(prov = provenance_text())) {
        fprintf(stderr, "error: out of memory\n");
        goto done;
    }
    rc = EXIT_CONFIG;
    if (checkpoint_load(checkpoint, &m, &opt, &st) != 0) goto done;
    rc = EXIT_RUNTIME;
    if (write_params(a.out, &m, stored, prov, st.step) != 0) goto done;
    if (a.val && write_val(a.val, &m, &task, st.step) != 0) {
        file_remove_made(a.out); /* made by this command a moment ago: no half export is left */
        goto done;
    }
    printf("exported %s (step %ld, %d tensors, %zu parameters) to %s%s%s\n", SHOWN(checkpoint),
           st.step, m.n_tensors, m.n_params, SHOWN(a.out), a.val ? "; validation set to " : "",
           SHOWN(a.val ? a.val : ""));
    rc = EXIT_OK;
done:
    free(prov);
    free(stored);
    optim_free(&opt);
    model_free(&m);
    task_free(&task);
    return rc;
}
