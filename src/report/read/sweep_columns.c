/* sweep_columns.c: the names of sweep.csv's plan and result columns (read.h). */
#include "report/read/read.h"

#include <stdio.h>
#include <string.h>

const PlanColumnInfo SWEEP_PLAN_COLUMNS[PC_N] = {
    [PC_D_K] = {"d_k", NULL, 1},
    [PC_D_MODEL] = {"d_model", "model.d_model", 1},
    [PC_N_HEADS] = {"n_heads", "model.n_heads", 1},
    [PC_SCALE] = {"scale", "attention.scale", 0},
    [PC_SEED] = {"seed", "run.seed", 1},
    [PC_STEPS] = {"steps", "train.steps", 1},
};

const SweepColumnInfo SWEEP_COLUMNS[SC_N] = {
    [SC_STATUS] = {"status", 0},
    [SC_EXIT_CODE] = {"exit_code", 1},
    [SC_STEPS_DONE] = {"steps_done", 1},
    [SC_VAL_LOSS] = {"val_loss", 1},
    [SC_VAL_ACC] = {"val_answer_acc", 1},
    [SC_VAL_TOK] = {"val_token_acc", 1},
    [SC_BEST_LOSS] = {"best_val_loss", 1},
    [SC_BEST_ACC] = {"best_val_answer_acc", 1},
    [SC_FIRST_50] = {"first_step_50", 1},
    [SC_FIRST_90] = {"first_step_90", 1},
    [SC_FIRST_99] = {"first_step_99", 1},
    [SC_LAST_EVAL] = {"last_eval_step", 1},
    [SC_LOSS0] = {"loss0", 1},
    [SC_STD0] = {"logit_std0", 1},
    [SC_PRED_STD] = {"predicted_logit_std", 1},
    [SC_INIT] = {"init_scheme", 0},
    [SC_TASK] = {"task", 0},
    [SC_SAT] = {"saturated_final", 1},
    [SC_PASS] = {"softmax_pass_final", 1},
    [SC_STD_PEAK] = {"logit_std_peak", 1},
    [SC_STD_PEAK_STEP] = {"logit_std_peak_step", 1},
    [SC_STD_PEAK_LAYER] = {"logit_std_peak_layer", 1},
    [SC_STD_10X] = {"logit_std_10x_step", 1},
    [SC_GQ] = {"gq_norm", 1},
    [SC_GK] = {"gk_norm", 1},
    [SC_WALL] = {"wall_s", 1},
    [SC_VERSION] = {"version", 0},
};

const SweepStatusInfo SWEEP_STATUSES[ST_N] = {
    [ST_OK] = {"ok", 1, 0, 0},
    [ST_DIVERGED] = {"diverged", 1, 1, 0},
    [ST_GUARD] = {"guard", 1, 1, 0},
    [ST_FAILED] = {"failed", 0, 0, 0},
    [ST_MISSING] = {"missing", 0, 0, 0},
    [ST_RUNNING] = {"running", 0, 0, 0},
    [ST_STOPPED] = {"stopped", 0, 0, 0},
    [ST_INCOMPLETE] = {"incomplete", 0, 0, 1},
    [ST_UNKNOWN] = {"unknown", 0, 0, 1},
    [ST_MISMATCH] = {"mismatch", 0, 0, 1},
    [ST_REFUSED] = {"refused", 0, 0, 0},
};

int sweep_status_find(const char *s) {
    for (int i = 0; i < ST_N; i++)
        if (strcmp(s, SWEEP_STATUSES[i].name) == 0) return i;
    return -1;
}

void sweep_status_list(char *out, size_t n) {
    size_t len = 0;
    out[0] = '\0';
    for (int i = 0; i < ST_N && len < n; i++) {
        int k = snprintf(out + len, n - len, "%s%s", i == 0 ? "" : i == ST_N - 1 ? " or " : ", ",
                         SWEEP_STATUSES[i].name);
        if (k < 0) break;
        len += (size_t)k;
    }
}
