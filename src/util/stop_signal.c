/* stop_signal.c: SIGINT / SIGTERM recorded for the job that polls them (see stop_signal.h); one
 * mechanism for the training loop and the sweep's child processes. */
#include "util/stop_signal.h"

#include <stddef.h>
#include <unistd.h>

static volatile sig_atomic_t caught;

/* The value stop_signal_relay sends with the signal ("stop" in ASCII). */
#define RELAY_VALUE 0x73746f70

/* The first signal is recorded for the job to poll. A second one means "now": the process ends
 * at once with 128 + its number (only async-signal-safe calls here), whoever sent it, but for
 * the parent's relay (stop_signal_relay): a sweep passes on the Ctrl-C its children may already
 * have had from the terminal, which is not a second request. */
static void on_stop_signal(int sig, siginfo_t *info, void *uctx) {
    (void)uctx;
    if (!caught) {
        caught = sig;
        return;
    }
    if (info && info->si_code == SI_QUEUE && info->si_value.sival_int == RELAY_VALUE &&
        info->si_pid == getppid())
        return;
    _exit(128 + sig);
}

int stop_signal_relay(pid_t pid, int sig) {
    union sigval v = {.sival_int = RELAY_VALUE};
    return sigqueue(pid, sig, v);
}

void stop_signals_catch(StopSignals *saved) {
    struct sigaction sa = {0};
    sa.sa_sigaction = on_stop_signal;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    /* one handler at a time: a SIGTERM during the SIGINT handler waits for it */
    sigaddset(&sa.sa_mask, SIGINT);
    sigaddset(&sa.sa_mask, SIGTERM);
    caught = 0;
    sigaction(SIGINT, &sa, &saved->old_int);
    sigaction(SIGTERM, &sa, &saved->old_term);
}

void stop_signals_restore(const StopSignals *saved) {
    sigaction(SIGINT, &saved->old_int, NULL);
    sigaction(SIGTERM, &saved->old_term, NULL);
}

int stop_signal_caught(void) { return caught; }
