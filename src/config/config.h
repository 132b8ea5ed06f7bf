/* config.h: every setting of a run, its default, and the INI reader.
 *
 * A run is described by an INI file ([section], key = value, ';' or '#' comments, CRLF and a
 * UTF-8 byte-order mark accepted) plus any number of --set section.key=value overrides, applied
 * after the file. Every key has a default, so an empty file is a valid run. */
#ifndef SCALEDOT_CONFIG_H
#define SCALEDOT_CONFIG_H

#include <stddef.h>
#include <stdio.h>

#include "util/error_list.h"
#include "util/exit_codes.h"

#define CONFIG_STR 256
#define CONFIG_MAX_KEYS 64

/* SCALE_LEARNED: each head learns its factor, starting from attention.scale_init. SCALE_VALUE:
 * the number scale_value; SCALE_OVER_DK: scale_value / d_k, written "C/d_k" (μP's 1/d_k family,
 * Yang et al. 2022, Tensor Programs V; its 8/d_k equals 1/√d_k at d_k = 64). */
typedef enum {
    SCALE_SQRT_DK, SCALE_NONE, SCALE_INV_DK, SCALE_LEARNED, SCALE_VALUE, SCALE_OVER_DK
} ScaleMode;
/* The suffix of the C/d_k form of attention.scale ("8/d_k"): the parser, config_write and the
 * sweep's scale column spell it from here. */
#define CONFIG_SCALE_OVER_DK "/d_k"

typedef enum { QK_NORM_NONE, QK_NORM_LAYERNORM, QK_NORM_RMSNORM } QkNormKind;
/* model.block; the same numbers as model.h's MODEL_BLOCK_* */
typedef enum { BLOCK_GPT2, BLOCK_LLAMA } BlockKind;
/* model.matmul; the same numbers as model.h's MODEL_MATMUL_* */
typedef enum { MATMUL_FLOAT32, MATMUL_BF16 } MatmulKind;
/* model.param: the parametrisation (src/train/run_setup.c applies it). */
typedef enum { PARAM_STANDARD, PARAM_MUP } ParamKind;
/* attention.v_norm: a weightless RMSNorm on each head's v, or none. */
typedef enum { V_NORM_NONE, V_NORM_RMSNORM } VNormKind;
typedef enum { INIT_FAN_IN, INIT_GPT2 } InitScheme;
typedef enum { OPT_ADAMW, OPT_SGD } OptimKind;
typedef enum { SCHED_CONSTANT, SCHED_COSINE } SchedKind;
typedef enum { GUARD_WARN, GUARD_STOP } GuardAction;
typedef enum { DIVERGENCE_STOP, DIVERGENCE_SKIP } DivergenceAction;
/* TASK_TEXT: byte-level next-token language modelling on task.file (tasks/tasks.h). */
typedef enum { TASK_SORT, TASK_REVERSE, TASK_COPY, TASK_RECALL, TASK_FILE, TASK_TEXT } TaskKind;
/* task.separator: AUTO = the task's own format (a separator for sort, reverse, copy and file, none
 * for recall); TRUE and FALSE force it either way for those tasks. Text has no prompt and answer:
 * none, and TRUE is refused (config_validate). */
typedef enum { SEPARATOR_AUTO, SEPARATOR_TRUE, SEPARATOR_FALSE } SeparatorMode;

