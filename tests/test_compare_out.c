/* test_compare_out.c: the report folder of ./train --compare (src/report/page/compare.c with
 * src/report/page/out_dir.c): the default folder under reports/, a folder that cannot be created, and
 * the refusal of a folder that is a symbolic link or holds files a report did not write (nothing
 * written, nothing changed); a folder of ours written again keeps no figure of the earlier report
 * that the new one does not draw. The report's contents are test_compare.c's. */
#include "cli/cli.h" /* the report through its command line: cli_compare */

#include <check.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "temp_names.h"
#include "testutil.h"

#define FIX SCALEDOT_SOURCE_DIR "/tests/fixtures/runs"
#define N_OF(a) ((int)(sizeof(a) / sizeof((a)[0])))

static char g_tmp[64];

static void make_tmp(void) { tu_make_tmp(g_tmp, sizeof g_tmp, "/tmp/test_compare_out.XXXXXX"); }

static void remove_tmp(void) { tu_remove_tree(g_tmp); }

/* Runs ./train --compare (cli_compare) on a NULL-terminated argument list with stdout and stderr captured. */
#define compare(...) tu_run_cmd(cli_compare, __VA_ARGS__)

/* Without --out the report goes to reports/<run1>_vs_<run2> under the current folder. */
START_TEST(test_default_out_dir) {
    char cwd[PATH_MAX], want[PATH_MAX];
    ck_assert_ptr_nonnull(getcwd(cwd, sizeof cwd));
    ck_assert_int_eq(chdir(g_tmp), 0);
    TuResult r = compare(FIX "/scaled/", FIX "/unscaled", NULL);
    ck_assert_int_eq(chdir(cwd), 0);
    ck_assert_msg(r.rc == 0, "rc %d, stderr: %s", r.rc, r.err);
    snprintf(want, sizeof want, "%s/reports/scaled_vs_unscaled/index.html", g_tmp);
    ck_assert_int_eq(access(want, F_OK), 0);
    ck_assert_ptr_nonnull(strstr(r.out, "report: reports/scaled_vs_unscaled/index.html"));
    tu_result_free(&r);
}
END_TEST

/* The report folder cannot be created (a file is in the way): exit code 1, path named. */
START_TEST(test_unwritable_out_dir) {
    char out[256];
    snprintf(out, sizeof out, "%s/file", g_tmp);
    FILE *f = fopen(out, "w");
    ck_assert_ptr_nonnull(f);
    fclose(f);
    TuResult r = compare(FIX "/scaled", "--out", out, NULL);
    ck_assert_int_eq(r.rc, 1);
    ck_assert_ptr_nonnull(strstr(r.err, out));
    tu_result_free(&r);
}
END_TEST

/* The report folder is refused (exit code 2, the link or the file named, nothing written) when it
 * is a symbolic link or holds, under a name the report writes, a file no report of ours wrote (not
 * in its manifest; in a folder of an earlier version, no manifest, one that does not read as
 * ours); a report folder of ours is written again; files under other names are kept as they
 * are (a user's copy of a figure of ours among them: it was once removed as "stale"). Each case: the folder a link to another (link, with a trailing '/' with slash), a report
 * written first (ours), the files planted (name, text; a NULL text makes a folder, a text
 * starting "->" a link to that file), the exit code and the name the message gives. */
#define OUR_SVG_HEAD                                                                               \
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" "     \
    "width=\"1\" height=\"1\" viewBox=\"0 0 1 1\" font-family=\"DejaVu Sans, Helvetica, Arial, "  \
    "sans-serif\" font-size=\"12\">\n"
