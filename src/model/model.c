/* model.c: the model stage: the tensor table, the one parameter buffer and the one gradient
 * buffer with their named views, the activation arena, and the whole model's forward and backward
 * (model.h), calling the layers of src/model/ in order. */
#include "model/model.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "model/attention.h"
#include "model/embedding.h"
#include "model/gelu.h"
#include "model/layernorm.h"
#include "model/llama.h"
#include "model/loss.h"
#include "model/matmul.h"
#include "model/model_internal.h"
#include "model/qknorm.h"
#include "model/rope.h"
#include "model/vecmath.h"

/* ---- tensor table ---------------------------------------------------------------------- */

static void add_tensor(Model *m, const char *name, int d0, int d1) {
    TensorInfo *t = &m->tensors[m->n_tensors++];
    snprintf(t->name, sizeof t->name, "%s", name);
    t->ndim = d1 > 0 ? 2 : 1;
    t->shape[0] = d0;
    t->shape[1] = d1 > 0 ? d1 : 1;
    t->numel = (size_t)d0 * (size_t)t->shape[1];
    t->offset = m->n_params;
    m->n_params += t->numel;
}

/* The tensors of one block in table order, with their shapes in units of the model's widths
 * (W_C = d_model, W_3C = 3·d_model, W_F = d_ff, W_DK = d_k, W_NH = n_heads; W_NONE: a 1-D
 * tensor), the view that points at them, when they exist (NEED_*) and in which blocks (`blocks`:
 * bit 1 << MODEL_BLOCK_*, G for GPT-2, L for LLaMA). mlp.gate and mlp.up must stay adjacent: the
 * LLaMA block multiplies by them as one [2·d_ff, C] matrix. */
enum { W_NONE, W_C, W_3C, W_F, W_DK, W_NH };
enum { NEED_ALWAYS, NEED_QK_NORM, NEED_QK_LAYERNORM, NEED_LEARNED_SCALE };
enum { G = 1 << MODEL_BLOCK_GPT2, L = 1 << MODEL_BLOCK_LLAMA };
static const struct {
    const char *suffix;
    int d0, d1;
    size_t view;
    int need, blocks;
} BLOCK_TENSORS[] = {
    {"ln1.weight", W_C, W_NONE, offsetof(BlockTensors, ln1_w), NEED_ALWAYS, G | L},
    {"ln1.bias", W_C, W_NONE, offsetof(BlockTensors, ln1_b), NEED_ALWAYS, G},
    {"attn.qkv.weight", W_3C, W_C, offsetof(BlockTensors, qkv_w), NEED_ALWAYS, G | L},
    {"attn.qkv.bias", W_3C, W_NONE, offsetof(BlockTensors, qkv_b), NEED_ALWAYS, G},
    {"attn.q_norm.weight", W_DK, W_NONE, offsetof(BlockTensors, qn_w), NEED_QK_NORM, G | L},
    {"attn.q_norm.bias", W_DK, W_NONE, offsetof(BlockTensors, qn_b), NEED_QK_LAYERNORM, G | L},
    {"attn.k_norm.weight", W_DK, W_NONE, offsetof(BlockTensors, kn_w), NEED_QK_NORM, G | L},
    {"attn.k_norm.bias", W_DK, W_NONE, offsetof(BlockTensors, kn_b), NEED_QK_LAYERNORM, G | L},
    {"attn.log_scale", W_NH, W_NONE, offsetof(BlockTensors, log_scale), NEED_LEARNED_SCALE, G | L},
    {"attn.proj.weight", W_C, W_C, offsetof(BlockTensors, proj_w), NEED_ALWAYS, G | L},
    {"attn.proj.bias", W_C, W_NONE, offsetof(BlockTensors, proj_b), NEED_ALWAYS, G},
    {"ln2.weight", W_C, W_NONE, offsetof(BlockTensors, ln2_w), NEED_ALWAYS, G | L},
    {"ln2.bias", W_C, W_NONE, offsetof(BlockTensors, ln2_b), NEED_ALWAYS, G},
    {"mlp.fc.weight", W_F, W_C, offsetof(BlockTensors, fc_w), NEED_ALWAYS, G},
    {"mlp.fc.bias", W_F, W_NONE, offsetof(BlockTensors, fc_b), NEED_ALWAYS, G},
    {"mlp.proj.weight", W_C, W_F, offsetof(BlockTensors, fcproj_w), NEED_ALWAYS, G},
    {"mlp.proj.bias", W_C, W_NONE, offsetof(BlockTensors, fcproj_b), NEED_ALWAYS, G},
    {"mlp.gate.weight", W_F, W_C, offsetof(BlockTensors, gate_w), NEED_ALWAYS, L},
    {"mlp.up.weight", W_F, W_C, offsetof(BlockTensors, up_w), NEED_ALWAYS, L},
    {"mlp.down.weight", W_C, W_F, offsetof(BlockTensors, down_w), NEED_ALWAYS, L},
};
enum { N_BLOCK_TENSORS = sizeof BLOCK_TENSORS / sizeof BLOCK_TENSORS[0] };

