/* run_setup.c: builds and frees a training run (run_setup.h): the task, model and optimizer from
 * a config, the run folder's checks and lock, the checkpoint to resume from, the logs. */
#include "train/run_setup.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <unistd.h>
#include <sys/stat.h>

#include "train/checkpoint.h"
#include "train/run_files.h"
#include "train/run_print.h"
#include "train/sample.h"
#include "train/task_source.h"
#include "util/dirs.h"
#include "util/error_list.h"
#include "util/file_check.h"
#include "util/owned_dir.h"
#include "util/provenance.h"
#include "util/run_lock.h"
#include "util/whole_write.h"

double train_width_mult(const Config *c) {
    return c->param == PARAM_MUP ? (double)c->d_model / (double)c->base_width : 1.0;
}

ModelConfig train_model_config(const Config *c, const Task *t) {
    int block = c->block == BLOCK_LLAMA ? MODEL_BLOCK_LLAMA : MODEL_BLOCK_GPT2;
    ModelConfig mc = {
        .vocab_size = t->vocab_size,
        .d_model = c->d_model,
        .n_heads = c->n_heads,
        .n_layers = c->n_layers,
        .d_ff = c->d_ff > 0 ? c->d_ff : model_default_d_ff(block, c->d_model),
        .max_seq_len = c->max_seq_len > 0 ? c->max_seq_len : t->seq_len,
        .ln_eps = (real)c->ln_eps,
        .scale = (real)config_attention_scale(c, c->d_model / c->n_heads),
        .qk_norm = c->qk_norm == QK_NORM_LAYERNORM  ? MODEL_QK_NORM_LAYERNORM
                   : c->qk_norm == QK_NORM_RMSNORM  ? MODEL_QK_NORM_RMSNORM
                                                    : MODEL_QK_NORM_NONE,
        .learned_scale = c->scale_mode == SCALE_LEARNED,
        .softcap = (real)c->softcap,
        .qk_clip = (real)c->qk_clip,
        .window = c->window,
        .block = block,
        .matmul = c->matmul == MATMUL_BF16 ? MODEL_MATMUL_BF16 : MODEL_MATMUL_FLOAT32,
        .readout_mult = c->param == PARAM_MUP ? (real)(1.0 / train_width_mult(c)) : R(1.0),
        .v_norm = c->v_norm == V_NORM_RMSNORM,
    };
    return mc;
}

LrSchedule train_lr_schedule(const Config *c) {
    LrSchedule s = {
        .lr = c->lr,
        .min_lr = c->min_lr,
        .warmup_steps = c->warmup_steps,
        .steps = c->steps,
        .shape = c->schedule == SCHED_COSINE ? LR_COSINE : LR_CONSTANT,
    };
    return s;
}

int train_optim_init(Optimizer *o, const Config *c, size_t n_params) {
    OptimizerKind kind = c->optim == OPT_SGD ? OPTIMIZER_SGD : OPTIMIZER_ADAMW;
    if (optim_init(o, kind, c->beta1, c->beta2, c->eps, c->weight_decay, c->momentum, n_params))
        return -1;
    optim_set_qk_lr_mult(o, c->lr_q_mult, c->lr_k_mult);
    optim_set_hidden_lr_mult(o, 1.0 / train_width_mult(c));
    return 0;
}

/* The configuration as config.ini and the checkpoint store it: provenance comments first, then
 * the task file's line with the hash of the bytes t was built from. */
static char *run_config_text(const Config *c, const Task *t) {
    char *prov = provenance_text();
    if (!prov) return NULL;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) {
        free(prov);
        return NULL;
    }
    fputs(prov, f);
    free(prov);
    task_source_write(f, c, t->file_hash);
    config_write(c, f);
    fclose(f);
    return buf;
}

int run_build_task_model_optimizer(TrainRun *r, const Config *c, int max_batch, int model_only) {
    memset(r, 0, sizeof *r);
    r->lock_fd = -1;
    r->owned = -1;
    r->c = c;
    /* task_init checks that the sequences fit model.max_seq_len */
    if ((model_only ? task_init_model_only(&r->task, c) : task_init(&r->task, c)) != 0)
        return EXIT_CONFIG;
    ModelConfig mc = train_model_config(c, &r->task);
    if (model_build(&r->m, &mc, max_batch) != 0) return EXIT_RUNTIME;
    if (train_optim_init(&r->opt, c, r->m.n_params) != 0) {
        fprintf(stderr, "error: out of memory\n");
        return EXIT_RUNTIME;
    }
    r->sched = train_lr_schedule(c);
    return 0;
}

