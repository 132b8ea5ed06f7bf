/* html.c: index.html of ./train --compare. Every text that comes from the runs (names, paths,
 * settings, table cells) goes through xml_escape_file. */
#include "report/page/page_internal.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/plot/plot.h"
#include "report/read/read.h"
#include "util/error_list.h"
#include "util/file_check.h"
#include "util/provenance.h"
#include "util/whole_write.h"

static void html_runs_header(FILE *f, const Run *runs, int n) {
    fprintf(f, "<tr><th>run</th>");
    for (int i = 0; i < n; i++) {
        /* The run's line sample, drawn exactly as in the figures. */
        fprintf(f, "<th><svg class=\"swatch\" width=\"30\" height=\"8\"><line x1=\"0\" y1=\"4\" "
                   "x2=\"30\" y2=\"4\" stroke=\"%s\" stroke-width=\"2.5\" stroke-dasharray=\"%s\"/>"
                   "</svg>", plot_color(i), *plot_dash(i) ? plot_dash(i) : "none");
        xml_escape_file(f, runs[i].name);
        fprintf(f, "</th>");
    }
    fprintf(f, "</tr>\n");
}

static void html_summary(FILE *f, const Table *t, const Run *runs) {
    fprintf(f, "<table class=\"summary\">\n");
    html_runs_header(f, runs, t->n_runs);
    for (int r = 0; r < t->n; r++) {
        const Row *row = &t->row[r];
        if (row->section) {
            fprintf(f, "<tr class=\"section\"><td colspan=\"%d\">", t->n_runs + 1);
            xml_escape_file(f, row->label);
            fprintf(f, "</td></tr>\n");
            continue;
        }
        fprintf(f, "<tr><td>");
        xml_escape_file(f, row->label);
        fprintf(f, "</td>");
        for (int i = 0; i < t->n_runs; i++) {
            const char *c = row->cell[i];
            int bad = strncmp(c, "diverged", 8) == 0 || strncmp(c, "nan", 3) == 0 ||
                      strncmp(c, "inf", 3) == 0 || strncmp(c, "-inf", 4) == 0;
            fprintf(f, bad ? "<td class=\"bad\">" : "<td>");
            xml_escape_file(f, c);
            fprintf(f, "</td>");
        }
        fprintf(f, "</tr>\n");
    }
    fprintf(f, "</table>\n<p class=\"note\">(@N): logged at step N, the nearest to the row's step; "
               "-: not logged near that step; n/a: not in this run's logs.</p>\n");
}

/* Every key of any run's config.ini, in order of first appearance. */
static const char **config_keys(const Run *runs, int n, int *n_keys) {
    int cap = 0;
    for (int i = 0; i < n; i++) cap += runs[i].config.n;
    const char **keys = malloc((size_t)(cap ? cap : 1) * sizeof *keys);
    *n_keys = 0;
    if (!keys) return NULL;
    for (int i = 0; i < n; i++)
        for (int e = 0; e < runs[i].config.n; e++) {
            const char *k = runs[i].config.e[e].key;
            int seen = 0;
            for (int j = 0; j < *n_keys && !seen; j++) seen = strcmp(keys[j], k) == 0;
            if (!seen) keys[(*n_keys)++] = k;
        }
    return keys;
}

static int key_differs(const Run *runs, int n, const char *key) {
    const char *first = ini_get(&runs[0].config, key);
    for (int i = 1; i < n; i++) {
        const char *v = ini_get(&runs[i].config, key);
        if (!first != !v || (v && strcmp(first, v) != 0)) return 1;
    }
    return 0;
}

/* run.name and run.dir always differ and say nothing about the experiment. */
static int is_bookkeeping(const char *key) {
    return strcmp(key, "run.name") == 0 || strcmp(key, "run.dir") == 0;
}

