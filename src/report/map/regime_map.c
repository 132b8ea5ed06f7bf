/* regime_map.c: the regime map (map.h). Reading order: the points from the sweeps, the CSV,
 * the figure, writing both. */
#include "report/map/map.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "runlog/log_query.h"
#include "report/plot/plot.h"
#include "report/table/table.h"
#include "runlog/csv_read.h"
#include "runlog/csv_write.h"
#include "util/dirs.h"
#include "util/error_list.h"
#include "util/file_check.h"
#include "util/owned_dir.h"
#include "util/whole_write.h"

/* ------------------------------------------------------------------ the points */

typedef struct {
    const char *sweep, *run, *scale, *init;  /* strings of the tables */
    double pred, acc;                        /* NAN when not measured */
    int paired;                              /* the unscaled run of a none / sqrt_dk pair */
    Slowdown slow90;
} RegimePoint;

/* Colour by scale, marker by init scheme. */
static int scale_style(const char *scale) {
    return strcmp(scale, "sqrt_dk") == 0 ? 0 : strcmp(scale, "none") == 0 ? 1
         : strcmp(scale, "inv_dk") == 0 ? 2 : 3;
}

static int init_marker(const char *init) {
    return strcmp(init, "fan_in") == 0 ? 0 : strcmp(init, "gpt2") == 0 ? 1 : 2;
}

static const char *field(const SweepTable *t, const SweepRow *r, const char *name) {
    int c = csv_col(&t->csv, name);
    return c >= 0 ? csv_str(&t->csv, r->csv_row, c) : "";
}

/* Appends the trained rows of t (the sweep in dir) to *pts. Returns 0 or -1 (memory). */
static int add_points(const SweepTable *t, const char *dir, RegimePoint **pts, int *n) {
    SweepGroup *g = NULL;
    SlowPair *pairs = NULL;
    int n_g = 0, n_pairs = slowdown_pairs(t, &g, &n_g, &pairs);
    RegimePoint *p = n_pairs >= 0 ? realloc(*pts, sizeof **pts * (size_t)(*n + t->n_rows + 1)) : NULL;
    if (!p) {
        sweep_groups_free(g, n_g);
        free(pairs);
        return -1;
    }
    *pts = p;
    for (int i = 0; i < t->n_rows; i++) {
        const SweepRow *r = &t->rows[i];
        if (!r->in_stats) continue;
        RegimePoint q = {dir, r->run, field(t, r, "scale"), field(t, r, "init_scheme"),
                         r->has[SW_PRED_STD] ? r->v[SW_PRED_STD] : NAN,
                         r->has[SW_VAL_ACC] ? r->v[SW_VAL_ACC] : NAN, 0, {SD_UNKNOWN, NAN}};
        if (!*q.init) q.init = field(t, r, "init.scheme"); /* a sweep that varied it */
        for (int k = 0; k < n_pairs; k++)
            if (pairs[k].none == i) {
                q.paired = 1;
                q.slow90 = slowdown_at(t, r, &t->rows[pairs[k].sq], 1);
            }
        p[(*n)++] = q;
    }
    sweep_groups_free(g, n_g);
    free(pairs);
    return 0;
}

/* ------------------------------------------------------------------ the CSV */

static const char *bound_name(const RegimePoint *p) {
    if (!p->paired) return "";
    switch (p->slow90.kind) {
    case SD_EXACT: return "exact";
    case SD_MORE: return "lower";
    case SD_LESS: return "upper";
    case SD_NEITHER: return "neither";
    default: return "unknown";
    }
}

static void write_csv(FILE *f, const RegimePoint *p, int n) {
    fputs(REGIME_MAP_CSV_HEADER, f);
    for (int i = 0; i < n; i++) {
        csv_write_text(f, p[i].sweep, 1);
        csv_write_text(f, p[i].run, 0);
        csv_write_text(f, p[i].scale, 0);
        csv_write_text(f, p[i].init, 0);
        regime_map_csv_value(f, p[i].pred);
        regime_map_csv_value(f, p[i].acc);
        regime_map_csv_value(f, p[i].paired ? p[i].slow90.ratio : NAN);
        fprintf(f, ",%s\n", bound_name(&p[i]));
    }
}

/* ------------------------------------------------------------------ the figure */

#define FIG_W 1100.0
#define FIG_H 520.0

