/* dirs.h: creating a folder and its parents (mkdir -p), for run folders, reports and sweeps. */
#ifndef SCALEDOT_DIRS_H
#define SCALEDOT_DIRS_H

/* Creates path and every missing parent (mkdir -p), mode 0777 less the umask. Returns 0, or -1
 * with errno set (ENOTDIR: path exists and is not a folder; ENAMETOOLONG: over 1023 bytes). */
int make_dirs(const char *path);

/* 0 when path (trailing '/' ignored: "link/" names the link itself) is not a symbolic link,
 * missing included; else -1 after "error: <what> 'path' is a symbolic link ..." on stderr:
 * a report or sweep folder given as a link would be written through it, into the folder it
 * points at. Only the last component is checked. */
int dirs_refuse_link(const char *path, const char *what);

#endif
