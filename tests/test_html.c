/* test_html.c: index.html of --compare (src/report/page/html.c) on two hand-made runs: well-formed,
 * every run text escaped, the figures first (each SVG inline, its ids prefixed by the figure's id,
 * with title, caption and a link to the file), then the settings that differ (run.name and run.dir
 * aside) in order of first appearance and "(not set)" where a run lacks one, the summary table
 * with bad values marked, every setting with the differing ones highlighted, and each run's
 * provenance lines or "not recorded"; one self-contained page (no URL out), a missing figure file
 * named in its place. */
#include "report/page/page_internal.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "testutil.h"
#include "xmlcheck.h"

static char tmp[200];

static void setup(void) { tu_make_tmp(tmp, sizeof tmp, "/tmp/scaledot_test_html_XXXXXX"); }
static void teardown(void) { tu_remove_tree(tmp); }

static char paths[2][300];

/* Two runs; configs NULL: no config.ini. */
static void load_two(Run runs[2], const char *name0, const char *config0, const char *name1,
                     const char *config1) {
    const char *names[2] = {name0, name1}, *configs[2] = {config0, config1};
    for (int i = 0; i < 2; i++) {
        tu_put_file(NULL, 0, tmp, names[i], "loss.csv", "step,train_loss\n0,1\n");
        if (configs[i]) tu_put_file(NULL, 0, tmp, names[i], "config.ini", configs[i]);
        snprintf(paths[i], sizeof paths[i], "%s/%s", tmp, names[i]);
        memset(&runs[i], 0, sizeof runs[i]);
        TuCapture c;
        tu_capture_begin(&c, 2);
        int rc = load_run(&runs[i], paths[i]);
        free(tu_capture_end(&c));
        ck_assert_int_eq(rc, 0);
    }
}

/* A summary table of three rows, written here: a heading, a row of values, a status row. */
static char cells[3][2][CELL_LEN];
static Row rows[3];
static Table summary(void) {
    static const char *const TEXT[3][3] = {{"loss <nats>", "", ""},
                                           {"final", "1.0", "nan"},
                                           {"status", "diverged @3", "-inf & co"}};
    for (int r = 0; r < 3; r++) {
        snprintf(rows[r].label, sizeof rows[r].label, "%s", TEXT[r][0]);
        rows[r].section = r == 0;
        rows[r].cell = cells[r];
        for (int i = 0; i < 2; i++) snprintf(cells[r][i], CELL_LEN, "%s", TEXT[r][1 + i]);
    }
    return (Table){.row = rows, .n = 3, .cap = 3, .n_runs = 2};
}

/* A figure file as plot_lines writes one: declaration, namespace, a clip path and its use. */
static const char SVG_TEXT[] =
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" "
    "width=\"20\" height=\"10\"><defs><clipPath id=\"clip1\"><rect x=\"0\" y=\"0\" width=\"9\" "
    "height=\"9\"/></clipPath></defs><g clip-path=\"url(#clip1)\"><path class=\"series\" "
    "data-run=\"a&amp;b\" d=\"M0 0 L5 5\"/></g></svg>\n";

static char *write_page(const Run runs[2]) {
    Table t = summary();
    tu_put_file(NULL, 0, tmp, ".", "loss.svg", SVG_TEXT);
    tu_put_file(NULL, 0, tmp, ".", "attention_logits.svg", SVG_TEXT);
    static const FigureInfo FIGS[] = {{"loss.svg", "Loss <&>", "what to <b>see</b>", 0, 0},
                                      {"attention_logits.svg", "Logits", "spread", 0, 0}};
    char path[300];
    snprintf(path, sizeof path, "%s/index.html", tmp);
    ck_assert_int_eq(html_write(path, runs, 2, &t, FIGS, 2), 0);
    return tu_read_xml(path);
}