/* 1 when dir/config.ini is one ./train wrote: its provenance and task-file comment lines, then
 * config_write's first line (a run from before the provenance lines starts with that line). */
static int config_ini_is_ours(const char *dir) {
    char path[PATH_MAX + 32], why[128];
    snprintf(path, sizeof path, "%s/config.ini", dir);
    size_t len;
    char *text = file_read_regular(path, 1 << 20, &len, why, sizeof why);
    if (!text) return 0;
    const char *p = text;
    while (strncmp(p, PROVENANCE_PREFIX, strlen(PROVENANCE_PREFIX)) == 0 ||
           strncmp(p, TASK_SOURCE_PREFIX, strlen(TASK_SOURCE_PREFIX)) == 0) {
        p += strcspn(p, "\n");
        if (*p) p++;
    }
    size_t n = strlen(CONFIG_FILE_FIRST_LINE);
    int ours = strncmp(p, CONFIG_FILE_FIRST_LINE, n) == 0 && p[n] == '\n';
    free(text);
    return ours;
}

int train_log_is_sweeps(const char *dir) {
    char path[PATH_MAX + 32], why[128], head[sizeof TRAIN_SWEEP_LOG_START] = "";
    snprintf(path, sizeof path, "%s/train.log", dir);
    FILE *f = file_fopen_regular(path, FILE_MAX_LOG_BYTES, why, sizeof why);
    if (!f) return 0;
    size_t n = fread(head, 1, sizeof head - 1, f);
    fclose(f);
    return n == 0 || (n == sizeof head - 1 && memcmp(head, TRAIN_SWEEP_LOG_START, n) == 0);
}

/* Every file ./train writes into a run folder (runlog.c, checkpoint.c, train.c, sample.c), and
 * the markers of a sweep's run command, which a new run removes (clear_earlier_run). */
static const char *const RUN_NAMES[] = {
    "config.ini",          "loss.csv",           "grad_norms.csv", "attention.csv",
    "checkpoint.bin",      "attn_map.csv",       "attn_map_tokens.csv", "attn_map_step0.csv",
    "init_check.txt",      "sample.txt",         "sweep_result.txt", "sweep_wall.txt",
    "attn_steps.csv"};

/* 1 when name is the temporary file of a whole-file write of ours cut short (a killed writer's
 * leftover, util/whole_write.h): of a file a run writes or of the folder's manifest. A user's
 * "thesis.tmp" is not: a folder holding only it is the user's. */
static int run_temp_leftover(const char *name) {
    if (atomic_is_temp_name_of(name, OWNED_MANIFEST)) return 1;
    for (size_t i = 0; i < sizeof RUN_NAMES / sizeof *RUN_NAMES; i++)
        if (atomic_is_temp_name_of(name, RUN_NAMES[i])) return 1;
    return 0;
}

/* 1 when the folder dir holds a file other than what a sweep's run command writes before the run
 * starts (.lock, a train.log it began, its markers) and the temporary files of a write of ours
 * cut short (run_temp_leftover); 0 when it holds none of its own, or cannot be read (creating
 * the lock or logs there reports it). */
static int folder_holds_files(const char *dir) {
    DIR *d = opendir(dir);
    if (!d) return 0;
    static const char *const sweep_files[] = {".", "..", ".lock", OWNED_MANIFEST, "train.log",
                                              "sweep_result.txt", "sweep_wall.txt"};
    int holds = 0;
    for (struct dirent *e; !holds && (e = readdir(d));) {
        holds = 1;
        for (size_t i = 0; i < sizeof sweep_files / sizeof sweep_files[0]; i++)
            if (strcmp(e->d_name, sweep_files[i]) == 0) holds = 0;
        if (!holds && strcmp(e->d_name, "train.log") == 0) holds = !train_log_is_sweeps(dir);
        if (run_temp_leftover(e->d_name)) holds = 0;
    }
    closedir(d);
    return holds;
}

