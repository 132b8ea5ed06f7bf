/* stop_signal.c: SIGINT / SIGTERM recorded for the job that polls them (see stop_signal.h); one
 * mechanism for the training loop and the sweep's child processes. */
#include "util/stop_signal.h"

#include <stddef.h>

static volatile sig_atomic_t caught;

static void on_stop_signal(int sig) { caught = sig; }

void stop_signals_catch(StopSignals *saved) {
    struct sigaction sa = {0};
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    caught = 0;
    sigaction(SIGINT, &sa, &saved->old_int);
    sigaction(SIGTERM, &sa, &saved->old_term);
}

void stop_signals_restore(const StopSignals *saved) {
    sigaction(SIGINT, &saved->old_int, NULL);
    sigaction(SIGTERM, &saved->old_term, NULL);
}

int stop_signal_caught(void) { return caught; }
