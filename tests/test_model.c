/* test_model.c: model_backward is the exact gradient of model_forward's loss, end to end.
 *
 * A small model (V=7, C=8, 2 heads, 2 layers, d_ff=12, max_seq_len=6) on B=2 sequences of T=5
 * tokens, with a mask that drops some positions and half-weights one, is initialised with
 * model_init_fan_in and then gets random LayerNorm weights (≠ 1) and biases (≠ 0) so that every
 * parameter's gradient is exercised. For each of scale = 1/√d_k, 1, 1/d_k, 0.37 and 8/d_k, the
 * gradient of every tensor (named from the tensor table) matches central finite differences of the loss
 * in double to < 1e-6 relative error, both into zeroed gradients and into gradients pre-filled
 * with GC_PREFILL (model_backward accumulates). Each comparison also proves that a gradient off
 * by 1 % would fail, so a 1 % bug in any kernel along any path is caught. The same again (the
 * first four scales) for the qk-norm model (cfg.qk_norm = 1; its q_norm and k_norm weights and biases randomised too),
 * whose attn.k_norm.bias gradient is 0 in exact arithmetic and is checked to be 0 on both
 * sides. The same for the LLaMA block (cfg.block = MODEL_BLOCK_LLAMA: RMSNorm, RoPE, SwiGLU, no
 * biases; its gains randomised) at scale 1/√d_k and 1, and with qk-norm; its tensor table
 * (names, shapes, offsets, NULL views, mlp.gate next to mlp.up) against a list written from the
 * reference README, its init (gains 1; fan_in and gpt2 stds of gate, up, down measured) and the
 * d_ff default against values computed by hand. The attention fixes (qk-RMSNorm, soft-cap, a
 * learned scale; all three in the LLaMA block) pass the same gradient check. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "gradcheck.h"
#include "model/model.h"
#include "testutil.h"

enum { B = 2, T = 5 };

static const char *scale_names[] = {"1/sqrt(d_k)", "1", "1/d_k", "0.37", "8/d_k"};
enum { N_SCALES = 5 }; /* the cases without qk-norm; with it, the first four */
static const float mask[B * T] = {1, 0, 1, 1, 0.5f, 0, 1, 1, 0, 1};
static int tokens[B * T], targets[B * T];
static Model m;

static double loss(void *ctx) {
    (void)ctx;
    return model_forward(&m, tokens, targets, mask, B, T);
}

/* The attention fixes build() adds (test_fixes_grads); zero elsewhere. */
static struct {
    int learned_scale;
    real softcap;
    real readout_mult; /* 0 = none */
    int v_norm;
} fix;

static void build(int si, int qk_norm, int block) {
    ModelConfig cfg = {.vocab_size = 7, .d_model = 8, .n_heads = 2, .n_layers = 2, .d_ff = 12,
                       .max_seq_len = 6, .ln_eps = (real)1e-5, .qk_norm = qk_norm, .block = block,
                       .learned_scale = fix.learned_scale, .softcap = fix.softcap,
                       .readout_mult = fix.readout_mult, .v_norm = fix.v_norm};
    double dk = (double)cfg.d_model / cfg.n_heads;
    /* 8/d_k: attention.scale = 8/d_k (muP's form) resolved for d_k 4 by config_attention_scale
     * (tests/test_keys.c), the number 2 here */
    const double scales[N_SCALES] = {1 / sqrt(dk), 1, 1 / dk, 0.37, 8 / dk};
    cfg.scale = (real)scales[si];
    ck_assert_int_eq(model_build(&m, &cfg, B), 0);
    Rng rng;
    rng_seed(&rng, 2024);
    model_init_fan_in(&m, &rng);
    for (int i = 0; i < m.n_tensors; i++) { /* LayerNorm weights and all biases off 1 and 0 */
        const TensorInfo *t = &m.tensors[i];
        if (t->ndim != 1) continue;
        size_t n = strlen(t->name);
        int is_weight = n >= 6 && strcmp(t->name + n - 6, "weight") == 0;
        gc_fill_normal(m.params + t->offset, t->numel, &rng, is_weight ? 1 : 0, 0.3);
    }
    for (int k = 0; k < B * T; k++) {
        tokens[k] = (int)rng_below(&rng, (uint32_t)cfg.vocab_size);
        targets[k] = (int)rng_below(&rng, (uint32_t)cfg.vocab_size);
    }
}

