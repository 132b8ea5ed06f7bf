/* plot.h: the face of report/plot/, the drawing primitives every figure is made of: the SVG
 * writer (svg.c) and line charts, scatter charts, legends, ticks and heatmaps drawn with it
 * (plot_style.c, plot_ticks.c, plot_lines.c, plot_heatmap.c). The bottom floor of report/ with
 * report/read/: it includes nothing of report/ and knows no run, log or sweep. */
#ifndef SCALEDOT_REPORT_PLOT_H
#define SCALEDOT_REPORT_PLOT_H

#include <stddef.h>
#include <stdio.h>

/* ==== svg.c: a minimal SVG writer that builds a document in memory.
 *
 * The writer only guarantees well-formed XML for what it writes itself: every text and attribute
 * value that comes from data (run names, tokens, labels) goes through the escaping functions.
 * Markup passed to svg_raw is the caller's responsibility. Allocation failures are sticky: the
 * writer stops appending and svg_end reports -1, so callers check once at the end. */

typedef struct {
    char *buf;      /* the document so far, NUL-terminated (NULL before the first write) */
    size_t len, cap;
    int failed;     /* an allocation failed; nothing more is appended */
    int next_id;    /* counter for unique element ids (clip paths) within this document */
} Svg;

/* Starts a document of width x height user units (= CSS pixels), with a white background and a
 * default font, and an accessible <title> (escaped; may be NULL). */
void svg_begin(Svg *s, double width, double height, const char *title);

/* 1 when text (NUL-terminated) opens the way svg_begin opens every SVG (the XML declaration, then
 * an <svg> tag of our attributes on one line): a figure a report of ours wrote, which a report
 * into the same folder may replace. */
int svg_is_ours(const char *text);

