/* test_owned_dir.c: the one owner rule of the folders ./train writes (src/util/owned_dir.c, with
 * util/whole_write.c's claims): (1) no writer bypasses it: src/ is searched for raw writes
 * outside the mechanism's modules and a short allowlist, each offender named with file:line;
 * (2) the rule itself on a writer of this test's: the manifest lists what was written, a file
 * under a name of the writer's not in it is refused, stale names go and other names stay, a
 * folder of an earlier version is adopted by content, a file that appears after the check is
 * never replaced; (3) end to end, the findings of issue 45: a new run refuses the user's
 * sample.txt (and a resumed one too), two --compare into one folder write one after the other,
 * --sweep-report removes an earlier report's figure, --export refuses a linked parent, and a
 * moved sweep folder's run trains in the moved folder. */
#include <check.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testutil.h"
#include "util/owned_dir.h"
#include "util/run_lock.h"
#include "util/whole_write.h"

static char g_tmp[64];

static void setup(void) { tu_make_tmp(g_tmp, sizeof g_tmp, "/tmp/test_owned_dir.XXXXXX"); }

static void teardown(void) { tu_remove_tree(g_tmp); }

/* ---- (1) no writer bypasses the rule ---------------------------------------------------- */

/* The only files of src/ that may create, rename or remove files themselves: the mechanism
 * (whole_write.c, owned_dir.c; the export's new-name-only write too: atomic_commit_new), the
 * lock (run_lock.c: .lock) and mkdir -p (dirs.c). */
static const char *const ALLOWED[] = {"src/util/whole_write.c", "src/util/owned_dir.c",
                                      "src/util/run_lock.c", "src/util/dirs.c"};

START_TEST(test_no_writer_bypasses_the_rule) {
    char cmd[PATH_MAX + 600], path[PATH_MAX];
    snprintf(path, sizeof path, "%s/hits.txt", g_tmp);
    /* calls, not words in comments: an identifier boundary, then the call's '(' */
    snprintf(cmd, sizeof cmd,
             "cd %s && grep -rnE "
             "'(^|[^a-z_.>])(rename|unlink|remove|rmdir|mkdir|link|symlink|truncate|mkstemp)[ ]*\\(|"
             "fopen[ ]*\\([^;]*\"[wa]|O_CREAT|O_TRUNC' src --include=*.c > %s; true",
             SCALEDOT_SOURCE_DIR, path);
    ck_assert_int_eq(system(cmd), 0);
    char *hits = tu_read_file(path, NULL);
    ck_assert_ptr_nonnull(hits);
    char offenders[4096] = "";
    for (char *line = strtok(hits, "\n"); line; line = strtok(NULL, "\n")) {
        int allowed = 0;
        for (size_t i = 0; i < sizeof ALLOWED / sizeof *ALLOWED && !allowed; i++)
            allowed = strncmp(line, ALLOWED[i], strlen(ALLOWED[i])) == 0 &&
                      line[strlen(ALLOWED[i])] == ':';
        /* the text of a comment line (" * ..." or "// ...") names calls, makes none */
        const char *code = strchr(line, ':') ? strchr(strchr(line, ':') + 1, ':') : NULL;
        if (code) code += 1 + strspn(code + 1, " ");
        if (allowed || (code && (code[0] == '*' || strncmp(code, "/*", 2) == 0 ||
                                 strncmp(code, "//", 2) == 0)))
            continue;
        size_t used = strlen(offenders);
        snprintf(offenders + used, sizeof offenders - used, "%.200s\n", line);
    }
    free(hits);
    ck_assert_msg(!offenders[0],
                  "writes that bypass the owner rule (util/owned_dir.h: write through "
                  "util/whole_write.h, remove with owned_remove):\n%s", offenders);
}
END_TEST

/* ---- (2) the rule on a writer of the test's ----------------------------------------------- */

/* A file of the test writer reads "ours ..." */
static int adopt_ours(const char *dir, const char *name) {
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return tu_file_contains(path, "ours");
}

