/* stop_signal.c: SIGINT / SIGTERM recorded for the job that polls them (see stop_signal.h); one
 * mechanism for the training loop and the sweep's child processes. */
#include "util/stop_signal.h"

#include <stdatomic.h>
#include <stddef.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t caught;
/* stop_signals_hold: 1 while held; held_sig a second signal that came meanwhile (0: none). A
 * flag, not a signal mask: the mask is per thread, and OpenMP's idle threads take the signal
 * too (a sigprocmask hold in the main thread let them end the process mid-write). */
static volatile sig_atomic_t holding, held_sig;
/* Set by the first stop_now: the handler (in any thread) and stop_signals_release may both see a
 * second signal that came as the hold ended; one of them ends the process. */
static atomic_flag ending = ATOMIC_FLAG_INIT;

/* The note of stop_signal_note in one of two buffers, note_at the one the handler writes (-1:
 * none): a new note goes into the other, then note_at moves to it, so the handler, which can
 * interrupt stop_signal_note anywhere, writes one whole note, the old or the new. */
static char notes[2][STOP_NOTE_MAX];
static size_t note_len[2];
static volatile sig_atomic_t note_at = -1;

void stop_signal_note(const char *text) {
    if (!text) {
        note_at = -1;
        return;
    }
    int next = note_at == 0;
    size_t n = strlen(text);
    if (n > STOP_NOTE_MAX) n = STOP_NOTE_MAX;
    memcpy(notes[next], text, n);
    note_len[next] = n;
    atomic_signal_fence(memory_order_seq_cst); /* the note is whole before the handler sees it */
    note_at = next;
}

/* write(2) of the whole of s (n bytes) to stderr, as far as it goes: async-signal-safe. */
static void write_all(const char *s, size_t n) {
    while (n > 0) {
        ssize_t w = write(STDERR_FILENO, s, n);
        if (w <= 0) return;
        s += w, n -= (size_t)w;
    }
}

/* The value stop_signal_relay sends with the signal ("stop" in ASCII). */
#define RELAY_VALUE 0x73746f70

static void stop_now(int sig);

/* The first signal is recorded for the job to poll. A second one means "now": the process ends
 * at once with 128 + its number, after the job's note (only async-signal-safe calls here:
 * write(2), _exit), whoever sent it, but for the parent's relay (stop_signal_relay): a sweep
 * passes on the Ctrl-C its children may already have had from the terminal, which is not a
 * second request. */
static void on_stop_signal(int sig, siginfo_t *info, void *uctx) {
    (void)uctx;
    if (!caught) {
        caught = sig;
        return;
    }
    if (info && info->si_code == SI_QUEUE && info->si_value.sival_int == RELAY_VALUE &&
        info->si_pid == getppid())
        return;
    if (holding) {
        held_sig = sig;
        /* the hold may have ended since it was read: then the release may have missed held_sig */
        if (!holding) stop_now(sig);
        return;
    }
    stop_now(sig);
}

/* The second signal's end: the note, then _exit(128 + sig) (async-signal-safe only). */
static void stop_now(int sig) {
    if (atomic_flag_test_and_set(&ending)) return; /* the other caller is ending the process */
    int at = note_at;
    if (at >= 0) {
        static const char AGAIN_INT[] = "\nsecond SIGINT: stopped at once; ",
                          AGAIN_TERM[] = "\nsecond SIGTERM: stopped at once; ";
        if (sig == SIGINT) write_all(AGAIN_INT, sizeof AGAIN_INT - 1);
        else write_all(AGAIN_TERM, sizeof AGAIN_TERM - 1);
        write_all(notes[at], note_len[at]);
    }
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
    note_at = -1;
    holding = 0;
    held_sig = 0;
    atomic_flag_clear(&ending);
    sigaction(SIGINT, &sa, &saved->old_int);
    sigaction(SIGTERM, &sa, &saved->old_term);
}

void stop_signals_restore(const StopSignals *saved) {
    sigaction(SIGINT, &saved->old_int, NULL);
    sigaction(SIGTERM, &saved->old_term, NULL);
}

void stop_signals_hold(void) {
    held_sig = 0;
    holding = 1;
}

void stop_signals_release(void) {
    holding = 0;
    /* a second signal during the hold ends the process now; one after this line, in the handler */
    if (held_sig) stop_now(held_sig);
}

int stop_signal_caught(void) { return caught; }