/* A run folder's files of an earlier version (no manifest) are adopted when the folder holds a
 * run of ours (its config.ini ./train wrote, or a checkpoint.bin) and each reads as one ./train
 * wrote (run_files.h): one of the user's under a name a run uses is refused, never replaced or
 * removed. */
static int adopt_run_file(const char *dir, const char *name) {
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/checkpoint.bin", dir);
    if (access(path, F_OK) != 0 && !config_ini_is_ours(dir)) return 0;
    return strcmp(name, "config.ini") == 0 ? config_ini_is_ours(dir)
                                           : run_file_reads_as_ours(dir, name);
}

static const OwnedWriter RUN_WRITER = {
    .id = "run",
    .what = "run folder",
    .who = "./train",
    .would = "the run would replace it",
    .names = RUN_NAMES,
    .n_names = (int)(sizeof RUN_NAMES / sizeof *RUN_NAMES),
    .adopt = adopt_run_file,
    .advice = "Move it away, or set run.name for a run of its own",
};

void train_run_folder_place(const Config *c, const char *dir, char *buf, size_t n) {
    /* where run.name was set, unless run.dir was set later on the line (a --set after the file);
     * neither set: the folder itself */
    const char *name = config_origin(c, "run.name"), *parent = config_origin(c, "run.dir");
    int later = c->origin_order[config_key_index("run.dir")] >
                c->origin_order[config_key_index("run.name")];
    const char *o = later || strcmp(name, "default") == 0 ? parent : name;
    error_place(buf, n, strcmp(o, "default") != 0 ? o : dir, -1); /* a whole place, as it is */
}

/* Before a new run (no checkpoint) touches its folder: a symbolic link is refused (the logs
 * would be written wherever it points), and so is a folder that holds files but no run of ours
 * (no config.ini ./train wrote, no checkpoint.bin): its files would be overwritten. An earlier
 * run is replaced, as before; a folder another process trains in is left to the lock's refusal.
 * Returns 0 or EXIT_CONFIG. */
int train_run_folder_check(const char *dir, const char *where) {
    struct stat st;
    /* the folder or a parent of it a link (run.dir = d/link): the logs would go where it points */
    if (dirs_refuse_link(dir, "run folder", where) != 0) return EXIT_CONFIG;
    if (lstat(dir, &st) != 0) return 0; /* absent: created below (or the error said there) */
    if (!S_ISDIR(st.st_mode)) return 0; /* make_dirs reports it (ENOTDIR) */
    if (run_lock_holder(dir) != 0) return 0; /* the lock's refusal says it */
    if (owned_dir_check(dir, &RUN_WRITER, where) != 0) return EXIT_CONFIG;
    if (!folder_holds_files(dir)) return 0;
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/checkpoint.bin", dir);
    if (access(path, F_OK) == 0 || config_ini_is_ours(dir)) return 0;
    error_add(NULL, 0, where, "run folder '%s' holds files but no run of ./train (no config.ini it "
                              "wrote, no checkpoint.bin); a new run would overwrite them. Set "
                              "run.name to another name, or move the folder away; nothing was run",
              dir);
    return EXIT_CONFIG;
}

/* The initial weights (from the seed's "init" stream), the guard tally, the batch buffers and
 * the configuration text the run stores. Returns 0 or EXIT_RUNTIME. */
