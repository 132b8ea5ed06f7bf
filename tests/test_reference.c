/* test_reference.c: the float32 model against the independent float64 PyTorch cases.
 *
 * Loads every .txt in $SCALEDOT_REFERENCE_DIR (default: the project's tests/reference), sets the
 * parameters by name, and compares loss, logits, attention probabilities, every gradient and one
 * AdamW step with the tolerances of tests/reference/README.md. A failure names the worst tensor.
 * Cases with `config qk_norm 1` (2) build the qk-LayerNorm (qk-RMSNorm) model, `softcap c` the
 * soft-capped one, `learned_scale 1` the one with a learned temperature per head; cases without
 * those keys the plain one. Cases with `config block 1` build the LLaMA-style block
 * (model.block = llama). */
#include <check.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"
#include "optim/optim.h"
#include "refcase.h"
#include "testutil.h"

#ifndef SCALEDOT_SOURCE_DIR
#define SCALEDOT_SOURCE_DIR "."
#endif

static char case_paths[64][1024];
static int n_cases;

static const char *reference_dir(void) {
    const char *d = getenv("SCALEDOT_REFERENCE_DIR");
    return d && *d ? d : SCALEDOT_SOURCE_DIR "/tests/reference";
}

static int cmp_str(const void *a, const void *b) { return strcmp(a, b); }

static void find_cases(void) {
    DIR *d = opendir(reference_dir());
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d)) && n_cases < 64) {
        size_t n = strlen(e->d_name);
        if (n > 4 && strcmp(e->d_name + n - 4, ".txt") == 0)
            snprintf(case_paths[n_cases++], sizeof case_paths[0], "%s/%s", reference_dir(), e->d_name);
    }
    closedir(d);
    qsort(case_paths, (size_t)n_cases, sizeof case_paths[0], cmp_str);
}

/* Worst violation over all comparisons of one case: err / tolerance, with the tensor's name. */
typedef struct {
    double ratio, err, tol;
    char name[128];
    size_t index;
} Worst;

static void compare(Worst *w, const char *name, const real *got, const RefTensor *ref, double tol) {
    ck_assert_msg(ref != NULL, "reference tensor %s missing", name);
    for (size_t i = 0; i < ref->n; i++) {
        double err = fabs((double)got[i] - ref->v[i]);
        double ratio = isfinite(err) ? err / tol : INFINITY;
        if (ratio > w->ratio) {
            w->ratio = ratio;
            w->err = err;
            w->tol = tol;
            w->index = i;
            snprintf(w->name, sizeof w->name, "%s", name);
        }
    }
}

static double max_abs(const RefTensor *t) {
    double m = 0;
    for (size_t i = 0; i < t->n; i++) m = fmax(m, fabs(t->v[i]));
    return m;
}

static const RefTensor *need(const RefCase *rc, const char *name) {
    const RefTensor *t = refcase_tensor(rc, name);
    ck_assert_msg(t != NULL, "reference tensor '%s' missing", name);
    return t;
}

/* A config key of the case, 0 when absent (the README: absent = 0). */
static double config_or_0(const RefCase *rc, const char *key) {
    double v = refcase_config(rc, key);
    return isnan(v) ? 0 : v;
}