static const struct {
    int link, slash, ours;
    const char *files[3][2];
    int rc;
    const char *named; /* refused: the file named; exit 0: the file that must be kept */
} OUT_FOLDERS[] = {
    {1, 0, 0, {{"index.html", "keep\n"}}, 2, NULL},
    {1, 1, 0, {{"index.html", "keep\n"}}, 2, NULL},
    {1, 0, 1, {{NULL, NULL}}, 2, NULL}, /* a link to a report folder of ours: still a link */
    {0, 0, 0, {{"index.html", "<html>my page</html>\n"}}, 2, "index.html"},
    {0, 0, 0, {{"loss.svg", "<svg xmlns=\"http://www.w3.org/2000/svg\"/>\n"}}, 2, "loss.svg"},
    /* names the report does not use: never touched (the owner rule, util/owned_dir.h) */
    {0, 0, 0, {{"notes.txt", "mine\n"}}, 0, "notes.txt"},
    {0, 0, 0, {{"loss.svg", OUR_SVG_HEAD "</svg>\n"}, {"b.svg", NULL}}, 0, "b.svg"},
    {0, 0, 1, {{"notes.txt", "mine\n"}}, 0, "notes.txt"},
    {0, 0, 1, {{"zz.svg", "->loss.svg"}}, 0, "zz.svg"}, /* a link to a figure of ours */
    {0, 0, 1, {{"my_loss.svg", OUR_SVG_HEAD "</svg>\n"}}, 0, "my_loss.svg"}, /* a copy of one */
    /* a figure of a report of ours replaced by a link: the name is the manifest's, the link is
     * replaced (never followed) */
    {0, 0, 1, {{"loss.svg", "->index.html"}}, 0, NULL},
    /* a folder of an earlier version (no manifest): a link at a name of the report's is not
     * adopted, even to a figure that reads as ours */
    {0, 0, 0, {{"a.svg", OUR_SVG_HEAD "</svg>\n"}, {"loss.svg", "->a.svg"}}, 2, "loss.svg"},
    {0, 0, 0, {{NULL, NULL}}, 0, NULL},                    /* empty */
    {0, 0, 1, {{NULL, NULL}}, 0, NULL},                    /* ours: written again */
    {0, 0, 1, {{"index.html.tmp", "torn"}}, 0, NULL},      /* ... with a leftover */
    {0, 0, 1, {{"loss.svg.tmp.99999.0", "torn"}}, 0, NULL}, /* ... a killed writer's */
    {0, 0, 0, {{"loss.svg", OUR_SVG_HEAD "</svg>\n"}}, 0, NULL}, /* a report cut short */
};

START_TEST(test_out_folder_refused) {
    char real[256], out[260], path[PATH_MAX], want[PATH_MAX + 64];
    snprintf(real, sizeof real, "%s/real", g_tmp);
    ck_assert_int_eq(mkdir(real, 0755), 0);
    if (OUT_FOLDERS[_i].ours) {
        TuResult r = compare(FIX "/scaled", "--out", real, NULL);
        ck_assert_int_eq(r.rc, 0);
        tu_result_free(&r);
    }
    for (int f = 0; f < 3 && OUT_FOLDERS[_i].files[f][0]; f++) {
        const char *name = OUT_FOLDERS[_i].files[f][0], *text = OUT_FOLDERS[_i].files[f][1];
        snprintf(path, sizeof path, "%s/%s", real, name);
        remove(path); /* a file of the report written first, replaced by the case's */
        if (!text) ck_assert_int_eq(mkdir(path, 0755), 0);
        else if (strncmp(text, "->", 2) == 0) ck_assert_int_eq(symlink(text + 2, path), 0);
        else tu_write_file(path, text);
    }
    char before[PATH_MAX + 64], after[PATH_MAX + 64];
    snprintf(before, sizeof before, "cp -a %s %s/before", real, g_tmp);
    ck_assert_int_eq(system(before), 0);
    snprintf(out, sizeof out, "%s/%s%s", g_tmp, OUT_FOLDERS[_i].link ? "link" : "real",
             OUT_FOLDERS[_i].slash ? "/" : "");
    if (OUT_FOLDERS[_i].link) {
        snprintf(path, sizeof path, "%s/link", g_tmp);
        ck_assert_int_eq(symlink(real, path), 0);
    }
    TuResult r = compare(FIX "/scaled", FIX "/unscaled", "--out", out, NULL);
    ck_assert_msg(r.rc == OUT_FOLDERS[_i].rc, "rc %d, stderr: %s", r.rc, r.err);
    if (OUT_FOLDERS[_i].rc == 0) {
        snprintf(path, sizeof path, "%s/index.html", real);
        ck_assert(tu_file_contains(path, "unscaled"));
        tu_result_free(&r);
        if (OUT_FOLDERS[_i].named) { /* the file of the user's named is kept as it was */
            snprintf(after, sizeof after, "diff -r --no-dereference %s/before/%s %s/%s > /dev/null",
                     g_tmp, OUT_FOLDERS[_i].named, real, OUT_FOLDERS[_i].named);
            ck_assert_msg(system(after) == 0, "%s changed", OUT_FOLDERS[_i].named);
        }
        return;
    }
    if (OUT_FOLDERS[_i].named)
        snprintf(want, sizeof want, "error: '%s/%s' is not a file ./train --compare wrote", out,
                 OUT_FOLDERS[_i].named);
    else
        snprintf(want, sizeof want, "error: report folder '%s' is a symbolic link", out);
    ck_assert_msg(strstr(r.err, want), "want '%s', stderr: %s", want, r.err);
    ck_assert_msg(strstr(r.out, "scaled") == NULL, "the table was printed: %s", r.out);
    tu_result_free(&r);
    snprintf(after, sizeof after, "diff -r --no-dereference %s/before %s > /dev/null", g_tmp, real);
    ck_assert_msg(system(after) == 0, "the folder changed");
}
END_TEST

