/* test_sweep_page.c: a sweep's index.html (src/report/page/sweep_page.c) from a hand-written report
 * text: the header first, then the figures (each listed SVG inline with its caption, ids
 * prefixed), then one section per unindented paragraph with its heading and its text verbatim
 * (escaped) -- the indented paragraphs of a section (the LR table's groups) stay in it; no URL out;
 * a listed figure that cannot be read named in its place; a report without figures says so; an
 * unwritable folder is an error naming the file. */
#include "report/page/page_internal.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "xmlcheck.h"

static char tmp[200];
static void setup(void) { tu_make_tmp(tmp, sizeof tmp, "/tmp/scaledot_test_sweep_page_XXXXXX"); }
static void teardown(void) { tu_remove_tree(tmp); }

static const char SVG_TEXT[] =
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" "
    "width=\"20\" height=\"10\"><defs><clipPath id=\"clip1\"/></defs><g clip-path=\"url(#clip1)\">"
    "</g></svg>\n";

static const char REPORT[] =
    "sweep report of s/sweep.csv: 4 runs; varied: scale, optim.lr\n"
    "in the statistics: 4 (ok 4, diverged 0, guard 0)\n"
    "\n"
    "summary over seeds: acc = final val_answer_acc (%), median [min-max]\n"
    "\n"
    "  group    n  acc\n"
    "  a<b>     2  99.0 [98.0-100.0]\n"
    "\n"
    "LR sensitivity (Wortsman et al. 2023): mean over the lr grid & more\n"
    "\n"
    "  group  LR sens.\n"
    "\n"
    "  scale=none:\n"
    "        lr  l(lr)\n"
    "\n"
    "figures in s/:\n"
    "sweep_lr.svg: the final validation loss against optim.lr; l0 < 3.\n"
    "sweep_gone.svg: not there.\n";

static char *page(const char *text) {
    char path[300];
    snprintf(path, sizeof path, "%s/index.html", tmp);
    TuCapture c;
    tu_capture_begin(&c, 2);
    int rc = sweep_page_write(tmp, text);
    char *err = tu_capture_end(&c);
    ck_assert_int_eq(rc, 0);
    ck_assert_msg(strstr(text, "sweep_gone.svg") == NULL ||
                      strstr(err, "cannot inline 'sweep_gone.svg'") != NULL,
                  "%s", err);
    free(err);
    return tu_read_xml(path);
}

START_TEST(test_sections_and_figures) {
    tu_put_file(NULL, 0, tmp, ".", "sweep_lr.svg", SVG_TEXT);
    char *doc = page(REPORT);
    static const char *const ORDER[] = {
        "<title>scaledot sweep: ",
        "<pre class=\"text\">sweep report of s/sweep.csv: 4 runs; varied: scale, optim.lr\n"
        "in the statistics: 4 (ok 4, diverged 0, guard 0)\n</pre>",
        "<nav><a href=\"#figures\">Figures</a> &#183; <a href=\"#section1\">summary over seeds</a>"
        " &#183; <a href=\"#section2\">LR sensitivity</a></nav>",
        "<h2 id=\"figures\">Figures</h2>",
        "<div id=\"run-toggles\" class=\"toggles\" hidden=\"hidden\"></div>",
        "<figure id=\"sweep_lr\">\n<svg width=\"20\" height=\"10\"><defs><clipPath "
        "id=\"sweep_lr-clip1\"/></defs><g clip-path=\"url(#sweep_lr-clip1)\">",
        "<figcaption><b>sweep_lr.</b> the final validation loss against optim.lr; l0 &lt; 3. "
        "<a class=\"note\" href=\"sweep_lr.svg\">(sweep_lr.svg)</a></figcaption>",
        "<figure id=\"sweep_gone\">\n<p class=\"note\">Figure <code>sweep_gone.svg</code> could "
        "not be read.</p>",
        "<h2 id=\"section1\">Summary over seeds</h2>\n<pre class=\"text\">summary over seeds: acc = "
        "final val_answer_acc (%), median [min-max]\n\n  group    n  acc\n  a&lt;b&gt;     2  "
        "99.0 [98.0-100.0]\n</pre>",
        "<h2 id=\"section2\">LR sensitivity</h2>\n<pre class=\"text\">LR sensitivity (Wortsman et "
        "al. 2023): mean over the lr grid &amp; more\n\n  group  LR sens.\n\n  scale=none:\n"
        "        lr  l(lr)\n</pre>",
        "</body>\n</html>\n",
    };
    int miss = tu_in_order(doc, ORDER, (int)(sizeof ORDER / sizeof ORDER[0]));
    const char *body = strstr(doc, "<body>");
    ck_assert_msg(miss < 0, "missing or out of order: '%s'\n%s", miss < 0 ? "" : ORDER[miss], body);
    ck_assert_ptr_null(strstr(doc, "http"));
    ck_assert_ptr_null(strstr(doc, "src="));
    ck_assert_ptr_null(strstr(doc, "figures in")); /* the list became the figures */
    ck_assert_int_eq(xmlcheck_count(doc, "<figure id="), 2);
    ck_assert_int_eq(xmlcheck_count(doc, "<script>"), 1);
    free(doc);
}
END_TEST