static int width(const ModelConfig *c, int w) {
    switch (w) {
    case W_C: return c->d_model;
    case W_3C: return 3 * c->d_model;
    case W_F: return c->d_ff;
    case W_DK: return c->d_model / c->n_heads;
    case W_NH: return c->n_heads;
    default: return 0;
    }
}

static int block_has(const ModelConfig *c, int k) {
    if (!(BLOCK_TENSORS[k].blocks & (1 << c->block))) return 0;
    switch (BLOCK_TENSORS[k].need) {
    case NEED_QK_NORM: return c->qk_norm != MODEL_QK_NORM_NONE;
    case NEED_QK_LAYERNORM: return c->qk_norm == MODEL_QK_NORM_LAYERNORM;
    case NEED_LEARNED_SCALE: return c->learned_scale;
    default: return 1;
    }
}

static int is_llama(const ModelConfig *c) { return c->block == MODEL_BLOCK_LLAMA; }

/* The order here is the memory layout and the init order. */
static void build_table(Model *m) {
    const ModelConfig *c = &m->cfg;
    add_tensor(m, "tok_emb", c->vocab_size, c->d_model);
    if (!is_llama(c)) add_tensor(m, "pos_emb", c->max_seq_len, c->d_model);
    for (int l = 0; l < c->n_layers; l++)
        for (int k = 0; k < N_BLOCK_TENSORS; k++) {
            if (!block_has(c, k)) continue;
            char name[MODEL_NAME_LEN];
            snprintf(name, sizeof name, "blocks.%d.%s", l, BLOCK_TENSORS[k].suffix);
            add_tensor(m, name, width(c, BLOCK_TENSORS[k].d0), width(c, BLOCK_TENSORS[k].d1));
            /* [3C] rows: q, k, v (attn.qkv.weight and .bias, the only W_3C tensors) */
            m->tensors[m->n_tensors - 1].qkv_thirds = BLOCK_TENSORS[k].d0 == W_3C;
            /* a block's matrices are C or d_ff (both grow with C) by C, d_ff or 3C */
            m->tensors[m->n_tensors - 1].hidden = BLOCK_TENSORS[k].d1 != W_NONE;
        }
    add_tensor(m, "ln_f.weight", c->d_model, 0);
    if (!is_llama(c)) add_tensor(m, "ln_f.bias", c->d_model, 0);
    add_tensor(m, "head.weight", c->vocab_size, c->d_model);
}

/* Points the named views at a flat buffer laid out by build_table (absent tensors: NULL). */
static void bind_views(const Model *m, real *base, Tensors *v) {
    const TensorInfo *t = m->tensors;
    int i = 0;
    v->tok_emb = base + t[i++].offset;
    v->pos_emb = is_llama(&m->cfg) ? NULL : base + t[i++].offset;
    for (int l = 0; l < m->cfg.n_layers; l++)
        for (int k = 0; k < N_BLOCK_TENSORS; k++) {
            real **view = (real **)((char *)&v->block[l] + BLOCK_TENSORS[k].view);
            *view = block_has(&m->cfg, k) ? base + t[i++].offset : NULL;
        }
    v->lnf_w = base + t[i++].offset;
    v->lnf_b = is_llama(&m->cfg) ? NULL : base + t[i++].offset;
    v->head_w = base + t[i++].offset;
}

int model_find_tensor(const Model *m, const char *name) {
    for (int i = 0; i < m->n_tensors; i++)
        if (strcmp(m->tensors[i].name, name) == 0) return i;
    return -1;
}

/* ---- memory ---------------------------------------------------------------------------- */