START_TEST(test_page) {
    Run runs[2];
    load_two(runs, "a&b",
             "; provenance: scaledot 9.9 (git abc)\n; provenance: command ./train x<y\n"
             "[run]\nname = a&b\n[model]\nd_model = 64\n[attention]\nscale = sqrt_dk\n"
             "[train]\nlr = 1e-3\n",
             "c", "[run]\nname = c\n[attention]\nscale = none\n[model]\nd_model = 64\n"
             "[task]\nname = copy\n");
    char *doc = write_page(runs);
    static const char *const ORDER[] = {
        "<title>scaledot: a&amp;b vs c</title>",
        "<h1>a&amp;b <span class=\"note\">vs</span> c</h1>",
        "<nav><a href=\"#figures\">Figures</a>",
        /* the figures first: each SVG inline, without declaration or namespace, its ids and
         * references prefixed by the figure's id, then title, caption (HTML) and a link */
        "<h2 id=\"figures\">Figures</h2>",
        "<div id=\"run-toggles\" class=\"toggles\" hidden=\"hidden\"></div>",
        "<figure id=\"loss\">\n<svg width=\"20\" height=\"10\"><defs><clipPath id=\"loss-clip1\">",
        "<g clip-path=\"url(#loss-clip1)\"><path class=\"series\" data-run=\"a&amp;b\"",
        "</svg>\n<figcaption><b>Loss &lt;&amp;&gt;.</b> what to <b>see</b> <a class=\"note\" "
        "href=\"loss.svg\">(loss.svg)</a></figcaption>\n</figure>",
        "<figure id=\"attention_logits\">\n<svg width=\"20\" height=\"10\"><defs><clipPath "
        "id=\"attention_logits-clip1\">",
        "<g clip-path=\"url(#attention_logits-clip1)\">",
        "<h2 id=\"differ\">Settings that differ</h2>",
        /* attention.scale, train.lr, task.name differ; run.name does too but is left out */
        "<tr class=\"diff\"><td><code>attention.scale</code></td><td class=\"text\">sqrt_dk</td>"
        "<td class=\"text\">none</td></tr>",
        "<tr class=\"diff\"><td><code>train.lr</code></td><td class=\"text\">1e-3</td>"
        "<td class=\"text\">(not set)</td></tr>",
        "<tr class=\"diff\"><td><code>task.name</code></td><td class=\"text\">(not set)</td>"
        "<td class=\"text\">copy</td></tr>",
        "</table>",
        "<h2 id=\"summary\">Summary</h2>",
        "<tr class=\"section\"><td colspan=\"3\">loss &lt;nats&gt;</td></tr>",
        "<tr><td>final</td><td>1.0</td><td class=\"bad\">nan</td></tr>",
        "<tr><td>status</td><td class=\"bad\">diverged @3</td><td class=\"bad\">-inf &amp; co</td>"
        "</tr>",
        "<h2 id=\"all\">All settings</h2>",
        "<tr class=\"diff\"><td><code>run.name</code></td><td class=\"text\">a&amp;b</td>",
        "<tr><td><code>model.d_model</code></td><td class=\"text\">64</td><td class=\"text\">64"
        "</td></tr>",
        "<code>attention.scale</code>", "<code>train.lr</code>", "<code>task.name</code>",
        "<h2 id=\"provenance\">Provenance</h2>",
        "<td class=\"text\">a&amp;b</td><td class=\"text\"><pre>scaledot 9.9 (git abc)\n"
        "command ./train x&lt;y\n</pre></td>",
        "<td class=\"text\">c</td><td class=\"text\"><pre>not recorded",
        "</body>\n</html>\n",
    };
    int miss = tu_in_order(doc, ORDER, (int)(sizeof ORDER / sizeof ORDER[0]));
    ck_assert_msg(miss < 0, "missing or out of order: '%s'\n%.2000s", miss < 0 ? "" : ORDER[miss],
                  strstr(doc, "<body>"));
    /* the settings that differ: model.d_model is the same, run.name bookkeeping */
    const char *diff = strstr(doc, "<h2 id=\"differ\">Settings that differ</h2>");
    const char *end = strstr(diff, "<h2 id=\"summary\">Summary</h2>");
    const char *dm = strstr(diff, "model.d_model"), *rn = strstr(diff, "run.name");
    ck_assert(!dm || dm > end);
    ck_assert(!rn || rn > end);
    free(doc);
    for (int i = 0; i < 2; i++) free_run(&runs[i]);
}
END_TEST