START_TEST(test_no_figures_and_errors) {
    char *doc = page("sweep report of x: 1 run; varied: seed\n\nfigures in x/:\n"
                     "(none: no column but the seed varied over two trained values)\n");
    ck_assert_msg(strstr(doc, "<p>No figure: no column but the seed varied over two trained "
                              "values.</p>"), "%s", doc);
    ck_assert_int_eq(xmlcheck_count(doc, "<figure"), 0);
    ck_assert_int_eq(xmlcheck_count(doc, "<h2"), 1); /* Figures alone */
    free(doc);
    char dir[300];
    snprintf(dir, sizeof dir, "%s/missing", tmp);
    TuCapture c;
    tu_capture_begin(&c, 2);
    int rc = sweep_page_write(dir, "sweep report of x\n");
    char *err = tu_capture_end(&c);
    ck_assert_int_eq(rc, -1);
    ck_assert_msg(strstr(err, "cannot write") && strstr(err, "missing/index.html"), "%s", err);
    free(err);
}
END_TEST

/* The "figures in DIR/:" heading is not a figure line, even when the sweep's folder holds
 * ".svg: " and markup: one figure (the line after it), the folder escaped in the text only. */
START_TEST(test_figures_heading_not_a_figure) {
    tu_put_file(NULL, 0, tmp, ".", "sweep_dk.svg", SVG_TEXT);
    char *doc = page("sweep report of sw/a<b>&c.svg: z/sweep.csv: 2 runs; varied: d_k\n\n"
                     "figures in sw/a<b>&c.svg: z/:\nsweep_dk.svg: loss against d_k.\n");
    ck_assert_int_eq(xmlcheck_count(doc, "<figure id="), 1);
    ck_assert_msg(strstr(doc, "<figure id=\"sweep_dk\">"), "%s", doc);
    ck_assert_ptr_null(strstr(doc, "<b>&c"));
    ck_assert_ptr_null(strstr(doc, "figures in sw"));
    free(doc);
}
END_TEST

/* The report's verdict section is the page's first paragraph, above the figures, its lines one
 * per line (indent dropped), escaped; not a section of its own in the contents. */
START_TEST(test_verdict_on_top) {
    char *doc = page("sweep report of s/sweep.csv: 6 runs; varied: scale, seed\n"
                     "in the statistics: 6 (ok 6, diverged 0, guard 0)\n\n"
                     "verdict: best of 2 groups, scale=sqrt_dk: 99.0 % <median>\n"
                     "  worst, scale=none: 50.0 %\n\n"
                     "summary over seeds: acc\n\n  group  n\n");
    static const char *const ORDER[] = {
        "<h1>Sweep",
        ("<p class=\"verdict\" id=\"verdict\"><b>Verdict:</b> best of 2 groups, scale=sqrt_dk: "
         "99.0 % &lt;median&gt;<br/>\nworst, scale=none: 50.0 %</p>"),
        "<h2 id=\"figures\">Figures</h2>", "<h2 id=\"section",
    };
    int miss = tu_in_order(doc, ORDER, 4);
    ck_assert_msg(miss < 0, "missing or out of order: '%s'\n%s", miss < 0 ? "" : ORDER[miss], doc);
    ck_assert_ptr_null(strstr(doc, ">Verdict</"));
    ck_assert_int_eq(xmlcheck_count(doc, "verdict: "), 0);
    free(doc);
}
END_TEST

TU_MAIN_FIXTURE("sweep_page", setup, teardown, test_sections_and_figures,
                test_no_figures_and_errors, test_figures_heading_not_a_figure, test_verdict_on_top);