static const char *const NAMES[] = {"a.txt", "fig_*.svg"};
static const OwnedWriter W = {.id = "test", .what = "test folder", .who = "the test",
                              .would = "it would be replaced", .names = NAMES, .n_names = 2,
                              .adopt = adopt_ours, .advice = "Move it"};

static void put(const char *dir, const char *name, const char *text) {
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    tu_write_file(path, text);
}

static int has(const char *dir, const char *name) {
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return access(path, F_OK) == 0;
}

/* owned_dir_check with stderr captured; *err (malloc'd) gets what it said. */
static int check_said(const char *dir, char **err) {
    TuCapture c;
    tu_capture_begin(&c, 2);
    int rc = owned_dir_check(dir, &W, NULL);
    *err = tu_capture_end(&c);
    return rc;
}

START_TEST(test_manifest_rule) {
    char dir[128], path[PATH_MAX], *err;
    snprintf(dir, sizeof dir, "%s/d", g_tmp);
    ck_assert_int_eq(mkdir(dir, 0755), 0);
    put(dir, "notes.svg", "mine\n"); /* not a name of W's: never touched */
    ck_assert_int_eq(owned_dir_check(dir, &W, NULL), 0);
    int h = owned_dir_open(dir, &W, OWNED_LOCK, NULL);
    ck_assert_int_ge(h, 0);
    snprintf(path, sizeof path, "%s/a.txt", dir);
    ck_assert_int_eq(file_write_atomic(path, "ours 1\n", 7), 0);
    snprintf(path, sizeof path, "%s/fig_1.svg", dir);
    ck_assert_int_eq(file_write_atomic(path, "ours 2\n", 7), 0);
    /* a file that appears under a name of W's after the check is not replaced */
    put(dir, "fig_late.svg", "mine\n");
    snprintf(path, sizeof path, "%s/fig_late.svg", dir);
    ck_assert_int_eq(file_write_atomic(path, "ours 3\n", 7), -1);
    ck_assert_int_eq(errno, EEXIST);
    ck_assert(tu_file_holds(path, "mine\n"));
    owned_dir_close(h);
    snprintf(path, sizeof path, "%s/" OWNED_MANIFEST, dir);
    ck_assert(tu_file_holds(path, OWNED_MANIFEST_HEAD "\n@test\na.txt\nfig_1.svg\n"));

    /* refused, naming the folder and the file, with nothing changed */
    ck_assert_int_eq(check_said(dir, &err), -1);
    snprintf(path, sizeof path, "error: '%s/fig_late.svg' is not a file the test wrote", dir);
    ck_assert_msg(strstr(err, path), "stderr: %s", err);
    free(err);
    ck_assert_int_lt(owned_dir_open(dir, &W, OWNED_LOCK, NULL), 0);
    snprintf(path, sizeof path, "%s/fig_late.svg", dir);
    ck_assert_int_eq(remove(path), 0);

    /* written again without fig_1.svg: it goes; the user's notes.svg stays */
    h = owned_dir_open(dir, &W, OWNED_LOCK, NULL);
    ck_assert_int_ge(h, 0);
    snprintf(path, sizeof path, "%s/a.txt", dir);
    ck_assert_int_eq(file_write_atomic(path, "ours 4\n", 7), 0);
    static const char *const figs[] = {"fig_*.svg"};
    ck_assert_int_eq(owned_dir_remove_stale(h, figs, 1), 1);
    owned_dir_close(h);
    ck_assert(!has(dir, "fig_1.svg") && has(dir, "a.txt") && has(dir, "notes.svg"));
    snprintf(path, sizeof path, "%s/" OWNED_MANIFEST, dir);
    ck_assert(tu_file_holds(path, OWNED_MANIFEST_HEAD "\n@test\na.txt\n"));
    /* owned_remove: only what the manifest names (a file of W's names that appeared after the
     * check is not ours; a name not of W's is not its to remove) */
    h = owned_dir_open(dir, &W, OWNED_LOCK, NULL);
    ck_assert_int_ge(h, 0);
    put(dir, "fig_late.svg", "mine\n");
    snprintf(path, sizeof path, "%s/fig_late.svg", dir);
    ck_assert_int_eq(owned_remove(path), 1);
    snprintf(path, sizeof path, "%s/notes.svg", dir);
    ck_assert_int_eq(owned_remove(path), 1);
    owned_dir_close(h);
    ck_assert(has(dir, "notes.svg") && has(dir, "fig_late.svg"));
}
END_TEST

