/* checkpoint_config.c: the configuration a checkpoint stores, read back as a run uses it
 * (checkpoint_config.h). */
#include "train/checkpoint_config.h"

#include "tasks/tasks.h"
#include "train/checkpoint.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The start of the key's line ("name" or "dir", after its blanks) in the [run] section of the
 * config text, or NULL when the text has none. */
static char *run_line(char *text, const char *key) {
    int in_run = 0;
    size_t klen = strlen(key);
    for (char *line = text; *line;) {
        size_t len = strcspn(line, "\n");
        char *p = line + strspn(line, " \t");
        if (*p == '[') {
            p += 1 + strspn(p + 1, " \t");
            in_run = strncmp(p, "run", 3) == 0 && p[3 + strspn(p + 3, " \t")] == ']';
        } else if (in_run && strcspn(p, " \t=\n") == klen && strncmp(p, key, klen) == 0 &&
                   p[klen + strspn(p + klen, " \t")] == '=') {
            return p;
        }
        line += len + (line[len] == '\n');
    }
    return NULL;
}

/* Turns the [run] section's name and dir lines of the config text into comments, in place: where
 * a run lives is its folder's (the caller sets both from the folder's path), and a run.name an
 * older version let through (a resumed copy "tiny copy") must not make the run unreadable. */
static void drop_place(char *text) {
    static const char *const KEYS[] = {"name", "dir"};
    for (int k = 0; k < 2; k++) {
        char *p = run_line(text, KEYS[k]);
        if (p) *p = ';';
    }
}

int checkpoint_stored_run_dir(const char *path, char *dir, size_t n) {
    char *text = NULL;
    if (checkpoint_read_config(path, &text) != 0) return -1;
    /* config_write's line: dir = "VALUE", the value as it is between the quotes */
    char *p = run_line(text, "dir"), *open = p ? strchr(p, '"') : NULL, *close = NULL;
    if (open) {
        size_t len = strcspn(open, "\n");
        close = len > 1 && open[len - 1] == '"' ? open + len - 1 : NULL;
    }
    int rc = close && close > open + 1 && (size_t)(close - open - 1) < n ? 0 : -1;
    if (rc == 0) {
        memcpy(dir, open + 1, (size_t)(close - open - 1));
        dir[close - open - 1] = 0;
    }
    free(text);
    return rc;
}

char *checkpoint_config_named(const char *text, const char *name) {
    char *copy = strdup(text), *p = copy ? run_line(copy, "name") : NULL;
    if (!p) return copy; /* no name line: nothing to replace */
    size_t head = (size_t)(p - copy), rest = strcspn(p, "\n"), n = strlen(copy) + strlen(name) + 16;
    char *out = malloc(n);
    if (out) snprintf(out, n, "%.*sname = \"%s\"%s", (int)head, copy, name, p + rest);
    free(copy);
    return out;
}

int checkpoint_config_parse(Config *c, const char *origin, char *text) {
    drop_place(text);
    Config work = *c;
    if (config_load_text(&work, origin, text, strlen(text)) != 0) return -1;
    /* config_load_text leaves the origin of a key the text does not set empty ("default") */
    if (strcmp(config_origin(&work, "task.separator"), "default") == 0)
        work.task_separator = SEPARATOR_TRUE;
    task_read_stored_separator(&work);
    *c = work;
    return 0;
}

int checkpoint_load_config(const char *path, Config *c, const char *what) {
    char *text = NULL;
    if (checkpoint_read_config_at(path, what, &text) != 0) return -1;
    int rc = checkpoint_config_parse(c, path, text);
    free(text);
    return rc;
}
