/* sweep.c: ./train --sweep, the engine's top: the plan from the parsed arguments
 * (cli/sweep_args.c reads them, plan.c expands them), the stored plan, the runs as child
 * processes (children.c), sweep.csv rebuilt from the run folders (results.c) and the report
 * (report/page/sweep_report.c). Also --plan (stop after writing the plan, the configs and jobs.txt)
 * and --collect (rebuild from the folders). */
#include "sweep/sweep.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report/page/page.h"
#include "sweep/children.h"
#include "sweep/plan.h"
#include "sweep/results.h"
#include "train/runlog.h"
#include "util/error_list.h"
#include "util/file_check.h"
#include "util/owned_dir.h"
#include "util/run_lock.h"
#include "util/self_exe.h"
#include "util/shell_word.h"

enum { RC_OK = 0, RC_IO = 1, RC_USAGE = 2 };

typedef struct {
    SweepArgs a;
    Config base;
    Plan plan;
    char out[SWEEP_PATH];       /* the sweep folder as given (relative or absolute) */
    char out_abs[SWEEP_PATH];
    char csv[SWEEP_PATH + 16];
    char **rows;                /* sweep.csv rows, one per planned run */
    SweepStatus *status;        /* each row's status */
    char **mismatch;            /* status mismatch: the setting that differs (else NULL) */
    int *run_rc;                /* the exit code of each run this start ran; -1: not run */
    int *todo;                  /* plan indices of the runs this start runs */
    int n_todo;
    int lock_fd;                /* OUT/.lock (util/run_lock.h), held while this sweep runs */
    int owned[2];               /* util/owned_dir.h: the folder as out and as out_abs; -1 none */
} Sweep;

/* What a sweep writes into its folder (the report's files are sweep_report.c's writer). In a
 * folder of an earlier version (no manifest) they are adopted: the checks made before
 * (plan_check_same, plan_check_folder, a sweep.csv without plan.txt refused) have refused what is
 * not a sweep's. */
static int adopt_sweep_file(const char *dir, const char *name) {
    (void)dir, (void)name;
    return 1;
}

static const char *const SWEEP_NAMES[] = {"plan.txt", "jobs.txt", "sweep.csv", "configs/*.ini"};

static const OwnedWriter SWEEP_WRITER = {
    .id = "sweep",
    .what = "sweep folder",
    .who = "a sweep into this folder",
    .would = "the sweep would overwrite it",
    .names = SWEEP_NAMES,
    .n_names = (int)(sizeof SWEEP_NAMES / sizeof *SWEEP_NAMES),
    .adopt = adopt_sweep_file,
    .advice = "Use another --out, or move it away",
};

/* Registers the sweep folder (made, and locked by the caller when it runs), under both of the
 * names its paths are built from. Returns 0, or RC_USAGE / RC_IO after a message. */
static int own_folder(Sweep *sw) {
    int bad = sw->owned[0] = owned_dir_open(sw->out, &SWEEP_WRITER, OWNED_NO_LOCK, NULL);
    if (bad >= 0 && strcmp(sw->out, sw->out_abs) != 0) {
        bad = owned_dir_open(sw->out_abs, &SWEEP_WRITER, OWNED_NO_LOCK, NULL);
        sw->owned[1] = bad >= 0 ? bad : -1;
    }
    return bad >= 0 ? 0 : bad == -2 ? RC_USAGE : RC_IO;
}

int sweep_out_check(const char *path, const char *where, int order, ErrorList *errs) {
    for (const unsigned char *q = (const unsigned char *)path; *q; q++)
        if (*q == '"' || *q < 0x20 || *q == 0x7f) {
            error_add(errs, order, where, "the sweep folder's path '%s' holds %s (byte 0x%02x), "
                                          "which the run configs and jobs.txt cannot hold; "
                                          "choose another folder",
                      path, *q == '"' ? "a '\"'" : "a control character", *q);
            return -1;
        }
    return 0;
}

