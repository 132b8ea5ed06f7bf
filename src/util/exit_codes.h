/* exit_codes.h: the exit codes of ./train, one home for every command (docs/manual.md, "Exit
 * codes" table lists them). A process stopped by SIGINT or SIGTERM after writing its checkpoint exits
 * with 128 + the signal number (130, 143) instead (stop_signal.h). */
#ifndef SCALEDOT_EXIT_CODES_H
#define SCALEDOT_EXIT_CODES_H

enum {
    EXIT_OK = 0,       /* done */
    EXIT_RUNTIME = 1,  /* I/O error (a folder or file cannot be created, read or written, standard
                        * output cannot be written), out of memory, tensors too large to allocate */
    EXIT_CONFIG = 2,   /* bad command line, config, task file or checkpoint, a run folder that is
                        * not ours or is being trained in: the message names the file, line and key
                        * (or path); reported before any work, nothing was run (but a sweep also
                        * exits so when a run of it was refused, after its other runs trained) */
    EXIT_DIVERGED = 3, /* the run diverged: non-finite loss or gradient (train.on_divergence =
                        * stop); logs kept up to that step */
    EXIT_GUARD = 4,    /* a [guard] tripped with guard.action = stop; logs kept */
};

#endif