typedef struct {
    /* [run] */
    char run_name[CONFIG_STR];  /* run.name: folder name under run.dir */
    char run_dir[CONFIG_STR];   /* run.dir: parent folder of run folders */
    long seed;                  /* run.seed: seeds init, data and validation set */
    int threads;                /* run.threads: OpenMP threads, 0 = OpenMP's default */
    /* [task] */
    TaskKind task;              /* task.name: sort | reverse | copy | recall | file | text */
    int task_length;            /* task.length: symbols in the input of sort/reverse/copy */
    int task_pairs;             /* task.pairs: key-value pairs of recall */
    int task_symbols;           /* task.symbols: alphabet size of generated tasks */
    char task_file[CONFIG_STR]; /* task.file: a 'prompt | answer' file (file) or a text (text) */
    int task_seq_len;           /* task.seq_len: T, bytes per window of task.name = text */
    double val_fraction;        /* task.val_fraction: held-out tail of the text (task = text) */
    int val_size;               /* task.val_size: held-out validation examples */
    SeparatorMode task_separator; /* task.separator: auto | true | false */
    /* [model] */
    int d_model, n_heads, n_layers;
    int d_ff;                   /* model.d_ff: 0 = 4 * d_model (llama: model_default_d_ff) */
    int max_seq_len;            /* model.max_seq_len: 0 = the task's sequence length */
    double ln_eps;              /* model.ln_eps */
    BlockKind block;            /* model.block: gpt2 | llama */
    MatmulKind matmul;          /* model.matmul: float32 | bf16 */
    ParamKind param;            /* model.param: standard | mup */
    int base_width;             /* model.base_width: mup's base d_model (width multiplier 1) */
    /* [attention] */
    ScaleMode scale_mode;       /* attention.scale: sqrt_dk | none | inv_dk | learned | number |
                                 * C/d_k */
    double scale_value;         /* the number (SCALE_VALUE), or C (SCALE_OVER_DK) */
    QkNormKind qk_norm;         /* attention.qk_norm: none | layernorm | rmsnorm (each head's q, k) */
    VNormKind v_norm;           /* attention.v_norm: none | rmsnorm (each head's v, no weight) */
    double scale_init;          /* attention.scale_init: each head's factor at step 0 (learned) */
    double softcap;             /* attention.softcap: cap c of the logits, 0 = off */
    double qk_clip;             /* attention.qk_clip: QK-clip threshold tau, 0 = off */
    int window;                 /* attention.window: keys each query sees, 0 = all (causal) */
    /* [init] */
    InitScheme init;            /* init.scheme: fan_in | gpt2 */
    double init_std;            /* init.std: std of gpt2 init */
    double init_q_mult, init_k_mult; /* init.q_mult, init.k_mult: factors on W_q's, W_k's init */
    /* [optim] */
    OptimKind optim;            /* optim.name: adamw | sgd */
    double lr, beta1, beta2, eps, weight_decay, momentum;
    double grad_clip;           /* optim.grad_clip: max global norm, 0 = off */
    int warmup_steps;           /* optim.warmup_steps: linear warm-up from 0 */
    SchedKind schedule;         /* optim.schedule: constant | cosine */
    double min_lr;              /* optim.min_lr: floor of the cosine schedule */
    double lr_q_mult, lr_k_mult; /* optim.lr_q_mult, optim.lr_k_mult: factors on W_q's, W_k's lr */
    /* [train] */
    int steps, batch_size;
    int eval_every;             /* train.eval_every: steps between validation passes */
    int checkpoint_every;       /* train.checkpoint_every: 0 = only at the end */
    DivergenceAction on_divergence; /* train.on_divergence: stop | skip */
    /* [log] */
    int log_every;              /* log.every: steps between loss.csv / grad_norms.csv rows */
    int progress;               /* log.progress: 1 = progress lines on stderr */
    /* [guard]: forward-pass and gradient guards, 0 = off */
    double guard_logit_std_max, guard_max_weight_max, guard_grad_norm_min, guard_grad_norm_max;
    GuardAction guard_action;
    /* Where each key got its value ("FILE:LINE", "--set (argument N)", util/error_list.h's
     * error_place); indexed by the key's position in the key table (config/keys.c); empty =
     * default. A longer place keeps its end ("...ā/f.ini:12": the file and its line), cut after
     * a whole UTF-8 character. */
    char origin[CONFIG_MAX_KEYS][CONFIG_STR + 32];
    /* Where an error about each key sorts in an ErrorList: the number of the argument that set
     * it, 0 for a file or the default. */
    int origin_order[CONFIG_MAX_KEYS];
    /* and under it: the file's line that set it (0: not a file line) */
    long origin_line[CONFIG_MAX_KEYS];
    /* 1: c does not hold the value key i will have: a value given for it was refused (the
     * file's or a --set's; c keeps the one before), or a sweep's axis gives each run its own
     * (config_mark_unsure). config_validate leaves out each check that involves such a key: it
     * would judge a value the user did not give. The last member (CONFIG_SETTINGS_SIZE). */
    unsigned char unsure[CONFIG_MAX_KEYS];
} Config;

