/* test_svg.c: the SVG writer (src/report/plot/svg.c) and the XML checker the report tests rely on.
 *
 * The checker is tested first on hand-written good and bad documents, so that "well-formed" in
 * the other tests means something; then the writer's output is run through it, with data that
 * needs escaping. */
#include "report/plot/plot.h"

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "xmlcheck.h"

/* Fails the test with the checker's message and the text around the offending spot. */
static void assert_well_formed(const char *doc) { tu_assert_well_formed(doc, "the document"); }

static void assert_rejected(const char *doc) {
    ck_assert_msg(xml_check(doc, NULL) != NULL, "checker accepted a bad document: %s", doc);
}

/* ------------------------------------------------------------- the checker */

START_TEST(test_checker_accepts_good_documents) {
    assert_well_formed("<a/>");
    assert_well_formed("<?xml version=\"1.0\"?>\n<svg x='1' y=\"2\"><g><t>a &amp; b &lt;c&gt;</t></g>"
                       "<!-- note --></svg>\n");
    assert_well_formed("<!DOCTYPE html>\n<html><body><p>&#8730;d &#x221A; &quot;q&apos;</p>"
                       "<img src=\"x.svg\" alt=\"a &amp; b\"/></body></html>");
    assert_well_formed("<a   b = \"1\"\n c='2' ></a >");
    assert_well_formed("<a t=\"\xc3\xa9\">\xe2\x88\x9a \xf0\x9f\x98\x80 \xef\xbf\xbd</a>"); /* UTF-8 */
}
END_TEST

START_TEST(test_checker_rejects_bad_documents) {
    assert_rejected("");
    assert_rejected("<a>");                         /* unclosed */
    assert_rejected("<a></b>");                     /* mismatched */
    assert_rejected("<a><b></a></b>");              /* misnested */
    assert_rejected("</a>");                        /* end without start */
    assert_rejected("<a/><b/>");                    /* two roots */
    assert_rejected("text<a/>");                    /* text outside the root */
    assert_rejected("<a x=1/>");                    /* unquoted attribute */
    assert_rejected("<a x=\"1/>");                  /* unterminated value */
    assert_rejected("<a x=\"1\" x=\"2\"/>");        /* attribute twice */
    assert_rejected("<a x=\"1\"y=\"2\"/>");         /* no space between attributes */
    assert_rejected("<a>R&D</a>");                  /* raw & in text */
    assert_rejected("<a>&nbsp;</a>");               /* not an XML entity */
    assert_rejected("<a>&#;</a>");                  /* empty character reference */
    assert_rejected("<a x=\"a<b\"/>");              /* raw < in attribute */
    assert_rejected("<a x=\"a&b\"/>");              /* raw & in attribute */
    assert_rejected("<a x=\"a>b\"/>");              /* raw > in attribute (our rule) */
    assert_rejected("<a>a > b</a>");                /* raw > in text (our rule) */
    assert_rejected("<a><!-- x -- y --></a>");      /* -- inside a comment */
    assert_rejected("<1a/>");                       /* bad name */
    assert_rejected("<a>bad\xff\xfename</a>");        /* not UTF-8 */
    assert_rejected("<a t=\"caf\xe9\"/>");            /* Latin-1 in an attribute */
    assert_rejected("<a>\xe2\x88</a>");               /* cut character */
    assert_rejected("<a>\xc0\xaf</a>");               /* overlong */
    assert_rejected("<a>\xed\xa0\x80</a>");           /* surrogate */
    assert_rejected("<a>\xef\xbf\xbf</a>");           /* U+FFFF */
}
END_TEST

/* -------------------------------------------------------------- the writer */

START_TEST(test_escaped_text_and_attributes) {
    Svg s;
    svg_begin(&s, 100, 50, "title <&> \"q\" 'a'");
    svg_text(&s, 1, 2, "class=\"label\"", "run <&> name");
    svg_raw(&s, "<g data-run=\"");
    svg_escaped(&s, "a\"b<c>&d'e");
    svg_raw(&s, "\"/>\n");
    ck_assert_int_eq(svg_end(&s), 0);
    assert_well_formed(s.buf);
    ck_assert_ptr_nonnull(strstr(s.buf, "<title>title &lt;&amp;&gt; &quot;q&quot; &#39;a&#39;</title>"));
    ck_assert_ptr_nonnull(strstr(s.buf, ">run &lt;&amp;&gt; name</text>"));
    ck_assert_ptr_nonnull(strstr(s.buf, "data-run=\"a&quot;b&lt;c&gt;&amp;d&#39;e\""));
    ck_assert_ptr_null(strstr(s.buf, "<&>"));
    svg_free(&s);
    ck_assert_ptr_null(s.buf);
}
END_TEST