static void html_config_table(FILE *f, const Run *runs, int n, const char **keys, int n_keys,
                              int only_diff) {
    fprintf(f, "<table class=\"config\">\n");
    html_runs_header(f, runs, n);
    for (int k = 0; k < n_keys; k++) {
        int diff = key_differs(runs, n, keys[k]);
        if (only_diff && (!diff || is_bookkeeping(keys[k]))) continue;
        fprintf(f, "<tr%s><td><code>", diff ? " class=\"diff\"" : "");
        xml_escape_file(f, keys[k]);
        fprintf(f, "</code></td>");
        for (int i = 0; i < n; i++) {
            const char *v = ini_get(&runs[i].config, keys[k]);
            fprintf(f, "<td class=\"text\">");
            xml_escape_file(f, v ? v : "(not set)");
            fprintf(f, "</td>");
        }
        fprintf(f, "</tr>\n");
    }
    fprintf(f, "</table>\n");
}

/* Where each run came from: the provenance comments of its config.ini (util/provenance.h). */
static void html_provenance(FILE *f, const Run *runs, int n) {
    fprintf(f, "<h2 id=\"provenance\">Provenance</h2>\n<p class=\"note\">Program version and commit, compiler and "
               "flags, command line, start time, threads and CPU of each run, from the comments "
               "at the top of its <code>config.ini</code>.</p>\n<table class=\"config\">\n");
    for (int i = 0; i < n; i++) {
        char *text = NULL, *lines = NULL;
        size_t len = 0, text_len = 0;
        char why[128];
        text = run_read_text(&runs[i], "config.ini", FILE_MAX_TEXT_BYTES, &text_len, why,
                             sizeof why);
        FILE *mem = open_memstream(&lines, &len);
        int found = 0;
        if (text && mem) found = provenance_print_lines(text, "", mem);
        if (mem) fclose(mem);
        fprintf(f, "<tr><td class=\"text\">");
        xml_escape_file(f, runs[i].name);
        fprintf(f, "</td><td class=\"text\"><pre>");
        xml_escape_file(f, found && lines ? lines : "not recorded (a run of a version before 0.11)");
        fprintf(f, "</pre></td></tr>\n");
        free(text);
        free(lines);
    }
    fprintf(f, "</table>\n");
}

/* Largest sample.txt shown: a sample is a few hundred bytes. */
#define SAMPLE_MAX_BYTES (1 << 20)

/* One run's sample.txt in its cell: the '#' comment lines as a note, then the text in <pre>,
 * the first N characters (its "# prompt: N characters" line) marked as the prompt. */
static void html_sample_cell(FILE *f, char *text) {
    size_t n_prompt = 0;
    char *body = text;
    fprintf(f, "<div class=\"note\">");
    while (*body == '#') {
        char *eol = strchr(body, '\n');
        size_t k;
        if (sscanf(body, "# prompt: %zu characters", &k) == 1) n_prompt = k;
        if (eol) *eol = 0;
        xml_escape_file(f, body + 1 + (body[1] == ' '));
        fputs(eol ? "<br/>" : "", f);
        body = eol ? eol + 1 : body + strlen(body);
    }
    fprintf(f, "</div><pre class=\"sample\"><span class=\"prompt\">");
    size_t len = strlen(body);
    if (n_prompt > len) n_prompt = len;
    char keep = body[n_prompt];
    body[n_prompt] = 0;
    xml_escape_file(f, body);
    body[n_prompt] = keep;
    fprintf(f, "</span>");
    xml_escape_file(f, body + n_prompt);
    fprintf(f, "</pre>");
}

/* The runs' sample.txt side by side (a text run writes one at the end of training), each run's
 * text escaped; nothing when no run folder holds one. */
static int has_samples(const Run *runs, int n) {
    int any = 0;
    for (int i = 0; i < n && !any; i++) any = run_has_file(&runs[i], "sample.txt");
    return any;
}

