/* sweepcsv.h: hand-made sweep.csv files for the tests of the sweep report (test_sweep_table,
 * test_lr_sensitivity, test_sweep_figures, test_sweep_report), in the schema's column order, from
 * short rows that give only what a test looks at. Needs libc and Check only. */
#ifndef SCALEDOT_SWEEPCSV_H
#define SCALEDOT_SWEEPCSV_H

/* The short row: "run,d_k,d_model,n_heads,scale,seed,optim.lr,status,val_loss,val_answer_acc,
 * first_step_99,loss0,logit_std0,saturated_final,softmax_pass_final" (15 fields, any may be
 * empty). The full row adds steps 100, an exit code for the status (ok 0, diverged 3, guard 4,
 * failed 1, none for missing / running), steps_done, val_token_acc = val_answer_acc, best_* = the
 * final values, gq_norm, gk_norm, wall_s and version. With with_lr == 0 the optim.lr column is
 * left out (its field in the short rows is then ignored). Returns the whole file, header first
 * (malloc'd; the caller frees). Fails the test on a short row without 15 fields. */
char *sc_csv(int with_lr, const char *const *rows, int n);

/* sc_csv written to dir/sweep.csv. */
void sc_write(const char *dir, int with_lr, const char *const *rows, int n);

#endif