/* The sweep folder: --out, else sweeps/<config file name without .ini>, else sweeps/default. */
static int out_dir(Sweep *sw) {
    const SweepArgs *a = &sw->a;
    if (a->out) {
        snprintf(sw->out, sizeof sw->out, "%s", a->out);
    } else {
        const char *p = a->config_path, *base = p ? strrchr(p, '/') : NULL;
        base = base ? base + 1 : p;
        size_t len = base ? strlen(base) : 0;
        if (len > 4 && strcmp(base + len - 4, ".ini") == 0) len -= 4;
        if (len == 0) snprintf(sw->out, sizeof sw->out, "sweeps/default");
        else snprintf(sw->out, sizeof sw->out, "sweeps/%.*s", (int)len, base);
    }
    char cwd[PATH_MAX];
    if (sw->out[0] != '/' && !getcwd(cwd, sizeof cwd)) {
        error_add(NULL, 0, NULL, "cannot read the current folder: %s", strerror(errno));
        return -1;
    }
    int n = sw->out[0] == '/' ? snprintf(sw->out_abs, sizeof sw->out_abs, "%s", sw->out)
                              : snprintf(sw->out_abs, sizeof sw->out_abs, "%s/%s", cwd, sw->out);
    /* room for runs/<name> in run.dir (CONFIG_STR) and for the files below the folder */
    if (n < 0 || (size_t)n + 6 >= CONFIG_STR) {
        error_add(NULL, 0, NULL, "--out: folder name '%s' is too long", sw->out_abs);
        return -1;
    }
    /* --out itself was checked with the line's other errors (cli/sweep_args.c); here the
     * whole path, the current folder's part or the default's too */
    if (sweep_out_check(sw->out_abs, "--out", 0, NULL) != 0) return -1;
    snprintf(sw->csv, sizeof sw->csv, "%s/sweep.csv", sw->out);
    return 0;
}

/* The config file, the --set overrides in order, then --steps (plan_base_config; every bad one
 * named, though the argument reader has named them before unless the file changed since). */
static int base_config(Sweep *sw) {
    ErrorList errs = {0};
    int rc = plan_base_config(&sw->a, &sw->base, &errs);
    if (error_flush(&errs) != 0 || rc != 0) return -1;
    /* plan.txt records the absolute path: the same command from another folder names another
     * file, and is refused as another plan */
    return plan_absolute_task_file(&sw->base);
}

static void run_dir(const Sweep *sw, int r, char *buf, size_t n) {
    snprintf(buf, n, "%s/runs/%s", sw->out, sw->plan.names[r]);
}

/* Rebuilds row r from its folder. */
static int refresh_row(Sweep *sw, int r, RowInfo *info) {
    char dir[SWEEP_PATH + PLAN_CELL];
    RowInfo own;
    if (!info) info = &own;
    run_dir(sw, r, dir, sizeof dir);
    free(sw->rows[r]);
    free(sw->mismatch[r]);
    /* refused before it trained (exit code 2): nothing in its folder says so; this sweep saw it */
    sw->rows[r] = results_row_as(&sw->plan, r, dir, sw->run_rc[r] == RC_USAGE ? RC_USAGE : -1, info);
    sw->status[r] = (SweepStatus)sweep_status_find(info->status);
    sw->mismatch[r] = *info->mismatch ? strdup(info->mismatch) : NULL;
    if (sw->rows[r] && (!*info->mismatch || sw->mismatch[r])) return 0;
    fprintf(stderr, "error: out of memory\n");
    return -1;
}

/* The rows and what is kept of each. Returns 0, or -1 when out of memory. */
static int alloc_rows(Sweep *sw) {
    size_t n = (size_t)sw->plan.n_runs;
    sw->rows = calloc(n, sizeof *sw->rows);
    sw->mismatch = calloc(n, sizeof *sw->mismatch);
    sw->status = calloc(n, sizeof *sw->status);
    sw->run_rc = malloc(n * sizeof *sw->run_rc);
    for (size_t r = 0; sw->run_rc && r < n; r++) sw->run_rc[r] = -1;
    return sw->rows && sw->mismatch && sw->status && sw->run_rc ? 0 : -1;
}

static int refresh_all(Sweep *sw) {
    for (int r = 0; r < sw->plan.n_runs; r++)
        if (refresh_row(sw, r, NULL) != 0) return -1;
    return results_write_csv(sw->csv, &sw->plan, sw->rows);
}

/* Where a run that did not finish says why: its train.log, or, for a run refused before it
 * opened one (a link, a folder of the user's), this terminal, just above. */