static void legend(Svg *s, double x, double y) {
    static const char *const SCALES[] = {"sqrt_dk", "none", "inv_dk", "other scale"};
    static const char *const INITS[] = {"fan_in", "gpt2", "init not known"};
    svg_text(s, x, y, "font-size=\"12\"", "colour: attention.scale");
    for (int i = 0; i < 4; i++) {
        svg_raw(s, "<rect x=\"%.1f\" y=\"%.1f\" width=\"10\" height=\"10\" fill=\"%s\"/>\n",
                x + 150 + i * 110.0, y - 9, plot_color(i));
        svg_text(s, x + 164 + i * 110.0, y, "font-size=\"12\"", SCALES[i]);
    }
    svg_text(s, x, y + 20, "font-size=\"12\"", "marker: init_scheme");
    for (int i = 0; i < 3; i++) {
        static const char *const SHAPE[] = {"\xe2\x97\x8f", "\xe2\x96\xa0", "\xe2\x96\xb2"};
        svg_text(s, x + 150 + i * 110.0, y + 20, "font-size=\"12\"", SHAPE[i]);
        svg_text(s, x + 164 + i * 110.0, y + 20, "font-size=\"12\"", INITS[i]);
    }
    svg_text(s, x, y + 40, "font-size=\"12\"",
             "hollow with an arrow: censored (the unscaled run never reached 90 %: at least this "
             "slow; arrow down: the scaled run never did: at most)");
}

/* The slowdown panel's y range: the data's, widened by a factor of 2 on the side a censored
 * point's arrow points to (a bound at the top of the data would put its arrow outside the frame),
 * and by 1.25 on the other. Leaves NAN (the data's range) when no point is drawable. */
static void censored_headroom(const PlotPoint *b, int nb, double *lo, double *hi) {
    double mn = INFINITY, mx = 0;
    int up = 0, down = 0;
    for (int i = 0; i < nb; i++) {
        if (!(b[i].y > 0) || !isfinite(b[i].y)) continue;
        if (b[i].y < mn) mn = b[i].y;
        if (b[i].y > mx) mx = b[i].y;
        up |= b[i].censored > 0;
        down |= b[i].censored < 0;
    }
    if (!(mx > 0)) return;
    *lo = mn / (down ? 2.0 : 1.25);
    *hi = mx * (up ? 2.0 : 1.25);
}

/* A panel's x range (log axis): the points' own, widened by a factor of 1.25 on each side, so
 * that no marker sits on the frame, half cut off by the clip (one std for every run, as in a
 * sweep of scaled runs alone, was drawn on the left axis line). Leaves NAN (the data's range)
 * when no point is drawable. */
static void x_headroom(const PlotPoint *p, int n, double *lo, double *hi) {
    double mn = INFINITY, mx = 0;
    for (int i = 0; i < n; i++) {
        if (!(p[i].x > 0) || !isfinite(p[i].x)) continue;
        if (p[i].x < mn) mn = p[i].x;
        if (p[i].x > mx) mx = p[i].x;
    }
    if (!(mx > 0)) return;
    *lo = mn / 1.25;
    *hi = mx * 1.25;
}

/* Returns the number of points drawn in each panel through drawn[2]. */
static int draw(Svg *s, const RegimePoint *p, int n, int drawn[2]) {
    PlotPoint *a = malloc(sizeof *a * (size_t)(n > 0 ? n : 1));
    PlotPoint *b = malloc(sizeof *b * (size_t)(n > 0 ? n : 1));
    if (!a || !b) {
        free(a);
        free(b);
        return -1;
    }
    int na = 0, nb = 0;
    for (int i = 0; i < n; i++) {
        int style = scale_style(p[i].scale), marker = init_marker(p[i].init);
        a[na++] = (PlotPoint){p[i].run, p[i].pred, 100 * p[i].acc, style, marker, 0};
        SlowKind k = p[i].slow90.kind;
        if (p[i].paired && (k == SD_EXACT || k == SD_MORE || k == SD_LESS))
            b[nb++] = (PlotPoint){p[i].run, p[i].pred, p[i].slow90.ratio, style, marker,
                                  k == SD_MORE ? 1 : k == SD_LESS ? -1 : 0};
    }
    svg_begin(s, FIG_W, FIG_H, "regime map: accuracy and slowdown against the predicted step-0 "
                               "attention-logit std");
    PlotAxes ax1 = {"final validation answer accuracy, every run",
                    "predicted step-0 logit std (log)", "answer accuracy (%)", 0, NAN, NAN, 0, 100,
                    0, 1, NULL, 0};
    PlotAxes ax2 = {"slowdown to 90 % (steps none / steps sqrt_dk)",
                    "predicted step-0 logit std of the unscaled run (log)", "slowdown (log)", 1,
                    NAN, NAN, NAN, NAN, 0, 1, NULL, 0};
    censored_headroom(b, nb, &ax2.y_lo, &ax2.y_hi);
    x_headroom(a, na, &ax1.x_lo, &ax1.x_hi);
    x_headroom(b, nb, &ax2.x_lo, &ax2.x_hi);
    drawn[0] = plot_scatter(s, 10, 10, FIG_W / 2 - 15, FIG_H - 90, &ax1, a, na);
    drawn[1] = plot_scatter(s, FIG_W / 2 + 5, 10, FIG_W / 2 - 15, FIG_H - 90, &ax2, b, nb);
    legend(s, 30, FIG_H - 52);
    free(a);
    free(b);
    return svg_end(s);
}