/* Compares every tensor's slice of grads (minus prefill) with num, then asserts: a failure lists
 * every failing tensor by name (the one nearest the loss shows where a bug is) and the worst. */
static void compare_all(const char *label, const real *grads, real prefill, const double *num) {
    char failed[1024] = "", name[128];
    double worst = 0;
    const char *worst_name = "";
    int n_failed = 0;
    for (int i = 0; i < m.n_tensors; i++) {
        const TensorInfo *t = &m.tensors[i];
        snprintf(name, sizeof name, "%s %s", label, t->name);
        size_t n = strlen(t->name);
        if (n >= 16 && strcmp(t->name + n - 16, "attn.k_norm.bias") == 0 &&
            m.cfg.block == MODEL_BLOCK_GPT2) {
            /* 0 in exact arithmetic (the softmax ignores a shift common to all keys): no
             * relative error exists; analytic and numeric must both be 0 up to rounding. Not in
             * the LLaMA block: RoPE rotates the bias by each key's own position, so it is no
             * longer a common shift, and its gradient is checked like any other. */
            for (size_t k = 0; k < t->numel; k++) {
                double a = (double)grads[t->offset + k] - (double)prefill;
                ck_assert_msg(fabs(a) <= 1e-12 && fabs(num[t->offset + k]) <= 1e-8,
                              "%s[%zu]: analytic %g, numeric %g, both should be 0", name, k, a,
                              num[t->offset + k]);
            }
            continue;
        }
        double broken, e = gc_report(name, grads + t->offset, prefill, num + t->offset, t->numel,
                                     GC_TOL, &broken);
        if (!(e < GC_TOL && broken > GC_TOL)) {
            size_t len = strlen(failed);
            snprintf(failed + len, sizeof failed - len, " %s", t->name);
            n_failed++;
        }
        if (!(e < worst)) worst = e, worst_name = t->name;
    }
    printf("  %s worst: %s %.2e\n", label, worst_name, worst);
    fflush(stdout);
    ck_assert_msg(n_failed == 0, "%s: %d tensor(s) fail the gradient check (max rel err < %.0e "
                  "and x%.2f must fail):%s; worst %s, max rel err %.3e", label, n_failed, GC_TOL,
                  GC_BREAK, failed, worst_name, worst);
}

/* _i = index of the scale (0 .. N_SCALES - 1), then N_SCALES + the index with qk-norm */
START_TEST(test_model_grads) {
    int qk = _i >= N_SCALES, si = qk ? _i - N_SCALES : _i;
    build(si, qk, MODEL_BLOCK_GPT2);
    double L = loss(NULL);
    model_zero_grad(&m);
    model_backward(&m);
    real *grads = gc_alloc(m.n_params, sizeof *grads);
    memcpy(grads, m.grads, m.n_params * sizeof *grads);
    double *num = gc_alloc(m.n_params, sizeof *num);
    /* the numeric gradient is the long part (two forward passes per parameter, on one thread:
     * gradcheck.c): a line first, which make test's heartbeat shows (tests/run_tests.sh) */
    printf("model scale=%s%s: numeric gradient of %zu parameters (case %d of 9)\n",
           scale_names[si], qk ? " qk-norm" : "", m.n_params, _i + 1);
    fflush(stdout);
    gc_numeric(m.params, m.n_params, loss, NULL, GC_H, num);
    printf("model scale=%s%s: loss %.6f, %zu parameters\n", scale_names[si], qk ? " qk-norm" : "",
           L, m.n_params);
    char label[64];
    snprintf(label, sizeof label, "model scale=%s%s", scale_names[si], qk ? " qk-norm" : "");
    compare_all(label, grads, 0, num);

    /* model_backward accumulates: the same comparison into gradients pre-filled with GC_PREFILL */
    loss(NULL);
    gc_fill(m.grads, m.n_params, (real)GC_PREFILL);
    model_backward(&m);
    snprintf(label, sizeof label, "model scale=%s%s, += into %g,", scale_names[si],
             qk ? " qk-norm" : "", GC_PREFILL);
    gc_quiet = 1;
    compare_all(label, m.grads, (real)GC_PREFILL, num);
    gc_quiet = 0;
    free(num);
    free(grads);
    model_free(&m);
}
END_TEST

