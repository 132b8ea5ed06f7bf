/* sweep_args_check.c: the checks of ./train --sweep's command line once it is read
 * (cli/sweep_args.c): the d_k values against the width, keys set twice (by a shorthand and by
 * --grid, or by --set and by an axis), every --scales and --grid value and the config every run
 * starts from by the config's rules, and --collect given alone; each mistake named at its
 * argument with the line's others (sweep_args_check.h). */
#include "cli/sweep_args_check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The keys each shorthand owns; a --grid or --set of one of them is named, with both. */
void sweep_check_conflicts(const SweepArgs *a, SweepParts *p) {
    static const struct { const char *key, *flag; } OWNED[] = {
        {"model.d_model", "--dk"}, {"model.n_heads", "--dk"}, {"attention.scale", "--scales"},
        {"run.seed", "--seeds"}, {"train.steps", "--steps"}};
    int has[] = {p->has_dk, p->has_dk, p->has_scale, p->has_seed, a->steps >= 0};
    ErrorList *errs = &p->errs;
    for (int g = 0; g < p->n_grid; g++)
        for (size_t k = 0; k < sizeof OWNED / sizeof *OWNED; k++)
            if (has[k] && strcmp(p->grid[g].key, OWNED[k].key) == 0)
                arg_error(errs, "--grid", p->grid[g].argn, "'%s' is also set by %s; give it once",
                          OWNED[k].key, OWNED[k].flag);
    if ((a->d_model_argn || a->one_head) && !p->has_dk) {
        int argn = a->one_head ? a->one_head_argn : a->d_model_argn;
        arg_error(errs, a->one_head ? "--one-head" : "--d-model", argn, "shapes the d_k axis, "
                  "which is off with --grid unless --dk is given");
    }
    if (a->d_model_argn && a->one_head) { /* at the later one, naming the earlier */
        int model_later = a->d_model_argn > a->one_head_argn;
        arg_error(errs, model_later ? "--d-model" : "--one-head",
                  model_later ? a->d_model_argn : a->one_head_argn,
                  "excludes %s (argument %d); give one (with --one-head, d_model = d_k)",
                  model_later ? "--one-head" : "--d-model",
                  model_later ? a->one_head_argn : a->d_model_argn);
    }
    for (int s = 0; s < a->n_sets; s++) {
        const char *owner = NULL, *key = NULL;
        if (config_assignment_sets(a->sets[s], "run.name")) owner = "the sweep", key = "run.name";
        if (config_assignment_sets(a->sets[s], "run.dir")) owner = "the sweep (--out)", key = "run.dir";
        for (size_t k = 0; k < sizeof OWNED / sizeof *OWNED && !owner; k++)
            if (has[k] && config_assignment_sets(a->sets[s], OWNED[k].key))
                owner = OWNED[k].flag, key = OWNED[k].key;
        for (int g = 0; g < p->n_grid && !owner; g++)
            if (config_assignment_sets(a->sets[s], p->grid[g].key))
                owner = "--grid", key = p->grid[g].key;
        if (owner)
            arg_error(errs, "--set", a->set_argn[s], "'%s' is set by the sweep for every run; "
                                                     "use %s (or drop the --set)",
                      key, owner);
    }
}

/* Each d_k of the d_k axis divides the width it is taken from (plan_dk_width): those that do not
 * are named in one line at their --dk (the preset's at --d-model), with the other mistakes of
 * the line. */
void sweep_check_dk_width(const SweepArgs *a, SweepParts *p) {
    if (!p->has_dk || p->width_refused) return;
    char where[48], width[48], bad[256] = "";
    int n_bad = 0;
    size_t len = 0;
    for (int i = 0; i < p->dk.n; i++) {
        long dk;
        const char *v = p->dk.values[i];
        if (cli_parse_count(v, strlen(v), 1, 1000000, &dk) != 0) continue; /* named: check_dk */
        if (plan_dk_width(a, (int)dk) >= 0) continue;
        if (len < sizeof bad) /* cut past 255 characters: the first ones say it */
            len += (size_t)snprintf(bad + len, sizeof bad - len, "%s%ld", n_bad ? ", " : "", dk);
        n_bad++;
    }
    if (!n_bad) return;
    error_place(where, sizeof where, "--dk", p->dk.argn);
    if (a->d_model_argn) error_place(width, sizeof width, "--d-model", a->d_model_argn);
    else snprintf(width, sizeof width, "the default of --d-model");
    error_add(&p->errs, p->dk.argn ? p->dk.argn : a->d_model_argn, where,
              "d_k = %s %s not divide d_model = %d (%s): n_heads = d_model / d_k must be a whole "
              "number", bad, n_bad > 1 ? "do" : "does", a->d_model, width);
}

/* Each --scales value and each value of each --grid, tried on the defaults: a value's own rules
 * do not depend on the rest of the config (config/value.c), so one run names every bad
 * argument, as a config file's errors are all named at once. Then the config every run starts
 * from (plan_base_config: the file, each --set, --steps; their errors named here, the file's
 * first), and its checks between keys but those an axis takes part in (its keys are marked
 * unsure): they are the same for every run, so they are named with the rest of the line. The
 * checks an axis takes part in come later, run by run (plan_build). */
void sweep_check_values(const SweepArgs *a, SweepParts *p) {
    Config *c = malloc(sizeof *c);
    if (!c) {
        error_add(&p->errs, 0, NULL, "out of memory");
        return;
    }
    const Axis *tried[SWEEP_MAX_AXES + 1];
    int n_tried = 0;
    if (p->has_scale) tried[n_tried++] = &p->scale;
    for (int g = 0; g < p->n_grid; g++) tried[n_tried++] = &p->grid[g];
    for (int k = 0; k < n_tried; k++)
        for (int v = 0; v < tried[k]->n; v++) {
            config_defaults(c);
            plan_axis_set(c, tried[k], tried[k]->key, tried[k]->values[v], &p->errs);
        }
    plan_base_config(a, c, &p->errs);
    if (p->has_dk) {
        config_mark_unsure(c, "model.d_model");
        config_mark_unsure(c, "model.n_heads");
    }
    if (p->has_scale) config_mark_unsure(c, "attention.scale");
    if (p->has_seed) config_mark_unsure(c, "run.seed");
    for (int g = 0; g < p->n_grid; g++) config_mark_unsure(c, p->grid[g].key);
    config_validate_to(c, &p->errs);
    free(c);
}

/* --collect reads the plan from OUT/plan.txt: anything that would make a plan is refused. */
void sweep_check_collect(const SweepArgs *a, SweepParts *p) {
    if (a->config_path || p->has_dk || p->has_scale || p->has_seed || a->any_grid || a->n_sets ||
        a->steps >= 0 || a->d_model_argn || a->one_head)
        arg_error(&p->errs, "--collect", p->collect_argn, "reads the plan stored in "
                                                           "OUT/plan.txt; give only --out DIR "
                                                           "(and no config, axes, --set or "
                                                           "--steps)");
}