static int init_and_allocate(TrainRun *r) {
    const Config *c = r->c;
    int B = c->batch_size, T = r->task.seq_len;
    Rng init_rng;
    rng_seed(&init_rng, (uint64_t)c->seed ^ 0x696e6974ull); /* "init": a stream of its own */
    if (c->init == INIT_FAN_IN)
        model_init_fan_in(&r->m, &init_rng);
    else
        model_init_gpt2(&r->m, &init_rng, c->init_std);
    model_scale_qk(&r->m, c->init_q_mult, c->init_k_mult);
    if (c->param == PARAM_MUP) model_init_mup(&r->m, train_width_mult(c));
    r->diag_B = r->task.n_val < B ? r->task.n_val : B;
    const double bound[GUARD_KINDS] = {
        [GUARD_LOGIT_STD] = c->guard_logit_std_max, [GUARD_MAX_WEIGHT] = c->guard_max_weight_max,
        [GUARD_GRAD_MIN] = c->guard_grad_norm_min, [GUARD_GRAD_MAX] = c->guard_grad_norm_max};
    if (guards_init(&r->guards, r->m.cfg.n_layers, r->m.cfg.n_heads, bound,
                    c->guard_action == GUARD_STOP) != 0) {
        fprintf(stderr, "error: out of memory\n");
        return EXIT_RUNTIME;
    }
    r->tokens = malloc(sizeof(int) * (size_t)B * T);
    r->targets = malloc(sizeof(int) * (size_t)B * T);
    r->mask = malloc(sizeof(float) * (size_t)B * T);
    /* config.ini and the checkpoint say which format the run used (true or false, never auto),
     * so a later change of a task's own default cannot change what a resume does. */
    Config stored = *c;
    stored.task_separator = task_has_separator(c) ? SEPARATOR_TRUE : SEPARATOR_FALSE;
    r->cfg_text = run_config_text(&stored, &r->task);
    if (!r->tokens || !r->targets || !r->mask || !r->cfg_text) {
        fprintf(stderr, "error: out of memory\n");
        return EXIT_RUNTIME;
    }
    return 0;
}

int train_check_steps(const Config *c, const char *checkpoint, long step, const char *where) {
    if (step <= c->steps) return 0;
    /* a --set on the line is what to change; a stored train.steps below the checkpoint's step
     * is a damaged checkpoint, named enough by its path */
    const char *origin = config_origin(c, "train.steps");
    char by[CONFIG_STR + 96] = "";
    if (strncmp(origin, "--set", 5) == 0)
        snprintf(by, sizeof by, " (set at %s); set it to %ld or more", origin, step);
    error_add(NULL, 0, where, "checkpoint '%s' is at step %ld, beyond train.steps = %d%s",
              checkpoint, step, c->steps, by);
    return -1;
}

/* A resume continues the folder's logs: one that is absent, or whose header is torn, missing or
 * not that of the rows r appends, is bad input, said at where before the lock and the manifest
 * are made (runlog_open_with would find it after, with the manifest made). Returns 0 or
 * EXIT_CONFIG. */
static int logs_to_resume(const TrainRun *r, const char *where) {
    const char *dir = r->dir, *missing = runlog_first_missing(dir);
    if (!missing)
        return runlog_check_headers(dir, &r->m, r->task.kind == TASK_TEXT, r->task.seq_len,
                                    where) != 0 ? EXIT_CONFIG : 0;
    error_add(NULL, 0, where,
              "'%s/%s' is missing: a resume continues each of the run's logs. Put it back (a "
              "copy of the folder keeps it), or train a new run; nothing was changed",
              dir, missing);
    return EXIT_CONFIG;
}

/* The parameters, optimizer state, data generator, step and counters of the checkpoint file;
 * RUN_FINISHED (a note printed, nothing touched) when it is of the finished run; errors at where.
 * Returns 0, RUN_FINISHED or EXIT_CONFIG. */
static int resume_from(TrainRun *r, const char *checkpoint, const char *where) {
    const Config *c = r->c;
    CheckpointState st;
    if (checkpoint_load(checkpoint, &r->m, &r->opt, &st) != 0) return EXIT_CONFIG;
    if (train_check_steps(c, checkpoint, st.step, where) != 0) return EXIT_CONFIG;
    /* finished: the final checkpoint and attention map were written; nothing is touched. But
     * an extension of it killed before its first checkpoint dropped the final rows from the
     * logs (its step trains on): without loss.csv's final row, the final step is done again */
    char map[sizeof r->dir + 16];
    snprintf(map, sizeof map, "%s/attn_map.csv", r->dir);
    if (st.step == c->steps && access(map, F_OK) == 0) {
        if (runlog_last_step(r->dir) == c->steps) {
            fprintf(stderr, "run '%s' has finished its %d steps: nothing to train, nothing "
                            "written (raise train.steps with --set to train on)\n",
                    SHOWN(c->run_name), c->steps);
            return RUN_FINISHED;
        }
        /* a log the resume cannot continue is refused before the note says it goes on */
        if (logs_to_resume(r, where) != 0) return EXIT_CONFIG;
        fprintf(stderr, "note: run '%s' has finished its %d steps, but loss.csv lacks its final "
                        "row (an extension stopped before its first checkpoint): the final "
                        "evaluation is done again\n",
                SHOWN(c->run_name), c->steps);
    }
    if (runlog_check_not_behind(r->dir, st.step, c->log_every, c->eval_every, where) != 0)
        return EXIT_CONFIG; /* logs a copy kept from before the checkpoint: rows would be missing */
    r->task.rng = st.data_rng;
    r->skipped = st.skipped;
    r->start_step = st.step;
    r->resumed_elapsed = st.elapsed_s;
    if (c->qk_clip > 0 && !st.clip_counts_kept)
        fprintf(stderr, "note: %s was written before checkpoints kept QK-clip's counts: "
                        "attention.csv's clipped_steps counts from step %ld, the resume step\n",
                SHOWN(checkpoint), st.step);
    return 0;
}