static const char *where_to_look(const Sweep *sw, int r) {
    char log[SWEEP_PATH + PLAN_CELL + 16];
    run_dir(sw, r, log, sizeof log);
    strncat(log, "/train.log", sizeof log - strlen(log) - 1);
    return access(log, F_OK) == 0 ? "; see its train.log"
                                  : "; it wrote no train.log: its error is above";
}

/* children_run's callback: the run's row is read again and sweep.csv rewritten whole. */
static int run_done(void *ctx, int i, int rc) {
    Sweep *sw = ctx;
    int r = sw->todo[i];
    RowInfo info;
    sw->run_rc[r] = rc;
    if (refresh_row(sw, r, &info) != 0) return -1;
    if (rc == 128 + 2 || rc == 128 + 15) {
        fprintf(stderr, "sweep: run %s stopped (exit code %d); started again, the sweep resumes "
                        "it from its checkpoint\n", SHOWN(sw->plan.names[r]), rc);
    } else {
        /* a text run has no answers: its val_answer_acc is the next-byte accuracy, and bits per
         * byte are the measure of text (evaluate.h) */
        char acc[64], wall[32] = "";
        if (!info.has_acc)
            snprintf(acc, sizeof acc, "%s not measured",
                     info.text ? "bpb and next-byte acc" : "answer acc");
        else if (info.text)
            snprintf(acc, sizeof acc, "bpb %.4f, next-byte acc %.1f%%", info.val_bpb,
                     100 * info.answer_acc);
        else
            snprintf(acc, sizeof acc, "answer acc %.1f%%", 100 * info.answer_acc);
        if (!isnan(info.wall_s)) snprintf(wall, sizeof wall, ", %.1f s", info.wall_s);
        /* a run that did not end has no final value: its last logged one, at its step */
        int final = results_final(rc);
        char at[48] = "";
        if (!final && info.has_acc) snprintf(at, sizeof at, " at step %ld", info.val_step);
        const char *see = final ? "" : where_to_look(sw, r);
        /* named, not numbered: the progress line after it (children.c) holds the one counter */
        fprintf(stderr, "sweep: run %s: %s (exit code %d), %s val %s%s%s%s\n",
                SHOWN(sw->plan.names[r]), info.status, rc, final ? "final" : "last logged", acc,
                at, wall, see);
    }
    return results_write_csv(sw->csv, &sw->plan, sw->rows);
}

/* Names the runs without a final outcome (missing, running, failed, ...), each with its status;
 * a run of another configuration than the plan's with the setting that differs, and, when its
 * configs/RUN.ini is not the plan's row either (edited), that too: its jobs.txt line would train
 * the edited settings again. Returns how many rows are status mismatch; *n_edited how many of
 * those have an edited configs/RUN.ini. */
static int list_unfinished(const Sweep *sw, int *n_edited) {
    int n = 0, n_mismatch = 0;
    *n_edited = 0;
    for (int r = 0; r < sw->plan.n_runs; r++) {
        const SweepStatusInfo *st = &SWEEP_STATUSES[sw->status[r]];
        char why[256];
        if (st->in_stats) continue;
        if (sw->status[r] == ST_MISMATCH) {
            /* never silently attributed: every one is named, with what differs */
            n_mismatch++;
            fprintf(stderr, "warning: %s/runs/%s holds a run of another configuration than the "
                            "plan's row (%s): status mismatch, its numbers left out\n",
                    SHOWN(sw->out), SHOWN(sw->plan.names[r]),
                    SHOWN(sw->mismatch[r] ? sw->mismatch[r] : ""));
            if (results_config_edited(&sw->plan, r, sw->out, why, sizeof why) == 1) {
                (*n_edited)++;
                fprintf(stderr, "warning: %s/configs/%s.ini is not the plan's row either (%s): "
                                "it was edited after the plan was made, and its jobs.txt line "
                                "trains it as edited\n",
                        SHOWN(sw->out), SHOWN(sw->plan.names[r]), SHOWN(why));
            }
        }
        if (n++ >= 20) continue;
        /* its marker says finished (incomplete), cannot be read (unknown), or the run is not the
         * plan's (mismatch): its jobs.txt line does nothing, or refuses; only a fresh folder
         * trains it again */
        if (st->stuck)
            fprintf(stderr, "  not finished: %s (%s: its jobs.txt line does not train it; remove "
                            "%s/runs/%s to train it again)\n", SHOWN(sw->plan.names[r]), st->name,
                    SHOWN(sw->out), SHOWN(sw->plan.names[r]));
        else
            fprintf(stderr, "  not finished: %s (%s)\n", SHOWN(sw->plan.names[r]), st->name);
    }
    if (n > 20) fprintf(stderr, "  ... and %d more\n", n - 20);
    fprintf(stderr, "sweep: %d of %d planned runs %s\n", n, sw->plan.n_runs,
            n ? "have not finished (status in sweep.csv; run their jobs.txt lines, or remove the "
                "folders named above, then --collect again)"
              : "missing: every run has finished");
    return n_mismatch;
}