/* A folder of an earlier version (no manifest): files that read as W's are adopted (and then
 * replaced or removed like any of its own), one that does not is refused. */
START_TEST(test_folder_without_manifest) {
    char dir[128], *err;
    snprintf(dir, sizeof dir, "%s/old", g_tmp);
    ck_assert_int_eq(mkdir(dir, 0755), 0);
    put(dir, "a.txt", "ours, old\n");
    put(dir, "fig_old.svg", "ours, old\n");
    put(dir, "fig_user.svg", "the user's\n");
    ck_assert_int_eq(check_said(dir, &err), -1);
    ck_assert_ptr_nonnull(strstr(err, "fig_user.svg' is not a file the test wrote"));
    free(err);
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/fig_user.svg", dir);
    ck_assert_int_eq(remove(path), 0);
    int h = owned_dir_open(dir, &W, OWNED_LOCK, NULL);
    ck_assert_int_ge(h, 0);
    static const char *const figs[] = {"fig_*.svg"};
    ck_assert_int_eq(owned_dir_remove_stale(h, figs, 1), 1);
    owned_dir_close(h);
    ck_assert(!has(dir, "fig_old.svg") && has(dir, "a.txt"));
}
END_TEST

/* ---- (3) end to end ------------------------------------------------------------------------ */

#define TINY                                                                                      \
    "--set task.name=copy --set task.length=3 --set task.symbols=6 --set task.val_size=16 "     \
    "--set model.d_model=16 --set model.n_heads=2 --set model.n_layers=1 "                      \
    "--set train.batch_size=8 --set train.eval_every=5 --set log.every=5 --set log.progress=0 " \
    "--set run.threads=1"

/* A new run into the folder of an earlier one refuses the user's sample.txt (exit 2, the file
 * named, kept), so does a resume; a folder of an earlier version (no manifest) too, while a
 * sample.txt that reads as ours there is replaced as before. */
START_TEST(test_run_refuses_users_sample) {
    char args[1024], path[PATH_MAX];
    snprintf(args, sizeof args, TINY " --set train.steps=10 --set run.dir=%s --set run.name=r",
             g_tmp);
    ck_assert_int_eq(tu_run_train(g_tmp, args), 0);
    snprintf(path, sizeof path, "%s/r/sample.txt", g_tmp);
    tu_write_file(path, "my sample\n");
    ck_assert_int_eq(tu_run_train(g_tmp, args), 2);
    ck_assert(tu_train_output_contains(g_tmp, "r/sample.txt' is not a file ./train wrote"));
    ck_assert(tu_file_holds(path, "my sample\n"));
    char resume[512];
    snprintf(resume, sizeof resume, "--resume %s/r --set train.steps=20", g_tmp);
    ck_assert_int_eq(tu_run_train(g_tmp, resume), 2);
    ck_assert(tu_file_holds(path, "my sample\n"));
    /* no manifest (an earlier version's run): still the user's */
    char manifest[PATH_MAX];
    snprintf(manifest, sizeof manifest, "%s/r/" OWNED_MANIFEST, g_tmp);
    ck_assert_int_eq(remove(manifest), 0);
    ck_assert_int_eq(tu_run_train(g_tmp, args), 2);
    ck_assert(tu_file_holds(path, "my sample\n"));
    /* ... and one that reads as a sample of ours is an earlier run's: removed by the new run */
    tu_write_file(path, "# sample: temperature 0, top-k 0, seed 1, 200 bytes\n");
    ck_assert_int_eq(tu_run_train(g_tmp, args), 0);
    ck_assert_int_ne(access(path, F_OK), 0);
    ck_assert_int_eq(tu_run_train(g_tmp, resume), 0); /* the run resumes */
}
END_TEST