/* Creates the run folder and takes its lock, before anything in it is touched: a second
 * ./train there would mix two runs. Returns 0, EXIT_CONFIG (another process holds the lock) or
 * EXIT_RUNTIME, after an error at where. */
static int take_folder(TrainRun *r, const char *where) {
    pid_t holder = 0;
    if (make_dirs(r->dir) != 0 || (r->lock_fd = run_lock_take(r->dir, &holder)) == -1) {
        error_add(NULL, 0, where, "cannot create run folder '%s': %s", r->dir, strerror(errno));
        return EXIT_RUNTIME;
    }
    if (r->lock_fd == -2) {
        error_add(NULL, 0, where, "run folder '%s' is being trained by another process (pid %ld); "
                                  "wait for it, or set run.name for a run of its own",
                  r->dir, (long)holder);
        return EXIT_CONFIG;
    }
    return 0;
}

/* A new run in the folder of an earlier one: a note, and nothing of the earlier run may outlive
 * it (a stale checkpoint would later be resumed as if it belonged to this run's logs; a text
 * run's sample.txt would be shown by --compare as this run's; a sweep's marker, sweep_result.txt,
 * would make --collect report this run, of any configuration, as the plan's run finished).
 * Every file the manifest names goes but the sweep's train.log (RUN_NAMES: not ./train's), which
 * the run command began for this run; the logs and config.ini are written anew. */
static void clear_earlier_run(const char *dir, int owned) {
    char previous[PATH_MAX + 32];
    snprintf(previous, sizeof previous, "%s/loss.csv", dir);
    if (access(previous, F_OK) == 0)
        fprintf(stderr, "note: %s/ holds an earlier run; its logs and checkpoint are replaced "
                        "(set run.name to keep both)\n", SHOWN(dir));
    owned_dir_remove_stale(owned, RUN_NAMES, RUN_WRITER.n_names);
}

/* The run's folder into buf (n bytes): a resumed run's is its checkpoint's, whatever its
 * run.dir says (that is what the run records: `--resume .` keeps the run.dir the run was started
 * with, cmd_train.c); a new run's is run.dir/run.name. */
static void run_folder(const Config *c, const char *checkpoint, char *buf, size_t n) {
    if (!checkpoint) {
        snprintf(buf, n, "%s/%s", c->run_dir, c->run_name);
        return;
    }
    const char *slash = strrchr(checkpoint, '/');
    size_t len = slash ? (size_t)(slash - checkpoint) : 0;
    while (len > 1 && checkpoint[len - 1] == '/') len--; /* "runs/a/" + "/checkpoint.bin" */
    if (!slash) snprintf(buf, n, ".");
    else snprintf(buf, n, "%.*s", (int)(len ? len : 1), checkpoint); /* "/checkpoint.bin": "/" */
}

