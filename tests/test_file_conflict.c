/* test_file_conflict.c: one answer per prompt (src/tasks/file_conflict.c), called directly on
 * examples written as "prompt | answer" id lists: a table of cases with the expected verdict and
 * the two examples named, worked out by hand, and a conflict found among many similar prompts
 * (the hash table probes past collisions and wraps around). */
#include "tasks/file_conflict.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#define MAX_EX 256
#define MAX_IDS 2048

typedef struct {
    int ids[MAX_IDS];
    size_t start[MAX_EX];
    int plen[MAX_EX], alen[MAX_EX];
    int n;
    size_t n_ids;
} Examples;

/* Appends one example written as "1 2 | 3" (ids separated by spaces, one '|'). */
static void add_example(Examples *e, const char *line) {
    ck_assert_int_lt(e->n, MAX_EX);
    e->start[e->n] = e->n_ids;
    int side = 0, count[2] = {0, 0};
    for (const char *p = line; *p;) {
        if (*p == ' ') {
            p++;
        } else if (*p == '|') {
            side = 1;
            p++;
        } else {
            char *end;
            long v = strtol(p, &end, 10);
            ck_assert_ptr_ne(end, p);
            ck_assert_int_lt(e->n_ids, MAX_IDS);
            e->ids[e->n_ids++] = (int)v;
            count[side]++;
            p = end;
        }
    }
    e->plen[e->n] = count[0];
    e->alen[e->n] = count[1];
    e->n++;
}

typedef struct {
    const char *name;
    const char *lines[6];  /* up to a NULL */
    int found, first, second;
} ConflictCase;

static const ConflictCase CASES[] = {
    {"no examples", {NULL}, 0, -1, -1},
    {"distinct prompts", {"1 | 2", "2 | 1", NULL}, 0, -1, -1},
    {"a line repeated", {"1 2 | 3", "1 2 | 3", NULL}, 0, -1, -1},
    {"the same symbols split elsewhere", {"1 2 | 3", "1 | 2 3", NULL}, 0, -1, -1},
    {"one prompt the start of another", {"1 | 2", "1 1 | 3", NULL}, 0, -1, -1},
    {"another answer", {"1 2 | 3", "2 | 1", "1 2 | 4", NULL}, 1, 0, 2},
    {"a longer answer", {"1 | 2", "1 | 2 2", NULL}, 1, 0, 1},
    {"answers that differ in their last id", {"5 | 1 2", "4 | 1", "5 | 1 3", NULL}, 1, 0, 2},
    {"the earliest line named", {"1 | 2", "1 | 2", "1 | 3", NULL}, 1, 0, 2},
    /* prompt 6 conflicts at example 2, before prompt 5 does at example 3 */
    {"the first conflict in order", {"5 | 1", "6 | 1", "6 | 2", "5 | 2", NULL}, 1, 1, 2},
    {"prompts of the same length", {"3 4 | 1", "4 3 | 2", "3 5 | 3", NULL}, 0, -1, -1},
};

START_TEST(test_conflicts) {
    const ConflictCase *c = &CASES[_i];
    static Examples e;
    memset(&e, 0, sizeof e);
    for (int i = 0; i < 6 && c->lines[i]; i++) add_example(&e, c->lines[i]);
    int first = -1, second = -1;
    int found = task_file_conflict(e.ids, e.start, e.plen, e.alen, e.n, &first, &second);
    ck_assert_msg(found == c->found, "%s: returned %d, want %d", c->name, found, c->found);
    if (c->found)
        ck_assert_msg(first == c->first && second == c->second, "%s: examples %d and %d, want %d "
                      "and %d", c->name, first, second, c->first, c->second);
}
END_TEST

/* 200 distinct prompts "k%7 k", each with its own answer (about 20 of them share a probe chain
 * with another, and many share their first id), then prompt "4 137" again with another answer. */
START_TEST(test_conflict_among_many) {
    static Examples e;
    memset(&e, 0, sizeof e);
    char line[64];
    for (int k = 0; k < 200; k++) {
        snprintf(line, sizeof line, "%d %d | %d", k % 7, k, k + 1000);
        add_example(&e, line);
    }
    int first = -1, second = -1;
    ck_assert_int_eq(task_file_conflict(e.ids, e.start, e.plen, e.alen, e.n, &first, &second), 0);
    add_example(&e, "4 137 | 0");
    ck_assert_int_eq(task_file_conflict(e.ids, e.start, e.plen, e.alen, e.n, &first, &second), 1);
    ck_assert_int_eq(first, 137);
    ck_assert_int_eq(second, 200);
}
END_TEST

TU_MAIN("file_conflict", TU_LOOP(test_conflicts, 0, (int)(sizeof CASES / sizeof CASES[0])),
        test_conflict_among_many);
