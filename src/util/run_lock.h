/* run_lock.h: a run folder's "being trained" mark: a POSIX record lock (fcntl) on DIR/.lock,
 * held by ./train for as long as it trains there. The kernel drops it when the process ends,
 * however it ends, so a killed run never looks alive; the report uses it to label a run that is
 * still training "running" rather than "stopped", and a second ./train on the same folder is
 * refused instead of both writing its logs. */
#ifndef SCALEDOT_RUN_LOCK_H
#define SCALEDOT_RUN_LOCK_H

#include <sys/types.h>

/* The lock's file inside the folder. */
#define RUN_LOCK_FILE ".lock"

/* Opens (creating) DIR/.lock and takes the lock; a .lock that is a symbolic link is never
 * followed (-1, errno ELOOP: owned_dir_check refuses it before, naming it). Returns the
 * descriptor to keep open (closing it releases the lock), -2 when another process holds it
 * (*holder gets its pid), or -1 on an I/O error (errno set). DIR must exist. */
int run_lock_take(const char *dir, pid_t *holder);

/* The pid of another process holding DIR's lock, or 0 when none does (or no .lock exists). */
pid_t run_lock_holder(const char *dir);

#endif