/* Carves consecutive arrays out of one allocation. */
typedef struct {
    char *base;
    size_t used;
} Arena;

static void *carve(Arena *a, size_t bytes) {
    void *p = a->base ? a->base + a->used : NULL;
    a->used += (bytes + 63) & ~(size_t)63;
    return p;
}

/* One block's activations (forward), in the arena's order. */
static void layout_block_acts(const ModelConfig *c, BlockActs *b, Arena *a, int max_batch) {
    size_t BT = (size_t)max_batch * c->max_seq_len;
    size_t C = c->d_model, F = c->d_ff, r = sizeof(real);
    size_t att = (size_t)max_batch * c->n_heads * c->max_seq_len * c->max_seq_len;
    b->resid = carve(a, BT * C * r);
    b->ln1 = carve(a, BT * C * r);
    b->ln1_mean = carve(a, BT * r);
    b->ln1_rstd = carve(a, BT * r);
    b->qkv = carve(a, BT * 3 * C * r);
    b->attn_qkv = b->qkv;
    if (c->qk_norm || c->v_norm) b->attn_qkv = carve(a, BT * 3 * C * r);
    if (c->v_norm) b->v_rstd = carve(a, BT * c->n_heads * r);
    if (c->qk_norm) {
        b->q_mean = carve(a, BT * c->n_heads * r);
        b->q_rstd = carve(a, BT * c->n_heads * r);
        b->k_mean = carve(a, BT * c->n_heads * r);
        b->k_rstd = carve(a, BT * c->n_heads * r);
    }
    b->att = carve(a, att * r);
    b->atty = carve(a, BT * C * r);
    b->attproj = carve(a, BT * C * r);
    b->resid2 = carve(a, BT * C * r);
    b->ln2 = carve(a, BT * C * r);
    b->ln2_mean = carve(a, BT * r);
    b->ln2_rstd = carve(a, BT * r);
    if (is_llama(c)) {
        b->gu = carve(a, BT * 2 * F * r);
        b->swiglu = carve(a, BT * F * r);
    } else {
        b->fch = carve(a, BT * F * r);
        b->fch_gelu = carve(a, BT * F * r);
    }
    b->fcproj = carve(a, BT * C * r);
}

/* The head's activations (final LayerNorm, logits, loss) and the batch's inputs; their end is
 * act_bytes, the forward's whole share of the arena. */
static void layout_head_acts(Model *m, Arena *a, size_t BT) {
    size_t C = m->cfg.d_model, V = m->cfg.vocab_size, r = sizeof(real);
    m->resid_final = carve(a, BT * C * r);
    m->lnf = carve(a, BT * C * r);
    m->lnf_mean = carve(a, BT * r);
    m->lnf_rstd = carve(a, BT * r);
    m->logits = carve(a, BT * V * r);
    m->probs = carve(a, BT * V * r);
    m->losses = carve(a, BT * r);
    m->tokens = carve(a, BT * sizeof(int));
    m->targets = carve(a, BT * sizeof(int));
    m->mask = carve(a, BT * sizeof(float));
    m->act_bytes = a->used;
}

/* The backward's scratch: one block's worth, reused from the last block down to the first, and
 * what the options add (qk/v-norm, learned scale, QK-clip, the LLaMA block). */
static void layout_backward_scratch(Model *m, Arena *a, size_t BT) {
    const ModelConfig *c = &m->cfg;
    size_t C = c->d_model, F = c->d_ff, V = c->vocab_size, r = sizeof(real);
    m->dlogits = carve(a, BT * V * r);
    m->dlnf = carve(a, BT * C * r);
    m->dx = carve(a, BT * C * r);
    m->dln = carve(a, BT * C * r);
    m->dfch = carve(a, BT * F * r);
    m->datty = carve(a, BT * C * r);
    m->dqkv = carve(a, BT * 3 * C * r);
    m->attn_slots = 1;
#ifdef _OPENMP
    m->attn_slots = omp_get_max_threads(); /* as the matmul scratch: the threads at build time */
#endif
    AttnScores sc = {c->scale, NULL, c->softcap, c->window};
    m->attn_scratch =
        carve(a, (size_t)m->attn_slots * (size_t)attention_scratch_per_slot(c->max_seq_len, sc) * r);
    if (c->qk_norm || c->v_norm) m->dattn_qkv = carve(a, BT * 3 * C * r);
    if (c->v_norm) {
        m->v_gain = carve(a, (size_t)(C / c->n_heads) * r);
        m->dv_gain = carve(a, (size_t)(C / c->n_heads) * r);
    }
    size_t BNH = (size_t)m->max_batch * c->n_heads;
    if (c->learned_scale) m->dlog_scale_pairs = carve(a, BNH * sizeof(double));
    if (c->qk_clip > 0) {
        m->smax_pairs = carve(a, BNH * r);
        m->logit_max = carve(a, (size_t)c->n_layers * c->n_heads * r);
        m->clip_count = carve(a, (size_t)c->n_layers * c->n_heads * sizeof(int));
    }
    if (is_llama(c)) {
        m->dgu = carve(a, BT * 2 * F * r);
        m->rope_cos = carve(a, (size_t)c->max_seq_len * (C / c->n_heads / 2) * r);
        m->rope_sin = carve(a, (size_t)c->max_seq_len * (C / c->n_heads / 2) * r);
    }
}

