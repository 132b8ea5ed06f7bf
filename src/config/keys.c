/* keys.c: the table of every configuration key (section, name, type, field, default, range,
 * accepted names, help) and what is read straight off it: lookups, the number of attention.scale
 * (value.c's config_defaults reads the defaults through it). First stop of the pipeline (config
 * -> task -> model -> optimizer -> training loop -> logs -> report); ini.c and set.c parse into
 * the fields this table names.
 *
 * Everything about a key lives in one row of cfg_keys, so the parser, config_write, the
 * defaults and the reference table (docs/configuration.md) cannot disagree. */
#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "config/config_internal.h"

/* offsetof plus a compile-time check that the field has the size the key type stores through
 * (catches an enum or long field declared with the wrong key type). */
#define FIELD(f, size) \
    (offsetof(Config, f) + 0 * sizeof(char[sizeof(((Config *)0)->f) == (size) ? 1 : -1]))

#define KEY_INT(sec, k, f, d, lo, hi, h) \
    { .section = sec, .key = k, .type = T_INT, .offset = FIELD(f, sizeof(int)), .def = d, \
      .imin = lo, .imax = hi, .help = h }
#define KEY_LONG(sec, k, f, d, lo, hi, h) \
    { .section = sec, .key = k, .type = T_LONG, .offset = FIELD(f, sizeof(long)), .def = d, \
      .imin = lo, .imax = hi, .help = h }
#define KEY_DBL(sec, k, f, d, lo, lo_open, hi, hi_open, h) \
    { .section = sec, .key = k, .type = T_DOUBLE, .offset = FIELD(f, sizeof(double)), .def = d, \
      .dmin = lo, .dmin_open = lo_open, .dmax = hi, .dmax_open = hi_open, .help = h }
/* A per-tensor multiplier (init.q_mult, optim.lr_q_mult, ...): default 1, a number in (0, 1e6]. */
#define KEY_MULT(sec, k, f, h) KEY_DBL(sec, k, f, "1", 0.0, true, 1e6, false, h)
#define KEY_STR(sec, k, f, d, chk, h) \
    { .section = sec, .key = k, .type = T_STR, .offset = FIELD(f, CONFIG_STR), .def = d, \
      .check = chk, .help = h }
#define KEY_ENUM(sec, k, f, d, nm, h) \
    { .section = sec, .key = k, .type = T_ENUM, .offset = FIELD(f, sizeof(int)), .def = d, \
      .names = nm, .help = h }

/* Indexed by TaskKind (config_task_name). */
static const char *const TASK_NAMES[] = {"sort", "reverse", "copy", "recall", "file", "text",
                                           NULL};
_Static_assert(sizeof TASK_NAMES / sizeof *TASK_NAMES == TASK_TEXT + 2,
               "TASK_NAMES: one name per TaskKind, then NULL");
static const char *const QK_NORM_NAMES[] = {"none", "layernorm", "rmsnorm", NULL};
static const char *const BLOCK_NAMES[] = {"gpt2", "llama", NULL}; /* indexed by BlockKind */
static const char *const MATMUL_NAMES[] = {"float32", "bf16", NULL}; /* indexed by MatmulKind */
static const char *const PARAM_NAMES[] = {"standard", "mup", NULL}; /* indexed by ParamKind */
static const char *const V_NORM_NAMES[] = {"none", "rmsnorm", NULL}; /* indexed by VNormKind */
static const char *const INIT_NAMES[] = {"fan_in", "gpt2", NULL};
static const char *const OPTIM_NAMES[] = {"adamw", "sgd", NULL};
static const char *const SCHED_NAMES[] = {"constant", "cosine", NULL};
static const char *const GUARD_NAMES[] = {"warn", "stop", NULL};
static const char *const DIVERGENCE_NAMES[] = {"stop", "skip", NULL};
/* Indexed by SeparatorMode. */
static const char *const SEPARATOR_NAMES[] = {"auto", "true", "false", NULL};
/* Indexed by ScaleMode; SCALE_VALUE and SCALE_OVER_DK have no name, they are written as the
 * number and as "C/d_k" (CONFIG_SCALE_OVER_DK). The one spelling
 * of these names: the parser, config_write, the sweep (config_scale_name, config_scale_names)
 * and its usage text read them from here. */