START_TEST(test_control_characters_replaced) {
    Svg s;
    svg_begin(&s, 10, 10, NULL);
    svg_text(&s, 0, 0, NULL, "a\x01" "b\x1f" "c\td\xc3\xa9");
    svg_end(&s);
    assert_well_formed(s.buf);
    ck_assert_ptr_nonnull(strstr(s.buf, ">a?b?c\td\xc3\xa9</text>"));
    svg_free(&s);
}
END_TEST

START_TEST(test_shapes_are_well_formed) {
    Svg s;
    svg_begin(&s, 640, 480, "shapes");
    svg_line(&s, 0, 0, 10, 10, "stroke=\"#000000\"");
    svg_line(&s, 0, 0, 10, 10, NULL);
    svg_rect(&s, 1, 2, 3, 4, NULL);
    svg_rect(&s, 1, 2, 3, 4, "fill=\"none\"");
    svg_text(&s, 5, 5, NULL, "");
    ck_assert_int_eq(svg_new_id(&s), 1);
    ck_assert_int_eq(svg_new_id(&s), 2);
    ck_assert_int_eq(svg_end(&s), 0);
    assert_well_formed(s.buf);
    ck_assert_int_eq(xmlcheck_count(s.buf, "<line "), 2);
    ck_assert_int_eq(xmlcheck_count(s.buf, "<rect "), 3); /* + the background */
    ck_assert_ptr_nonnull(strstr(s.buf, "viewBox=\"0 0 640 480\""));
    ck_assert_uint_eq(strlen(s.buf), s.len);
    svg_free(&s);
}
END_TEST

/* Enough output to make the buffer grow many times, including one piece larger than the
 * formatting scratch buffer. */
