/* figure_passthru.c: passthru.svg of ./train --compare: the softmax pass-through (softmax_pass)
 * and the saturated fraction per layer against step, from attention.csv. */
#include "report/figure/figure_internal.h"

#include <math.h>
#include <stdio.h>


const char FIGURE_PASSTHRU_TITLE[] = "Softmax pass-through and saturation against step";

const char FIGURE_PASSTHRU_CAPTION[] =
    "Left, per layer: <code>softmax_pass</code> = |dL/dZ| / |dL/dP|, the fraction of the "
    "gradient reaching the attention probabilities P that the softmax passes on to the scaled "
    "logits Z, measured per head on the fixed diagnostics batch and averaged over heads (a log "
    "axis when the values span more than 30&#215;; a run logged before this column existed has "
    "no line). Right, per layer: the saturated fraction, the share of query rows with at least "
    "two visible keys whose largest weight exceeds 0.99, averaged over heads. A pass-through "
    "that stays low while training goes on means the gradient vanishes inside the softmax, "
    "before it reaches W<sub>q</sub> and W<sub>k</sub>; the summary table gives the final "
    "values and the mean share of blocked rows (rows that pass on less than 1 %).";

int figure_passthru(const Run *runs, int n, const char *dir, int log_scale) {
    (void)log_scale;
    int layers = 0, any_pass = 0;
    for (int r = 0; r < n; r++) {
        if (attn_layers(&runs[r]) > layers) layers = attn_layers(&runs[r]);
        any_pass |= runs[r].has_attn && csv_col(&runs[r].attn, "softmax_pass") >= 0;
    }
    if (layers == 0) return 0;
    if (layers > 64) layers = 64;
    Figure f = figure_init(runs, n);
    char titles[2 * 64][80];
    int rc = 0;
    for (int l = 0; l < layers && rc == 0; l++)
        for (int k = 0; k < 2 && rc == 0; k++) {
            /* logs from before the column: say so rather than leave a blank panel unexplained */
            snprintf(titles[2 * l + k], sizeof titles[0], "layer %d: %s", l,
                     k          ? "saturated rows (max weight > 0.99)"
                     : any_pass ? "softmax pass-through |dL/dZ| / |dL/dP|"
                                : "softmax pass-through: not in these logs");
            Panel *p = figure_panel(&f, titles[2 * l + k], k ? "saturated frac" : "softmax pass",
                                    k ? "saturated rows (%)" : "softmax_pass", 0, 1);
            if (!p) {
                rc = -1;
                break;
            }
            if (k) p->ax.y_lo = 0, p->ax.y_hi = 100;
            for (int r = 0; r < n && rc == 0; r++)
                if (runs[r].has_attn)
                    rc = xy_attention(&p->xy[r], &runs[r].attn, l,
                                      k ? "saturated_frac" : "softmax_pass", k ? 100 : 1);
        }
    if (rc == 0) {
        /* the pass-through panels (the even ones): one shared axis, logarithmic when the values
         * span more than PASSTHRU_LOG_SPAN, so a run passing 30x less stays readable */
        double lo = INFINITY, hi = -INFINITY;
        for (int i = 0; i < f.n; i += 2)
            for (int r = 0; r < n; r++) {
                const XY *xy = &f.p[i].xy[r];
                PlotSeries s = {runs[r].name, "", xy->x, xy->y, xy->n, r};
                double a, b;
                if (plot_y_range(&s, 1, 1, &a, &b)) lo = fmin(lo, a), hi = fmax(hi, b);
            }
        int log_y = lo <= hi && hi > PASSTHRU_LOG_SPAN * lo;
        for (int i = 0; i < f.n; i += 2) {
            f.p[i].ax.log_y = log_y;
            f.p[i].ax.y_label = log_y ? "softmax_pass (log scale)" : "softmax_pass";
        }
        share_y_range(&f, 0, f.n, 2, runs);
        rc = figure_write(&f, runs, "Softmax pass-through and saturation against step (mean over "
                                    "heads)", dir, "passthru.svg");
    } else {
        fprintf(stderr, "error: out of memory drawing passthru.svg\n");
    }
    figure_free(&f);
    return rc ? -1 : 1;
}