/* sample.txt of each run side by side, before the figures (linked first in the contents): the comment lines
 * as a note, the prompt's characters marked, everything escaped; a run without one or with a
 * folder in its place says so. */
START_TEST(test_samples) {
    Run runs[2];
    load_two(runs, "a", "[run]\nname = a\n", "b", "[run]\nname = b\n");
    char *doc = write_page(runs);
    ck_assert_msg(!strstr(doc, "Samples"), "no run has a sample, yet a section: %.300s",
                  strstr(doc, "Samples"));
    free(doc);
    tu_put_file(NULL, 0, tmp, "a", "sample.txt",
                "# sample: temperature 0 <greedy>\n# prompt: 8 characters\nIn <the> & \\x01 end\n");
    doc = write_page(runs);
    static const char *const ORDER[] = {
        "<nav><a href=\"#samples\">Samples</a> &#183; <a href=\"#figures\">",
        "<h2 id=\"samples\">Samples</h2>",
        "<tr><td>sample</td><td class=\"sample\"><div class=\"note\">sample: temperature 0 "
        "&lt;greedy&gt;<br/>prompt: 8 characters<br/></div><pre class=\"sample\">"
        "<span class=\"prompt\">In &lt;the&gt;</span> &amp; \\x01 end\n</pre></td>",
        "<td class=\"sample\"><span class=\"note\">no sample.txt</span></td></tr>",
        "<h2 id=\"figures\">Figures</h2>",
        "<h2 id=\"summary\">Summary</h2>",
        "<h2 id=\"all\">All settings</h2>",
    };
    int miss = tu_in_order(doc, ORDER, (int)(sizeof ORDER / sizeof ORDER[0]));
    const char *sec = strstr(doc, "<h2 id=\"samples\">Samples"); /* the page is too long */
    ck_assert_msg(miss < 0, "missing or out of order: '%s'\n%.1500s", miss < 0 ? "" : ORDER[miss],
                  sec ? sec : doc);
    free(doc);
    /* a prompt count beyond the text, a folder where the file should be */
    tu_put_file(NULL, 0, tmp, "a", "sample.txt", "# prompt: 99 characters\nab");
    char dir[400];
    snprintf(dir, sizeof dir, "%s/b/sample.txt", tmp);
    ck_assert_int_eq(mkdir(dir, 0777), 0);
    doc = write_page(runs);
    const char *sec2 = strstr(doc, "<h2 id=\"samples\">Samples");
    ck_assert_msg(strstr(doc, "<pre class=\"sample\"><span class=\"prompt\">ab</span></pre>"),
                  "%.1500s", sec2 ? sec2 : doc);
    ck_assert_msg(strstr(doc, "<span class=\"note\">sample.txt unreadable: not a regular file"),
                  "%.1500s", sec2 ? sec2 : doc);
    free(doc);
    for (int i = 0; i < 2; i++) free_run(&runs[i]);
}
END_TEST

START_TEST(test_nothing_differs_and_errors) {
    Run runs[2];
    load_two(runs, "x", "[run]\nname = x\ndir = p\n[model]\nd_model = 64\n", "y",
             "[run]\nname = y\ndir = q\n[model]\nd_model = 64\n");
    char *doc = write_page(runs);
    ck_assert_msg(strstr(doc, "<h2 id=\"differ\">Settings that differ</h2>\n<p>No setting differs"),
                  "%s", doc);
    free(doc);
    Table t = summary();
    char path[300];
    snprintf(path, sizeof path, "%s/missing/index.html", tmp);
    TuCapture c;
    tu_capture_begin(&c, 2);
    int rc = html_write(path, runs, 2, &t, NULL, 0);
    char *err = tu_capture_end(&c);
    ck_assert_int_eq(rc, -1);
    ck_assert_msg(strstr(err, "cannot write") && strstr(err, "missing/index.html"), "%s", err);
    free(err);
    for (int i = 0; i < 2; i++) free_run(&runs[i]);
}
END_TEST

/* One self-contained page: no URL out (no "http", no src=, no <link>, no @import, url() only to
 * the page's own #ids), one inline script, every figure before the first table. A figure file
 * that cannot be read is named in its place after a warning; the page is still written. */