START_TEST(test_large_document) {
    Svg s;
    svg_begin(&s, 10, 10, NULL);
    for (int i = 0; i < 20000; i++) svg_text(&s, i, i, "font-size=\"9\"", "x & y");
    char big[3000];
    memset(big, 'a', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    svg_raw(&s, "<desc>%s</desc>\n", big);
    ck_assert_int_eq(svg_end(&s), 0);
    assert_well_formed(s.buf);
    ck_assert_int_eq(xmlcheck_count(s.buf, "x &amp; y"), 20000);
    ck_assert_uint_eq(strlen(s.buf), s.len);
    svg_free(&s);
}
END_TEST

START_TEST(test_save_and_errors) {
    char dir[64];
    tu_make_tmp(dir, sizeof dir, "/tmp/test_svg.XXXXXX");
    char path[256];
    snprintf(path, sizeof path, "%s/a.svg", dir);
    Svg s;
    svg_begin(&s, 10, 10, "t");
    svg_end(&s);
    ck_assert_int_eq(svg_save(&s, path), 0);
    char *back = tu_read_file(path, NULL);
    ck_assert_ptr_nonnull(back);
    ck_assert_str_eq(back, s.buf);
    free(back);
    snprintf(path, sizeof path, "%s/missing/a.svg", dir);
    errno = 0;
    ck_assert_int_eq(svg_save(&s, path), -1);
    ck_assert_int_eq(errno, ENOENT);
    svg_free(&s);
    tu_remove_tree(dir);
}
END_TEST

START_TEST(test_escape_to_file) {
    FILE *f = tmpfile();
    ck_assert_ptr_nonnull(f);
    xml_escape_file(f, "<b>R&D</b> \"x\"");
    xml_escape_file(f, NULL);
    rewind(f);
    char buf[128] = {0};
    ck_assert_uint_gt(fread(buf, 1, sizeof buf - 1, f), 0);
    fclose(f);
    ck_assert_str_eq(buf, "&lt;b&gt;R&amp;D&lt;/b&gt; &quot;x&quot;");
}
END_TEST

/* svg_is_ours: what svg_begin writes is recognised (with any size and title); SVGs of other
 * writers, or ours with the tag changed or cut, are not. The texts are written out by hand. */
static const struct {
    const char *text;
    int ours;
} OURS[] = {
    {"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" "
     "width=\"1\" height=\"2\" viewBox=\"0 0 1 2\" font-family=\"DejaVu Sans, Helvetica, Arial, "
     "sans-serif\" font-size=\"12\">\n</svg>\n", 1},
    {"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"1\" height=\"2\">\n</svg>\n", 0},
    {"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" "
     "width=\"1\" height=\"2\" font-family=\"Inkscape\">\n<g font-family=\"DejaVu Sans, "
     "Helvetica, Arial, sans-serif\" font-size=\"12\">\n</g></svg>\n", 0}, /* the tail later */
    {"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" "
     "width=\"1\" height=\"2\" font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\" "
     "font-size=\"12\">", 0}, /* cut before its end of line */
    {"", 0},
    {"my figure\n", 0},
};

START_TEST(test_is_ours) {
    ck_assert_int_eq(svg_is_ours(OURS[_i].text), OURS[_i].ours);
    Svg s; /* and what svg_begin itself writes */
    svg_begin(&s, 640, 480, "a & b");
    ck_assert_int_eq(svg_end(&s), 0);
    ck_assert_int_eq(svg_is_ours(s.buf), 1);
    svg_free(&s);
}
END_TEST

/* Bytes that are not well-formed UTF-8 (a folder name in Latin-1, a cut character, an overlong
 * form, a surrogate) become U+FFFD, one per byte; well-formed characters stay as they are. The
 * expected strings are written out by hand from RFC 3629's table. */
START_TEST(test_invalid_utf8_replaced) {
#define FFFD "\xef\xbf\xbd"
    static const struct {
        const char *in, *want;
    } cases[] = {
        {"bad\xff\xfename", "bad" FFFD FFFD "name"},
        {"caf\xe9", "caf" FFFD},                        /* Latin-1 e-acute */
        {"caf\xc3\xa9 \xe2\x88\x9a d", "caf\xc3\xa9 \xe2\x88\x9a d"}, /* 2- and 3-byte kept */
        {"\xf0\x9f\x98\x80!", "\xf0\x9f\x98\x80!"},        /* 4-byte kept */
        {"x\xe2\x88", "x" FFFD FFFD},                   /* cut at the end */
        {"\xe2\x88<", FFFD FFFD "&lt;"},                 /* cut before markup */
        {"\xc0\xaf", FFFD FFFD},                        /* overlong '/' */
        {"\xe0\x80\xaf", FFFD FFFD FFFD},                /* overlong, 3 bytes */
        {"\xed\xa0\x80", FFFD FFFD FFFD},                /* surrogate U+D800 */
        {"\xf4\x90\x80\x80", FFFD FFFD FFFD FFFD},        /* above U+10FFFF */
        {"\xef\xbf\xbe", FFFD FFFD FFFD},                /* U+FFFE, not a character in XML */
        {"\x80" "a", FFFD "a"},                        /* lone continuation byte */
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        Svg s;
        svg_begin(&s, 10, 10, NULL);
        size_t at = s.len;
        svg_escaped(&s, cases[c].in);
        ck_assert_msg(strcmp(s.buf + at, cases[c].want) == 0, "case %zu: got '%s'", c, s.buf + at);
        svg_raw(&s, "<text>");
        svg_escaped(&s, cases[c].in);
        svg_raw(&s, "</text>");
        svg_end(&s);
        assert_well_formed(s.buf);
        svg_free(&s);
        FILE *f = tmpfile();
        ck_assert_ptr_nonnull(f);
        xml_escape_file(f, cases[c].in);
        rewind(f);
        char buf[128] = {0};
        ck_assert_uint_gt(fread(buf, 1, sizeof buf - 1, f), 0);
        fclose(f);
        ck_assert_msg(strcmp(buf, cases[c].want) == 0, "case %zu (file): got '%s'", c, buf);
    }
#undef FFFD
}
END_TEST

static Suite *svg_suite(void) {
    Suite *s = suite_create("svg");
    TCase *checker = tcase_create("xml checker");
    tcase_add_test(checker, test_checker_accepts_good_documents);
    tcase_add_test(checker, test_checker_rejects_bad_documents);
    suite_add_tcase(s, checker);
    TCase *writer = tcase_create("writer");
    tcase_add_test(writer, test_escaped_text_and_attributes);
    tcase_add_test(writer, test_control_characters_replaced);
    tcase_add_test(writer, test_shapes_are_well_formed);
    tcase_add_test(writer, test_large_document);
    tcase_add_test(writer, test_save_and_errors);
    tcase_add_test(writer, test_escape_to_file);
    tcase_add_loop_test(writer, test_is_ours, 0, (int)(sizeof OURS / sizeof OURS[0]));
    tcase_add_test(writer, test_invalid_utf8_replaced);
    suite_add_tcase(s, writer);
    return s;
}

int main(void) { return tu_run(svg_suite()); }