/* Every run of the plan must be rebuildable from plan.txt alone (the identity check's plan
 * side); a hand-edited value that is not is named with its line. */
static int check_plan_configs(const Sweep *sw, const char *path) {
    Config *c = malloc(sizeof *c);
    int rc = c ? 0 : -1;
    for (int r = 0; r < sw->plan.n_runs && !rc; r++) rc = plan_row_config(&sw->plan, r, sw->out, path, c);
    free(c);
    return rc;
}

static int collect(Sweep *sw) {
    char path[SWEEP_PATH + 16];
    snprintf(path, sizeof path, "%s/plan.txt", sw->out);
    char why[128];
    size_t len = 0;
    char *text = file_read_regular(path, FILE_MAX_TEXT_BYTES, &len, why, sizeof why);
    if (!text) {
        error_add(NULL, 0, NULL, "cannot read '%s': %s (--collect needs the folder of a sweep "
                                 "made with --plan or run before)", path, why);
        return errno == ENOMEM ? RC_IO : RC_USAGE;
    }
    int rc = plan_parse(&sw->plan, text, path);
    free(text);
    if (rc != 0 || check_plan_configs(sw, path) != 0) return RC_USAGE;
    if (sweep_report_check_folder(sw->out) != 0 || owned_dir_check(sw->out, &SWEEP_WRITER, NULL) != 0)
        return RC_USAGE; /* before sweep.csv is */
    rc = own_folder(sw);
    if (rc) return rc;
    if (alloc_rows(sw) != 0 || refresh_all(sw) != 0) return RC_IO;
    int edited, mismatched = list_unfinished(sw, &edited);
    fprintf(stderr, "sweep: wrote %s\n", SHOWN(sw->csv));
    rc = sweep_report(sw->out, stdout) == 0 ? RC_OK : RC_IO;
    /* the jobs.txt line trains configs/RUN.ini: where that was edited, it must be the plan's
     * again first, or the run trained anew is again not the plan's */
    if (mismatched)
        fprintf(stderr, "sweep: %d run%s not the plan's (status mismatch, named above): %sremove "
                        "their folders and run their jobs.txt lines to train the plan's runs\n",
                mismatched, mismatched > 1 ? "s are" : " is",
                edited ? "first put the plan's settings back in the edited configs/ files "
                         "(run the sweep's command again with --plan, the same options and "
                         "--out: it writes configs/ from the plan), then " : "");
    return mismatched ? RC_IO : rc;
}

/* The closing lines of a sweep: each run this start ran that did not finish, named with its
 * status (sweep.csv's) and where it says why. Returns 2 when one was refused (bad input: its
 * config, its folder), 1 when one did not finish otherwise, 0 when every one finished. */
static int name_unfinished(const Sweep *sw) {
    int n = 0, refused = 0;
    for (int i = 0; i < sw->n_todo; i++) {
        int r = sw->todo[i];
        if (SWEEP_STATUSES[sw->status[r]].in_stats) continue;
        refused += sw->status[r] == ST_REFUSED;
        if (n++ < 20)
            fprintf(stderr, "  did not finish: %s (%s, exit code %d%s)\n",
                    SHOWN(sw->plan.names[r]), SWEEP_STATUSES[sw->status[r]].name, sw->run_rc[r],
                    where_to_look(sw, r));
    }
    if (n > 20) fprintf(stderr, "  ... and %d more\n", n - 20);
    if (n)
        fprintf(stderr, "sweep: %d run%s did not finish (named above with their status in "
                        "sweep.csv)%s; started again, the sweep tries them again\n", n,
                n > 1 ? "s" : "", refused ? "; a refused run trains once what its error names is "
                                            "fixed" : "");
    return refused ? RC_USAGE : n ? RC_IO : RC_OK;
}