/* A run folder without a manifest (an earlier version's, or a copy by `cp runs/x/FILES dst`,
 * which skips the dot file) beside a checkpoint.bin: a file a new run would replace is adopted
 * only when it reads as one ./train wrote. The user's init_check.txt or attn_map.csv is refused
 * (exit 2, its path first, kept; it was adopted unread and replaced), while every file of a real
 * run still reads as ours: with it gone the run goes on. */
static const char *const USERS_RUN_FILES[] = {"init_check.txt", "attn_map.csv"};

START_TEST(test_run_without_manifest_reads_each_file) {
    const char *name = USERS_RUN_FILES[_i];
    char args[1024], path[PATH_MAX], said[PATH_MAX + 64];
    snprintf(args, sizeof args, TINY " --set train.steps=10 --set run.dir=%s --set run.name=r",
             g_tmp);
    ck_assert_int_eq(tu_run_train(g_tmp, args), 0);
    snprintf(path, sizeof path, "%s/r/" OWNED_MANIFEST, g_tmp);
    ck_assert_int_eq(remove(path), 0);
    snprintf(path, sizeof path, "%s/r/%s", g_tmp, name);
    tu_write_file(path, "my notes\n");
    ck_assert_int_eq(tu_run_train(g_tmp, args), 2);
    /* at the --set of run.name (TINY's 24 arguments, then train.steps, run.dir, run.name) */
    snprintf(said, sizeof said, "error: --set (argument 30): '%s' is not a file ./train wrote",
             path);
    ck_assert_msg(tu_train_output_contains(g_tmp, said), "'%s' not said", said);
    ck_assert(tu_file_holds(path, "my notes\n"));
    ck_assert_int_eq(remove(path), 0);
    ck_assert_int_eq(tu_run_train(g_tmp, args), 0);
    snprintf(path, sizeof path, "%s/r/" OWNED_MANIFEST, g_tmp);
    ck_assert(tu_file_contains(path, "\ncheckpoint.bin\n"));
}
END_TEST

/* A run folder's .lock that is a symbolic link (to a file of the user's): --resume and a new run
 * refuse it, exit 2, naming the link (it said "cannot create run folder: Too many levels of
 * symbolic links", exit 1); nothing is written through it, the link stays. */
START_TEST(test_lock_link_refused) {
    char args[1024], path[PATH_MAX], target[PATH_MAX], said[PATH_MAX + 64];
    snprintf(args, sizeof args, TINY " --set train.steps=10 --set run.dir=%s --set run.name=r",
             g_tmp);
    ck_assert_int_eq(tu_run_train(g_tmp, args), 0);
    snprintf(path, sizeof path, "%s/r/.lock", g_tmp);
    snprintf(target, sizeof target, "%s/lockfile", g_tmp);
    tu_write_file(target, "precious\n");
    ck_assert_int_eq(remove(path), 0);
    ck_assert_int_eq(symlink(target, path), 0);
    char resume[512];
    snprintf(resume, sizeof resume, "--resume %s/r --set train.steps=20", g_tmp);
    const char *const runs[] = {resume, args};
    /* at the argument that named the folder: --resume's, the new run's --set of run.name */
    const char *const places[] = {"--resume (argument 2)", "--set (argument 30)"};
    for (int k = 0; k < 2; k++) {
        snprintf(said, sizeof said, "error: %s: '%s' is a symbolic link", places[k], path);
        ck_assert_int_eq(tu_run_train(g_tmp, runs[k]), 2);
        ck_assert_msg(tu_train_output_contains(g_tmp, said), "'%s' not said", said);
        ck_assert(tu_file_holds(target, "precious\n"));
        struct stat st;
        ck_assert(lstat(path, &st) == 0 && S_ISLNK(st.st_mode));
    }
}
END_TEST