/* The diagnostics' per-head sums and the matmul scratch; their end closes scratch_bytes. */
static void layout_stats_scratch(Model *m, Arena *a) {
    const ModelConfig *c = &m->cfg;
    size_t r = sizeof(real);
    size_t LH = (size_t)c->n_layers * c->n_heads, BH = (size_t)m->max_batch * c->n_heads;
    m->dpreatt_norm = carve(a, LH * sizeof(double));
    m->dprob_norm = carve(a, LH * sizeof(double));
    m->blocked_rows = carve(a, LH * sizeof(double));
    m->attn_stats.dprob_sumsq = carve(a, BH * sizeof(double));
    m->attn_stats.dlogit_sumsq = carve(a, BH * sizeof(double));
    m->attn_stats.rows = carve(a, BH * sizeof(int));
    m->attn_stats.blocked = carve(a, BH * sizeof(int));
    int ff = is_llama(c) ? 2 * c->d_ff : c->d_ff; /* LLaMA: [gate | up] in one product */
    int widest = 3 * c->d_model > ff ? 3 * c->d_model : ff;
    m->mm_scratch_len = matmul_scratch_len(widest > c->vocab_size ? widest : c->vocab_size);
    m->mm_scratch = carve(a, m->mm_scratch_len * r);
    m->scratch_bytes = a->used - m->act_bytes;
}

/* Lays out (or, with a->base == NULL, only measures) the activations and the scratch, in a fixed
 * order: the blocks', the head's (act_bytes), then the backward's and the statistics' scratch
 * (scratch_bytes). */
static void layout_acts(Model *m, Arena *a) {
    size_t BT = (size_t)m->max_batch * m->cfg.max_seq_len;
    for (int l = 0; l < m->cfg.n_layers; l++)
        layout_block_acts(&m->cfg, &m->acts[l], a, m->max_batch);
    layout_head_acts(m, a, BT);
    layout_backward_scratch(m, a, BT);
    layout_stats_scratch(m, a);
}

/* calloc of a huge arena succeeds on Linux (overcommit) and the machine then swaps or the
 * process is killed once the pages are touched; refusing up front gives a clear message. */
static int too_large_for_memory(const Model *m, size_t arena_bytes) {
#ifdef _SC_PHYS_PAGES
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || page <= 0) return 0;
    double have = (double)pages * (double)page;
    /* parameters, gradients, two optimizer moments, activations and scratch */
    double need = 4.0 * (double)m->n_params * sizeof(real) + (double)arena_bytes;
    if (need <= 0.9 * have) return 0;
    fprintf(stderr,
            "model: this configuration needs %.1f GiB (%.1f GiB of activations for batches of %d "
            "sequences of up to %d tokens) but the machine has %.1f GiB; lower train.batch_size, "
            "model.d_model, model.d_ff, model.n_layers or model.max_seq_len\n",
            need / 1073741824.0, (double)arena_bytes / 1073741824.0, m->max_batch,
            m->cfg.max_seq_len, have / 1073741824.0);
    return 1;
#else
    (void)m;
    (void)arena_bytes;
    return 0;
#endif
}

