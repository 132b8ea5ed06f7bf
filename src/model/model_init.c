/* model_init.c: the init schemes (fan_in, GPT-2's), the W_q and W_k init multipliers, μP's init
 * (model.h), all walking the tensor table model.c builds, and the step-0 logit std they predict
 * (the control variable of the diagnostics). */
#include <math.h>
#include <string.h>

#include "model/model.h"
#include "model/model_internal.h"

static void fill_normal(real *x, size_t n, Rng *rng, double std) {
    for (size_t i = 0; i < n; i++) x[i] = (real)(std * rng_normal(rng));
}

static void fill_const(real *x, size_t n, real v) {
    for (size_t i = 0; i < n; i++) x[i] = v;
}

static int ends_with(const char *s, const char *suffix) {
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* Shared walk over the table: std_of returns the std of a 2-D tensor. */
static void init_walk(Model *m, Rng *rng,
                      double (*std_of)(const ModelConfig *, const TensorInfo *, double), double arg) {
    for (int i = 0; i < m->n_tensors; i++) {
        const TensorInfo *t = &m->tensors[i];
        real *x = m->params + t->offset;
        if (t->ndim == 2)
            fill_normal(x, t->numel, rng, std_of(&m->cfg, t, arg));
        else if (ends_with(t->name, "ln1.weight") || ends_with(t->name, "ln2.weight") ||
                 ends_with(t->name, "q_norm.weight") || ends_with(t->name, "k_norm.weight") ||
                 strcmp(t->name, "ln_f.weight") == 0)
            fill_const(x, t->numel, R(1.0));
        else if (ends_with(t->name, "attn.log_scale")) /* every head starts at cfg.scale */
            fill_const(x, t->numel, (real)log((double)m->cfg.scale));
        else
            fill_const(x, t->numel, R(0.0));
    }
}

static int is_embedding(const TensorInfo *t) {
    return strcmp(t->name, "tok_emb") == 0 || strcmp(t->name, "pos_emb") == 0;
}

static double fan_in_std(const ModelConfig *cfg, const TensorInfo *t, double unused) {
    (void)cfg;
    (void)unused;
    return is_embedding(t) ? 1.0 : 1.0 / sqrt((double)t->shape[1]);
}

static double gpt2_std(const ModelConfig *cfg, const TensorInfo *t, double std) {
    if (ends_with(t->name, "attn.proj.weight") || ends_with(t->name, "mlp.proj.weight") ||
        ends_with(t->name, "mlp.down.weight"))
        return std / sqrt(2.0 * cfg->n_layers);
    return std;
}

void model_init_fan_in(Model *m, Rng *rng) { init_walk(m, rng, fan_in_std, 0); }

void model_init_gpt2(Model *m, Rng *rng, double std) { init_walk(m, rng, gpt2_std, std); }

void model_scale_qk(Model *m, double q_mult, double k_mult) {
    for (int i = 0; i < m->n_tensors; i++) {
        const TensorInfo *t = &m->tensors[i];
        if (!t->qkv_thirds) continue;
        size_t third = t->numel / 3;
        real *q = m->params + t->offset, *k = q + third, rq = (real)q_mult, rk = (real)k_mult;
        for (size_t j = 0; j < third; j++) q[j] *= rq;
        for (size_t j = 0; j < third; j++) k[j] *= rk;
    }
}

void model_init_mup(Model *m, double width_mult) {
    for (int i = 0; i < m->n_tensors; i++) {
        const TensorInfo *t = &m->tensors[i];
        real *x = m->params + t->offset;
        if (t->qkv_thirds) fill_const(x, t->numel / 3, R(0.0));
        if (strcmp(t->name, "head.weight") == 0 && width_mult != 1.0) {
            real f = (real)sqrt(width_mult);
            for (size_t j = 0; j < t->numel; j++) x[j] *= f;
        }
    }
}

double model_qkv_init_std(int d_model, int gpt2, double gpt2_std_arg) {
    /* the tensor as the table names and shapes it: (3C, C), fan_in C; asked of the same
     * functions the init draws with, so the prediction follows any change to the schemes */
    ModelConfig cfg = {.d_model = d_model, .n_layers = 1};
    TensorInfo t = {.name = "blocks.0.attn.qkv.weight", .ndim = 2, .shape = {3 * d_model, d_model}};
    return gpt2 ? gpt2_std(&cfg, &t, gpt2_std_arg) : fan_in_std(&cfg, &t, 0);
}

double model_predicted_logit_std(int d_model, int d_k, double scale, int qk_norm, double qkv_std) {
    if (qk_norm) return scale * sqrt((double)d_k);
    return scale * sqrt((double)d_k) * d_model * qkv_std * qkv_std;
}
