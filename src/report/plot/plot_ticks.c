/* plot_ticks.c: axis ticks -- linear ones at 1-2-5 steps and log ones at 1, 2 and 5 times each
 * power of ten, with the range widened to them and labels with just enough decimals. Used by the
 * line charts (plot_lines.c) and the heatmap colour bar (plot_heatmap.c). Report stage (... ->
 * logs -> report). */
#include <math.h>
#include <stdio.h>

#include "report/plot/plot.h"

/* Fixed notation with the given decimals, no "-0". */
static void format_fixed(char *out, size_t n, double v, int decimals) {
    if (fabs(v) < 0.5 * pow(10, -decimals)) v = 0;
    snprintf(out, n, "%.*f", decimals, v);
}

int plot_nice_ticks(double *lo, double *hi, int max_ticks, PlotTick *ticks, int cap) {
    double a = *lo, b = *hi;
    if (!isfinite(a) || !isfinite(b)) a = 0, b = 1;
    if (b < a) {
        double t = a;
        a = b;
        b = t;
    }
    if (b == a) {
        double d = a != 0 ? fabs(a) * 0.1 : 1;
        a -= d;
        b += d;
    }
    if (max_ticks < 2) max_ticks = 2;
    double raw = (b - a) / (max_ticks - 1);
    double mag = pow(10, floor(log10(raw)));
    static const double MULT[] = {1, 2, 5, 10, 20, 50, 100};
    double step = 0, first = 0, last = 0;
    int count = 0;
    /* The smallest nice step whose widened range still fits in max_ticks ticks. */
    for (size_t m = 0; m < sizeof MULT / sizeof *MULT; m++) {
        step = MULT[m] * mag;
        if (step < raw * (1 - 1e-9)) continue;
        first = floor(a / step + 1e-9) * step;
        last = ceil(b / step - 1e-9) * step;
        count = (int)llround((last - first) / step) + 1;
        if (count <= max_ticks) break;
    }
    int decimals = step >= 1 ? 0 : (int)ceil(-log10(step) - 1e-9);
    int big = fmax(fabs(first), fabs(last)) >= 1e6;
    int n = 0;
    for (int i = 0; i < count && n < cap; i++) {
        PlotTick *t = &ticks[n++];
        t->value = first + i * step;
        if (fabs(t->value) < step * 1e-9) t->value = 0;
        t->major = 1;
        if (big)
            snprintf(t->label, sizeof t->label, "%g", t->value);
        else
            format_fixed(t->label, sizeof t->label, t->value, decimals);
    }
    *lo = first;
    *hi = last;
    return n;
}

static void format_log_label(char *out, size_t n, int m, int k) {
    if (k >= -4 && k <= 4)
        format_fixed(out, n, m * pow(10, k), k < 0 ? -k : 0);
    else
        snprintf(out, n, "%de%s%02d", m, k < 0 ? "-" : "+", k < 0 ? -k : k);
}

int plot_log_ticks(double *lo, double *hi, PlotTick *ticks, int cap) {
    double a = *lo, b = *hi;
    if (!(b > 0) || !isfinite(b)) b = 10;
    if (!(a > 0) || !isfinite(a)) a = b / 100;
    if (b < a) {
        double t = a;
        a = b;
        b = t;
    }
    if (a == b) {
        a /= 2;
        b *= 2;
    }
    static const int M[] = {1, 2, 5};
    int k0 = (int)floor(log10(a) + 1e-9), k1 = (int)ceil(log10(b) - 1e-9);
    if (log10(b / a) > 1.5) {
        a = pow(10, k0);
        b = pow(10, k1);
    } else {
        /* Widen to the neighbouring 1-2-5 values instead of whole decades. */
        double na = pow(10, k0), nb = pow(10, k1);
        for (int k = k0; k <= k1; k++)
            for (int i = 0; i < 3; i++) {
                double v = M[i] * pow(10, k);
                if (v <= a * (1 + 1e-9) && v > na) na = v;
                if (v >= b * (1 - 1e-9) && v < nb) nb = v;
            }
        a = na;
        b = nb;
    }
    double decades = log10(b / a);
    int label_minor = decades <= 2.5 + 1e-9;
    int stride = decades > 8 ? (int)ceil(decades / 8) : 1;
    int n = 0;
    for (int k = k0; k <= k1 && n < cap; k++)
        for (int i = 0; i < 3 && n < cap; i++) {
            double v = M[i] * pow(10, k);
            if (v < a * (1 - 1e-9) || v > b * (1 + 1e-9)) continue;
            PlotTick *t = &ticks[n++];
            t->value = v;
            t->major = M[i] == 1;
            int labelled = M[i] == 1 ? ((k % stride) + stride) % stride == 0 : label_minor;
            if (labelled)
                format_log_label(t->label, sizeof t->label, M[i], k);
            else
                t->label[0] = '\0';
        }
    *lo = a;
    *hi = b;
    return n;
}

int plot_log2_ticks(double *lo, double *hi, PlotTick *ticks, int cap) {
    double a = fmin(*lo, *hi), b = fmax(*lo, *hi);
    if (!(a > 0) || !isfinite(b)) return plot_log_ticks(lo, hi, ticks, cap);
    int k0 = (int)ceil(log2(a) - 1e-9), k1 = (int)floor(log2(b) + 1e-9);
    if (k1 - k0 + 1 < 2) return plot_log_ticks(lo, hi, ticks, cap);
    int stride = k1 - k0 + 1 > 12 ? 2 : 1, n = 0;
    for (int k = k0; k <= k1 && n < cap; k++) {
        PlotTick *t = &ticks[n++];
        t->value = ldexp(1, k);
        t->major = 1;
        if ((k1 - k) % stride == 0)
            snprintf(t->label, sizeof t->label, "%g", t->value);
        else
            t->label[0] = '\0';
    }
    *lo = a;
    *hi = b;
    return n;
}