/* The tensor table, written out by hand from tests/reference/README.md: with qk-norm each block
 * gets attn.q_norm.weight/.bias and attn.k_norm.weight/.bias [d_k] right after attn.qkv.bias;
 * without it the table (names, shapes, offsets) is the plain model's, so old checkpoints load.
 * Both init schemes set the new weights to 1 and biases to 0 and draw every other tensor the
 * same numbers as the plain model (the 1-D tensors draw nothing). _i = init scheme. */
START_TEST(test_tensor_table) {
    enum { V = 5, C = 12, NH = 3, DK = C / NH, F = 20, P = 4, L = 2 };
    static const struct { const char *suffix; int d0, d1, qk; } block[] = {
        {"ln1.weight", C, 1, 0},         {"ln1.bias", C, 1, 0},
        {"attn.qkv.weight", 3 * C, C, 0}, {"attn.qkv.bias", 3 * C, 1, 0},
        {"attn.q_norm.weight", DK, 1, 1}, {"attn.q_norm.bias", DK, 1, 1},
        {"attn.k_norm.weight", DK, 1, 1}, {"attn.k_norm.bias", DK, 1, 1},
        {"attn.proj.weight", C, C, 0},    {"attn.proj.bias", C, 1, 0},
        {"ln2.weight", C, 1, 0},          {"ln2.bias", C, 1, 0},
        {"mlp.fc.weight", F, C, 0},       {"mlp.fc.bias", F, 1, 0},
        {"mlp.proj.weight", C, F, 0},     {"mlp.proj.bias", C, 1, 0},
    };
    Model mm[2];
    for (int qk = 0; qk < 2; qk++) {
        ModelConfig cfg = {.vocab_size = V, .d_model = C, .n_heads = NH, .n_layers = L, .d_ff = F,
                           .max_seq_len = P, .ln_eps = (real)1e-5, .scale = 1, .qk_norm = qk};
        Model *m = &mm[qk];
        ck_assert_int_eq(model_build(m, &cfg, 1), 0);
        Rng rng;
        rng_seed(&rng, 9);
        if (_i) model_init_gpt2(m, &rng, 0.02);
        else model_init_fan_in(m, &rng);
        char want[5 + 16 * L][48];
        int d0[5 + 16 * L], d1[5 + 16 * L], n = 0;
        snprintf(want[n], 48, "tok_emb"), d0[n] = V, d1[n++] = C;
        snprintf(want[n], 48, "pos_emb"), d0[n] = P, d1[n++] = C;
        for (int l = 0; l < L; l++)
            for (size_t k = 0; k < sizeof block / sizeof block[0]; k++)
                if (!block[k].qk || qk)
                    snprintf(want[n], 48, "blocks.%d.%s", l, block[k].suffix), d0[n] = block[k].d0,
                                                                                d1[n++] = block[k].d1;
        snprintf(want[n], 48, "ln_f.weight"), d0[n] = C, d1[n++] = 1;
        snprintf(want[n], 48, "ln_f.bias"), d0[n] = C, d1[n++] = 1;
        snprintf(want[n], 48, "head.weight"), d0[n] = V, d1[n++] = C;
        ck_assert_int_eq(m->n_tensors, n);
        size_t offset = 0;
        for (int i = 0; i < n; i++) {
            const TensorInfo *t = &m->tensors[i];
            ck_assert_str_eq(t->name, want[i]);
            ck_assert_int_eq(t->ndim, d1[i] > 1 ? 2 : 1);
            ck_assert_int_eq(t->shape[0], d0[i]);
            ck_assert_int_eq(t->shape[1], d1[i]);
            ck_assert_uint_eq(t->offset, offset);
            offset += (size_t)d0[i] * d1[i];
            if (strstr(t->name, "_norm.")) /* weight 1, bias 0 */
                for (size_t k = 0; k < t->numel; k++)
                    ck_assert(m->params[t->offset + k] == (strstr(t->name, "weight") ? 1 : 0));
        }
        ck_assert_uint_eq(m->n_params, offset);
        /* the views: the new tensors' where they exist, NULL where they do not */
        int kb = model_find_tensor(m, "blocks.1.attn.k_norm.bias");
        ck_assert(qk ? m->p.block[1].kn_b == m->params + m->tensors[kb].offset
                     : kb == -1 && m->p.block[0].qn_w == NULL && m->g.block[1].kn_b == NULL);
    }
    for (int i = 0; i < mm[0].n_tensors; i++) { /* the same draws, tensor by tensor */
        const TensorInfo *a = &mm[0].tensors[i], *b = &mm[1].tensors[model_find_tensor(&mm[1], a->name)];
        ck_assert_int_eq(memcmp(mm[0].params + a->offset, mm[1].params + b->offset,
                                a->numel * sizeof(real)), 0);
    }
    model_free(&mm[0]);
    model_free(&mm[1]);
}
END_TEST