static void html_samples(FILE *f, const Run *runs, int n) {
    int any = has_samples(runs, n);
    if (!any) return;
    fprintf(f, "<h2 id=\"samples\">Samples</h2>\n<p class=\"note\">Text each run generated after the same "
               "prompt (grey), from its <code>sample.txt</code>; bytes other than printable ASCII "
               "and newlines are shown as \\xHH, a backslash as \\\\.</p>\n"
               "<table class=\"samples\">\n");
    html_runs_header(f, runs, n);
    fprintf(f, "<tr><td>sample</td>");
    for (int i = 0; i < n; i++) {
        char why[256];
        size_t len = 0;
        int has = run_has_file(&runs[i], "sample.txt");
        fprintf(f, "<td class=\"sample\">");
        char *text = has ? run_read_text(&runs[i], "sample.txt", SAMPLE_MAX_BYTES, &len, why,
                                         sizeof why)
                         : NULL;
        if (text) {
            html_sample_cell(f, text);
        } else {
            fprintf(f, "<span class=\"note\">");
            if (has) {
                xml_escape_file(f, "sample.txt unreadable: ");
                xml_escape_file(f, why);
            } else {
                fprintf(f, "no sample.txt");
            }
            fprintf(f, "</span>");
        }
        free(text);
        fprintf(f, "</td>");
    }
    fprintf(f, "</tr>\n</table>\n");
}

/* The verdict (verdict.c) as the page's first paragraph: "Verdict:" in bold, a line per run and
 * one for the pair. */
static void html_verdict(FILE *f, const Run *runs, int n) {
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    if (!mem) return;
    verdict_compare(mem, runs, n);
    if (fclose(mem) != 0 || !text) {
        free(text);
        return;
    }
    fprintf(f, "<p class=\"verdict\" id=\"verdict\"><b>Verdict:</b> ");
    for (char *line = text, *eol; *line; line = eol + 1) {
        eol = strchr(line, '\n');
        if (!eol) eol = line + strlen(line);
        char keep = *eol;
        *eol = '\0';
        xml_escape_file(f, line);
        if (keep && eol[1]) fprintf(f, "<br/>\n");
        if (!keep) break;
    }
    fprintf(f, "</p>\n");
    free(text);
}

/* What the command warned about its input (warnings.c), first: a row of a log it skipped, runs
 * of different tasks. Nothing when there is none. */
static void html_warnings(FILE *f) {
    int n = warnings_count();
    if (n == 0) return;
    fprintf(f, "<p class=\"verdict\" id=\"warnings\" style=\"border-left-color:#b00020\">"
               "<b>Read with warnings</b> (printed on the terminal too):");
    for (int i = 0; i < n; i++) {
        fprintf(f, "<br/>\n");
        xml_escape_file(f, warnings_at(i));
    }
    if (warnings_dropped())
        fprintf(f, "<br/>\n... and %d more (on the terminal)", warnings_dropped());
    fprintf(f, "</p>\n");
}

/* Everything before the figures: head, title, the run folders, the verdict, the contents, the
 * samples (text runs: what a reader looks at first), the toggles' place. */