START_TEST(test_self_contained) {
    Run runs[2];
    load_two(runs, "a", "[run]\nname = a\n", "b", "[run]\nname = b\n");
    char *doc = write_page(runs);
    static const char *const NEVER[] = {"http", "src=", "<link", "@import", "<?xml", "xmlns",
                                        "<img"};
    for (size_t i = 0; i < sizeof NEVER / sizeof NEVER[0]; i++)
        ck_assert_msg(!strstr(doc, NEVER[i]), "'%s' in the page: %.80s", NEVER[i],
                      strstr(doc, NEVER[i]));
    for (const char *u = strstr(doc, "url("); u; u = strstr(u + 1, "url("))
        ck_assert_msg(u[4] == '#', "url() out of the page: %.40s", u);
    ck_assert_int_eq(xmlcheck_count(doc, "<script>"), 1);
    ck_assert_int_eq(xmlcheck_count(doc, "<figure id="), 2);
    const char *last_fig = strstr(strstr(doc, "<figure id=\"attention_logits\">"), "</figure>");
    ck_assert_ptr_nonnull(last_fig);
    ck_assert_ptr_nonnull(strstr(doc, "<table"));
    ck_assert(last_fig < strstr(doc, "<table"));
    free(doc);
    /* loss.svg gone: a note in its place, a warning naming it */
    char path[300];
    Table t = summary();
    snprintf(path, sizeof path, "%s/index.html", tmp);
    static const FigureInfo FIG[] = {{"gone.svg", "Gone", "caption", 0, 0}};
    TuCapture c;
    tu_capture_begin(&c, 2);
    int rc = html_write(path, runs, 2, &t, FIG, 1);
    char *err = tu_capture_end(&c);
    ck_assert_int_eq(rc, 0);
    ck_assert_msg(strstr(err, "warning: ") && strstr(err, "cannot inline 'gone.svg'"), "%s", err);
    free(err);
    doc = tu_read_xml(path);
    ck_assert_msg(strstr(doc, "<figure id=\"gone\">\n<p class=\"note\">Figure <code>gone.svg</code> "
                              "could not be read.</p>"), "%s", doc);
    free(doc);
    for (int i = 0; i < 2; i++) free_run(&runs[i]);
}
END_TEST

/* A figure's id (and its SVG's ids, prefixed with it) holds only letters, digits, '_' and '-':
 * each other byte of the file's stem becomes '_' (by hand: w e " i r d < & > and the two bytes of
 * e-acute -> "we_ird_____"); a stem of nothing becomes "figure"; the page stays well-formed. */
START_TEST(test_figure_ids_safe) {
    static const struct {
        const char *file, *id;
    } cases[] = {
        {"we\"ird<&>\xc3\xa9.x.svg", "we_ird_____"},
        {"a b'c.svg", "a_b_c"},
        {".svg", "figure"},
        {"plain-ok_1.svg", "plain-ok_1"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        tu_put_file(NULL, 0, tmp, ".", cases[c].file,
                    "<svg xmlns=\"http://www.w3.org/2000/svg\"><clipPath id=\"c1\"/>"
                    "<g clip-path=\"url(#c1)\"/></svg>\n");
        char path[300];
        snprintf(path, sizeof path, "%s/page.html", tmp);
        FILE *f = fopen(path, "w");
        ck_assert_ptr_nonnull(f);
        fprintf(f, "<html><body>\n");
        ck_assert_int_eq(html_figure(f, tmp, cases[c].file, "T", "cap", 0), 0);
        fprintf(f, "</body></html>\n");
        fclose(f);
        char *doc = tu_read_xml(path);
        char want[200];
        snprintf(want, sizeof want, "<figure id=\"%s\">\n<svg><clipPath id=\"%s-c1\"/>"
                 "<g clip-path=\"url(#%s-c1)\"/></svg>", cases[c].id, cases[c].id, cases[c].id);
        ck_assert_msg(strstr(doc, want) != NULL, "case %zu: want '%s' in\n%s", c, want, doc);
        free(doc);
    }
}
END_TEST

TU_MAIN_FIXTURE("html", setup, teardown, test_page, test_samples, test_nothing_differs_and_errors,
                test_self_contained, test_figure_ids_safe);