/* The LLaMA block: _i = 0 scale 1/√d_k, 1 scale 1, 2 scale 1/√d_k with qk-norm. */
START_TEST(test_llama_grads) {
    int si = _i == 1, qk = _i == 2;
    build(si, qk, MODEL_BLOCK_LLAMA);
    double L = loss(NULL);
    model_zero_grad(&m);
    model_backward(&m);
    real *grads = gc_alloc(m.n_params, sizeof *grads);
    memcpy(grads, m.grads, m.n_params * sizeof *grads);
    double *num = gc_alloc(m.n_params, sizeof *num);
    gc_numeric(m.params, m.n_params, loss, NULL, GC_H, num);
    char label[64];
    snprintf(label, sizeof label, "llama scale=%s%s", scale_names[si], qk ? " qk-norm" : "");
    printf("%s: loss %.6f, %zu parameters\n", label, L, m.n_params);
    compare_all(label, grads, 0, num);
    loss(NULL);
    gc_fill(m.grads, m.n_params, (real)GC_PREFILL);
    model_backward(&m);
    snprintf(label, sizeof label, "llama scale=%s%s, += into %g,", scale_names[si],
             qk ? " qk-norm" : "", GC_PREFILL);
    gc_quiet = 1;
    compare_all(label, m.grads, (real)GC_PREFILL, num);
    gc_quiet = 0;
    free(num);
    free(grads);
    model_free(&m);
}
END_TEST

/* The attention fixes end to end (attn.log_scale drawn N(0, 0.3²) with the other 1-D tensors):
 * _i = 0 qk-RMSNorm, 1 soft-cap 0.5 at scale 1 (so that it bites), 2 learned scale, 3 all three
 * in the LLaMA block; then the options of issue 42: 4 μP's readout factor 0.3 on the logits
 * (cfg.readout_mult), 5 the weightless v-RMSNorm (cfg.v_norm), 6 both in the LLaMA block with
 * qk-RMSNorm. */
enum { N_FIX_CASES = 7 };
START_TEST(test_fixes_grads) {
    static const char *const names[N_FIX_CASES] = {
        "qk-RMSNorm", "soft-cap 0.5", "learned scale", "llama, all three", "readout x 0.3",
        "v-RMSNorm", "llama, readout x 0.3, v-RMSNorm, qk-RMSNorm"};
    fix.learned_scale = _i == 2 || _i == 3;
    fix.softcap = (_i == 1 || _i == 3) ? (real)0.5 : 0;
    fix.readout_mult = _i == 4 || _i == 6 ? (real)0.3 : 0;
    fix.v_norm = _i == 5 || _i == 6;
    build(_i == 1, _i == 0 || _i == 3 || _i == 6 ? MODEL_QK_NORM_RMSNORM : 0,
          _i == 3 || _i == 6 ? MODEL_BLOCK_LLAMA : MODEL_BLOCK_GPT2);
    memset(&fix, 0, sizeof fix);
    double L = loss(NULL);
    model_zero_grad(&m);
    model_backward(&m);
    real *grads = gc_alloc(m.n_params, sizeof *grads);
    memcpy(grads, m.grads, m.n_params * sizeof *grads);
    double *num = gc_alloc(m.n_params, sizeof *num);
    gc_numeric(m.params, m.n_params, loss, NULL, GC_H, num);
    printf("model %s: loss %.6f, %zu parameters\n", names[_i], L, m.n_params);
    compare_all(names[_i], grads, 0, num);
    free(num);
    free(grads);
    model_free(&m);
}
END_TEST

