/* sweepcsv.c: hand-made sweep.csv files for the sweep report's tests (see sweepcsv.h). */
#include "sweepcsv.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#define SHORT_FIELDS 15

static const char *exit_code(const char *status) {
    if (strcmp(status, "ok") == 0) return "0";
    if (strcmp(status, "diverged") == 0) return "3";
    if (strcmp(status, "guard") == 0) return "4";
    if (strcmp(status, "failed") == 0) return "1";
    return "";
}

char *sc_csv(int with_lr, const char *const *rows, int n) {
    size_t cap = 512 + (size_t)n * 512;
    char *out = malloc(cap);
    ck_assert_ptr_nonnull(out);
    size_t len = (size_t)snprintf(out, cap, "run,d_k,d_model,n_heads,scale,seed,%ssteps,status,"
                                  "exit_code,steps_done,val_loss,val_answer_acc,val_token_acc,"
                                  "best_val_loss,best_val_answer_acc,first_step_99,loss0,"
                                  "logit_std0,saturated_final,softmax_pass_final,gq_norm,gk_norm,"
                                  "wall_s,version\n", with_lr ? "optim.lr," : "");
    for (int r = 0; r < n; r++) {
        char buf[400], *f[SHORT_FIELDS], *p = buf;
        snprintf(buf, sizeof buf, "%s", rows[r]);
        int k = 0;
        for (; k < SHORT_FIELDS && p; k++) {
            f[k] = p;
            p = strchr(p, ',');
            if (p) *p++ = '\0';
        }
        ck_assert_msg(k == SHORT_FIELDS && !p, "short row %d '%s' has not %d fields", r, rows[r],
                      SHORT_FIELDS);
        int stopped = strcmp(f[7], "missing") == 0 || strcmp(f[7], "running") == 0;
        len += (size_t)snprintf(out + len, cap - len,
                                "%s,%s,%s,%s,%s,%s,%s%s100,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,"
                                "0.1,0.1,1.5,test\n",
                                f[0], f[1], f[2], f[3], f[4], f[5], with_lr ? f[6] : "",
                                with_lr ? "," : "", f[7], exit_code(f[7]), stopped ? "" : "100",
                                f[8], f[9], f[9], f[8], f[9], f[10], f[11], f[12], f[13], f[14]);
        ck_assert(len < cap);
    }
    return out;
}

void sc_write(const char *dir, int with_lr, const char *const *rows, int n) {
    char path[4096];
    int n_path = snprintf(path, sizeof path, "%s/sweep.csv", dir);
    ck_assert(n_path > 0 && (size_t)n_path < sizeof path); /* a cut path would write elsewhere */
    char *text = sc_csv(with_lr, rows, n);
    tu_write_file(path, text);
    free(text);
}
