/* figure_maps.c: the attention-map figure of ./train --compare (attn_maps.svg, and the other
 * heads folded in attn_maps_more.svg): one heatmap per run, layer and head, at step 0 and at the
 * end, the most and the least saturated head of each run and layer shown first. */
#include "report/figure/figure_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/plot/plot.h"
#include "util/error_list.h"

/* One heatmap of the attention-map figure. */
typedef struct {
    int run, first_row, rows, layer, head;
    int step0;       /* from attn_map_step0.csv (before training), else attn_map.csv (the end) */
    const Csv *csv;  /* the one it comes from */
    char title[RUN_NAME_LEN + 64];
    double x, y, w, h;
} MapSlot;

/* Labels for positions 0..T-1: the token text from attn_map_tokens.csv, else the position. */
static void token_labels(const Run *r, int T, const char **labels, char (*num)[12]) {
    for (int p = 0; p < T; p++) {
        snprintf(num[p], 12, "%d", p);
        labels[p] = num[p];
    }
    if (!r->has_tokens) return;
    int cp = csv_col(&r->tokens, "position"), ct = csv_col(&r->tokens, "token");
    if (cp < 0 || ct < 0) return;
    for (int i = 0; i < r->tokens.n_rows; i++) {
        double p = csv_num(&r->tokens, i, cp);
        if (p >= 0 && p < T) labels[(int)p] = csv_str(&r->tokens, i, ct);
    }
}

/* Splits each run's attn_map_step0.csv, then attn_map.csv, into their (layer, head) blocks of
 * query rows, appending them to slots. */
static int map_slots(const Run *runs, int n, MapSlot **slots, int *n_slots) {
    int cap = 0;
    *slots = NULL;
    *n_slots = 0;
    for (int r = 0; r < n; r++)
        for (int which = 0; which < 2; which++) {
            const Csv *m = which ? &runs[r].map : &runs[r].map0;
            if (!(which ? runs[r].has_map : runs[r].has_map0)) continue;
            int cl = csv_col(m, "layer"), ch = csv_col(m, "head");
            if (cl < 0 || ch < 0 || csv_col(m, "k0") < 0) continue;
            for (int i = 0; i < m->n_rows; i++) {
                int layer = csv_int(m, i, cl, -1), head = csv_int(m, i, ch, -1);
                MapSlot *last = *n_slots ? &(*slots)[*n_slots - 1] : NULL;
                if (last && last->csv == m && last->layer == layer && last->head == head) {
                    last->rows++;
                    continue;
                }
                if (*n_slots == cap) {
                    cap = cap ? 2 * cap : 16;
                    MapSlot *s = realloc(*slots, (size_t)cap * sizeof *s);
                    if (!s) return -1;
                    *slots = s;
                }
                MapSlot *s = &(*slots)[(*n_slots)++];
                *s = (MapSlot){.run = r, .first_row = i, .rows = 1, .layer = layer, .head = head,
                               .step0 = !which, .csv = m};
                snprintf(s->title, sizeof s->title, "%s: layer %d, head %d, %s", runs[r].name,
                         layer, head, which ? "end" : "step 0");
            }
        }
    return 0;
}

/* The first position whose input token is part of the answer (attn_map_tokens.csv's answer
 * column), or 0 when the tokens file does not say, or for a text run (every next byte is an
 * answer: there is no prompt to mark off). */
static int answer_start(const Run *r, int T) {
    if (!r->has_tokens || run_is_text(r)) return 0;
    int cp = csv_col(&r->tokens, "position"), ca = csv_col(&r->tokens, "answer");
    if (cp < 0 || ca < 0) return 0;
    int first = 0;
    for (int i = 0; i < r->tokens.n_rows; i++) {
        int p = csv_int(&r->tokens, i, cp, -1);
        if (csv_int(&r->tokens, i, ca, 0) == 1 && p > 0 && p < T && (first == 0 || p < first))
            first = p;
    }
    return first;
}

/* Fills the heatmap description of a slot; v, labels and row labels are caller-provided buffers
 * of T*rows, T and rows entries. */
static PlotHeatmap slot_heatmap(const Run *runs, const MapSlot *s, int T, double *v,
                                const char **labels, const char **row_labels, char (*num)[12]) {
    const Run *r = &runs[s->run];
    const Csv *m = s->csv;
    int k0 = csv_col(m, "k0"), cq = csv_col(m, "query");
    token_labels(r, T, labels, num);
    for (int i = 0; i < s->rows; i++) {
        int q = cq >= 0 ? csv_int(m, s->first_row + i, cq, -1) : i;
        row_labels[i] = q >= 0 && q < T ? labels[q] : "?";
        /* causal attention: keys after the query are masked, not weights of 0 (NaN: hatched) */
        for (int j = 0; j < T; j++)
            v[(size_t)i * T + j] = q >= 0 && j > q ? NAN : csv_num(m, s->first_row + i, k0 + j);
    }
    return (PlotHeatmap){.title = s->title, .v = v, .rows = s->rows, .cols = T,
                         .row_labels = row_labels, .col_labels = labels, .row_axis = "query",
                         .col_axis = "key", .vmin = 0, .vmax = 1,
                         .boundary = s->rows == T ? answer_start(r, T) : 0};
}