/* std of n values, in double */
static double sample_std(const real *x, size_t n) {
    double s = 0, ss = 0;
    for (size_t i = 0; i < n; i++) s += x[i], ss += (double)x[i] * x[i];
    return sqrt(ss / n - (s / n) * (s / n));
}

/* The LLaMA block's tensor table, written out from the reference README's section "The
 * LLaMA-style block"; the views; the init of both schemes. _i = init scheme. */
START_TEST(test_llama_tensor_table) {
    enum { V = 5, C = 64, NH = 4, F = 176, P = 4, L = 2 };
    static const struct { const char *suffix; int d0, d1; } block[] = {
        {"ln1.weight", C, 1}, {"attn.qkv.weight", 3 * C, C}, {"attn.proj.weight", C, C},
        {"ln2.weight", C, 1}, {"mlp.gate.weight", F, C},     {"mlp.up.weight", F, C},
        {"mlp.down.weight", C, F},
    };
    ModelConfig cfg = {.vocab_size = V, .d_model = C, .n_heads = NH, .n_layers = L, .d_ff = F,
                       .max_seq_len = P, .ln_eps = (real)1e-5, .scale = 1,
                       .block = MODEL_BLOCK_LLAMA};
    Model lm;
    ck_assert_int_eq(model_build(&lm, &cfg, 1), 0);
    Rng rng;
    rng_seed(&rng, 9);
    if (_i) model_init_gpt2(&lm, &rng, 0.02);
    else model_init_fan_in(&lm, &rng);
    char want[3 + 7 * L][48];
    int d0[3 + 7 * L], d1[3 + 7 * L], n = 0;
    snprintf(want[n], 48, "tok_emb"), d0[n] = V, d1[n++] = C;
    for (int l = 0; l < L; l++)
        for (size_t k = 0; k < sizeof block / sizeof block[0]; k++)
            snprintf(want[n], 48, "blocks.%d.%s", l, block[k].suffix), d0[n] = block[k].d0,
                                                                        d1[n++] = block[k].d1;
    snprintf(want[n], 48, "ln_f.weight"), d0[n] = C, d1[n++] = 1;
    snprintf(want[n], 48, "head.weight"), d0[n] = V, d1[n++] = C;
    ck_assert_int_eq(lm.n_tensors, n);
    size_t offset = 0;
    for (int i = 0; i < n; i++) {
        const TensorInfo *t = &lm.tensors[i];
        ck_assert_str_eq(t->name, want[i]);
        ck_assert_int_eq(t->ndim, d1[i] > 1 ? 2 : 1);
        ck_assert_int_eq(t->shape[0], d0[i]);
        ck_assert_int_eq(t->shape[1], d1[i]);
        ck_assert_uint_eq(t->offset, offset);
        offset += (size_t)d0[i] * d1[i];
        if (t->ndim == 1) /* RMSNorm gains start at 1 */
            for (size_t k = 0; k < t->numel; k++) ck_assert(lm.params[t->offset + k] == 1);
    }
    ck_assert_uint_eq(lm.n_params, offset);
    const BlockTensors *b = &lm.p.block[1];
    ck_assert(lm.p.pos_emb == NULL && lm.p.lnf_b == NULL && lm.g.pos_emb == NULL);
    ck_assert(b->ln1_b == NULL && b->qkv_b == NULL && b->proj_b == NULL && b->ln2_b == NULL &&
              b->fc_w == NULL && b->fc_b == NULL && b->fcproj_w == NULL && b->fcproj_b == NULL &&
              b->qn_w == NULL);
    ck_assert(b->up_w == b->gate_w + (size_t)F * C && lm.g.block[1].up_w == lm.g.block[1].gate_w + (size_t)F * C);
    ck_assert(b->down_w == lm.params + lm.tensors[model_find_tensor(&lm, "blocks.1.mlp.down.weight")].offset);
    /* init stds: fan_in 1/√fan_in (gate, up: 1/√C; down: 1/√F); gpt2 0.02, down (an output
     * projection) 0.02/√(2·n_layers). 11264 draws each: within 3 % */
    double want_gate = _i ? 0.02 : 1 / sqrt((double)C), want_down = _i ? 0.02 / sqrt(2.0 * L) : 1 / sqrt((double)F);
    double got_gate = sample_std(b->gate_w, (size_t)F * C), got_up = sample_std(b->up_w, (size_t)F * C);
    double got_down = sample_std(b->down_w, (size_t)F * C);
    ck_assert_msg(fabs(got_gate / want_gate - 1) < 0.03 && fabs(got_up / want_gate - 1) < 0.03 &&
                      fabs(got_down / want_down - 1) < 0.03,
                  "init %s: std gate %g up %g (want %g), down %g (want %g)", _i ? "gpt2" : "fan_in",
                  got_gate, got_up, want_gate, got_down, want_down);
    model_free(&lm);
    /* an odd d_k cannot be rotated by pairs: refused */
    cfg.n_heads = 64; /* d_k 1 */
    TuCapture cap;
    tu_capture_begin(&cap, 2);
    int rc = model_build(&lm, &cfg, 1);
    free(tu_capture_end(&cap));
    ck_assert_int_eq(rc, -1);
}
END_TEST