/* The bytes of a Config before its unsure marks: its values and their origins, which a refused
 * value leaves as they were. */
#define CONFIG_SETTINGS_SIZE offsetof(Config, unsure)

/* The errors config_load_file names of one file (and of the --set that follow it, when they go
 * to the same list); any more are counted, not named (util/error_list.h). */
#define CONFIG_MAX_ERRORS ERRORS_NAMED

/* A configuration error reported by the functions below exits with EXIT_CONFIG (2,
 * util/exit_codes.h): the message has been printed, the run must not start, and 2 tells scripts
 * "bad input" apart from a crash (1) or success (0). */

/* Fills every field with its default. The defaults are the texts of the key table run through the
 * same parser as the file, so what config_write_reference_table documents is what you get. */
void config_defaults(Config *c);

/* Reads an INI file into c, which should hold defaults (and may already hold an earlier file's
 * values). Reports every error of the file, not only the first, so that one run names every
 * typo (up to CONFIG_MAX_ERRORS; when the file has more, one line then says how many; the keys
 * under a bad section header are not read, their header's error stands for them): prints
 * "error: FILE:LINE: 'section.key': message" to stderr (or "error: FILE:LINE: message" when no
 * valid key is involved, e.g. an unknown section or a malformed line; "error: cannot open 'FILE':
 * reason" when the file is missing or unreadable; control bytes of the quoted text escaped,
 * util/error_list.h) and returns -1, leaving c unchanged. The caller should then exit with
 * EXIT_CONFIG. Rejects keys outside a section, unknown sections and keys (suggesting the nearest
 * valid one), a key given twice in the file, a section header given twice (naming both lines),
 * empty values, values of the wrong type, with trailing garbage, out of range, overflowing,
 * non-finite or longer than CONFIG_STR - 1, and text values holding a line break (CR or LF:
 * config_write could not write them back). Returns 0 on success. */
int config_load_file(Config *c, const char *path);

/* config_load_file with the errors added to errs (order 0: the file is read first) instead of
 * printed: the caller adds the --set errors and config_validate_to's to the same list, so one run
 * names them all, the file's first, under one cap (error_flush prints them). Unlike
 * config_load_file it keeps what the file gave when the file has errors, so that the checks
 * between keys can judge the good values: c then holds each value of the file that was good,
 * and each key the file gave a value that was not stored is marked unsure (a refused value, a
 * key given twice, a key under a section header given twice; every key when the file cannot be
 * read). Returns 0, or -1 when the file had an error. */
int config_load_file_to(Config *c, const char *path, ErrorList *errs);

/* config_load_file on text already in memory: text[0..len) is the file's content (need not be
 * NUL-terminated; a NUL byte in it is an error naming its line) and name stands for the path in
 * messages and origins ("NAME:LINE"). Same rules, messages and return value; c is unchanged on
 * error. config_load_file reads the file and calls this; the fuzz harnesses call it directly. */
int config_load_text(Config *c, const char *name, const char *text, size_t len);

