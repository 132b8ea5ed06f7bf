/* figure_maps.h: the attention-map figure of ./train --compare. */
#ifndef SCALEDOT_FIGURE_MAPS_H
#define SCALEDOT_FIGURE_MAPS_H

/* The folded second file of attention maps (figure_maps). */
#define FIGURE_MAPS_MORE_FILE "attn_maps_more.svg"

#include "report/figure/figures.h"

/* Writes dir/attn_maps.svg: per run and layer, the most and the least saturated head
 * (FIGURES_MAP_HEADS; saturation = the mean over query rows with two or more visible keys of the
 * row's largest weight, in the end map, else the step-0 map), at step 0 (attn_map_step0.csv) and
 * at the end (attn_map.csv), one heatmap each (row = query, column = key, masked keys hatched,
 * the answer's start marked where answers are among the inputs); the other heads go to
 * dir/attn_maps_more.svg, described in fi[1] (folded). Fills fi[0] (and fi[1]) with the
 * caption. Returns the number of figures written (0: no run has a map, 1, or 2), -1 on error
 * (printed). */
int figure_maps(const Run *runs, int n, const char *dir, FigureInfo *fi);

#endif