/* Every refusal of a run folder starts with its place, as every error line does: the argument
 * that named the folder (--resume's, --eval's, --export's; for a new run, where its run.name
 * was set, or its run.dir when that came later on the line), then the folder or file named (the
 * attack on run folders found these placed inside the text or not at all): a linked folder, an
 * unreadable manifest, a file of the user's, a folder another process trains in, a damaged
 * checkpoint, a path too long for the run.dir a resume writes, a folder --export cannot find.
 * Each case damages a fresh copy c of one run r (%s: a folder path too long for run.dir, made on the way). */
#define LONG_DIR                                                                                  \
    "dddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddd" \
    "dddddddddddddddddddddddddddddddddddddddd/eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee" \
    "eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee"
static const struct {
    const char *damage; /* shell, in the test's folder, making c (or not) */
    int hold;           /* 1: another process holds c's lock meanwhile */
    const char *args, *says;
} PLACED[] = {
    {"ln -s r c", 0, "--resume c --set train.steps=20",
     "error: --resume (argument 2): run folder 'c' is a symbolic link: "},
    {"cp -r r c && rm c/.scaledot-manifest && mkdir c/.scaledot-manifest", 0,
     "--resume c --set train.steps=20",
     "error: --resume (argument 2): 'c/.scaledot-manifest' cannot be read (not a regular file): "},
    {"cp -r r c && rm c/.scaledot-manifest && mkdir c/.scaledot-manifest", 0,
     "--set run.dir=. --set run.name=c --set train.steps=5",
     "error: --set (argument 4): './c/.scaledot-manifest' cannot be read (not a regular file): "},
    {"cp -r r c && echo mine > c/sample.txt", 0, "--resume c --set train.steps=20",
     "error: --resume (argument 2): 'c/sample.txt' is not a file ./train wrote, "},
    {"cp -r r c && echo mine > c/sample.txt", 0,
     "--set run.name=c --set train.steps=5 --set run.dir=.",
     "error: --set (argument 6): './c/sample.txt' is not a file ./train wrote, "},
    {"cp -r r c && echo mine > c/sample.txt && printf '[run]\\nname = c\\ndir = .\\n' > c.ini", 0,
     "c.ini --set train.steps=5", "error: c.ini:2: './c/sample.txt' is not a file ./train wrote, "},
    {"cp -r r c", 1, "--resume c --set train.steps=20",
     "error: --resume (argument 2): run folder 'c' is being trained by another process (pid "},
    {"cp -r r c && printf X | dd of=c/checkpoint.bin bs=1 seek=200 conv=notrunc 2>/dev/null", 0,
     "--resume c --set train.steps=20",
     "error: --resume (argument 2): checkpoint 'c/checkpoint.bin': hash mismatch: "},
    {"cp -r r c && printf X | dd of=c/checkpoint.bin bs=1 seek=200 conv=notrunc 2>/dev/null", 0,
     "--eval c", "error: --eval (argument 2): checkpoint 'c/checkpoint.bin': hash mismatch: "},
    {"cp -r r c && printf X | dd of=c/checkpoint.bin bs=1 seek=200 conv=notrunc 2>/dev/null", 0,
     "--export c c.safetensors",
     "error: --export (argument 2): checkpoint 'c/checkpoint.bin': hash mismatch: "},
    {"mkdir -p %s && cp -r r %s/c", 0, "--resume %s/c --set train.steps=20",
     "error: --resume (argument 2): run folder path '%s/c': its folder part '"},
    {"true", 0, "--export c c.safetensors", "error: --export (argument 2): no such run folder 'c'\n"},
    {"mkdir c", 0, "--export c c.safetensors",
     "error: --export (argument 2): the folder 'c' holds no checkpoint (checkpoint.bin), so there "
     "is nothing to export: "},
};