/* ------------------------------------------------------------------ writing */

/* text to path whole (util/whole_write.h: a temporary file renamed over the name, so a link
 * there is replaced, never written through). Returns 0, or -1 after a message. */
static int write_replace(const char *path, const char *text, size_t len) {
    if (file_write_atomic(path, text, len) == 0) return 0;
    error_add(NULL, 0, NULL, "cannot write '%s': %s", path, strerror(errno));
    return -1;
}

/* Removes path, an earlier map's file (regime_map_check_out has found it ours) that this map did
 * not write, and says so on say: after a failed write (failed nonzero), so that the folder holds
 * no old file beside the new ones; else because the sweeps drew no lr map. One made read-only is
 * kept, as every whole-file write keeps it (said too). */
static void remove_earlier(const char *path, FILE *say, int failed) {
    struct stat st;
    if (lstat(path, &st) != 0 || !S_ISREG(st.st_mode)) return;
    const char *why = failed ? "an earlier map's, and this map is incomplete: old and new files "
                               "must not stand side by side"
                             : "an earlier map's, and these sweeps draw no map over lr x width";
    if (!(st.st_mode & 0222))
        fprintf(say, "kept %s although it is %s: it is read-only\n", SHOWN(path), why);
    else if (owned_remove(path) != 0)
        fprintf(say, "cannot remove %s (%s): %s\n", SHOWN(path), why, strerror(errno));
    else
        fprintf(say, "removed %s: %s\n", SHOWN(path), why);
}

/* The map's owner rule (util/owned_dir.h): in a folder of an earlier version (no manifest), a
 * regular file of the set is adopted when it reads as ours: an SVG svg.c began, a CSV that
 * starts with its header. */
static int adopt_map_file(const char *dir, const char *name) {
    char path[4200], why[128];
    struct stat st;
    if (log_path(path, sizeof path, dir, name) != 0 || lstat(path, &st) != 0 ||
        !S_ISREG(st.st_mode))
        return 0;
    const char *csv_header = strcmp(name, "regime_map.csv") == 0      ? REGIME_MAP_CSV_HEADER
                             : strcmp(name, "regime_map_lr.csv") == 0 ? REGIME_MAP_LR_CSV_HEADER
                                                                      : NULL;
    size_t n;
    char *text = file_read_regular(path, FILE_MAX_LOG_BYTES, &n, why, sizeof why);
    int ours = text && (!csv_header ? svg_is_ours(text)
                                    : strncmp(text, csv_header, strlen(csv_header)) == 0);
    free(text);
    return ours;
}

static const char *const MAP_NAMES[] = {"regime_map.svg", "regime_map.csv", "regime_map_lr.svg",
                                        "regime_map_lr.csv"};

static const OwnedWriter MAP_WRITER = {
    .id = "regime-map",
    .what = "regime map folder",
    .who = "./train --regime-map",
    .would = "the map would replace it",
    .names = MAP_NAMES,
    .n_names = (int)(sizeof MAP_NAMES / sizeof *MAP_NAMES),
    .adopt = adopt_map_file,
    .advice = "Use another --out, or move it away",
};

int regime_map_check_out(const char *out_dir) {
    return owned_dir_check(out_dir, &MAP_WRITER, NULL);
}