/* model_default_d_ff against values computed by hand: gpt2 4·C; llama ⌊8C/3⌋ rounded up to 8 */
START_TEST(test_default_d_ff) {
    static const int cases[][3] = {
        {MODEL_BLOCK_GPT2, 64, 256}, {MODEL_BLOCK_GPT2, 10, 40},
        {MODEL_BLOCK_LLAMA, 64, 176},  /* 170.67 -> 170 -> 176 */
        {MODEL_BLOCK_LLAMA, 48, 128},  /* exactly 128 */
        {MODEL_BLOCK_LLAMA, 128, 344}, /* 341.33 -> 341 -> 344 */
        {MODEL_BLOCK_LLAMA, 256, 688}, /* 682.67 -> 682 -> 688 */
        {MODEL_BLOCK_LLAMA, 16, 48},   /* 42.67 -> 42 -> 48 */
        {MODEL_BLOCK_LLAMA, 4096, 10928}, /* 10922.67 -> 10922 -> 10928 */
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        ck_assert_msg(model_default_d_ff(cases[i][0], cases[i][1]) == cases[i][2],
                      "block %d d_model %d: %d, by hand %d", cases[i][0], cases[i][1],
                      model_default_d_ff(cases[i][0], cases[i][1]), cases[i][2]);
}
END_TEST

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif
#ifndef UNDER_ASAN
#define UNDER_ASAN 0
#endif

/* A model far too large (d_model 8192, d_ff 65536, 64 layers: 64 * (4 * 8192^2 + 2 * 8192 *
 * 65536) ~ 8.6e10 parameters, ~1.4 TB with gradients and two optimizer moments) is refused by
 * the size check, with the size in GiB, before any parameter allocation: the address space is
 * capped at 1 GiB so that an allocation attempted first fails with only "out of memory". */
START_TEST(test_too_large_explained_before_allocation) {
    ModelConfig big = {.vocab_size = 16, .d_model = 8192, .n_heads = 1, .n_layers = 64,
                       .d_ff = 65536, .max_seq_len = 8, .ln_eps = 1e-5f, .scale = 1};
    struct rlimit old, cap;
    ck_assert_int_eq(getrlimit(RLIMIT_AS, &old), 0);
    cap = old;
    cap.rlim_cur = (rlim_t)1 << 30;
    if (old.rlim_max != RLIM_INFINITY && old.rlim_max < cap.rlim_cur) cap.rlim_cur = old.rlim_max;
    /* AddressSanitizer reserves terabytes of shadow address space: under it the cap would kill
     * the test itself, and its allocator aborts on a 1.4 TB request anyway */
    if (!UNDER_ASAN) ck_assert_int_eq(setrlimit(RLIMIT_AS, &cap), 0);
    Model big_m;
    TuCapture cap_err;
    tu_capture_begin(&cap_err, 2);
    int rc = model_build(&big_m, &big, 1);
    char *err = tu_capture_end(&cap_err);
    setrlimit(RLIMIT_AS, &old);
    ck_assert_int_eq(rc, -1);
    ck_assert_msg(strstr(err, "needs") && strstr(err, "GiB") && !strstr(err, "out of memory"),
                  "message: %s", err);
    free(err);
}
END_TEST

/* The init's qkv std and the predicted step-0 logit std (model.h), against values computed by
 * hand: fan_in σ = 1/√d_model; gpt2 σ = init.std (the qkv weight is not scaled down);
 * std = scale·√d_k·d_model·σ², and scale·√d_k with qk-norm. */
START_TEST(test_predicted_logit_std) {
    static const struct {
        int d_model, d_k, gpt2, qk_norm;
        double init_std, scale, sigma, predicted;
    } cases[] = {
        {64, 64, 0, 0, 0.02, 1.0, 0.125, 8.0},            /* 8·64·(1/64) */
        {256, 64, 0, 0, 0.02, 0.125, 0.0625, 1.0},        /* (1/8)·8·256·(1/256) */
        {512, 64, 0, 0, 0.02, 1.0, 0.044194173824159216, 8.0},
        {64, 64, 1, 0, 0.02, 1.0, 0.02, 0.2048},          /* 8·64·0.0004 */
        {768, 64, 1, 0, 0.02, 1.0, 0.02, 2.4576},         /* GPT-2 small: 8·768·0.0004 */
        {256, 64, 1, 0, 0.02, 0.125, 0.02, 0.1024},       /* (1/8)·8·256·0.0004 */
        {128, 32, 1, 0, 0.05, 1.0, 0.05, 1.8101933598375617}, /* √32·128·0.0025 */
        {256, 64, 1, 1, 0.02, 1.0, 0.02, 8.0},            /* qk-norm: √64 whatever σ */
        {64, 16, 0, 1, 0.02, 0.25, 0.125, 1.0},           /* qk-norm: (1/4)·√16 */
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        double sigma = model_qkv_init_std(cases[i].d_model, cases[i].gpt2, cases[i].init_std);
        ck_assert_msg(fabs(sigma - cases[i].sigma) < 1e-12, "case %zu: sigma %.17g", i, sigma);
        double p = model_predicted_logit_std(cases[i].d_model, cases[i].d_k, cases[i].scale,
                                             cases[i].qk_norm, cases[i].sigma);
        ck_assert_msg(fabs(p - cases[i].predicted) < 1e-12 * cases[i].predicted,
                      "case %zu: predicted %.17g, by hand %.17g", i, p, cases[i].predicted);
    }
}
END_TEST


int main(void) {
    Suite *s = suite_create("model");
    TCase *table = tcase_create("tensor table");
    tcase_add_loop_test(table, test_tensor_table, 0, 2);
    tcase_add_test(table, test_too_large_explained_before_allocation);
    tcase_add_test(table, test_predicted_logit_std);
    tcase_add_loop_test(table, test_llama_tensor_table, 0, 2);
    tcase_add_test(table, test_default_d_ff);
    suite_add_tcase(s, table);
    TCase *tc = tcase_create("gradcheck");
    tcase_set_timeout(tc, 120);
    if (TU_SANITIZED) {
        /* one scale without qk-norm and one with it: the scales differ only in cfg.scale's value
         * (build()), the same code (TU_SANITIZED says why once is enough there) */
        tcase_add_loop_test(tc, test_model_grads, 0, 1);
        tcase_add_loop_test(tc, test_model_grads, N_SCALES, N_SCALES + 1);
    } else {
        tcase_add_loop_test(tc, test_model_grads, 0, N_SCALES + 4);
    }
    tcase_add_loop_test(tc, test_llama_grads, 0, 3);
    tcase_add_loop_test(tc, test_fixes_grads, 0, N_FIX_CASES);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
