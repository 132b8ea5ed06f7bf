/* dirs.h: creating a folder and its parents (mkdir -p), for run folders, reports and sweeps. */
#ifndef SCALEDOT_DIRS_H
#define SCALEDOT_DIRS_H

/* Creates path and every missing parent (mkdir -p), mode 0777 less the umask. Returns 0, or -1
 * with errno set (ENOTDIR: path exists and is not a folder; ENAMETOOLONG: over 1023 bytes). */
int make_dirs(const char *path);

#endif