START_TEST(test_run_folder_errors_placed) {
    char args[1024], damage[1024], says[1024], cmd[PATH_MAX + 1200];
    snprintf(args, sizeof args, TINY " --set train.steps=10 --set run.dir=. --set run.name=r");
    ck_assert_int_eq(tu_run_train(g_tmp, args), 0);
    snprintf(damage, sizeof damage, PLACED[_i].damage, LONG_DIR, LONG_DIR);
    snprintf(args, sizeof args, PLACED[_i].args, LONG_DIR);
    snprintf(says, sizeof says, PLACED[_i].says, LONG_DIR);
    snprintf(cmd, sizeof cmd, "cd %s && %s", g_tmp, damage);
    ck_assert_int_eq(system(cmd), 0);
    int pipefd[2];
    pid_t pid = -1;
    if (PLACED[_i].hold) { /* a run training in c: its lock held until the pipe closes */
        ck_assert_int_eq(pipe(pipefd), 0);
        ck_assert_int_ge(pid = fork(), 0);
        if (pid == 0) {
            char c[PATH_MAX];
            snprintf(c, sizeof c, "%s/c", g_tmp);
            char took = run_lock_take(c, NULL) >= 0 ? 'y' : 'n';
            close(pipefd[0]);
            if (write(pipefd[1], &took, 1) != 1) _exit(1);
            sleep(30); /* killed when the test has seen the refusal */
            _exit(0);
        }
        char took = 0;
        ck_assert_int_eq(read(pipefd[0], &took, 1), 1);
        ck_assert_int_eq(took, 'y');
    }
    int rc = tu_run_train(g_tmp, args);
    if (pid > 0) {
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
        close(pipefd[0]);
        close(pipefd[1]);
    }
    snprintf(cmd, sizeof cmd, "%s/out.txt", g_tmp);
    char *out = tu_read_file(cmd, NULL);
    ck_assert_msg(rc == 2, "case %d: exit %d: %s", _i, rc, out);
    ck_assert_msg(strncmp(out, says, strlen(says)) == 0, "case %d: said\n%s\nnot\n%s", _i, out, says);
    free(out);
}
END_TEST

/* Two --compare into one folder at once: the second waits for the first's lock (said), then
 * writes a page of its own runs (a process holding the lock stands in for the first). */
/* A run folder whose folder part does not fit run.dir (LONG_DIR, 262 bytes): --eval and --export
 * read it (they write no run.dir; they refused it), and so does a --resume spelled with a ".."
 * part, which keeps the run.dir the run has (".", still in its config.ini); a --resume that takes
 * run.dir from the path is refused (PLACED). */
START_TEST(test_long_run_dir_read) {
    char args[1024], cmd[2048];
    snprintf(args, sizeof args, TINY " --set train.steps=10 --set run.dir=. --set run.name=r");
    ck_assert_int_eq(tu_run_train(g_tmp, args), 0);
    snprintf(cmd, sizeof cmd, "cd %s && mkdir -p %s && cp -r r %s/c", g_tmp, LONG_DIR, LONG_DIR);
    ck_assert_int_eq(system(cmd), 0);
    snprintf(args, sizeof args, "--eval %s/c", LONG_DIR);
    ck_assert_int_eq(tu_run_train(g_tmp, args), 0);
    snprintf(args, sizeof args, "--export %s/c c.safetensors", LONG_DIR);
    ck_assert_int_eq(tu_run_train(g_tmp, args), 0);
    snprintf(cmd, sizeof cmd, "%s/c.safetensors", g_tmp);
    ck_assert_int_eq(access(cmd, F_OK), 0);
    snprintf(args, sizeof args, "--resume %s/c/../c --set train.steps=20", LONG_DIR);
    ck_assert_int_eq(tu_run_train(g_tmp, args), 0);
    snprintf(cmd, sizeof cmd, "%s/%s/c/loss.csv", g_tmp, LONG_DIR);
    ck_assert(tu_file_contains(cmd, "\n20,"));
    snprintf(cmd, sizeof cmd, "%s/%s/c/config.ini", g_tmp, LONG_DIR);
    ck_assert(tu_file_contains(cmd, "\ndir = \".\"\n"));
}
END_TEST