static void html_top(FILE *f, const Run *runs, int n) {
    fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n<title>");
    for (int i = 0; i < n; i++) {
        fputs(i ? " vs " : "scaledot: ", f);
        xml_escape_file(f, runs[i].name);
    }
    fprintf(f, "</title>\n");
    html_head(f);
    fprintf(f, "</head>\n<body>\n<h1>");
    for (int i = 0; i < n; i++) {
        if (i) fputs(" <span class=\"note\">vs</span> ", f);
        xml_escape_file(f, runs[i].name);
    }
    fprintf(f, "</h1>\n" HTML_COMPARE_MARK ": why attention "
               "divides q&#183;k by &#8730;d<sub>k</sub>, measured. Run folders: ");
    for (int i = 0; i < n; i++) {
        fprintf(f, "%s<code>", i ? ", " : "");
        xml_escape_file(f, runs[i].path);
        fprintf(f, "</code>");
    }
    /* The verdict, the samples and the figures first, the tables after them; the script adds
     * hover and the run toggles. */
    fprintf(f, ".</p>\n");
    html_warnings(f);
    html_verdict(f, runs, n);
    int samples = has_samples(runs, n);
    fprintf(f, "<nav>%s<a href=\"#figures\">Figures</a> &#183; %s<a href=\"#differ\">Settings "
               "that differ</a> &#183; <a href=\"#summary\">Summary</a> &#183; <a href=\"#all\">"
               "All settings</a> &#183; <a href=\"#provenance\">Provenance</a></nav>\n",
            samples ? "<a href=\"#samples\">Samples</a> &#183; " : "",
            slider_has_data(runs, n) ? "<a href=\"#steps\">Step by step</a> &#183; " : "");
    html_samples(f, runs, n);
    fprintf(f, "<h2 id=\"figures\">Figures</h2>\n<p class=\"note\">Hover a curve for its step "
               "and value; untick a run to hide its curves in every figure.</p>\n"
               "<div id=\"run-toggles\" class=\"toggles\" hidden=\"hidden\"></div>\n");
}

int html_write(const char *path, const Run *runs, int n, const Table *summary,
               const FigureInfo *figs, int n_figs) {
    char dir[PATH_MAX]; /* the figures' folder: path's */
    const char *slash = strrchr(path, '/');
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - path) : 1, slash ? path : ".");
    if (slash == path) snprintf(dir, sizeof dir, "/");
    AtomicFile out; /* whole or not at all (path.tmp renamed over path), never through a link */
    FILE *f = atomic_open(&out, path);
    if (!f) {
        error_add(NULL, 0, NULL, "cannot write '%s': %s", path, strerror(errno));
        return -1;
    }
    int n_keys = 0, n_diff = 0;
    const char **keys = config_keys(runs, n, &n_keys);
    html_top(f, runs, n);
    for (int i = 0; i < n_figs; i++) {
        if (figs[i].err) {
            html_figure_missing(f, figs[i].file, figs[i].title, strerror(figs[i].err));
            continue;
        }
        /* a folded figure (the attention maps of the other heads) waits behind a toggle */
        if (figs[i].folded) {
            fprintf(f, "<details class=\"more\"><summary>");
            xml_escape_file(f, figs[i].title);
            fprintf(f, " (click to show)</summary>\n");
        }
        html_figure(f, dir, figs[i].file, figs[i].title, figs[i].caption, 1);
        if (figs[i].folded) fprintf(f, "</details>\n");
    }
    int rc = slider_section(f, runs, n) < 0 ? -1 : 0; /* the step slider, when runs logged it */
    fprintf(f, "<h2 id=\"differ\">Settings that differ</h2>\n");
    for (int k = 0; keys && k < n_keys; k++)
        n_diff += key_differs(runs, n, keys[k]) && !is_bookkeeping(keys[k]);
    if (!keys || n_diff == 0)
        fprintf(f, "<p>No setting differs between the runs (apart from run.name and "
                   "run.dir).</p>\n");
    else
        html_config_table(f, runs, n, keys, n_keys, 1);
    fprintf(f, "<h2 id=\"summary\">Summary</h2>\n");
    html_summary(f, summary, runs);
    fprintf(f, "<h2 id=\"all\">All settings</h2>\n<p class=\"note\">Highlighted: the value "
               "differs between runs.</p>\n");
    if (keys) html_config_table(f, runs, n, keys, n_keys, 0);
    html_provenance(f, runs, n);
    fprintf(f, "</body>\n</html>\n");
    free(keys);
    if (atomic_commit(&out, 0) != 0) {
        error_add(NULL, 0, NULL, "cannot write '%s': %s", path, strerror(errno));
        return -1;
    }
    return rc;
}