/* Applies one "section.key=value" override (from --set, the argn-th command-line argument) with
 * the same value checks as the file; a later --set of the same key wins. The value is taken
 * literally (no comments), optionally in double quotes. On error prints
 * "error: --set (argument N): 'section.key': message" (or "error: --set (argument N): message"
 * when the text is not section.key=value or names no valid key) and returns -1 with c's settings
 * unchanged (CONFIG_SETTINGS_SIZE; a key of the table whose value was refused is marked unsure);
 * 0 on success (the key's unsure mark cleared: its value is the user's). */
int config_set(Config *c, const char *assignment, int argn);

/* config_set for a value that came from another option (the sweep's --grid, --dk, ...): the
 * same checks, with the error naming that option at its place (error_place: "--grid (argument
 * N): ..."; with argn 0, "--dk (default): ..."; with argn < 0, option is the whole place, a file
 * and line such as "plan.txt:12"), which is the key's origin too, added to errs with order argn
 * (0 when argn < 0; errs NULL: printed now). */
int config_set_as(Config *c, const char *assignment, const char *option, int argn,
                  ErrorList *errs);

/* True when assignment, read as config_set reads it ("section.key=value", spaces around the names
 * allowed), names key ("section.key"); false for any other key or text that is not an
 * assignment. For callers that must refuse some keys before config_set applies them. */
int config_assignment_sets(const char *assignment, const char *key);

/* The key that assignment names as config_set reads it: "section.key", the blanks around the
 * names and the dot dropped (" optim . lr = 1" names "optim.lr"), into key[0..n), whether or not
 * the table has it. Returns 0, or -1 when the text is no assignment or the key does not fit. */
int config_assignment_key(const char *assignment, char *key, size_t n);

/* True when assignments a and b name the same key as config_set reads them
 * (config_assignment_key's rule, keys of any length): a --set given twice. */
int config_same_key(const char *a, const char *b);

/* The keys a resume may change ("train.steps", "run.threads", "log.progress"; NULL after the
 * last): they cannot change the numbers already logged. --resume --set accepts only these, and a
 * run folder's config.ini may differ from its checkpoint only in these (and run.dir, run.name). */
extern const char *const config_resumable_keys[];

/* What is wrong with s as a run.name (it names a folder: letters, digits, '.', '_' and '-', not
 * empty, not '.' or '..'), as the config's error says it; NULL when s is a legal run.name. */
const char *config_run_name_problem(const char *s);

/* Cross-key checks once everything is read: model.d_model divisible by model.n_heads, an even d_k
 * for model.block = llama, a non-empty task.file when task.name = file or text (and none for the
 * other tasks), no task.separator = true for text, optim.min_lr <= optim.lr under the cosine
 * schedule, attention.scale_init only with a learned scale, attention.qk_clip not with qk_norm.
 * Each message starts with where the offending key was set ("error: FILE:LINE: ...") and names
 * where the other key came from. A check that involves a key marked unsure is left out.
 * Task-dependent checks (sequence length vs max_seq_len, file readable) are done by the task
 * module. Prints every violation; returns -1 if there was any, else 0. */
int config_validate(const Config *c);

/* config_validate with each message added to errs instead of printed, sorted by the argument of
 * the key it starts with (Config.origin_order: 0 for the file), a file's by its line
 * (Config.origin_line), so that it is named with the file's and the --set's errors of the same
 * command line, in argument order and line order. */
int config_validate_to(const Config *c, ErrorList *errs);

/* config_validate (config_validate_to) for a configuration this program stored earlier: a
 * checkpoint's, a sweep's plan.txt, a run's config.ini read back to resume, evaluate, export,
 * collect or run a planned job. It leaves out the checks of keys the run does not read
 * (model.base_width under model.param = standard, init.q_mult under mup), which came after those
 * keys: a run stored with them trained as if they were at their defaults, and refusing it now
 * would leave a finished run that cannot be read, resumed or exported. */
int config_validate_stored(const Config *c);
int config_validate_stored_to(const Config *c, ErrorList *errs);

