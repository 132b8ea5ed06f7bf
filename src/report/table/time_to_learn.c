/* time_to_learn.c: first evaluated steps at 50 / 90 / 99 % validation answer accuracy from a
 * run's loss.csv (table.h). */
#include "report/table/table.h"

#include "runlog/log_query.h"

const double TTL_THRESHOLD[TTL_N] = {0.5, 0.9, 0.99};
const char *const TTL_NAME[TTL_N] = {"50", "90", "99"};

TimeToLearn time_to_learn(const Csv *loss) {
    TimeToLearn t = {.last_eval_step = -1, .step = {-1, -1, -1}};
    int acc = csv_col(loss, "val_answer_acc");
    for (int r = 0; acc >= 0 && r < loss->n_rows; r++) {
        if (csv_empty(loss, r, acc)) continue;
        double a = csv_num(loss, r, acc);
        int step = log_step(loss, r);
        t.has_eval = 1;
        t.last_eval_step = step;
        for (int k = 0; k < TTL_N; k++)
            if (!t.reached[k] && a >= TTL_THRESHOLD[k]) t.reached[k] = 1, t.step[k] = step;
    }
    return t;
}
