/* stop_signal.h: SIGINT and SIGTERM caught for the length of a job (the training loop, a sweep's
 * children), so that it can stop cleanly at a point of its choosing: the handler only records the
 * signal, the job polls it (between steps and between validation batches, so it is seen within
 * about a second), and the handlers it replaced come back afterwards. A second SIGINT / SIGTERM
 * ends the process at once with exit code 128 + its number, after one line on stderr: the job's
 * note (stop_signal_note), which says what the stop leaves behind. What was written stays whole
 * (log rows are written with one write each, the checkpoint through a temporary file and
 * rename); the step in progress and everything since the last checkpoint are lost. This holds from whoever sends it (the terminal, a shell that
 * started ./train &, timeout, a batch system), with one exception: a sweep passing on to its
 * children the signal it had (stop_signal_relay), which they may already have had from the
 * terminal, does not count as the second. */
#ifndef SCALEDOT_STOP_SIGNAL_H
#define SCALEDOT_STOP_SIGNAL_H

#include <limits.h>
#include <signal.h>
#include <sys/types.h>

/* The handlers stop_signals_catch replaced. */
typedef struct {
    struct sigaction old_int, old_term;
} StopSignals;

/* Forgets any signal caught before and the note, then catches SIGINT and SIGTERM; saved gets
 * the handlers they had. */
void stop_signals_catch(StopSignals *saved);

/* Puts back the handlers stop_signals_catch saved. */
void stop_signals_restore(const StopSignals *saved);

/* The longest note kept (bytes; a longer one is cut): room for a run folder's path (under
 * PATH_MAX) named twice. */
#define STOP_NOTE_MAX (3 * PATH_MAX)

/* What the process writes to stderr when a second signal ends it, after "second SIGINT: stopped
 * at once; " (or SIGTERM): the state it leaves, ending in a newline (e.g. "no checkpoint of this
 * step; runs/x/ keeps ... \n"). Copied; NULL: no line. Call it again whenever that state
 * changes (a checkpoint written): the handler writes the last note whole, never a mix. */
void stop_signal_note(const char *text);

/* Holds back the second signal's end until stop_signals_release: for a change the handler must
 * see whole or not at all, e.g. a checkpoint's rename and the note that names it. A first signal
 * is recorded as always; a second one that comes meanwhile (in any thread: OpenMP's take signals
 * too) ends the process at the release, with the note then current. */
void stop_signals_hold(void);

/* Ends stop_signals_hold; a second signal that came meanwhile ends the process here. */
void stop_signals_release(void);

/* The signal caught since stop_signals_catch (SIGINT or SIGTERM), or 0. */
int stop_signal_caught(void);

/* Passes sig on to the child process pid as a relay (sigqueue with a value of its own), which
 * the child's handler does not count as a second request when it comes from its parent.
 * Returns sigqueue's result. */
int stop_signal_relay(pid_t pid, int sig);

#endif