/* Marks key section_key ("model.d_model") unsure: config_validate leaves out the checks that
 * involve it (a sweep's base config, whose axes give each run its own value). Returns 0, or -1
 * for a name that is not in the key table. */
int config_mark_unsure(Config *c, const char *section_key);

/* Writes every section and key, defaults included, each key preceded by a "; help" line, as an
 * INI file that config_load_file reads back into an identical Config (doubles use %.17g, strings
 * are quoted). Write errors are left for the caller to detect with ferror(f). */
void config_write(const Config *c, FILE *f);

/* config_write into a malloc'd string (the caller frees it), or NULL when memory runs out. */
char *config_text(const Config *c);

/* Where a key got its value, for error messages from later checks: "FILE:LINE",
 * "--set (argument N)" or "default". The string lives in c (or is a literal) and stays valid while
 * c is unchanged. Returns "(unknown key)" for a name that is not in the key table, so a typo in a
 * caller shows up in its message instead of crashing. */
const char *config_origin(const Config *c, const char *section_key);

/* The one reader of a number given as text (a config value, a command-line option): a finite
 * decimal number, the whole of s (strtod's hexadecimal "0x10" and "inf" / "nan" refused, and a
 * value that underflows). Returns 0, or -1 with the reason in msg[0..n) ("expected a decimal
 * number, got '0x10'"); range checks are the caller's. */
int config_parse_number(const char *s, double *out, char *msg, size_t n);

/* The number multiplying q·k for head size d_k (> 0) under this config: 1/sqrt(d_k) for sqrt_dk,
 * 1 for none, 1/d_k for inv_dk, C/d_k for the form "C/d_k", the configured number otherwise
 * (learned: attention.scale_init, the factor at step 0). */
double config_attention_scale(const Config *c, int d_k);

/* The name of task kind k as task.name spells it (sort, ..., text); NULL for a value that is no
 * TaskKind. */
const char *config_task_name(TaskKind k);

/* The name of a named attention.scale mode as the key table spells it (sqrt_dk, none, inv_dk);
 * NULL for SCALE_VALUE, written as its number, and SCALE_OVER_DK, written as "C/d_k". */
const char *config_scale_name(ScaleMode m);

/* The names of config_scale_name in ScaleMode order joined by sep (", " gives
 * "sqrt_dk, none, inv_dk"), into buf (n bytes; cut to fit, always NUL-terminated when n > 0). */
void config_scale_names(char *buf, size_t n, const char *sep);

/* config_scale_names without learned: the fixed factors, "sqrt_dk,none,inv_dk" with sep ",",
 * the sweep's default --scales (a learned scale starts at one of them and is its own question). */
void config_fixed_scale_names(char *buf, size_t n, const char *sep);

/* ---- The key table, for documentation and tools ---- */

/* One key as the table describes it. All strings are literals owned by config/keys.c. */
typedef struct {
    const char *section;      /* "model" */
    const char *key;          /* "d_model" */
    const char *default_text; /* the default as it would be written in the file: "64", "" */
    const char *help;         /* one-line meaning */
} ConfigKeyInfo;

/* Number of keys; valid indices are 0 .. count-1, the same indices as Config.origin[]. */
int config_key_count(void);

/* Fills *info for key number index (table order: grouped by section, as config_write prints
 * them). Returns 0, or -1 when index is out of range (info untouched). */
int config_key_info(int index, ConfigKeyInfo *info);

/* Index of "section.key" in the table, or -1 if there is no such key. */
int config_key_index(const char *section_key);

/* Prints the Markdown reference table "| key | default | meaning |" with one row per key in table
 * order; the meaning includes the allowed values, derived from the same table the parser uses so
 * documentation (docs/configuration.md) and behaviour cannot drift apart. */
void config_write_reference_table(FILE *f);

/* The first line config_write writes (how a sweep tells a run config it wrote from a user's). */
#define CONFIG_FILE_FIRST_LINE "; scaledot configuration: every key, defaults included"

#endif