int model_build(Model *m, const ModelConfig *cfg, int max_batch) {
    memset(m, 0, sizeof *m);
    m->cfg = *cfg;
    const ModelConfig *c = &m->cfg;
    if (c->n_layers < 1 || c->n_layers > MODEL_MAX_LAYERS || c->d_model < 1 || c->n_heads < 1 ||
        c->d_model % c->n_heads != 0 || c->vocab_size < 1 || c->d_ff < 1 || c->max_seq_len < 1 ||
        max_batch < 1 || (c->block != MODEL_BLOCK_GPT2 && c->block != MODEL_BLOCK_LLAMA) ||
        (is_llama(c) && (c->d_model / c->n_heads) % 2 != 0)) { /* RoPE rotates pairs */
        fprintf(stderr, "model: invalid shape (d_model %d, n_heads %d, n_layers %d, d_ff %d%s)\n",
                c->d_model, c->n_heads, c->n_layers, c->d_ff,
                is_llama(c) ? "; the llama block needs an even d_k" : "");
        return -1;
    }
    m->max_batch = max_batch;
    m->tensors = calloc((size_t)(5 + N_BLOCK_TENSORS * c->n_layers), sizeof *m->tensors);
    if (!m->tensors) goto oom;
    build_table(m);
    /* measured and checked before the parameters are allocated: a model far too large would
     * otherwise fail there with only "out of memory", before the message that explains it */
    Arena a = {NULL, 0};
    layout_acts(m, &a);
    if (too_large_for_memory(m, a.used)) {
        model_free(m);
        return -1;
    }
    m->params = calloc(m->n_params, sizeof(real));
    m->grads = calloc(m->n_params, sizeof(real));
    if (!m->params || !m->grads) goto oom;
    bind_views(m, m->params, &m->p);
    bind_views(m, m->grads, &m->g);
    a.base = m->arena = calloc(1, a.used);
    if (!a.base) goto oom;
    a.used = 0;
    layout_acts(m, &a);
    if (c->v_norm)
        for (int i = 0; i < c->d_model / c->n_heads; i++) m->v_gain[i] = R(1.0);
    if (is_llama(c)) rope_tables(m->rope_cos, m->rope_sin, c->max_seq_len, c->d_model / c->n_heads);
    return 0;
oom:
    fprintf(stderr, "model: out of memory\n");
    model_free(m);
    return -1;
}

void model_free(Model *m) {
    free(m->tensors);
    free(m->params);
    free(m->grads);
    free(m->arena);
    memset(m, 0, sizeof *m);
}

int model_default_d_ff(int block, int d_model) {
    if (block != MODEL_BLOCK_LLAMA) return 4 * d_model;
    return (8 * d_model / 3 + 7) / 8 * 8;
}

/* ---- forward / backward ---------------------------------------------------------------- */

real model_forward(Model *m, const int *tokens, const int *targets, const float *mask, int B,
                   int T) {
    const ModelConfig *c = &m->cfg;
    if (is_llama(c)) return llama_forward(m, tokens, targets, mask, B, T);
    int C = c->d_model, F = c->d_ff, V = c->vocab_size, N = B * T;
    m->B = B;
    m->T = T;
    memcpy(m->tokens, tokens, (size_t)N * sizeof(int));
    memcpy(m->targets, targets, (size_t)N * sizeof(int));
    memcpy(m->mask, mask, (size_t)N * sizeof(float));

    embedding_forward(m->acts[0].resid, tokens, m->p.tok_emb, m->p.pos_emb, B, T, C);
    for (int l = 0; l < c->n_layers; l++) {
        BlockActs *a = &m->acts[l];
        BlockTensors *w = &m->p.block[l];
        real *out = l + 1 < c->n_layers ? m->acts[l + 1].resid : m->resid_final;
        layernorm_forward(a->ln1, a->ln1_mean, a->ln1_rstd, a->resid, w->ln1_w, w->ln1_b, N, C,
                          c->ln_eps);
        model_linear_forward(m, a->qkv, a->ln1, w->qkv_w, w->qkv_b, N, C, 3 * C);
        if (c->qk_norm || c->v_norm) model_qkvnorm_forward(m, l, N);
        model_attention_forward(m, l);
        model_linear_forward(m, a->attproj, a->atty, w->proj_w, w->proj_b, N, C, C);
        residual_forward(a->resid2, a->resid, a->attproj, (long)N * C);
        layernorm_forward(a->ln2, a->ln2_mean, a->ln2_rstd, a->resid2, w->ln2_w, w->ln2_b, N, C,
                          c->ln_eps);
        model_linear_forward(m, a->fch, a->ln2, w->fc_w, w->fc_b, N, C, F);
        /* a->fch is overwritten by GELU' at fch: backward needs only that */
        gelu_forward(a->fch_gelu, a->fch, a->fch, (long)N * F);
        model_linear_forward(m, a->fcproj, a->fch_gelu, w->fcproj_w, w->fcproj_b, N, F, C);
        residual_forward(out, a->resid2, a->fcproj, (long)N * C);
    }
    layernorm_forward(m->lnf, m->lnf_mean, m->lnf_rstd, m->resid_final, m->p.lnf_w, m->p.lnf_b,
                      N, C, c->ln_eps);
    model_readout_forward(m, N);
    m->loss = crossentropy_forward(m->losses, m->probs, m->logits, targets, mask, N, V);
    return m->loss;
}

