/* progress.c: the heartbeat line of a training run (see progress.h). */
#include "train/progress.h"

#include <math.h>

void progress_format_eta(char *buf, size_t n, double s) {
    if (!(s >= 0) || !isfinite(s))
        snprintf(buf, n, "-");
    else if (s < 60)
        snprintf(buf, n, "%.0fs", s);
    else if (s < 3600)
        snprintf(buf, n, "%dm%02ds", (int)(s / 60), (int)s % 60);
    else
        snprintf(buf, n, "%dh%02dm", (int)(s / 3600), (int)(s / 60) % 60);
}

void progress_line(FILE *f, const ProgressRow *p) {
    char loss[32], ms[32], tps[32], eta[32];
    if (isfinite(p->train_loss)) snprintf(loss, sizeof loss, "%.4f", p->train_loss);
    else snprintf(loss, sizeof loss, "-");
    if (isfinite(p->ms_per_step)) snprintf(ms, sizeof ms, "%.1f", p->ms_per_step);
    else snprintf(ms, sizeof ms, "-");
    if (isfinite(p->tokens_per_s)) snprintf(tps, sizeof tps, "%.0f", p->tokens_per_s);
    else snprintf(tps, sizeof tps, "-");
    progress_format_eta(eta, sizeof eta, p->eta_s);
    fprintf(f, "step %5d/%d  train loss %-8s %6s ms/step %7s tok/s  ETA %-6s", p->step, p->steps,
            loss, ms, tps, eta);
    if (p->has_val && p->has_bpb)
        fprintf(f, "  | val loss %.4f  bpb %.4f  token acc %5.1f%%", p->val_loss, p->val_bpb,
                100 * p->token_acc);
    else if (p->has_val)
        fprintf(f, "  | val loss %.4f  answer acc %5.1f%%  token acc %5.1f%%", p->val_loss,
                100 * p->answer_acc, 100 * p->token_acc);
    fputc('\n', f);
}
