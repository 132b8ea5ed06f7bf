/* lr_map_regime.c: the regime a config is in (lr_map_regime.h): each regime's settings from its
 * INI text, the config's differences from it (what cannot change the trained numbers aside), the
 * nearest regime when none holds it, the corpus note and the config's arm. lr_map.c judges the
 * placement. */
#include "train/lr_map_regime.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"
#include "train/corpus_match.h"
#include "train/resolved.h"
#include "util/error_list.h"

/* The value of section.key in a config_text text, into out ("" when absent). */
static void text_value(const char *text, const char *key, char *out, size_t n) {
    const char *dot = strchr(key, '.');
    out[0] = 0;
    if (!dot) return;
    char section[80];
    snprintf(section, sizeof section, "\n[%.*s]\n", (int)(dot - key), key);
    const char *s = strstr(text, section);
    if (!s) return;
    const char *end = strstr(s + 1, "\n[");
    size_t kl = strlen(dot + 1);
    for (const char *l = strchr(s + 1, '\n'); l && (!end || l < end); l = strchr(l + 1, '\n')) {
        if (strncmp(l + 1, dot + 1, kl) != 0 || strncmp(l + 1 + kl, " = ", 3) != 0) continue;
        const char *v = l + 1 + kl + 3;
        snprintf(out, n, "%.*s", (int)strcspn(v, "\n"), v);
        return;
    }
}