/* Places the maps (their w and h set) in rows below the title: a row of its own per run and
 * moment (step 0, end), wrapped at about two panels' width, every map in a column as wide as the
 * widest (its title included), so a longer title (a longer run name) does not push the maps to
 * its right out of line with those above. *used_w: the widest row; *bottom: the last row's. */
static void layout_maps(MapSlot *slots, int n_slots, double *used_w, double *bottom) {
    const double max_w = 2 * PANEL_W - 90, gap = 26;
    double x = MARGIN, y = 48, row_h = 0, col_w = 0;
    *used_w = 0;
    for (int i = 0; i < n_slots; i++) col_w = fmax(col_w, slots[i].w);
    for (int i = 0; i < n_slots; i++) {
        int new_run = i > 0 && slots[i].csv != slots[i - 1].csv;
        if (i > 0 && (new_run || x + col_w > MARGIN + fmax(max_w, col_w))) {
            x = MARGIN;
            y += row_h + gap;
            row_h = 0;
        }
        slots[i].x = x;
        slots[i].y = y;
        x += col_w + gap;
        row_h = fmax(row_h, slots[i].h);
        *used_w = fmax(*used_w, x - gap);
    }
    *bottom = y + row_h;
}

/* Draws slots[0..n_slots) into dir/file under heading: each map, the colour bar. Returns 0, or
 * -1 after printing the error. */
static int draw_maps(const Run *runs, MapSlot *slots, int n_slots, const char *dir,
                     const char *file, const char *heading) {
    int T = 0, max_rows = 0, rc = -1;
    for (int i = 0; i < n_slots; i++) {
        const Csv *m = slots[i].csv;
        if (m->n_cols - csv_col(m, "k0") > T) T = m->n_cols - csv_col(m, "k0");
        if (slots[i].rows > max_rows) max_rows = slots[i].rows;
    }
    double *v = malloc((size_t)T * (size_t)max_rows * sizeof *v);
    const char **labels = malloc((size_t)T * sizeof *labels);
    const char **row_labels = malloc((size_t)max_rows * sizeof *row_labels);
    char(*num)[12] = malloc((size_t)T * sizeof *num);
    if (!v || !labels || !row_labels || !num) {
        error_add(NULL, 0, NULL, "out of memory drawing %s", file);
        goto done;
    }
    /* Cells big enough to read the tokens up to ~30 positions, never smaller than 6 px. */
    double cell = fmax(6, fmin(16, floor(240.0 / T)));
    for (int i = 0; i < n_slots; i++) {
        const Csv *m = slots[i].csv;
        PlotHeatmap hm = slot_heatmap(runs, &slots[i], m->n_cols - csv_col(m, "k0"), v, labels,
                                      row_labels, num);
        plot_heatmap_size(&hm, cell, &slots[i].w, &slots[i].h);
    }
    double used_w, bottom;
    layout_maps(slots, n_slots, &used_w, &bottom);
    Svg s;
    svg_begin(&s, used_w + 110, fmax(bottom + MARGIN, 320), "Attention maps");
    svg_text(&s, MARGIN, 28, "font-size=\"17\" font-weight=\"bold\"", heading);
    for (int i = 0; i < n_slots; i++) {
        const Csv *m = slots[i].csv;
        PlotHeatmap hm = slot_heatmap(runs, &slots[i], m->n_cols - csv_col(m, "k0"), v, labels,
                                      row_labels, num);
        plot_heatmap(&s, slots[i].x, slots[i].y, cell, &hm);
    }
    plot_colorbar(&s, used_w + 30, 80, 16, 200, 0, 1, "weight");
    rc = save_figure(&s, dir, file);
done:
    free(v);
    free(labels);
    free(row_labels);
    free(num);
    return rc;
}

/* How saturated a slot's head is: the mean, over its query rows that see two or more keys
 * (query >= 1), of the row's largest weight; NAN without such a row. */
static double slot_saturation(const MapSlot *s) {
    const Csv *m = s->csv;
    int k0 = csv_col(m, "k0"), cq = csv_col(m, "query"), count = 0;
    double sum = 0;
    for (int i = 0; i < s->rows; i++) {
        int q = cq >= 0 ? csv_int(m, s->first_row + i, cq, -1) : i;
        if (q < 1 || k0 + q >= m->n_cols) continue;
        double top = 0;
        for (int j = 0; j <= q; j++) top = fmax(top, csv_num(m, s->first_row + i, k0 + j));
        sum += top;
        count++;
    }
    return count ? sum / count : NAN;
}

