/* guards.c: the once-per-slot reports and the counts of tripped guards (see guards.h). */
#include "train/guards.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The four guards: what each measures, its key, and which side of the bound trips it. The check
 * (guards_check), its message and the summary line are all written from this table. */
static const struct {
    const char *measure, *key;
    int below; /* trips below the bound (a lower bound); else above it */
} GUARDS[GUARD_KINDS] = {
    [GUARD_LOGIT_STD] = {"attention-logit std", "guard.logit_std_max", 0},
    [GUARD_MAX_WEIGHT] = {"mean row-max attention weight", "guard.max_weight_max", 0},
    [GUARD_GRAD_MIN] = {"global gradient norm", "guard.grad_norm_min", 1},
    [GUARD_GRAD_MAX] = {"global gradient norm", "guard.grad_norm_max", 0},
};

static int is_global(GuardKind kind) { return kind == GUARD_GRAD_MIN || kind == GUARD_GRAD_MAX; }

/* Slots: (layer, head, 2 attention kinds), then the 2 gradient bounds. */
static int slot(const GuardLog *g, GuardKind kind, int layer, int head) {
    if (is_global(kind))
        return g->n_slots - 2 + (kind == GUARD_GRAD_MAX);
    if (layer < 0 || layer >= g->n_layers || head < 0 || head >= g->n_heads) return -1;
    return (layer * g->n_heads + head) * 2 + (kind == GUARD_MAX_WEIGHT);
}

int guards_init(GuardLog *g, int n_layers, int n_heads, const double bound[GUARD_KINDS], int stop) {
    memcpy(g->bound, bound, sizeof g->bound);
    g->stop = stop;
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

int guards_check(GuardLog *g, GuardKind kind, double value, int layer, int head, int step,
                 FILE *f) {
    double bound = g->bound[kind];
    if (!(bound > 0) || !(GUARDS[kind].below ? value < bound : value > bound)) return 0;
    char where[48] = "", what[160];
    if (!is_global(kind)) snprintf(where, sizeof where, "layer %d head %d: ", layer, head);
    snprintf(what, sizeof what, "%s%s %.3g %c %s %g", where, GUARDS[kind].measure, value,
             GUARDS[kind].below ? '<' : '>', GUARDS[kind].key, bound);
    guards_trip(g, kind, layer, head, step, what, g->stop, f);
    return 1;
}

long guards_count(const GuardLog *g, GuardKind kind, int layer, int head) {
    int s = g->count ? slot(g, kind, layer, head) : -1;
    return s >= 0 ? g->count[s] : 0;
}

int guards_summary(const GuardLog *g, FILE *f) {
    int lines = 0;
    for (int s = 0; g->count && s < g->n_slots; s++) {
        if (g->count[s] == 0) continue;
        long n = g->count[s];
        int global = s >= g->n_slots - 2;
        GuardKind kind = global ? (s == g->n_slots - 1 ? GUARD_GRAD_MAX : GUARD_GRAD_MIN)
                                : (s % 2 ? GUARD_MAX_WEIGHT : GUARD_LOGIT_STD);
        char where[48] = "";
        int layer = s / 2 / g->n_heads, head = s / 2 % g->n_heads;
        if (!global) snprintf(where, sizeof where, "layer %d head %d: ", layer, head);
        fprintf(f, "guard: %s%s %s %s at %ld %s%s, first at step %d\n", where, GUARDS[kind].measure,
                GUARDS[kind].below ? "below" : "above", GUARDS[kind].key, n,
                global ? "step" : "check", n == 1 ? "" : "s", g->first_step[s]);
        lines++;
    }
    return lines;
}