static int run_sweep(Sweep *sw, const char *exe) {
    Plan *p = &sw->plan;
    sw->todo = calloc((size_t)p->n_runs, sizeof *sw->todo);
    char **cfg = calloc((size_t)p->n_runs, sizeof *cfg);
    char **dirs = calloc((size_t)p->n_runs, sizeof *dirs); /* the runs' folders: the heartbeat */
    int rc = alloc_rows(sw) == 0 && sw->todo && cfg && dirs ? RC_OK : RC_IO, before = 0;
    for (int r = 0; r < p->n_runs && !rc; r++) {
        char dir[SWEEP_PATH + PLAN_CELL];
        RunMarker mk;
        run_dir(sw, r, dir, sizeof dir);
        char path[SWEEP_PATH + PLAN_CELL + 16];
        plan_config_path(path, sizeof path, sw->out_abs, p->names[r]);
        if (results_marker_read(dir, &mk) == 0 && results_final(mk.exit_code)) {
            /* skipped only when it is this plan's run: with plan.txt and sweep.csv gone, a
             * folder of another plan's runs must not be reported as this one's */
            Config *c = malloc(sizeof *c);
            int same = c && sweep_load_run_config(path, c) == 0 &&
                       sweep_finished_run_matches(c, dir);
            free(c);
            if (!same) {
                error_add(NULL, 0, NULL, "%s holds a finished run of another configuration than "
                                         "this plan's (%s); use another --out, or remove that run "
                                         "folder to train it again", dir, path);
                rc = RC_USAGE;
                break;
            }
            before++;
            continue;
        }
        cfg[sw->n_todo] = strdup(path);
        dirs[sw->n_todo] = strdup(dir);
        if (!cfg[sw->n_todo] || !dirs[sw->n_todo]) rc = RC_IO;
        sw->todo[sw->n_todo++] = r;
    }
    if (!rc && refresh_all(sw) != 0) rc = RC_IO;
    if (!rc) {
        fprintf(stderr, "sweep: %d runs into %s/ (%d finished before, skipped; %d to run, %d at "
                        "a time; each run's output in its train.log)\n",
                p->n_runs, SHOWN(sw->out), before, sw->n_todo, sw->a.jobs);
        JobList jl = {exe, sw->a.jobs, sw->n_todo, cfg, p->n_runs, before, dirs, 0, run_done, sw};
        rc = children_run(&jl, NULL);
        if (refresh_all(sw) != 0 && rc == RC_OK) rc = RC_IO;
    }
    for (int i = 0; i < sw->n_todo; i++) free(cfg[i]), free(dirs[i]);
    free(cfg);
    free(dirs);
    if (rc > 128) {
        fprintf(stderr, "sweep: stopped by a signal; %s keeps every finished run; the same "
                        "command resumes the sweep\n", SHOWN(sw->csv));
        return rc;
    }
    if (rc) return rc;
    if (sweep_report(sw->out, stdout) != 0) rc = RC_IO;
    printf("\nwrote %s\n", SHOWN(sw->csv));
    int closing = name_unfinished(sw);
    return closing ? closing : rc;
}

