/* guards.h: the tally of tripped guards (guard.* keys) of one run. A guard that trips is
 * reported once, the first time, per layer and head (attention guards) or per bound (gradient
 * norm guards); later trips are counted, and guards_summary gives the counts at the end, so a
 * guard that trips at every logged step does not bury the progress lines. */
#ifndef SCALEDOT_GUARDS_H
#define SCALEDOT_GUARDS_H

#include <stdio.h>

/* What a guard watches: per layer and head, or the global gradient norm. */
typedef enum {
    GUARD_LOGIT_STD,   /* guard.logit_std_max, per layer and head */
    GUARD_MAX_WEIGHT,  /* guard.max_weight_max, per layer and head */
    GUARD_GRAD_MIN,    /* guard.grad_norm_min, global */
    GUARD_GRAD_MAX,    /* guard.grad_norm_max, global */
    GUARD_KINDS
} GuardKind;

typedef struct {
    double bound[GUARD_KINDS]; /* each kind's guard.* value; 0 = that guard is off */
    int stop;                  /* guard.action = stop: a trip ends the run */
    int n_layers, n_heads, n_slots;
    long *count;      /* trips per slot */
    int *first_step;  /* step of the first trip per slot */
} GuardLog;

/* Allocates the tally for a model of n_layers x n_heads (all counts 0), with each kind's bound
 * (bound[kind]: the guard.* key's value, 0 = off) and whether a trip stops the run
 * (guard.action = stop). Returns 0, or -1 when memory runs out. guards_free releases it (safe on
 * a zeroed GuardLog). */
int guards_init(GuardLog *g, int n_layers, int n_heads, const double bound[GUARD_KINDS], int stop);
void guards_free(GuardLog *g);

/* Counts a trip of guard kind at step (layer, head: for the attention guards; ignored for the
 * gradient ones). The first trip of each slot prints "guard: step N: what" to f, with
 * " (guard.action = stop)" when stop is set. Returns stop. */
int guards_trip(GuardLog *g, GuardKind kind, int layer, int head, int step, const char *what,
                int stop, FILE *f);

/* The check of one guard, the same for all four (one table in guards.c names each kind's measure,
 * key and direction): when the guard is on (bound > 0) and value is past its bound (below it for
 * GUARD_GRAD_MIN, above it for the others), a trip (guards_trip) whose message reads "layer 0
 * head 1: attention-logit std 8.05 > guard.logit_std_max 2" (attention kinds) or "global
 * gradient norm 0.001 < guard.grad_norm_min 0.01". Returns 1 when the guard tripped, else 0.
 * Allocates nothing (called inside the training step). */
int guards_check(GuardLog *g, GuardKind kind, double value, int layer, int head, int step, FILE *f);

/* Number of trips so far of one slot. */
long guards_count(const GuardLog *g, GuardKind kind, int layer, int head);

/* One line per slot that tripped, "guard: layer 0 head 1: logit std above guard.logit_std_max
 * at 37 checks, first at step 0", to f; nothing when none tripped. Returns the lines written. */
int guards_summary(const GuardLog *g, FILE *f);

#endif
