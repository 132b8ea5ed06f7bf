/* guards.c: the once-per-slot reports and the counts of tripped guards (see guards.h). */
#include "train/guards.h"

#include <stdlib.h>

/* Slots: (layer, head, 2 attention kinds), then the 2 gradient bounds. */
static int slot(const GuardLog *g, GuardKind kind, int layer, int head) {
    if (kind == GUARD_GRAD_MIN || kind == GUARD_GRAD_MAX)
        return g->n_slots - 2 + (kind == GUARD_GRAD_MAX);
    if (layer < 0 || layer >= g->n_layers || head < 0 || head >= g->n_heads) return -1;
    return (layer * g->n_heads + head) * 2 + (kind == GUARD_MAX_WEIGHT);
}

int guards_init(GuardLog *g, int n_layers, int n_heads) {
    g->n_layers = n_layers;
    g->n_heads = n_heads;
    g->n_slots = 2 * n_layers * n_heads + 2;
    g->count = calloc((size_t)g->n_slots, sizeof *g->count);
    g->first_step = calloc((size_t)g->n_slots, sizeof *g->first_step);
    if (!g->count || !g->first_step) {
        guards_free(g);
        return -1;
    }
    return 0;
}

void guards_free(GuardLog *g) {
    free(g->count);
    free(g->first_step);
    g->count = NULL;
    g->first_step = NULL;
}

int guards_trip(GuardLog *g, GuardKind kind, int layer, int head, int step, const char *what,
                int stop, FILE *f) {
    int s = g->count ? slot(g, kind, layer, head) : -1;
    if (s < 0 || g->count[s]++ == 0) {
        if (s >= 0) g->first_step[s] = step;
        fprintf(f, "guard: step %d: %s%s\n", step, what,
                stop ? " (guard.action = stop)" : " (reported once; counted until the end)");
    }
    return stop;
}

long guards_count(const GuardLog *g, GuardKind kind, int layer, int head) {
    int s = g->count ? slot(g, kind, layer, head) : -1;
    return s >= 0 ? g->count[s] : 0;
}

int guards_summary(const GuardLog *g, FILE *f) {
    static const char *const WHAT[] = {"attention-logit std above guard.logit_std_max",
                                       "mean row-max attention weight above guard.max_weight_max",
                                       "global gradient norm below guard.grad_norm_min",
                                       "global gradient norm above guard.grad_norm_max"};
    int lines = 0;
    for (int s = 0; g->count && s < g->n_slots; s++) {
        if (g->count[s] == 0) continue;
        long n = g->count[s];
        if (s >= g->n_slots - 2)
            fprintf(f, "guard: %s at %ld step%s, first at step %d\n", WHAT[2 + (s - (g->n_slots - 2))],
                    n, n == 1 ? "" : "s", g->first_step[s]);
        else
            fprintf(f, "guard: layer %d head %d: %s at %ld check%s, first at step %d\n",
                    s / 2 / g->n_heads, s / 2 % g->n_heads, WHAT[s % 2], n, n == 1 ? "" : "s",
                    g->first_step[s]);
        lines++;
    }
    return lines;
}