const char *regime_map_folder_mark(const char *dir) {
    static const char *const CSVS[] = {"regime_map.csv", "regime_map_lr.csv"};
    for (size_t i = 0; i < sizeof CSVS / sizeof *CSVS; i++)
        if (adopt_map_file(dir, CSVS[i])) return CSVS[i];
    return NULL;
}

/* One --regime-map: the sweeps read, the maps built in memory, the paths they go to. */
typedef struct {
    SweepTable *tables;      /* one per sweep, the first `loaded` of them read */
    char (*paths)[4200];     /* their sweep.csv paths (a table's path points here) */
    int loaded;
    RegimePoint *pts;        /* every trained run of them */
    int n;
    char *csv;               /* regime_map.csv */
    size_t csv_len;
    Svg svg;                 /* regime_map.svg */
    int drawn[2];            /* points drawn in each panel */
    RegimeLr lr;             /* the map over lr x width */
    int lr_varies, with_lr;  /* the sweeps vary optim.lr; the lr map has cells (written then) */
    char svg_path[4200], csv_path[4200], lr_svg[4200], lr_csv[4200];
} RegimeMapSet;

/* Reads the sweep.csv of each of dirs and places its trained runs. Returns 0, 1 after the
 * message, or -1 when out of memory. */
static int read_sweeps(RegimeMapSet *m, char *const *dirs, int n_dirs) {
    m->tables = calloc((size_t)(n_dirs > 0 ? n_dirs : 1), sizeof *m->tables);
    m->paths = calloc((size_t)(n_dirs > 0 ? n_dirs : 1), sizeof *m->paths); /* t->path's */
    if (!m->tables || !m->paths) return -1;
    while (m->loaded < n_dirs) {
        char *path = m->paths[m->loaded];
        const char *dir = dirs[m->loaded];
        if (log_path(path, sizeof *m->paths, dir, "sweep.csv") != 0) {
            error_add(NULL, 0, NULL, "path '%s' is too long", path);
            return 1;
        }
        if (sweep_table_load(&m->tables[m->loaded], path) != 0) return 1;
        if (add_points(&m->tables[m->loaded++], dir, &m->pts, &m->n) != 0) return -1;
    }
    return 0;
}

/* The CSV and the figure in memory, and the lr map when the sweeps vary the lr. Returns 0, 1
 * after the message, or -1 when out of memory. */
static int build_maps(RegimeMapSet *m, int n_dirs) {
    FILE *mem = open_memstream(&m->csv, &m->csv_len);
    if (!mem) return -1;
    write_csv(mem, m->pts, m->n);
    if (fclose(mem) != 0) return -1;
    if (draw(&m->svg, m->pts, m->n, m->drawn) != 0) return -1;
    /* the map over lr x width too, when the sweeps vary the lr (regime_map_lr.c) */
    m->lr_varies = regime_map_lr_varies(m->tables, n_dirs);
    if (m->lr_varies && regime_map_lr_build(m->tables, n_dirs, &m->lr) != 0) return 1;
    m->with_lr = m->lr.n_cells > 0;
    return 0;
}

/* The four files' paths in out_dir. Returns 0, or 1 after the message. */
static int out_paths(RegimeMapSet *m, const char *out_dir) {
    if (log_path(m->svg_path, sizeof m->svg_path, out_dir, "regime_map.svg") != 0 ||
        log_path(m->csv_path, sizeof m->csv_path, out_dir, "regime_map.csv") != 0 ||
        log_path(m->lr_svg, sizeof m->lr_svg, out_dir, "regime_map_lr.svg") != 0 ||
        log_path(m->lr_csv, sizeof m->lr_csv, out_dir, "regime_map_lr.csv") != 0) {
        error_add(NULL, 0, NULL, "folder name '%s' is too long", out_dir);
        return 1;
    }
    return 0;
}

/* Writes the set of files a map is into its locked folder: each written when this map has it;
 * an earlier map's copy of one not written (the lr map not drawn, or a write that failed) is
 * removed, so the folder never holds old and new files of the set side by side. Returns 0, or
 * 1 when a write failed (said). */
static int write_set(const RegimeMapSet *m, FILE *out) {
    const struct {
        const char *path, *text;
        size_t len;
        int want;
    } SET[] = {{m->csv_path, m->csv, m->csv_len, 1}, {m->svg_path, m->svg.buf, m->svg.len, 1},
               {m->lr_csv, m->lr.csv, m->lr.csv_len, m->with_lr},
               {m->lr_svg, m->lr.svg, m->lr.svg_len, m->with_lr}};
    int n_set = (int)(sizeof SET / sizeof *SET), written[4] = {0}, failed = 0;
    for (int i = 0; i < n_set && !failed; i++)
        if (SET[i].want)
            failed = !(written[i] = write_replace(SET[i].path, SET[i].text, SET[i].len) == 0);
    for (int i = 0; i < n_set; i++)
        if (!written[i]) remove_earlier(SET[i].path, failed ? stderr : out, failed);
    return failed;
}

