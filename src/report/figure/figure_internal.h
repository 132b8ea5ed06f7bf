/* figure_internal.h: what report/figure/ shares inside itself and with its tests: the panel
 * grid (panels.c) and the figures --compare draws from it (figure_passthru.c, figure_maps.c,
 * figure_caption.c). */
#ifndef SCALEDOT_REPORT_FIGURE_INTERNAL_H
#define SCALEDOT_REPORT_FIGURE_INTERNAL_H

#include "report/figure/figure.h"
#include "report/plot/plot.h"
#include "report/read/read.h"

/* ==== panels.c: the grid of line-chart panels that the figures of ./train --compare are made of
 * (figures.c, figure_passthru.c). A Figure is a grid of panels, two per row (or one panel across
 * the row); each panel holds one XY line per run, read from a log column, and every panel of a
 * figure spans the same steps so they line up. */

#define PANEL_W 520.0
#define PANEL_H 320.0
#define MARGIN 20.0

/* Points of one line: steps and values. */
typedef struct {
    double *x, *y;
    int n;
    int present;   /* the run has the file this series comes from */
} XY;

typedef struct {
    PlotAxes ax;
    const char *series;  /* what each line measures, for data-series */
    XY *xy;              /* one per run */
    int span;            /* grid columns the panel takes */
    const char *ref_label; /* NULL, or a horizontal reference line at ref_y (chance level) */
    double ref_y;        /* drawn across the whole panel in PLOT_STYLE_REFERENCE, named in the
                          * legend by ref_label (the first panel's label when several have one) */
} Panel;

typedef struct {
    Panel *p;
    int n, cap, n_runs;
    double x_max;  /* every panel spans steps 0..x_max, so figures line up */
    int failed;
} Figure;

/* An empty figure for n runs, its x axis up to the last step any loss.csv logged. */
Figure figure_init(const Run *runs, int n);

/* Appends a panel (title, data-series name, y label, log y axis, grid columns 1 or 2) with an
 * empty XY per run; title and y_label must outlive the figure. NULL (and f->failed set) when
 * memory runs out. */
Panel *figure_panel(Figure *f, const char *title, const char *series, const char *y_label,
                    int log_y, int span);
void figure_free(Figure *f);

/* Steps and values (times scale) of the rows where column `name` is not empty: a value that was
 * not measured at a step is left out, while a logged NaN/inf is kept so the line breaks there.
 * A missing column gives an empty line. Returns 0, or -1 when memory runs out. */
int xy_column(XY *xy, const Csv *t, const char *name, double scale);

/* Mean over heads of an attention.csv column for one layer, one point per step (times scale);
 * a missing column gives an empty line. Returns 0, or -1 when memory runs out. */
int xy_attention(XY *xy, const Csv *t, int layer, const char *name, double scale);

/* Gives the panels first, first + stride, ... below last the union of their y ranges, so
 * magnitudes compare. Returns 0 (ranges left as they were) when they have nothing to draw. */
int share_y_range(Figure *f, int first, int last, int stride, const Run *runs);

/* Ends s and writes it to dir/file, then frees it. Returns 0, or -1 with errno set after printing
 * the error, which names the file that failed (dir/file or its temporary file). */
int save_figure(Svg *s, const char *dir, const char *file);

/* Writes dir/file: the title, a legend of the runs that appear, and the panels in a grid of two
 * columns (a panel with span 2 takes a whole row). Returns 0, or -1 after printing the error. */
int figure_write(const Figure *f, const Run *runs, const char *title, const char *dir,
                 const char *file);

/* ==== figure_caption.c: appending to a figure's caption (HTML), shared by the figures of --compare. */

/* Appends printf-style text to fi's caption (cut at FIGURE_CAPTION_LEN). The text is HTML as
 * given: escape a run's name with caption_escaped. */
void caption_add(FigureInfo *fi, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Appends text to fi's caption with &, <, >, " and ' escaped (a run's name). */
void caption_escaped(FigureInfo *fi, const char *text);

/* ==== figure_maps.c: the attention-map figure of ./train --compare. */

/* The folded second file of attention maps (figure_maps). */
#define FIGURE_MAPS_MORE_FILE "attn_maps_more.svg"


/* Writes dir/attn_maps.svg: per run and layer, the most and the least saturated head
 * (FIGURES_MAP_HEADS; saturation = the mean over query rows with two or more visible keys of the
 * row's largest weight, in the end map, else the step-0 map), at step 0 (attn_map_step0.csv) and
 * at the end (attn_map.csv), one heatmap each (row = query, column = key, masked keys hatched,
 * the answer's start marked where answers are among the inputs); the other heads go to
 * dir/attn_maps_more.svg, described in fi[1] (folded). Fills fi[0] (and fi[1]) with the
 * caption. Returns the number of figures written (0: no run has a map, 1, or 2), -1 on error
 * (printed). */
int figure_maps(const Run *runs, int n, const char *dir, FigureInfo *fi);

/* ==== figure_passthru.c: the softmax pass-through figure of ./train --compare (passthru.svg): per
 * layer, how much of the gradient reaching the attention probabilities the softmax passes on to
 * the logits, beside the share of saturated rows. */

/* The y axis of the pass-through panels turns logarithmic when their values (> 0) span more
 * than this factor. */
#define PASSTHRU_LOG_SPAN 30.0

/* Writes dir/passthru.svg: per layer of attention.csv, a panel of softmax_pass (mean over heads;
 * log axis past PASSTHRU_LOG_SPAN) and one of saturated_frac (%, mean over heads), one line per
 * run. A run whose attention.csv has no softmax_pass column (logged before it existed) has no
 * line in the first. Returns 1 when written, 0 when no run has attention.csv, -1 on error
 * (printed). log_scale is ignored (the axis follows the data). */
int figure_passthru(const Run *runs, int n, const char *dir, int log_scale);

/* Title and caption (HTML) of the figure, for the report page. */
extern const char FIGURE_PASSTHRU_TITLE[], FIGURE_PASSTHRU_CAPTION[];

#endif