void model_zero_grad(Model *m) { memset(m->grads, 0, m->n_params * sizeof(real)); }

static void zero(real *x, size_t n) { memset(x, 0, n * sizeof(real)); }

static void backward(Model *m, int with_pass_stats) {
    const ModelConfig *c = &m->cfg;
    if (is_llama(c)) {
        llama_backward(m, with_pass_stats);
        return;
    }
    int B = m->B, T = m->T;
    int C = c->d_model, F = c->d_ff, V = c->vocab_size, N = B * T;
    size_t NC = (size_t)N * C;

    /* The kernels overwrite the activation gradients they produce (dlogits, dinp of a linear
     * layer, GELU's and attention's dinp) and accumulate only where two paths meet: LayerNorm's
     * dinp adds into the residual stream's gradient. */
    crossentropy_backward(m->dlogits, m->probs, m->targets, m->mask, N, V);
    model_readout_backward(m, N);
    zero(m->dx, NC);
    layernorm_backward(m->dx, m->g.lnf_w, m->g.lnf_b, m->dlnf, m->resid_final, m->p.lnf_w,
                       m->lnf_mean, m->lnf_rstd, N, C);

    /* m->dx holds d loss / d (output of block l); each block turns it into d / d (its input) in
     * place. A residual add passes its gradient unchanged to both inputs, so the branch reads
     * m->dx as its dout, and the branch's LayerNorm then adds its dinp into m->dx. */
    for (int l = c->n_layers - 1; l >= 0; l--) {
        BlockActs *a = &m->acts[l];
        BlockTensors *w = &m->p.block[l];
        BlockTensors *g = &m->g.block[l];

        /* out = resid2 + fcproj(gelu(fc(ln2(resid2)))) */
        model_linear_backward(m, m->dfch, g->fcproj_w, g->fcproj_b, m->dx, a->fch_gelu, w->fcproj_w,
                              N, F, C);
        gelu_backward(m->dfch, a->fch, m->dfch, (long)N * F); /* a->fch holds GELU' */
        model_linear_backward(m, m->dln, g->fc_w, g->fc_b, m->dfch, a->ln2, w->fc_w, N, C, F);
        layernorm_backward(m->dx, g->ln2_w, g->ln2_b, m->dln, a->resid2, w->ln2_w, a->ln2_mean,
                           a->ln2_rstd, N, C);

        /* resid2 = resid + attproj(attention(qkv(ln1(resid)))) */
        model_linear_backward(m, m->datty, g->proj_w, g->proj_b, m->dx, a->atty, w->proj_w, N, C,
                              C);
        model_attention_backward(m, l, m->dattn_qkv ? m->dattn_qkv : m->dqkv, with_pass_stats);
        if (m->dattn_qkv) model_qkvnorm_backward(m, l, N);
        model_linear_backward(m, m->dln, g->qkv_w, g->qkv_b, m->dqkv, a->ln1, w->qkv_w, N, C,
                              3 * C);
        layernorm_backward(m->dx, g->ln1_w, g->ln1_b, m->dln, a->resid, w->ln1_w, a->ln1_mean,
                           a->ln1_rstd, N, C);
    }
    embedding_backward(m->g.tok_emb, m->g.pos_emb, m->dx, m->tokens, B, T, C);
}

void model_backward(Model *m) { backward(m, 0); }

void model_backward_diag(Model *m) { backward(m, 1); }

double model_norm(const real *x, size_t n) { return sqrt(lane_sumsq_double(x, n)); }
