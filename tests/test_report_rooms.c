/* test_report_rooms.c: the layering of src/report/ (docs/source_layout.md, "src/report/ in
 * rooms"; issue 46): every file sits in a room, each room has its face header, a room includes
 * only rooms on a lower floor and only through their faces, report/ includes nothing but
 * report/, runlog/, util/ and model/ (never train/ or cli/), and a file outside report/ includes
 * a room's face, never its _internal.h. Each offending include is named with file and line. */
#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testutil.h"

#define SRC SCALEDOT_SOURCE_DIR "/src"

/* The rooms and their floors, as the docs draw them (bottom 0). */
static const struct {
    const char *room;
    int floor;
} ROOMS[] = {{"plot", 0}, {"read", 0}, {"table", 1}, {"map", 2}, {"figure", 2}, {"page", 3}};
#define N_ROOMS ((int)(sizeof ROOMS / sizeof *ROOMS))

/* What report/ may include besides itself (and the C library, <...>). */
static const char *const BELOW[] = {"runlog/", "util/", "model/"};

static int room_index(const char *name, size_t len) {
    for (int i = 0; i < N_ROOMS; i++)
        if (strlen(ROOMS[i].room) == len && strncmp(ROOMS[i].room, name, len) == 0) return i;
    return -1;
}

static void say(char *found, size_t cap, const char *rel, int line, const char *inc,
                const char *why) {
    size_t used = strlen(found);
    snprintf(found + used, cap - used, "  src/%s:%d: \"%s\": %s\n", rel, line, inc, why);
}

/* What is wrong with file rel (room: its room's index, -1 outside report/) including inc, or
 * NULL when nothing is. */
static const char *judge(int room, const char *inc) {
    if (strncmp(inc, "report/", 7) != 0) {
        if (room < 0) return NULL;
        for (size_t i = 0; i < sizeof BELOW / sizeof *BELOW; i++)
            if (strncmp(inc, BELOW[i], strlen(BELOW[i])) == 0) return NULL;
        return "report/ includes only report/, runlog/, util/ and model/";
    }
    const char *r = inc + 7, *slash = strchr(r, '/');
    int to = slash ? room_index(r, (size_t)(slash - r)) : -1;
    if (to < 0) return "no such room";
    if (to == room) return NULL;
    char face[64];
    snprintf(face, sizeof face, "%s.h", ROOMS[to].room);
    if (strcmp(slash + 1, face) != 0) return "another room is included through its face only";
    if (room >= 0 && ROOMS[to].floor >= ROOMS[room].floor)
        return "a room includes only rooms on a lower floor";
    return NULL;
}

/* Checks every #include of src/rel; returns 1 (a file scanned). */
static int scan_file(const char *rel, int room, char *found, size_t cap) {
    char path[1200];
    snprintf(path, sizeof path, "%s/%s", SRC, rel);
    char *text = tu_read_file(path, NULL);
    ck_assert_msg(text != NULL, "cannot read %s", path);
    int line = 1;
    for (char *p = text; *p; line++) {
        char *end = strchr(p, '\n');
        if (strncmp(p, "#include \"", 10) == 0) {
            char inc[300];
            size_t n = strcspn(p + 10, "\"\n");
            snprintf(inc, sizeof inc, "%.*s", (int)n, p + 10);
            const char *why = judge(room, inc);
            if (why) say(found, cap, rel, line, inc, why);
        }
        if (!end) break;
        p = end + 1;
    }
    free(text);
    return 1;
}

static int is_source(const char *name) {
    size_t len = strlen(name);
    return len > 2 && (strcmp(name + len - 2, ".c") == 0 || strcmp(name + len - 2, ".h") == 0);
}

/* Scans src/sub recursively; files under src/report/ROOM/ get that room. Returns files seen. */
static int scan_dir(const char *sub, char *found, size_t cap) {
    char path[1200];
    snprintf(path, sizeof path, "%s/%s", SRC, sub);
    DIR *d = opendir(path);
    ck_assert_msg(d != NULL, "cannot open %s", path);
    int files = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.') continue;
        char rel[600];
        snprintf(rel, sizeof rel, "%s%s%s", sub, *sub ? "/" : "", e->d_name);
        snprintf(path, sizeof path, "%s/%s", SRC, rel);
        struct stat st;
        ck_assert_msg(stat(path, &st) == 0, "cannot stat %s", path);
        if (S_ISDIR(st.st_mode)) {
            files += scan_dir(rel, found, cap);
        } else if (is_source(e->d_name)) {
            int room = -1;
            if (strncmp(rel, "report/", 7) == 0) {
                const char *r = rel + 7, *slash = strchr(r, '/');
                room = slash ? room_index(r, (size_t)(slash - r)) : -1;
                if (room < 0) say(found, cap, rel, 0, "", "a file of report/ outside its rooms");
            }
            files += scan_file(rel, room, found, cap);
        }
    }
    closedir(d);
    return files;
}

START_TEST(test_rooms_layered) {
    char found[8192] = "";
    int files = scan_dir("", found, sizeof found);
    ck_assert_msg(files > 100, "only %d source files found", files);
    ck_assert_msg(!found[0], "includes against the layering of report/ (docs/source_layout.md):\n%s",
                  found);
}
END_TEST

/* Each room has its face, and no other room than these exists. */
START_TEST(test_each_room_has_its_face) {
    for (int i = 0; i < N_ROOMS; i++) {
        char path[1200];
        snprintf(path, sizeof path, "%s/report/%s/%s.h", SRC, ROOMS[i].room, ROOMS[i].room);
        ck_assert_msg(access(path, R_OK) == 0, "room %s has no face %s", ROOMS[i].room, path);
    }
    DIR *d = opendir(SRC "/report");
    ck_assert_ptr_nonnull(d);
    for (struct dirent *e; (e = readdir(d));)
        ck_assert_msg(e->d_name[0] == '.' || room_index(e->d_name, strlen(e->d_name)) >= 0,
                      "src/report/%s is no room of docs/source_layout.md", e->d_name);
    closedir(d);
}
END_TEST

TU_MAIN("report_rooms", test_rooms_layered, test_each_room_has_its_face);