/* A report folder of ours written again for runs without attention logs or maps: the figures
 * of the earlier report that this one does not draw (attn_maps.svg, attention.svg, ...) are
 * removed, so nothing of the earlier runs is shown beside the new page; the figures drawn again
 * stay. */
START_TEST(test_stale_figures_removed) {
    char out[256], path[PATH_MAX];
    snprintf(out, sizeof out, "%s/rep", g_tmp);
    TuResult r = compare(FIX "/scaled", "--out", out, NULL);
    ck_assert_msg(r.rc == 0, "rc %d, stderr: %s", r.rc, r.err);
    tu_result_free(&r);
    snprintf(path, sizeof path, "%s/attn_maps.svg", out);
    ck_assert_int_eq(access(path, F_OK), 0); /* the premise: the first report has maps */
    r = compare(FIX "/no_attention", "--out", out, NULL);
    ck_assert_msg(r.rc == 0, "rc %d, stderr: %s", r.rc, r.err);
    tu_result_free(&r);
    static const char *const gone[] = {"attn_maps.svg", "attention.svg", "passthru.svg"};
    for (int i = 0; i < N_OF(gone); i++) {
        snprintf(path, sizeof path, "%s/%s", out, gone[i]);
        ck_assert_msg(access(path, F_OK) != 0, "%s of the earlier report is still there", gone[i]);
    }
    snprintf(path, sizeof path, "%s/loss.svg", out);
    ck_assert_int_eq(access(path, F_OK), 0);
    snprintf(path, sizeof path, "%s/index.html", out);
    ck_assert(!tu_file_contains(path, "attn_maps.svg"));
}
END_TEST

/* issue 33: a figure that cannot be written (here every temporary name it would try is taken by
 * a folder: temp_names.h) used to vanish from the page with no note, the error naming the figure
 * instead of the file that failed, and the earlier report's copy was removed silently. Now: exit
 * code 1, the error names the temporary file that failed, the page says which figure is missing
 * and why (strerror's text for EEXIST, from libc), no stale loss.svg is left beside it, and the
 * other figures are there. */
START_TEST(test_figure_not_written_is_named) {
    char out[256], path[PATH_MAX], want[1024];
    snprintf(out, sizeof out, "%s/rep", g_tmp);
    TuResult r = compare(FIX "/scaled", "--out", out, NULL);
    ck_assert_msg(r.rc == 0, "rc %d, stderr: %s", r.rc, r.err);
    tu_result_free(&r);
    char last[400];
    snprintf(path, sizeof path, "%s/loss.svg", out);
    temp_names_take(path, last, sizeof last);
    /* and one figure made read-only by the user: kept, bytes and all, and named missing too */
    char kept[PATH_MAX];
    snprintf(kept, sizeof kept, "%s/attention.svg", out);
    char *before = tu_read_file(kept, NULL);
    ck_assert_ptr_nonnull(before);
    ck_assert_int_eq(chmod(kept, 0444), 0);
    r = compare(FIX "/scaled", "--out", out, NULL);
    ck_assert_msg(r.rc == 1, "rc %d, stderr: %s", r.rc, r.err);
    snprintf(want, sizeof want, "error: cannot write '%s': %s\n", last, strerror(EEXIST));
    ck_assert_msg(strstr(r.err, want), "no '%s' in:\n%s", want, r.err);
    tu_result_free(&r);
    snprintf(path, sizeof path, "%s/index.html", out);
    snprintf(want, sizeof want, "Figure <code>loss.svg</code> (Loss against step) is missing: it "
             "could not be written (%s)", strerror(EEXIST));
    ck_assert_msg(tu_file_contains(path, want), "the page does not say loss.svg is missing");
    ck_assert(tu_file_contains(path, "<figure id=\"accuracy\">"));
    snprintf(path, sizeof path, "%s/loss.svg", out);
    ck_assert_msg(access(path, F_OK) != 0, "the earlier report's loss.svg is still there");
    snprintf(path, sizeof path, "%s/accuracy.svg", out);
    ck_assert_int_eq(access(path, F_OK), 0);
    char *after = tu_read_file(kept, NULL);
    ck_assert_msg(after && strcmp(after, before) == 0, "the read-only attention.svg was not kept");
    free(before);
    free(after);
    snprintf(path, sizeof path, "%s/index.html", out);
    snprintf(want, sizeof want, "Figure <code>attention.svg</code> (Attention entropy and logit "
             "spread against step) is missing: it could not be written (%s)", strerror(EACCES));
    ck_assert_msg(tu_file_contains(path, want), "the page does not say attention.svg is missing");
}
END_TEST

TU_MAIN_FIXTURE_TIMEOUT("compare_out", make_tmp, remove_tmp, 30, test_default_out_dir,
                        test_unwritable_out_dir,
                        TU_LOOP(test_out_folder_refused, 0, N_OF(OUT_FOLDERS)),
                        test_stale_figures_removed, test_figure_not_written_is_named);