static const char *const SCALE_NAMES[] = {"sqrt_dk", "none", "inv_dk", "learned", NULL};
_Static_assert(sizeof SCALE_NAMES / sizeof *SCALE_NAMES == SCALE_VALUE + 1,
               "SCALE_NAMES: one name per named ScaleMode, then NULL");

static const char *check_nonempty(const char *s);

const KeySpec cfg_keys[] = {
    KEY_STR("run", "name", run_name, "run", config_run_name_problem,
            "Folder name of this run under run.dir; letters, digits, '.', '_' and '-' only"),
    KEY_STR("run", "dir", run_dir, "runs", check_nonempty, "Parent folder of the run folders"),
    KEY_LONG("run", "seed", seed, "1", 0, LONG_MAX,
             "Seeds the initialisation, the training data and the validation set"),
    KEY_INT("run", "threads", threads, "0", 0, 256, "OpenMP threads; 0 = OpenMP's default"),

    KEY_ENUM("task", "name", task, "recall", TASK_NAMES, "Which task to learn"),
    KEY_INT("task", "length", task_length, "8", 1, 256,
            "Symbols in the input of sort, reverse and copy"),
    KEY_INT("task", "pairs", task_pairs, "8", 1, 128, "Key-value pairs shown in recall"),
    KEY_INT("task", "symbols", task_symbols, "16", 2, 4096, "Alphabet size of the generated tasks"),
    KEY_STR("task", "file", task_file, "", NULL,
            "Path of a 'prompt | answer' file (task.name = file) or of a text (task.name = text)"),
    KEY_INT("task", "seq_len", task_seq_len, "64", 1, 8192,
            "task.name = text only: bytes per training and validation window (T); the "
            "vocabulary is all 256 byte values, with no SEP or PAD token (every window is full)"),
    KEY_DBL("task", "val_fraction", val_fraction, "0.1", 0.0, true, 0.9, false,
            "task.name = text only: the fraction of the file held out as its contiguous tail for "
            "validation; training windows never overlap it"),
    KEY_INT("task", "val_size", val_size, "512", 1, 1000000, "Held-out validation examples"),
    KEY_ENUM("task", "separator", task_separator, "auto", SEPARATOR_NAMES,
             "A separator token between prompt and answer: auto = the task's own (sort, reverse, "
             "copy, file: true; recall: false, the answer is predicted at the query key; text: "
             "none, it has no prompt and answer, and true is refused), true, false"),

    KEY_INT("model", "d_model", d_model, "64", 1, 8192, "Width of the residual stream"),
    KEY_INT("model", "n_heads", n_heads, "1", 1, 1024,
            "Attention heads per layer; must divide model.d_model"),
    KEY_INT("model", "n_layers", n_layers, "2", 1, 64, "Transformer blocks"),
    KEY_INT("model", "d_ff", d_ff, "0", 0, 65536,
            "Hidden width of the MLP; 0 = 4 * model.d_model (llama: 8/3 * model.d_model rounded "
            "up to a multiple of 8)"),
    KEY_INT("model", "max_seq_len", max_seq_len, "0", 0, 8192,
            "Positions with a learned embedding (llama: with a rotary angle); 0 = the task's "
            "sequence length"),
    KEY_DBL("model", "ln_eps", ln_eps, "1e-5", 0.0, true, 1.0, true,
            "Epsilon added to the variance in layer norm"),
    KEY_ENUM("model", "block", block, "gpt2", BLOCK_NAMES,
             "Transformer block: gpt2 = pre-LayerNorm GPT-2 (learned positions, GELU MLP, "
             "biases); llama = RMSNorm, rotary q and k (RoPE), SwiGLU MLP, no biases, as LLaMA "
             "(docs/llama_block.md)"),
    KEY_ENUM("model", "matmul", matmul, "float32", MATMUL_NAMES,
             "Precision of the linear layers' products (forward and backward): float32; bf16 = "
             "inputs rounded to bfloat16 (nearest even), products summed in float32, as PyTorch's "
             "bf16 autocast; parameters, optimizer, norms, attention and loss stay float32 "
             "(docs/performance.md)"),
    KEY_ENUM("model", "param", param, "standard", PARAM_NAMES,
             "Parametrisation: standard, or mup = muP for Adam (Yang et al. 2022, Tensor Programs "
             "V, Table 3; microsoft/mup's MuReadout and MuAdamW) with width multiplier m = "
             "model.d_model / model.base_width: the hidden weight matrices (every block's 2-D "
             "tensor) learn at optim.lr / m, the logits are multiplied by 1/m and head.weight's "
             "init by sqrt(m), W_q (and its bias) starts at 0; embeddings, norms and biases keep "
             "optim.lr, attention.scale is not changed (docs/configuration.md)"),
    KEY_INT("model", "base_width", base_width, "128", 1, 8192,
            "model.param = mup only (standard does not read it: refused there unless at its "
            "default): the d_model at which mup equals standard but for W_q's zero init (width "
            "multiplier 1)"),

    {.section = "attention", .key = "scale", .type = T_SCALE,
     .offset = FIELD(scale_mode, sizeof(int)), .def = "sqrt_dk", .names = SCALE_NAMES,
     .help = "Factor on q.k: sqrt_dk = 1/sqrt(d_k), none = 1, inv_dk = 1/d_k, learned = a factor "
             "per head, exp(attn.log_scale), learned from attention.scale_init (Henry et al. "
             "2020), C/d_k = C divided by d_k (muP's 8/d_k, Yang et al. 2022, equals 1/sqrt(d_k) "
             "at d_k = 64), or a number in [1e-6, 1e6]"},
    KEY_DBL("attention", "scale_init", scale_init, "1", 1e-6, false, 1e6, false,
            "attention.scale = learned only: every head's factor on q.k at step 0; 1 = starts "
            "unscaled"),
    KEY_ENUM("attention", "qk_norm", qk_norm, "none", QK_NORM_NAMES,
             "A norm on each head's q and k before q.k: layernorm (weight and bias [d_k] shared "
             "by the heads; Dehghani et al. 2023) or rmsnorm (weight only; OLMo 2, Qwen3, Gemma "
             "3); the scale still multiplies q.k"),
    KEY_ENUM("attention", "v_norm", v_norm, "none", V_NORM_NAMES,
             "A weightless RMSNorm on each head's v before the attention mixes it: v / "
             "sqrt(mean(v^2) + model.ln_eps) over d_k (Gemma 4); none = v as the projection "
             "makes it"),
    KEY_DBL("attention", "softcap", softcap, "0", 0.0, false, 1e6, false,
            "Logit soft-capping: s = c*tanh(s/c) after the scale, before the mask (Gemma 2 uses "
            "50); 0 = off"),
    KEY_DBL("attention", "qk_clip", qk_clip, "0", 0.0, false, 1e6, false,
            "QK-clip: after each update, a head whose largest logit of the step exceeded this "
            "has its q and k weights scaled by sqrt(qk_clip / largest) (Kimi K2 uses 100); 0 = "
            "off"),
    KEY_INT("attention", "window", window, "0", 0, 65536,
            "Sliding-window attention: each query sees only its last window keys (itself "
            "included; Child et al. 2019, Beltagy et al. 2020); 0 = every earlier key, and so is a "
            "window of T keys or more (T: the task's sequence length): the same run as 0"),

    KEY_ENUM("init", "scheme", init, "fan_in", INIT_NAMES,
             "Weight initialisation: fan_in = N(0, 1/fan_in), gpt2 = N(0, init.std^2) with scaled "
             "residual projections"),
    KEY_DBL("init", "std", init_std, "0.02", 0.0, true, 10.0, false,
            "Standard deviation of the gpt2 initialisation"),
    KEY_MULT("init", "q_mult", init_q_mult,
             "Factor on the initial W_q, the query rows of attn.qkv.weight (and bias), after "
             "either scheme has drawn them; c here and in optim.lr_q_mult trains as "
             "attention.scale times c under AdamW with eps -> 0 and no clipping "
             "(docs/findings.md); model.param = mup starts W_q at 0, so there it is refused "
             "unless 1"),
    KEY_MULT("init", "k_mult", init_k_mult,
             "Factor on the initial W_k, the key rows of attn.qkv.weight (and bias), as "
             "init.q_mult; model.param = mup draws W_k as standard does, so it acts there too"),

    KEY_ENUM("optim", "name", optim, "adamw", OPTIM_NAMES, "Optimiser"),
    KEY_DBL("optim", "lr", lr, "1e-3", 0.0, true, 10.0, false, "Peak learning rate"),
    KEY_DBL("optim", "beta1", beta1, "0.9", 0.0, false, 1.0, true, "AdamW first-moment decay"),
    KEY_DBL("optim", "beta2", beta2, "0.999", 0.0, false, 1.0, true, "AdamW second-moment decay"),
    KEY_DBL("optim", "eps", eps, "1e-8", 0.0, true, INFINITY, false, "AdamW denominator epsilon"),
    KEY_DBL("optim", "weight_decay", weight_decay, "0", 0.0, false, 10.0, false,
            "Decoupled weight decay on weight matrices and embeddings (AdamW and SGD)"),
    KEY_DBL("optim", "momentum", momentum, "0.9", 0.0, false, 1.0, true, "SGD momentum"),
    KEY_DBL("optim", "grad_clip", grad_clip, "0", 0.0, false, INFINITY, false,
            "Clip the global gradient norm to this; 0 = off"),
    KEY_INT("optim", "warmup_steps", warmup_steps, "0", 0, INT_MAX,
            "Steps of linear warm-up from 0 to optim.lr"),
    KEY_ENUM("optim", "schedule", schedule, "constant", SCHED_NAMES,
             "Learning rate after warm-up: constant, or cosine decay to optim.min_lr"),
    KEY_DBL("optim", "min_lr", min_lr, "0", 0.0, false, INFINITY, false,
            "Final learning rate of the cosine schedule"),
    KEY_MULT("optim", "lr_q_mult", lr_q_mult,
             "Factor on the learning rate of W_q, the query rows of attn.qkv.weight (and bias), "
             "at every step of the schedule; the decoupled weight decay stays lr*weight_decay, "
             "not multiplied"),
    KEY_MULT("optim", "lr_k_mult", lr_k_mult,
             "Factor on the learning rate of W_k, the key rows of attn.qkv.weight (and bias), as "
             "optim.lr_q_mult"),

    KEY_INT("train", "steps", steps, "2000", 0, 100000000, "Optimiser steps"),
    KEY_INT("train", "batch_size", batch_size, "64", 1, 65536, "Examples per step"),
    KEY_INT("train", "eval_every", eval_every, "100", 1, INT_MAX,
            "Steps between validation passes"),
    KEY_INT("train", "checkpoint_every", checkpoint_every, "500", 0, INT_MAX,
            "Steps between checkpoints (runs/<name>/checkpoint.bin); 0 = only at the end"),
    KEY_ENUM("train", "on_divergence", on_divergence, "stop", DIVERGENCE_NAMES,
             "Non-finite loss or gradient: stop (exit code 3) or skip the update and go on"),

    KEY_INT("log", "every", log_every, "10", 1, INT_MAX,
            "Steps between rows of loss.csv and grad_norms.csv"),
    KEY_INT("log", "progress", progress, "1", 0, 1, "1 = progress lines on stderr"),

    KEY_DBL("guard", "logit_std_max", guard_logit_std_max, "0", 0.0, false, INFINITY, false,
            "Trip when a head's attention-logit std exceeds this; 0 = off"),
    KEY_DBL("guard", "max_weight_max", guard_max_weight_max, "0", 0.0, false, 1.0, false,
            "Trip when a head's mean row-maximum attention weight exceeds this; 0 = off"),
    KEY_DBL("guard", "grad_norm_min", guard_grad_norm_min, "0", 0.0, false, INFINITY, false,
            "Trip when the global gradient norm falls below this; 0 = off"),
    KEY_DBL("guard", "grad_norm_max", guard_grad_norm_max, "0", 0.0, false, INFINITY, false,
            "Trip when the global gradient norm rises above this; 0 = off"),
    KEY_ENUM("guard", "action", guard_action, "warn", GUARD_NAMES,
             "What a tripped guard does: warn (one line on stderr) or stop (exit code 4)"),
};