static int sweep_command(Sweep *sw) {
    if (out_dir(sw) != 0 || dirs_refuse_link(sw->out, "sweep folder", NULL) != 0) return RC_USAGE;
    if (sw->a.mode == MODE_COLLECT) return collect(sw);
    char runs[SWEEP_PATH + 8], plan_path[SWEEP_PATH + 16], exe[PATH_MAX], configs[SWEEP_PATH + 16];
    snprintf(runs, sizeof runs, "%s/runs", sw->out_abs);
    snprintf(configs, sizeof configs, "%s/configs", sw->out_abs);
    snprintf(plan_path, sizeof plan_path, "%s/plan.txt", sw->out);
    /* its runs/ and configs/ are written into as the folder itself is: never through a link */
    if (dirs_refuse_link(runs, "sweep's runs folder", NULL) != 0 ||
        dirs_refuse_link(configs, "sweep's configs folder", NULL) != 0)
        return RC_USAGE;
    if (base_config(sw) != 0 || plan_build(&sw->a, &sw->base, runs, &sw->plan) != 0 ||
        plan_check_same(plan_path, sw->plan.text) != 0)
        return RC_USAGE;
    /* a sweep.csv without a plan is an older program's sweep: rebuilding it would lose rows */
    if (access(plan_path, F_OK) != 0 && access(sw->csv, F_OK) == 0) {
        error_add(NULL, 0, NULL, "%s holds a sweep.csv but no plan.txt (a sweep of an older "
                                 "version); use another --out, or move that folder away", sw->out);
        return RC_USAGE;
    }
    /* no file of the user's under a name the sweep writes (a folder of this plan, checked above,
     * holds only run configs a sweep wrote) */
    if (plan_check_folder(&sw->plan, sw->out_abs, access(plan_path, F_OK) == 0) != 0 ||
        owned_dir_check(sw->out, &SWEEP_WRITER, NULL) != 0)
        return RC_USAGE;
    if (self_exe_path(exe, sizeof exe) != 0) { /* for the children and jobs.txt */
        fprintf(stderr, "error: cannot find the program's own path (/proc/self/exe)\n");
        return RC_IO;
    }
    if (make_dirs(sw->out) != 0) {
        error_add(NULL, 0, NULL, "cannot create sweep folder '%s': %s", sw->out, strerror(errno));
        return RC_IO;
    }
    /* one sweep at a time in a folder: two would train the same runs side by side */
    pid_t holder = 0;
    if ((sw->lock_fd = run_lock_take(sw->out, &holder)) == -2) {
        error_add(NULL, 0, NULL, "%s/ is in use by another sweep (pid %ld); wait for it to end, or "
                                 "use another --out; nothing was written", sw->out, (long)holder);
        return RC_USAGE;
    }
    if (sw->lock_fd == -1) {
        error_add(NULL, 0, NULL, "cannot lock the sweep folder '%s': %s", sw->out, strerror(errno));
        return RC_IO;
    }
    int rc = own_folder(sw);
    if (rc) return rc;
    int had_plan = access(plan_path, F_OK) == 0;
    if (plan_write_files(&sw->a, &sw->base, &sw->plan, sw->out_abs, exe) != 0) return RC_IO;
    if (sw->a.mode == MODE_PLAN) {
        /* lines to paste into a shell: the folder quoted for sh when it needs it. GNU parallel
         * is not on a stock machine ("parallel: not found"), so its line says how to get it. */
        char *q = shell_word_dup(sw->out);
        if (!q) return RC_IO;
        int p = sw->a.jobs_argn ? sw->a.jobs : 2; /* runs at once: --jobs when given */
        printf("wrote %s, %s/configs/ (%d runs) and %s/jobs.txt (one command per run: trains, "
               "resumes or does nothing)\n"
               "run them, e.g.:  tr '\\n' '\\0' < %s/jobs.txt | xargs -0 -P %d -n 1 sh -c\n"
               "or:              parallel -j %d < %s/jobs.txt   (GNU parallel: apt-get install "
               "parallel)\n"
               "then:            ./train --sweep --collect --out %s\n",
               SHOWN(plan_path), SHOWN(sw->out), sw->plan.n_runs, SHOWN(sw->out), SHOWN(q), p, p,
               SHOWN(q), SHOWN(q));
        free(q);
        return RC_OK;
    }
    rc = run_sweep(sw, exe);
    /* refused (the folder holds another plan's finished runs): a plan.txt written just now
     * would make it look like this plan's folder */
    if (rc == RC_USAGE && !had_plan) owned_remove(plan_path);
    return rc;
}

int sweep_execute(const SweepArgs *a) {
    Sweep *sw = calloc(1, sizeof *sw);
    if (!sw) return RC_IO;
    sw->a = *a; /* a shallow copy: the caller owns and frees a */
    sw->lock_fd = -1;
    sw->owned[0] = sw->owned[1] = -1;
    int rc = sweep_command(sw);
    owned_dir_close(sw->owned[1]);
    owned_dir_close(sw->owned[0]);
    if (sw->lock_fd >= 0) close(sw->lock_fd);
    fflush(stdout);
    for (int r = 0; sw->rows && r < sw->plan.n_runs; r++) free(sw->rows[r]);
    for (int r = 0; sw->mismatch && r < sw->plan.n_runs; r++) free(sw->mismatch[r]);
    free(sw->rows);
    free(sw->mismatch);
    free(sw->status);
    free(sw->run_rc);
    free(sw->todo);
    plan_free(&sw->plan);
    free(sw);
    return rc;
}