START_TEST(test_compare_waits_for_the_folder) {
    char out[128];
    snprintf(out, sizeof out, "%s/figs", g_tmp);
    ck_assert_int_eq(mkdir(out, 0755), 0);
    int pipefd[2];
    ck_assert_int_eq(pipe(pipefd), 0);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        int fd = run_lock_take(out, NULL);
        char c = fd >= 0 ? 'y' : 'n';
        if (write(pipefd[1], &c, 1) != 1) _exit(1);
        sleep(1);
        _exit(0);
    }
    char c = 0;
    ck_assert_int_eq(read(pipefd[0], &c, 1), 1);
    ck_assert_int_eq(c, 'y');
    char args[1024];
    snprintf(args, sizeof args, "--compare %s/tests/fixtures/runs/scaled --out %s",
             SCALEDOT_SOURCE_DIR, out);
    ck_assert_int_eq(tu_run_train(g_tmp, args), 0);
    ck_assert(tu_train_output_contains(g_tmp, "is being written by another process"));
    int st;
    ck_assert_int_eq(waitpid(pid, &st, 0), pid);
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/index.html", out);
    ck_assert(tu_file_contains(path, "scaled"));
    close(pipefd[0]);
    close(pipefd[1]);
}
END_TEST

/* --export into a folder under a symbolic link: refused (exit 2), nothing written where the
 * link points. */
START_TEST(test_export_under_a_link_refused) {
    char args[1024], real[128], link[128], path[PATH_MAX];
    snprintf(args, sizeof args, TINY " --set train.steps=5 --set run.dir=%s --set run.name=r",
             g_tmp);
    ck_assert_int_eq(tu_run_train(g_tmp, args), 0);
    snprintf(real, sizeof real, "%s/real", g_tmp);
    snprintf(link, sizeof link, "%s/sub/link", g_tmp);
    ck_assert_int_eq(mkdir(real, 0755), 0);
    snprintf(path, sizeof path, "%s/sub", g_tmp);
    ck_assert_int_eq(mkdir(path, 0755), 0);
    ck_assert_int_eq(symlink(real, link), 0);
    snprintf(args, sizeof args, "--export r sub/link/m.safetensors");
    ck_assert_int_eq(tu_run_train(g_tmp, args), 2);
    ck_assert(tu_train_output_contains(g_tmp, "lies under a symbolic link"));
    snprintf(path, sizeof path, "%s/m.safetensors", real);
    ck_assert_int_ne(access(path, F_OK), 0);
}
END_TEST

/* A sweep folder moved after it was planned (its configs name the old folder's runs/ in
 * run.dir): its run trains in the moved folder, never in the old place, by the sweep's run
 * command and by the plain ./train MOVED/configs/R.ini (issue 45: that one trained in the old
 * place), which says so; --collect then finds the run, the plan's. */
static const char *const MOVED_RUN_COMMANDS[] = {"--sweep-run ", ""};