int run_build(TrainRun *r, const Config *c, const char *checkpoint, const RunPrint *checked) {
    memset(r, 0, sizeof *r); /* run_free of a run refused here frees nothing */
    r->lock_fd = -1;
    r->owned = -1;
    char dir[sizeof r->dir], where[CONFIG_STR + 64];
    run_folder(c, checkpoint, dir, sizeof dir);
    /* every error about the folder at the argument that named it (--resume's), else at the
     * key that did (a new run's run.name) */
    if (checked) snprintf(where, sizeof where, "%s", checked->what);
    else train_run_folder_place(c, dir, where, sizeof where);
    /* a resumed run's folder too: a file of the user's under a name the run writes */
    int rc = checkpoint ? owned_dir_check(dir, &RUN_WRITER, where) != 0 ? EXIT_CONFIG : 0
                        : train_run_folder_check(dir, where);
    if (rc == 0) rc = run_build_task_model_optimizer(r, c, c->batch_size, 0);
    memcpy(r->dir, dir, sizeof r->dir); /* after run_build_task_model_optimizer: it zeroes r */
    if (rc == 0) rc = init_and_allocate(r);
    if (rc == 0 && checkpoint) rc = resume_from(r, checkpoint, where);
    if (rc == 0 && checkpoint) rc = logs_to_resume(r, where);
    if (rc == 0) rc = take_folder(r, where);
    /* the checks (cmd_train.c) and resume_from read the folder before its lock was taken: what
     * the resume continues must be what they read (run_print.h) */
    if (rc == 0 && checked && run_print_verify(r->dir, checked) != 0) rc = EXIT_CONFIG;
    if (rc != 0) return rc;
    /* the folder is locked (take_folder): checked again and registered, so that every file
     * the run writes is claimed in its manifest (util/owned_dir.h) */
    r->owned = owned_dir_open(r->dir, &RUN_WRITER, OWNED_NO_LOCK, where);
    if (r->owned < 0) return r->owned == -2 ? EXIT_CONFIG : EXIT_RUNTIME;
    if (!checkpoint) clear_earlier_run(r->dir, r->owned);
    rc = runlog_open_with(&r->log, r->dir, &r->m, r->cfg_text, checkpoint ? r->start_step : -1,
                          r->task.kind == TASK_TEXT, r->task.seq_len);
    return rc == 0 ? 0 : rc == -2 ? EXIT_CONFIG : EXIT_RUNTIME; /* -2: a log is not a file */
}

void run_free(TrainRun *r) {
    runlog_close(&r->log);
    owned_dir_close(r->owned);
    if (r->lock_fd >= 0) close(r->lock_fd);
    guards_free(&r->guards);
    free(r->cfg_text);
    free(r->tokens);
    free(r->targets);
    free(r->mask);
    optim_free(&r->opt);
    model_free(&r->m);
    task_free(&r->task);
}

const char *train_run_folder_mark(const char *dir) {
    char path[PATH_MAX + 32];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", dir, OWNED_MANIFEST);
    if (lstat(path, &st) == 0) return OWNED_MANIFEST;
    /* by its magic: a PyTorch project's checkpoint.bin is no run of ours */
    if (run_file_reads_as_ours(dir, "checkpoint.bin")) return "checkpoint.bin";
    return config_ini_is_ours(dir) ? "config.ini" : NULL;
}

/* The folder's own files too: a new run reads a manifest as its list of files (and rewrites
 * it), takes its lock on .lock; a sweep's run appends to train.log. */
static const char *const FOLDER_NAMES[] = {OWNED_MANIFEST, RUN_LOCK_FILE, "train.log"};

int train_run_writes_name(const char *name) {
    for (size_t i = 0; i < sizeof FOLDER_NAMES / sizeof *FOLDER_NAMES; i++)
        if (strcmp(name, FOLDER_NAMES[i]) == 0) return 1;
    for (size_t i = 0; i < sizeof RUN_NAMES / sizeof *RUN_NAMES; i++)
        if (strcmp(name, RUN_NAMES[i]) == 0) return 1;
    return 0;
}

size_t train_run_name_max(void) {
    size_t longest = 0;
    for (size_t i = 0; i < sizeof FOLDER_NAMES / sizeof *FOLDER_NAMES; i++)
        if (strlen(FOLDER_NAMES[i]) > longest) longest = strlen(FOLDER_NAMES[i]);
    for (size_t i = 0; i < sizeof RUN_NAMES / sizeof *RUN_NAMES; i++)
        if (strlen(RUN_NAMES[i]) > longest) longest = strlen(RUN_NAMES[i]);
    return longest;
}