/* The keys that place a config on a regime's map rather than choose its arm. */
static int is_place_key(const char *key) {
    static const char *const keys[] = {"run.seed", "model.d_model", "model.n_heads", "optim.lr",
                                       "optim.min_lr"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (strcmp(key, keys[i]) == 0) return 1;
    return 0;
}

/* Calls fn(key, arg) for each axis of a regime; returns -1 when one does, else 0. */
static int each_axis(const char *axes, int (*fn)(const char *key, void *arg), void *arg) {
    for (const char *a = axes; *a;) {
        size_t l = strcspn(a, " ");
        char key[80];
        snprintf(key, sizeof key, "%.*s", (int)l, a);
        if (l && fn(key, arg) != 0) return -1;
        a += l + (a[l] == ' ');
    }
    return 0;
}

typedef struct {
    const char *text; /* config_text of the config */
    Config *ref;
    char *arm;        /* the arm being built, or NULL */
    size_t arm_len;
} AxisCopy;

/* An axis of the regime: the config's value into the regime's config (a value it may take), and
 * an arm key's "key=value" into the arm. */
static int copy_axis(const char *key, void *arg) {
    AxisCopy *a = arg;
    char value[300], set[400];
    text_value(a->text, key, value, sizeof value);
    if (!value[0]) return 0;
    snprintf(set, sizeof set, "%s=%s", key, value);
    if (a->ref && config_set(a->ref, set, 0) != 0) return -1;
    if (a->arm && !is_place_key(key)) {
        size_t used = strlen(a->arm);
        snprintf(a->arm + used, a->arm_len - used, "%s%s", used ? " " : "", set);
    }
    return 0;
}

/* The regime's own settings (its INI text) into ref. */
static int regime_settings(const LrMapRegime *reg, Config *ref) {
    config_defaults(ref);
    char name[120];
    snprintf(name, sizeof name, "the regime %s (lr_map_table.c)", reg->id);
    return config_load_text(ref, name, reg->ini, strlen(reg->ini));
}

/* The regime's config with c's own values on its axes and where they cannot change the trained
 * numbers or are not read (c's task, optimizer or init makes them unused): what is left differs
 * from c only where the regime does not cover c. c is resolved (lr_map_resolve). */
static int regime_config(const Config *c, const LrMapRegime *reg, const char *text, Config *ref) {
    if (regime_settings(reg, ref) != 0) return -1;
    AxisCopy a = {text, ref, NULL, 0};
    if (each_axis(reg->axes, copy_axis, &a) != 0) {
        error_add(NULL, 0, NULL, "the regime %s's axes cannot be copied (lr_map_table.c)", reg->id);
        return -1;
    }
    /* where the run is written, and what it logs or evaluates: not its numbers */
    memcpy(ref->run_name, c->run_name, sizeof ref->run_name);
    memcpy(ref->run_dir, c->run_dir, sizeof ref->run_dir);
    ref->threads = c->threads;
    ref->log_every = c->log_every;
    ref->progress = c->progress;
    ref->eval_every = c->eval_every;
    ref->checkpoint_every = c->checkpoint_every;
    /* keys the run does not read */
    if (c->task == ref->task && c->task == TASK_SORT) {
        ref->task_pairs = c->task_pairs;
        memcpy(ref->task_file, c->task_file, sizeof ref->task_file);
        ref->task_seq_len = c->task_seq_len;
        ref->val_fraction = c->val_fraction;
    }
    if (c->task == ref->task && c->task == TASK_TEXT) {
        /* the generated tasks' keys; and the corpus: the regime's title names the one its runs
         * read, and a config's own (a path, spelt its way) places it on the same map */
        ref->task_length = c->task_length;
        ref->task_pairs = c->task_pairs;
        ref->task_symbols = c->task_symbols;
        memcpy(ref->task_file, c->task_file, sizeof ref->task_file); /* any (note_corpus) */
    }
    if (c->optim == OPT_ADAMW) ref->momentum = c->momentum;
    if (c->init != INIT_GPT2) ref->init_std = c->init_std;
    if (c->scale_mode != SCALE_LEARNED) ref->scale_init = c->scale_init;
    /* model.param's: only where neither run reads them, so that the --set of a model.param
     * difference does not leave the regime's own base width or W_q factor unmatched */
    if (c->param != PARAM_MUP && ref->param != PARAM_MUP) ref->base_width = c->base_width;
    if (c->param == PARAM_MUP && ref->param == PARAM_MUP) ref->init_q_mult = c->init_q_mult;
    return 0;
}

/* A difference, and the --set that removes it (set: "key=value", or "" when none does). */
static void add_diff(LrPlacement *p, const char *text, const char *set) {
    if (p->n_diffs >= LR_MAP_MAX_DIFFS) {
        p->n_unlisted++;
        return;
    }
    snprintf(p->sets[p->n_diffs], sizeof p->sets[0], "%s", set);
    snprintf(p->diffs[p->n_diffs++], sizeof p->diffs[0], "%s", text);
}

/* Keys added after every published sweep was planned (their plan.txt files lack them), whose
 * default is what those sweeps trained: a config must have them at their default to be in any
 * regime, as if the regime's settings held them. */
static const char *const NEWER_KEYS[] = {"init.q_mult",     "init.k_mult",    "optim.lr_q_mult",
                                         "optim.lr_k_mult", "model.param",    "model.base_width",
                                         "attention.v_norm"};

/* Whether a regime's settings (its INI text) hold section.key, the keys a config must match:
 * NULL if not, else its value there as written, up to the line's end ("0" for a model.max_seq_len
 * the run resolves; "" for the NEWER_KEYS, which the INI lacks). */
static const char *regime_value(const char *ini, const char *section, const char *key,
                                size_t key_len) {
    char name[120], head[80], line[120];
    snprintf(name, sizeof name, "%s.%.*s", section, (int)key_len, key);
    for (size_t i = 0; i < sizeof NEWER_KEYS / sizeof NEWER_KEYS[0]; i++)
        if (strcmp(NEWER_KEYS[i], name) == 0) return "";
    snprintf(head, sizeof head, "[%s]\n", section);
    int n = snprintf(line, sizeof line, "\n%.*s = ", (int)key_len, key);
    const char *s = strstr(ini, head);
    if (!s) return NULL;
    const char *end = strstr(s + 1, "\n["), *hit = strstr(s, line);
    return hit && (!end || hit < end) ? hit + n : NULL;
}

/* The rules by which a run resolves a written value (train/resolved.h), as the difference line
 * says them after the regime's written value: "(the regime: 0, i.e. the task's length, here 32)":
 * "here", as the rule resolves at this config (its task), not at the regime's runs. */
static const struct {
    const char *key, *rule;
} RULES[] = {
    {"model.max_seq_len", "the task's length"},
    {"model.d_ff", "the block's default"},
    {"attention.window", "no window at the task's length"}, /* T keys or more: every key */
    {"task.separator", "the task's own format"},
};

/* The difference line of section.key (k, its length kl): "key = mine (the regime: its)", its the
 * value the regime writes; where a rule resolves that to another value (RULES), what the run
 * makes of it too, so that the line and its --set (the written value) tell one story. */
static void diff_line(char *line, size_t n, const char *section, const char *k, int kl,
                      const char *mine, const char *written, const char *resolved) {
    char name[120];
    snprintf(name, sizeof name, "%s.%.*s", section, kl, k);
    int wl = (int)strcspn(written, "\n");
    const char *rule = NULL;
    for (size_t i = 0; i < sizeof RULES / sizeof RULES[0]; i++)
        if (strcmp(RULES[i].key, name) == 0) rule = RULES[i].rule;
    if (rule && wl && ((int)strlen(resolved) != wl || strncmp(resolved, written, wl) != 0))
        snprintf(line, n, "%s = %s (the regime: %.*s, i.e. %s, here %s)", name, mine, wl, written,
                 rule, resolved);
    else
        snprintf(line, n, "%s = %s (the regime: %s)", name, mine, resolved);
}

/* Each "key = value" line of a that differs from b's (config_text of two configs) and that the
 * regime's settings hold, into p->diffs. */
static void text_diffs(char *a, char *b, const char *ini, LrPlacement *p) {
    char section[64] = "", line[200], set[200];
    char *sa = NULL, *sb = NULL;
    /* the two texts have the same lines, key for key (config_write), values aside */
    for (char *la = strtok_r(a, "\n", &sa), *lb = strtok_r(b, "\n", &sb); la && lb;
         la = strtok_r(NULL, "\n", &sa), lb = strtok_r(NULL, "\n", &sb)) {
        if (la[0] == '[') snprintf(section, sizeof section, "%.*s", (int)strcspn(la + 1, "]"), la + 1);
        if (la[0] == '[' || la[0] == ';' || strcmp(la, lb) == 0) continue;
        const char *va = strstr(la, " = "), *vb = strstr(lb, " = "), *written;
        if (!va || !vb || !(written = regime_value(ini, section, la, (size_t)(va - la)))) continue;
        diff_line(line, sizeof line, section, la, (int)(va - la), va + 3, written, vb + 3);
        /* the --set: the value as the regime's settings write it (a rule such as max_seq_len 0
         * stays a rule: resolved here it would contradict a changed seq_len), else as resolved */
        if (*written)
            snprintf(set, sizeof set, "%s.%.*s=%.*s", section, (int)(va - la), la,
                     (int)strcspn(written, "\n"), written);
        else
            snprintf(set, sizeof set, "%s.%.*s=%s", section, (int)(va - la), la, vb + 3);
        add_diff(p, line, set);
    }
}

/* What a run on sequences of T tokens uses where the config leaves it to a rule, so that a value
 * spelt otherwise is no difference: d_ff, max_seq_len, a window of T keys or more and
 * task.separator auto as the run resolves them (train/resolved.h), and a numeric attention.scale
 * equal (in double, exactly) to 1/sqrt(d_k) or to 1 as sqrt_dk or none, the factor the run
 * multiplies by (config_attention_scale). */
void lr_map_resolve(Config *x, int T) {
    train_resolve_config(x, T);
    if (x->scale_mode != SCALE_VALUE && x->scale_mode != SCALE_OVER_DK) return;
    int d_k = x->d_model / x->n_heads;
    double factor = config_attention_scale(x, d_k), inv_sqrt_dk = 1.0 / sqrt((double)d_k);
    if (factor == inv_sqrt_dk) x->scale_mode = SCALE_SQRT_DK;
    else if (factor == 1.0) x->scale_mode = SCALE_NONE;
    if (x->scale_mode == SCALE_SQRT_DK || x->scale_mode == SCALE_NONE) x->scale_value = 0;
}

/* model.d_ff, resolved (lr_map_resolve): both at their block's default width, no difference here (a
 * different block is named as model.block); else both as the widths the runs use. */
static void resolve_d_ff(Config *x, Config *ref) {
    int dx = model_default_d_ff(x->block == BLOCK_LLAMA ? MODEL_BLOCK_LLAMA : MODEL_BLOCK_GPT2,
                                x->d_model);
    int dr = model_default_d_ff(ref->block == BLOCK_LLAMA ? MODEL_BLOCK_LLAMA : MODEL_BLOCK_GPT2,
                                ref->d_model);
    int fx = x->d_ff > 0 ? x->d_ff : dx, fr = ref->d_ff > 0 ? ref->d_ff : dr;
    x->d_ff = fx == dx && fr == dr ? 0 : fx;
    ref->d_ff = fx == dx && fr == dr ? 0 : fr;
}

/* The settings in which the resolved config c (text: its config_text; T: its task's sequence
 * length) differs from regime r, into p->diffs (cleared first). Returns 0, or -1 after a
 * message. */
static int regime_diffs(const Config *c, const char *text, int T, int r, LrPlacement *p) {
    const LrMapRegime *reg = &lr_map_regimes[r];
    Config ref, x = *c;
    p->n_diffs = p->n_unlisted = 0;
    if (regime_config(c, reg, text, &ref) != 0) return -1;
    lr_map_resolve(&ref, T); /* the regime's task differs from c's only where a difference is named */
    resolve_d_ff(&x, &ref);
    char line[200];
    if (p->d_k != reg->d_k) {
        snprintf(line, sizeof line, "d_k = %d, model.d_model / model.n_heads (the regime: %d)",
                 p->d_k, reg->d_k);
        char set[40] = ""; /* the heads that give the regime's d_k at this d_model, if any do */
        if (p->d_model % reg->d_k == 0)
            snprintf(set, sizeof set, "model.n_heads=%d", p->d_model / reg->d_k);
        add_diff(p, line, set);
    }
    char *a = config_text(&x), *b = config_text(&ref);
    if (!a || !b) {
        free(a);
        free(b);
        fprintf(stderr, "error: out of memory placing the config in a regime\n");
        return -1;
    }
    text_diffs(a, b, reg->ini, p);
    free(a);
    free(b);
    /* min_lr is an axis, so the config's own value was copied above; where the runs tied it to
     * their lr, a config must follow the same rule (min_lr 0 is another schedule's tail) */
    double want = reg->min_lr_ratio * x.lr;
    if (reg->min_lr_ratio > 0 && !(fabs(x.min_lr - want) <= 1e-6 * want)) {
        /* 9 digits: the printed value is within the 1e-6 above, so pasting it lands */
        snprintf(line, sizeof line, "optim.min_lr = %.9g (the regime: optim.lr x %g = %.9g)",
                 x.min_lr, reg->min_lr_ratio, want);
        char set[40];
        snprintf(set, sizeof set, "optim.min_lr=%.9g", want);
        add_diff(p, line, set);
    }
    return 0;
}

/* How far a config is from a regime: its differences, a task of another kind counting more than
 * any number of settings (a text config is nearest the text regime). */
static int distance(const LrPlacement *p) {
    int d = p->n_diffs + p->n_unlisted;
    for (int i = 0; i < p->n_diffs; i++)
        if (strncmp(p->diffs[i], "task.name ", 10) == 0) d += 2 * LR_MAP_MAX_DIFFS;
    return d;
}

/* The regime c is in (p->regime), else the one it is nearest (p->nearest, distance), with the
 * differences from it. */
static int find_regime(const Config *c, const char *text, int T, LrPlacement *p) {
    int best = -1, best_d = 0;
    p->regime = p->nearest = -1;
    for (int r = 0; r < lr_map_n_regimes; r++) {
        if (regime_diffs(c, text, T, r, p) != 0) return -1;
        if (p->n_diffs == 0) {
            p->regime = r;
            return 0;
        }
        if (best < 0 || distance(p) < best_d) best = r, best_d = distance(p);
    }
    p->nearest = best;
    return best < 0 ? 0 : regime_diffs(c, text, T, best, p);
}

/* p->corpus and p->config_file when the text config c is in regime r but trains on another corpus
 * than r's runs, or on one that cannot be told from it (p->corpus_match, train/corpus_match.h;
 * corpus_base as lr_map_place's): their gap to the best run was measured on r's, not on c's. */
static int note_corpus(const Config *c, int r, const char *corpus_base, LrPlacement *p) {
    Config ref;
    if (c->task != TASK_TEXT) return 0;
    if (regime_settings(&lr_map_regimes[r], &ref) != 0) return -1;
    if (ref.task != TASK_TEXT) return 0;
    char here[PATH_MAX];
    const char *base = corpus_base ? corpus_base : corpus_map_base(here, sizeof here);
    p->corpus_match = corpus_match(c->task_file, ref.task_file, base);
    if (p->corpus_match == LR_CORPUS_SAME) return 0;
    /* named where it is: the same relative path from the current folder may be another file */
    if (ref.task_file[0] != '/' && base)
        snprintf(p->corpus, sizeof p->corpus, "%s/%s", base, ref.task_file);
    else if (ref.task_file[0] != '/') /* no checkout: no place to name (corpus_match: untold) */
        snprintf(p->corpus, sizeof p->corpus, "%s of the program's checkout, not found",
                 ref.task_file);
    else
        snprintf(p->corpus, sizeof p->corpus, "%s", ref.task_file);
    snprintf(p->config_file, sizeof p->config_file, "%s", c->task_file);
    return 0;
}

int lr_map_find_regime(const Config *c, const char *text, int T, const char *corpus_base,
                       LrPlacement *p) {
    int rc = find_regime(c, text, T, p);
    if (rc == 0 && p->regime >= 0) rc = note_corpus(c, p->regime, corpus_base, p);
    if (rc == 0 && p->regime >= 0) {
        AxisCopy a = {text, NULL, p->arm, sizeof p->arm};
        each_axis(lr_map_regimes[p->regime].axes, copy_axis, &a);
    }
    return rc;
}