START_TEST(test_moved_sweep_trains_in_place) {
    char path[PATH_MAX], args[1024];
    snprintf(path, sizeof path, "%s/tiny.ini", g_tmp);
    tu_write_file(path, "[task]\nname = copy\nlength = 3\nsymbols = 6\nval_size = 16\n"
                        "[model]\nn_layers = 1\nd_model = 16\n[train]\nbatch_size = 8\n");
    snprintf(args, sizeof args, "--sweep tiny.ini --grid optim.lr=1e-3 --steps 5 --out %s/sw "
                                "--plan", g_tmp);
    ck_assert_int_eq(tu_run_train(g_tmp, args), 0);
    char cmd[PATH_MAX];
    snprintf(cmd, sizeof cmd, "mv %s/sw %s/moved", g_tmp, g_tmp);
    ck_assert_int_eq(system(cmd), 0);
    /* the plain command with a doubled slash (configs//R.ini is the same folder) */
    snprintf(args, sizeof args, "%smoved/configs/%slr-1e-3.ini", MOVED_RUN_COMMANDS[_i],
             *MOVED_RUN_COMMANDS[_i] ? "" : "/");
    ck_assert_int_eq(tu_run_train(g_tmp, args), 0);
    snprintf(path, sizeof path, "%s/moved/runs/lr-1e-3/loss.csv", g_tmp);
    ck_assert_msg(access(path, F_OK) == 0, "the run did not train in the moved folder");
    snprintf(path, sizeof path, "%s/sw", g_tmp);
    ck_assert_msg(access(path, F_OK) != 0, "the run wrote into the old place");
    if (!*MOVED_RUN_COMMANDS[_i]) { /* the sweep's run command writes its output to train.log */
        snprintf(cmd, sizeof cmd, "note: moved/configs//lr-1e-3.ini was planned in '%s/sw', not in "
                 "its folder '%s/moved' now", g_tmp, g_tmp);
        ck_assert_msg(tu_train_output_contains(g_tmp, cmd), "'%s' not said", cmd);
    }
    /* the plain command leaves no marker of a finished run (sweep_result.txt): collected as
     * stopped, exit 1; never as another run's (mismatch) */
    ck_assert_int_eq(tu_run_train(g_tmp, "--sweep --collect --out moved"),
                     *MOVED_RUN_COMMANDS[_i] ? 0 : 1);
    snprintf(path, sizeof path, "%s/moved/sweep.csv", g_tmp);
    ck_assert(tu_file_contains(path, "\nlr-1e-3,") && !tu_file_contains(path, ",mismatch,"));
    ck_assert(tu_file_contains(path, *MOVED_RUN_COMMANDS[_i] ? ",ok,0,5," : ",stopped,,5,"));
    if (*MOVED_RUN_COMMANDS[_i]) return;
    /* a config of the user's put in configs/, a run the plan does not name: its run.dir
     * is its own word (here the old place, made anew), as for any config */
    snprintf(cmd, sizeof cmd, "cd %s/moved/configs && sed 's/^name = \"lr-1e-3\"$/name = extra/' "
             "lr-1e-3.ini > extra.ini", g_tmp);
    ck_assert_int_eq(system(cmd), 0);
    ck_assert_int_eq(tu_run_train(g_tmp, "moved/configs/extra.ini"), 0);
    ck_assert(!tu_train_output_contains(g_tmp, "note: moved/configs/extra.ini"));
    snprintf(path, sizeof path, "%s/sw/runs/extra/loss.csv", g_tmp);
    ck_assert_msg(access(path, F_OK) == 0, "a run the plan does not name was moved");
    snprintf(path, sizeof path, "%s/moved/runs/extra", g_tmp);
    ck_assert(access(path, F_OK) != 0);
    /* the plan's config copied into a folder whose name only ends in "configs" (moved/xconfigs/):
     * not the sweep's configs/, so its run.dir is its own word too (the old check took any
     * "*configs" folder, and the folder above it cut by one character, for the sweep's) */
    snprintf(cmd, sizeof cmd, "mkdir %s/moved/xconfigs && cp %s/moved/configs/lr-1e-3.ini "
             "%s/moved/xconfigs/", g_tmp, g_tmp, g_tmp);
    ck_assert_int_eq(system(cmd), 0);
    ck_assert_int_eq(tu_run_train(g_tmp, "moved/xconfigs/lr-1e-3.ini"), 0);
    ck_assert(!tu_train_output_contains(g_tmp, "note: moved/xconfigs/lr-1e-3.ini"));
    snprintf(path, sizeof path, "%s/sw/runs/lr-1e-3/loss.csv", g_tmp);
    ck_assert_msg(access(path, F_OK) == 0, "a config outside the sweep's configs/ was moved");
}
END_TEST

TU_MAIN_FIXTURE_TIMEOUT("owned_dir", setup, teardown, 120, test_no_writer_bypasses_the_rule,
                        test_manifest_rule, test_folder_without_manifest,
                        test_run_refuses_users_sample,
                        TU_LOOP(test_run_without_manifest_reads_each_file, 0, 2),
                        TU_LOOP(test_run_folder_errors_placed, 0,
                                (int)(sizeof PLACED / sizeof *PLACED)),
                        test_lock_link_refused, test_long_run_dir_read,
                        test_compare_waits_for_the_folder,
                        test_export_under_a_link_refused,
                        TU_LOOP(test_moved_sweep_trains_in_place, 0, 2));
