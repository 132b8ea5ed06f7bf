/* lr_map_regime.h: where a config stands among the measured regimes of ./train --where
 * (lr_map.h), before any verdict: lr_map.c's first step. */
#ifndef SCALEDOT_LR_MAP_REGIME_H
#define SCALEDOT_LR_MAP_REGIME_H

#include "config/config.h"
#include "train/lr_map_types.h"

/* x as the run resolves it for task sequence length T (train_resolve_config), and a numeric
 * attention.scale equal (in double, exactly) to 1/sqrt(d_k) or 1 written as sqrt_dk or none. */
void lr_map_resolve(Config *x, int T);

/* The regime the resolved config c is in (p->regime), else the nearest (p->nearest) with the
 * settings in which c differs from it (p->diffs); in a regime, the corpus note of a text config
 * (p->corpus_match, p->corpus, p->config_file; corpus_base as lr_map_place's) and c's arm
 * (p->arm: the regime's arm keys as "key=value ..."). text is config_text(c). Returns 0, or -1
 * after a message (a regime's settings that cannot be read). */
int lr_map_find_regime(const Config *c, const char *text, int T, const char *corpus_base,
                       LrPlacement *p);

#endif