enum { N_KEYS = (int)(sizeof cfg_keys / sizeof cfg_keys[0]) };
_Static_assert(N_KEYS <= CONFIG_MAX_KEYS, "raise CONFIG_MAX_KEYS");

static const char *check_nonempty(const char *s) { return *s ? NULL : "must not be empty"; }

const char *config_run_name_problem(const char *s) {
    if (!*s) return "must not be empty";
    for (const char *p = s; *p; p++)
        if (!isalnum((unsigned char)*p) && *p != '.' && *p != '_' && *p != '-')
            return "may only contain letters, digits, '.', '_' and '-' (it names a folder)";
    if (!strcmp(s, ".") || !strcmp(s, "..")) return "must not be '.' or '..' (it names a folder)";
    return NULL;
}

/* ---------------------------------------------------------------- table lookups */

int cfg_find_key(const char *section, const char *key) {
    for (int i = 0; i < N_KEYS; i++)
        if (!strcmp(cfg_keys[i].section, section) && !strcmp(cfg_keys[i].key, key)) return i;
    return -1;
}

bool cfg_section_exists(const char *section) {
    for (int i = 0; i < N_KEYS; i++)
        if (!strcmp(cfg_keys[i].section, section)) return true;
    return false;
}

double config_attention_scale(const Config *c, int d_k) {
    switch (c->scale_mode) {
    case SCALE_SQRT_DK: return 1.0 / sqrt((double)d_k);
    case SCALE_NONE: return 1.0;
    case SCALE_INV_DK: return 1.0 / (double)d_k;
    case SCALE_LEARNED: return c->scale_init; /* the factor at step 0 */
    case SCALE_VALUE: return c->scale_value;
    case SCALE_OVER_DK: return c->scale_value / (double)d_k;
    }
    return 1.0 / sqrt((double)d_k);
}