/* The saturation that ranks slot i's head: its end map's, else its own (step 0). */
static double head_saturation(const MapSlot *slots, int n_slots, int i) {
    for (int j = 0; j < n_slots; j++)
        if (!slots[j].step0 && slots[j].run == slots[i].run &&
            slots[j].layer == slots[i].layer && slots[j].head == slots[i].head)
            return slot_saturation(&slots[j]);
    return slot_saturation(&slots[i]);
}

/* Marks in keep[] the slots attn_maps.svg shows: per run and layer, every head when there are at
 * most FIGURES_MAP_HEADS, else the most and the least saturated head (the first of equals), at
 * step 0 and at the end. Writes the chosen heads into the caption. Returns how many are kept. */
static int choose_maps(const Run *runs, const MapSlot *slots, int n_slots, int *keep,
                       FigureInfo *fi) {
    int kept = 0, first_note = 1;
    for (int i = 0; i < n_slots; i++) {
        int heads = 0, most = -1, least = -1;
        double hi = -INFINITY, lo = INFINITY;
        for (int j = 0; j < n_slots; j++) {
            if (slots[j].run != slots[i].run || slots[j].layer != slots[i].layer) continue;
            int seen = 0;
            for (int k = 0; k < j && !seen; k++)
                seen = slots[k].run == slots[j].run && slots[k].layer == slots[j].layer &&
                       slots[k].head == slots[j].head;
            if (seen) continue;
            heads++;
            double sat = head_saturation(slots, n_slots, j);
            if (sat > hi) hi = sat, most = slots[j].head;
            if (sat < lo) lo = sat, least = slots[j].head;
        }
        keep[i] = heads <= FIGURES_MAP_HEADS || most < 0 || slots[i].head == most ||
                  slots[i].head == least;
        kept += keep[i];
        /* the caption names the pair once per run and layer, at its first slot */
        int first = 1;
        for (int j = 0; j < i && first; j++)
            first = !(slots[j].run == slots[i].run && slots[j].layer == slots[i].layer);
        if (heads > FIGURES_MAP_HEADS && first && most >= 0) {
            caption_add(fi, "%s", first_note ? " Shown per run and layer: the most and the least "
                                           "saturated head (the mean over query rows of the "
                                           "largest weight, in the end map): " : "; ");
            first_note = 0;
            caption_escaped(fi, runs[slots[i].run].name);
            caption_add(fi, " layer %d: head %d (%.2f) and head %d (%.2f)", slots[i].layer, most, hi,
                    least, lo);
        }
    }
    if (!first_note)
        caption_add(fi, ". The other heads are in the next figure, behind its toggle.");
    return kept;
}

int figure_maps(const Run *runs, int n, const char *dir, FigureInfo *fi) {
    MapSlot *slots = NULL, *more = NULL;
    int n_slots = 0, rc = -1, *keep = NULL;
    if (map_slots(runs, n, &slots, &n_slots) != 0) {
        free(slots);
        fprintf(stderr, "error: out of memory drawing attn_maps.svg\n");
        return -1;
    }
    if (n_slots == 0) {
        free(slots);
        return 0;
    }
    keep = malloc((size_t)n_slots * sizeof *keep);
    more = malloc((size_t)n_slots * sizeof *more);
    if (!keep || !more) {
        fprintf(stderr, "error: out of memory drawing attn_maps.svg\n");
        goto done;
    }
    caption_add(fi, "Attention weights of one validation example, for each run before the first "
                "update (step 0) and after the last (row = query position, column = key; white "
                "= 0, dark blue = 1; hatched grey = masked: a query never sees later keys). "
                "Where answer tokens are among the inputs (a task with a separator), red dashed "
                "lines mark where they begin, on both axes; without a separator (recall, text) "
                "no line is drawn. A saturated head puts almost all its weight on a single key "
                "in every row; without the scale that can be seen at step 0 already.");
    int kept = choose_maps(runs, slots, n_slots, keep, fi), n_more = 0;
    for (int i = 0, k = 0; i < n_slots; i++) {
        if (keep[i]) slots[k++] = slots[i];
        else more[n_more++] = slots[i];
    }
    if (draw_maps(runs, slots, kept, dir, "attn_maps.svg",
                  "Attention of one validation example: step 0 and end") != 0)
        goto done;
    rc = 1;
    if (n_more == 0) goto done;
    FigureInfo *rest = fi + 1;
    *rest = (FigureInfo){.file = FIGURE_MAPS_MORE_FILE,
                         .title = "The other heads' attention maps", .folded = 1};
    caption_add(rest, "Attention maps of the heads the figure above leaves out (neither the most "
                  "nor the least saturated of their run and layer): %d maps, drawn as above.",
            n_more);
    rc = draw_maps(runs, more, n_more, dir, FIGURE_MAPS_MORE_FILE,
                   "Attention of one validation example: the other heads") == 0 ? 2 : -1;
done:
    free(keep);
    free(more);
    free(slots);
    return rc;
}