START_TEST(test_case_matches_reference) {
    ck_assert_msg(n_cases > 0, "no reference cases (.txt) in %s", reference_dir());
    const char *path = case_paths[_i];
    RefCase rc;
    ck_assert_msg(refcase_load(&rc, path) == 0, "cannot load %s", path);

    ModelConfig mc = {
        .vocab_size = (int)refcase_config(&rc, "vocab_size"),
        .d_model = (int)refcase_config(&rc, "d_model"),
        .n_heads = (int)refcase_config(&rc, "n_heads"),
        .n_layers = (int)refcase_config(&rc, "n_layers"),
        .d_ff = (int)refcase_config(&rc, "d_ff"),
        .max_seq_len = (int)refcase_config(&rc, "max_seq_len"),
        .ln_eps = (real)refcase_config(&rc, "ln_eps"),
        .scale = (real)refcase_config(&rc, "scale"),
        /* absent in the cases of the plain model (README: absent = 0); the case's qk_norm
         * numbers are ModelConfig's (1 = LayerNorm, 2 = RMSNorm) */
        .qk_norm = (int)config_or_0(&rc, "qk_norm"),
        .learned_scale = config_or_0(&rc, "learned_scale") == 1,
        .softcap = (real)config_or_0(&rc, "softcap"),
        .block = config_or_0(&rc, "block") == 1 ? MODEL_BLOCK_LLAMA : MODEL_BLOCK_GPT2,
    };
    int B = (int)refcase_config(&rc, "batch_size"), T = (int)refcase_config(&rc, "seq_len");
    Model m;
    ck_assert_int_eq(model_build(&m, &mc, B), 0);

    /* parameters by name, shapes checked */
    char name[160];
    for (int i = 0; i < m.n_tensors; i++) {
        const TensorInfo *ti = &m.tensors[i];
        snprintf(name, sizeof name, "param.%s", ti->name);
        const RefTensor *r = need(&rc, name);
        ck_assert_msg(r->n == ti->numel, "%s: %zu values in the case, model has %zu", name, r->n, ti->numel);
        for (size_t k = 0; k < r->n; k++) m.params[ti->offset + k] = (real)r->v[k];
    }
    int n = B * T;
    const RefTensor *tok = need(&rc, "tokens"), *tgt = need(&rc, "targets"), *msk = need(&rc, "loss_mask");
    int *tokens = malloc(sizeof(int) * (size_t)n), *targets = malloc(sizeof(int) * (size_t)n);
    float *mask = malloc(sizeof(float) * (size_t)n);
    for (int k = 0; k < n; k++) {
        tokens[k] = (int)tok->v[k];
        targets[k] = (int)tgt->v[k];
        mask[k] = (float)msk->v[k];
    }

    real loss = model_forward(&m, tokens, targets, mask, B, T);
    double ref_loss = need(&rc, "loss")->v[0];
    ck_assert_msg(fabs(loss - ref_loss) <= 1e-5 * fabs(ref_loss), "%s: loss %.9g, reference %.9g",
                  path, (double)loss, ref_loss);

    Worst fw = {0};
    compare(&fw, "logits", m.logits, need(&rc, "logits"), 1e-5);
    for (int l = 0; l < mc.n_layers; l++) {
        snprintf(name, sizeof name, "attn_probs.%d", l);
        compare(&fw, name, m.acts[l].att, need(&rc, name), 1e-5);
    }
    ck_assert_msg(fw.ratio <= 1.0, "%s: forward: worst tensor %s[%zu], error %.3g > tolerance %.3g",
                  path, fw.name, fw.index, fw.err, fw.tol);

    model_zero_grad(&m);
    model_backward(&m);
    /* A gradient that is 0 in exact arithmetic (attn.k_norm.bias: a shift of every key by the
     * same vector adds the same number to a query's scores, which the softmax ignores) is float64
     * rounding noise in the case (~1e-17), and 1e-4 of that is no tolerance a float32 sum can
     * meet. Such a tensor (max |ref| below 1e-12 of the case's largest gradient) is held to
     * 1e-4 of the case's largest gradient instead: zero up to float32 rounding. */
    double grad_max = 0;
    for (int i = 0; i < m.n_tensors; i++) {
        snprintf(name, sizeof name, "grad.%s", m.tensors[i].name);
        grad_max = fmax(grad_max, max_abs(need(&rc, name)));
    }
    Worst gw = {0};
    for (int i = 0; i < m.n_tensors; i++) {
        snprintf(name, sizeof name, "grad.%s", m.tensors[i].name);
        const RefTensor *r = need(&rc, name);
        double scale = max_abs(r) < 1e-12 * grad_max ? grad_max : max_abs(r);
        compare(&gw, name, m.grads + m.tensors[i].offset, r, 1e-4 * scale);
    }
    ck_assert_msg(gw.ratio <= 1.0, "%s: backward: worst tensor %s[%zu], error %.3g > tolerance %.3g",
                  path, gw.name, gw.index, gw.err, gw.tol);

    /* AdamW alone: one step from zero moments with the reference gradients */
    for (int i = 0; i < m.n_tensors; i++) {
        snprintf(name, sizeof name, "grad.%s", m.tensors[i].name);
        const RefTensor *r = need(&rc, name);
        for (size_t k = 0; k < r->n; k++) m.grads[m.tensors[i].offset + k] = (real)r->v[k];
    }
    Optimizer opt;
    ck_assert_int_eq(optim_init(&opt, OPTIMIZER_ADAMW, refcase_config(&rc, "beta1"), refcase_config(&rc, "beta2"),
                                refcase_config(&rc, "eps"), refcase_config(&rc, "weight_decay"), 0,
                                m.n_params), 0);
    optim_step(&opt, m.params, m.grads, m.tensors, m.n_tensors, refcase_config(&rc, "lr"));
    Worst aw = {0};
    for (int i = 0; i < m.n_tensors; i++) {
        snprintf(name, sizeof name, "adamw.%s", m.tensors[i].name);
        const RefTensor *r = need(&rc, name);
        compare(&aw, name, m.params + m.tensors[i].offset, r, 1e-4 * max_abs(r));
    }
    ck_assert_msg(aw.ratio <= 1.0, "%s: AdamW: worst tensor %s[%zu], error %.3g > tolerance %.3g",
                  path, aw.name, aw.index, aw.err, aw.tol);
    printf("%s: loss %.7g (ref %.7g); worst error/tolerance: forward %.3f (%s), gradients %.3f (%s), "
           "AdamW %.3f (%s)\n", strrchr(path, '/') + 1, (double)loss, ref_loss, fw.ratio, fw.name,
           gw.ratio, gw.name, aw.ratio, aw.name);

    optim_free(&opt);
    free(tokens);
    free(targets);
    free(mask);
    model_free(&m);
    refcase_free(&rc);
}
END_TEST

int main(void) {
    find_cases();
    Suite *s = suite_create("reference");
    TCase *tc = tcase_create("cases");
    tcase_set_timeout(tc, 60);
    /* At least one iteration, so an empty folder fails instead of passing vacuously. */
    tcase_add_loop_test(tc, test_case_matches_reference, 0, n_cases > 0 ? n_cases : 1);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