const char *config_task_name(TaskKind k) {
    return (unsigned)k <= (unsigned)TASK_TEXT ? TASK_NAMES[k] : NULL;
}

const char *config_scale_name(ScaleMode m) {
    return (unsigned)m < (unsigned)SCALE_VALUE ? SCALE_NAMES[m] : NULL;
}

static void join_scale_names(char *buf, size_t n, const char *sep, int fixed_only) {
    size_t len = 0;
    if (n) buf[0] = '\0';
    for (int i = 0, k = 0; SCALE_NAMES[i] && len < n; i++)
        if (!fixed_only || i != SCALE_LEARNED)
            len += (size_t)snprintf(buf + len, n - len, "%s%s", k++ ? sep : "", SCALE_NAMES[i]);
}

void config_scale_names(char *buf, size_t n, const char *sep) { join_scale_names(buf, n, sep, 0); }

void config_fixed_scale_names(char *buf, size_t n, const char *sep) {
    join_scale_names(buf, n, sep, 1);
}

/* ---------------------------------------------------------------- public: key table access */

int config_key_count(void) { return N_KEYS; }

int config_key_info(int index, ConfigKeyInfo *info) {
    if (index < 0 || index >= N_KEYS) return -1;
    info->section = cfg_keys[index].section;
    info->key = cfg_keys[index].key;
    info->default_text = cfg_keys[index].def;
    info->help = cfg_keys[index].help;
    return 0;
}

int config_key_index(const char *section_key) {
    const char *dot = strchr(section_key, '.');
    if (!dot) return -1;
    size_t n = (size_t)(dot - section_key);
    for (int i = 0; i < N_KEYS; i++)
        if (strlen(cfg_keys[i].section) == n && !strncmp(cfg_keys[i].section, section_key, n) &&
            !strcmp(cfg_keys[i].key, dot + 1))
            return i;
    return -1;
}

const int cfg_n_keys = N_KEYS;