/* What was drawn and written, on out; each note only when it explains runs that were left out. */
static void say_written(const RegimeMapSet *m, int n_dirs, FILE *out) {
    int n = m->n, paired = 0, shown = 0;
    const RegimePoint *pts = m->pts;
    for (int i = 0; i < n; i++) paired += pts[i].paired;
    for (int i = 0; i < n; i++) shown += pts[i].paired && pts[i].slow90.kind != SD_NEITHER &&
                                         pts[i].slow90.kind != SD_UNKNOWN;
    fprintf(out, "regime map of %d trained run%s from %d sweep%s: %d drawn by accuracy", n,
            n == 1 ? "" : "s", n_dirs, n_dirs == 1 ? "" : "s", m->drawn[0]);
    if (m->drawn[0] < n)
        fprintf(out, " (the rest lack predicted_logit_std or an accuracy: rebuild an older "
                     "sweep.csv with ./train --sweep --collect)");
    fprintf(out, "; %d unscaled runs paired with a scaled one, %d drawn by slowdown to 90 %%",
            paired, shown);
    if (shown < paired) fprintf(out, " (the others: neither run got there, or not measured)");
    fputc('\n', out);
    fprintf(out, "wrote %s\nwrote %s\n", SHOWN(m->svg_path), SHOWN(m->csv_path));
    const RegimeLr *lr = &m->lr;
    if (m->with_lr) {
        fprintf(out, "the sweeps vary optim.lr: map over lr x width of %d trained run%s, %d cell%s "
                     "(d_model, scale, lr), %d place%s of the grid not run", lr->n_runs,
                lr->n_runs == 1 ? "" : "s", lr->n_cells, lr->n_cells == 1 ? "" : "s", lr->n_empty,
                lr->n_empty == 1 ? "" : "s");
        if (lr->n_left_out)
            fprintf(out, " (%d run%s left out: no optim.lr or d_model, or a scale other than "
                         "sqrt_dk and none)", lr->n_left_out, lr->n_left_out == 1 ? "" : "s");
        fprintf(out, "\nwrote %s\nwrote %s\n", SHOWN(m->lr_svg), SHOWN(m->lr_csv));
    } else if (m->lr_varies) {
        fprintf(out, "the sweeps vary optim.lr, but none of their runs has a d_model and scale "
                     "sqrt_dk or none: no map over lr x width\n");
    }
}

static void regime_map_set_free(RegimeMapSet *m) {
    for (int i = 0; i < m->loaded && m->tables; i++) sweep_table_free(&m->tables[i]);
    free(m->tables);
    free(m->paths);
    free(m->pts);
    free(m->csv);
    svg_free(&m->svg);
    regime_map_lr_free(&m->lr);
}

int regime_map_write(const char *out_dir, char *const *dirs, int n_dirs, FILE *out) {
    RegimeMapSet m = {0};
    int owned = -1;
    int rc = read_sweeps(&m, dirs, n_dirs);
    if (rc == 0) rc = build_maps(&m, n_dirs);
    if (rc == 0) rc = out_paths(&m, out_dir);
    /* created only now, after every sweep.csv was read: a refused map leaves no folder */
    if (rc == 0 && make_dirs(out_dir) != 0) {
        error_add(NULL, 0, NULL, "cannot create folder '%s': %s", out_dir, strerror(errno));
        rc = 1;
    }
    /* locked while written, each file claimed in the folder's manifest (owned_dir.h) */
    if (rc == 0 && (owned = owned_dir_open(out_dir, &MAP_WRITER, OWNED_LOCK_WAIT, NULL)) < 0)
        rc = owned == -2 ? 2 : 1;
    if (rc == 0) rc = write_set(&m, out);
    if (rc == 0) say_written(&m, n_dirs, out);
    if (rc < 0) {
        fprintf(stderr, "error: out of memory drawing the regime map\n");
        rc = 1;
    }
    owned_dir_close(owned);
    regime_map_set_free(&m);
    return rc;
}