/* Appends printf-formatted markup verbatim. Numbers only, or text the caller knows is safe. */
void svg_raw(Svg *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Appends text with &, <, >, " and ' replaced by entities, so it is safe both as element text and
 * inside a double-quoted attribute value. Control characters other than tab, CR and LF (not
 * allowed in XML 1.0) become '?'; a byte that does not begin well-formed UTF-8 (RFC 3629; a
 * folder name in another encoding) becomes U+FFFD, so the document stays well-formed. */
void svg_escaped(Svg *s, const char *text);

/* <text x y ATTRS>escaped text</text>; attrs is raw markup such as
 * "class=\"tick\" text-anchor=\"end\"" (may be NULL). */
void svg_text(Svg *s, double x, double y, const char *attrs, const char *text);

/* <line> from (x1,y1) to (x2,y2) and <rect> with raw attributes (may be NULL). */
void svg_line(Svg *s, double x1, double y1, double x2, double y2, const char *attrs);
void svg_rect(Svg *s, double x, double y, double w, double h, const char *attrs);

/* Returns a fresh id number for this document (for clipPath ids and the like). */
int svg_new_id(Svg *s);

/* Closes the root element. Returns 0, or -1 if any allocation failed while writing. */
int svg_end(Svg *s);

/* Writes the document to path whole (util/whole_write.h: a temporary file renamed over path, never
 * through a link). Returns 0, or -1 with errno set, path unchanged (the message is the caller's). */
int svg_save(const Svg *s, const char *path);

/* svg_save that also names, on failure, the file the failure was at (path or its temporary
 * file, file_write_atomic_why) in failed[0..n), for the message. */
int svg_save_why(const Svg *s, const char *path, char *failed, size_t n);

/* Frees the document; s is empty afterwards and may be reused with svg_begin. */
void svg_free(Svg *s);

/* The same escaping as svg_escaped, to a stream (for the HTML page). */
void xml_escape_file(FILE *f, const char *text);

/* ==== plot_style.c, plot_ticks.c, plot_lines.c, plot_heatmap.c: line charts, legends and heatmaps drawn with the SVG writer.
 *
 * A figure is a grid of panels that the caller lays out; each panel is drawn into a rectangle of
 * the document. Runs keep one style (colour plus dash pattern) across every panel and figure, so
 * a single legend per figure names them. Non-finite values (and values <= 0 on a log axis) are
 * not drawn: the line is broken there, and a series that ends in NaN/inf gets a cross at its last
 * finite point.
 *
 * Implemented in plot_style.c (run styles, legend, text width), plot_ticks.c (axis ticks),
 * plot_lines.c (line and scatter charts) and plot_heatmap.c (heatmaps, colour ramp, colour bar). */

/* Colour ("#rrggbb") and SVG stroke-dasharray ("" = solid) of style number i >= 0; the first 8
 * styles differ in both colour and dash, later ones cycle. PLOT_STYLE_REFERENCE (any style < 0)
 * is a grey dashed line for a reference level that is no run (chance level). */
#define PLOT_STYLE_REFERENCE (-1)
const char *plot_color(int style);
const char *plot_dash(int style);

typedef struct {
    double value;
    int major;        /* a decade on a log axis, every tick on a linear one: stronger grid line */
    char label[24];   /* "" = a minor tick without a label */
} PlotTick;

#define PLOT_MAX_TICKS 96

/* Linear ticks at "nice" steps (1, 2 or 5 times a power of ten), at most max_ticks of them.
 * Widens [*lo, *hi] to whole steps and writes the widened range back (0..0.97 becomes 0..1 with
 * ticks 0, 0.2, ..., 1). A non-finite or empty range becomes 0..1 or value +-10%. Labels carry
 * just enough decimals for the step. Returns the number of ticks written (<= cap). */
int plot_nice_ticks(double *lo, double *hi, int max_ticks, PlotTick *ticks, int cap);

/* Log-axis ticks at 1, 2 and 5 times each power of ten. A range wider than 1.5 decades is widened
 * to whole decades, a narrower one to the nearest 1-2-5 values; the range is written back.
 * Decades are labelled (every other one, or sparser, beyond 8 decades); 2 and 5 are labelled too
 * when the axis spans at most 2.5 decades. Labels read 0.001, 20, 5000, or 1e-05 style beyond
 * 1e-4..1e4. Non-positive bounds fall back to a sensible range. Returns the tick count. */
int plot_log_ticks(double *lo, double *hi, PlotTick *ticks, int cap);

/* Log-axis ticks at the powers of two inside [*lo, *hi] (for data on a doubling grid such as
 * d_k = 8, 16, ..., 128): the range is kept as given (the caller pads it), every tick is major,
 * labels read 8, 128, 0.5, 0.25 (%g); beyond 12 of them every other one is labelled, counted from
 * the largest. With fewer than two powers of two inside (or non-positive bounds) it falls back to
 * plot_log_ticks. Returns the tick count. */
int plot_log2_ticks(double *lo, double *hi, PlotTick *ticks, int cap);

/* One line of a chart: n points (x[i], y[i]). */
typedef struct {
    const char *run;    /* the run it belongs to: data-run attribute, tooltip */
    const char *name;   /* what it measures ("train loss"): data-series attribute */
    const double *x, *y;
    int n;
    int style;          /* plot_color / plot_dash index: the run's index */
} PlotSeries;

/* Error bars of one series: a capped vertical bar from lo[i] to hi[i] at each drawn point i
 * where both are drawable (e.g. min and max over seeds around a median); lo == NULL: none. */
typedef struct {
    const double *lo, *hi;
} PlotBars;

typedef struct {
    const char *title, *x_label, *y_label;
    int log_y;
    double x_lo, x_hi;  /* fixed x range, or NAN for the data's */
    double y_lo, y_hi;  /* fixed y range, or NAN for the data's */
    int y_from_zero;    /* linear y: let the automatic range start at 0 */
    int log_x;          /* 1: log10 x axis (1-2-5 ticks as plot_log_ticks); PLOT_LOG2: a log
                         * axis ticked at powers of two (plot_log2_ticks); x <= 0 is not drawn */
    const char *const *x_names; /* n_x_names > 0: a categorical x axis (log_x ignored), x = i
                                 * drawn at a tick labelled x_names[i] (its first 23 bytes), the
                                 * axis from -0.5 to n_x_names - 0.5 unless x_lo / x_hi say */
    int n_x_names;
} PlotAxes;

#define PLOT_LOG2 2

/* True when plot_lines draws the point (x, y): both finite, and y > 0 on a log axis. */
int plot_drawn(double x, double y, int log_y);

/* Finite y range of the series (only y > 0 when log_y); returns 0 when there is no such value. */
int plot_y_range(const PlotSeries *series, int n_series, int log_y, double *lo, double *hi);

/* Finite x range of the series; returns 0 when there is no such value. */
int plot_x_range(const PlotSeries *series, int n_series, double *lo, double *hi);

/* Draws a line chart inside the rectangle (x, y, w, h): title, frame, grid, ticks, axis labels and
 * one <path class="series" data-run=.. data-series=.. data-points=N data-x=.. data-y=..> per series,
 * N being the number of points drawn and data-x / data-y their values (%.9g / %.6g, space-separated,
 * in the order of the path's vertices: the HTML page's tooltip reads them); the chart is a
 * <g class="chart" data-x-label data-y-label>. Returns the number of points drawn over all series. */
int plot_lines(Svg *s, double x, double y, double w, double h, const PlotAxes *ax,
               const PlotSeries *series, int n_series);

/* plot_lines with error bars: bars[i] (bars may be NULL) belongs to series[i]; each bar drawn is a
 * <path class="errorbar" data-run data-series> in the series' colour, and the automatic y range
 * includes the bars. */
int plot_lines_bars(Svg *s, double x, double y, double w, double h, const PlotAxes *ax,
                    const PlotSeries *series, const PlotBars *bars, int n_series);

/* One point of a scatter chart. */
typedef struct {
    const char *run;  /* data-run attribute and tooltip */
    double x, y;
    int style;        /* plot_color index */
    int marker;       /* 0 circle, 1 square, 2 triangle, 3 diamond (cycles) */
    int censored;     /* 0: a value; +1: a lower bound (hollow, arrow up); -1: an upper bound
                       * (hollow, arrow down) */
} PlotPoint;

/* A scatter chart in (x, y, w, h), with the frame, grid and ticks of plot_lines: each point
 * drawn is a <path class="point" data-run data-x data-y data-censored> (x, y printed %.6g),
 * followed by a <path class="censor-arrow"> when censored. Points plot_lines would not draw are
 * left out. Returns the number drawn. (plot_lines.c) */
int plot_scatter(Svg *s, double x, double y, double w, double h, const PlotAxes *ax,
                 const PlotPoint *pts, int n);

typedef struct {
    const char *label;
    int style;
} PlotLegendItem;

/* A legend of line samples and labels, flowing left to right from (x, y) and wrapping within
 * width w. Returns the height it uses; with s == NULL it only measures. */
double plot_legend(Svg *s, double x, double y, double w, const PlotLegendItem *items, int n);

/* A matrix of values shown as coloured cells (white = vmin, dark blue = vmax; NaN = not a value,
 * e.g. a masked position: light grey with a diagonal stroke, unlike any colour of the ramp). */
typedef struct {
    const char *title;
    const double *v;                /* rows x cols, row-major */
    int rows, cols;
    const char *const *row_labels;  /* rows strings, or NULL */
    const char *const *col_labels;  /* cols strings, or NULL */
    const char *row_axis, *col_axis; /* axis names, e.g. "query", "key" (may be NULL) */
    double vmin, vmax;
    int boundary;                   /* > 0: a dashed line before row and column boundary (where
                                       the prompt ends); 0: none */
} PlotHeatmap;

/* Width and height plot_heatmap will use with square cells of side cell. */
void plot_heatmap_size(const PlotHeatmap *hm, double cell, double *w, double *h);

/* Draws the heatmap with its top-left corner at (x, y), as <g class="heatmap" data-rows
 * data-cols>, labels on the left (rows) and below (columns, rotated) when given. */
void plot_heatmap(Svg *s, double x, double y, double cell, const PlotHeatmap *hm);

/* A vertical colour bar of the heatmap ramp, (x, y, w, h), ticked from vmin to vmax, with label. */
void plot_colorbar(Svg *s, double x, double y, double w, double h, double vmin, double vmax,
                   const char *label);

/* The heatmap colour of t in [0, 1] (clamped; NaN gives grey) as "#rrggbb". */
void plot_ramp(double t, char out[8]);

/* Rough width in user units of text at font size px (0.6 em per character), for layout. */
double plot_text_width(const char *text, double px);

#endif
