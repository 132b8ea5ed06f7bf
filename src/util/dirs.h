/* dirs.h: creating a folder and its parents (mkdir -p), for run folders, reports and sweeps; a
 * path's spelling made plain and a name joined to a folder, for what paths are compared or shown
 * by. */
#ifndef SCALEDOT_DIRS_H
#define SCALEDOT_DIRS_H

#include <stddef.h>

/* Creates path and every missing parent (mkdir -p), mode 0777 less the umask. Returns 0, or -1
 * with errno set (ENOTDIR: path exists and is not a folder; ENAMETOOLONG: PATH_MAX bytes or over, more than the system opens). */
int make_dirs(const char *path);

/* 0 when nothing written into the folder path would go through a symbolic link; else -1 after
 * an error at where (error_add's place: the argument that named path, or NULL) naming path and
 * the link on stderr. Refused: path itself a link (trailing '/'
 * ignored: "link/" names the link itself; "error: <what> 'path' is a symbolic link ..."), or a
 * link among its parents ("error: <what> 'path' lies under a symbolic link, 'LINK' ..."),
 * unless that link is the current folder or $HOME or one of their ancestors, by name (the
 * current folder as $PWD names it when that is the same folder: a symlinked home, or a project
 * reached through a link, is where the user already is). A relative path's parents below the
 * current folder, an absolute path's parents all, are checked; missing ones are not links. */
int dirs_refuse_link(const char *path, const char *what, const char *where);

/* path spelled plainly, by its text alone (nothing is resolved): its "." parts, repeated slashes
 * and trailing slashes dropped, ".." parts kept (with a link in the way "a/../b" is not "b"):
 * "./copies//orig/" -> "copies/orig", "runs/./s1" -> "runs/s1", "./" -> ".", "//" -> "/", "/./a"
 * -> "/a", "" -> "". Into out (n bytes). Returns 0, or -1 with errno ENAMETOOLONG when it does not
 * fit. */
int dirs_normalise(const char *path, char *out, size_t n);

/* dir and name joined by one '/' whatever slashes dir ends in ("/" -> "/config.ini", "runs/a/"
 * -> "runs/a/config.ini"; an empty dir gives name alone), into out (n bytes). Returns 0, or -1
 * when it does not fit (out then holds what fits). */
int dirs_join(char *out, size_t n, const char *dir, const char *name);

#endif
