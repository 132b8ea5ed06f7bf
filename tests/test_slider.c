/* test_slider.c: the data the compare page's step slider draws (src/report/page/slider.c): from a
 * hand-written attn_steps.csv and attention.csv, the JSON holds each head's steps, counts and
 * weights as logged, attention.csv's text of the same step, layer and head (a step attention.csv
 * lacks gives ""), the pair of the most saturated last step first, the tokens, and no '<', '>'
 * or '&' (names escaped); a run without the log is listed with no heads; and a page of runs
 * without any attn_steps.csv has no slider section. The page in a browser: tests/browser.sh. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/page/page_internal.h"
#include "testutil.h"

static const char ATTN[] = "step,layer,head,logit_std,saturated_frac,dlogit_norm\n"
                           "0,0,0,1.5,0,0.03\n"
                           "0,0,1,1.6,0.01,0.04\n"
                           "5,0,0,2.5,0.1,0.02\n"
                           "5,0,1,2.6,0.2,0.05\n"
                           "10,0,0,3.5,0.3,0.01\n"
                           "10,0,1,3.6,0.4,0.005\n";

/* Steps 0, 10 (and 15, which attention.csv lacks, for head 0); step 5 is not in this log. */
static const char STEPS[] = "step,layer,head,n_-inf_0,n_0_inf,n_nan,q0k0,q1k0,q1k1\n"
                            "0,0,0,1,2,0,1,0.25,0.75\n"
                            "0,0,1,3,0,0,1,0.5,0.5\n"
                            "10,0,0,0,3,0,1,0.1,0.9\n"
                            "10,0,1,2,1,0,1,nan,0.99\n"
                            "15,0,0,3,0,0,1,0.2,0.8\n";

static const char TOKENS[] = "position,token,answer\n0,\"<x>\",0\n1,\"y\",1\n";

static void parse(Csv *t, const char *text) {
    ck_assert_int_eq(csv_parse(t, text, strlen(text)), 0);
}

START_TEST(test_json_of_hand_written_logs) {
    Run runs[2];
    memset(runs, 0, sizeof runs);
    snprintf(runs[0].name, sizeof runs[0].name, "a<&>\"b");
    runs[0].path = "runs/a";
    parse(&runs[0].attn, ATTN);
    runs[0].has_attn = 1;
    parse(&runs[0].tokens, TOKENS);
    runs[0].has_tokens = 1;
    snprintf(runs[1].name, sizeof runs[1].name, "old");
    runs[1].path = "runs/old";
    Csv logs[2] = {{0}};
    parse(&logs[0], STEPS);
    int has[2] = {1, 0};
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    ck_assert_int_eq(slider_json(f, runs, logs, has, 2), 0);
    fclose(f);
    static const char *const WANT[] = {
        "{\"edges\":[\"-inf\",\"0\",\"inf\"]",
        ",\"pairs\":[[0,0],[0,1]]",
        ",\"pick\":1,", /* saturated_frac 0.4 at head 1's last step; head 0's (15) has none */
        "{\"name\":\"a\\u003c\\u0026\\u003e\\\"b\",\"path\":\"runs/a\"",
        ",\"side\":2,\"tokens\":[\"\\u003cx\\u003e\",\"y\"]",
        ("\"0.0\":{\"steps\":[0,10,15],\"hist\":[[1,2],[0,3],[3,0]],"
         "\"map\":[[1,0.25,0.75],[1,0.1,0.9],[1,0.2,0.8]],\"sat\":[\"0\",\"0.3\",\"\"],"
         "\"std\":[\"1.5\",\"3.5\",\"\"],\"grad\":[\"0.03\",\"0.01\",\"\"]}"),
        ("\"0.1\":{\"steps\":[0,10],\"hist\":[[3,0],[2,1]],\"map\":[[1,0.5,0.5],[1,null,0.99]],"
         "\"sat\":[\"0.01\",\"0.4\"],\"std\":[\"1.6\",\"3.6\"],\"grad\":[\"0.04\",\"0.005\"]}"),
        "{\"name\":\"old\",\"path\":\"runs/old\",\"color\":",
        ",\"side\":0,\"tokens\":[],\"heads\":{}}]}",
    };
    int missing = tu_in_order(text, WANT, (int)(sizeof WANT / sizeof WANT[0]));
    ck_assert_msg(missing == -1, "want %s in %s", missing >= 0 ? WANT[missing] : "", text);
    ck_assert_msg(!strpbrk(text, "<>&"), "a character that ends well-formed XML: %s", text);
    free(text);
    for (int i = 0; i < 2; i++) {
        csv_free(&runs[i].attn);
        csv_free(&runs[i].tokens);
        csv_free(&logs[i]);
    }
}
END_TEST

/* Runs of a version before attn_steps.csv (the fixtures): no section, not a byte. */
START_TEST(test_no_log_no_section) {
    Run run;
    memset(&run, 0, sizeof run);
    run.path = SCALEDOT_SOURCE_DIR "/tests/fixtures/runs/scaled";
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    ck_assert_int_eq(slider_section(f, &run, 1), 0);
    fclose(f);
    ck_assert_uint_eq(len, 0);
    ck_assert_int_eq(slider_has_data(&run, 1), 0);
    free(text);
}
END_TEST

TU_MAIN("slider", test_json_of_hand_written_logs, test_no_log_no_section);
