/* tasks.h: toy sequence tasks, a training stream and a held-out validation set.
 *
 * Every example is a prompt and an answer over an alphabet of symbols 0..n_symbols-1. The model
 * sees the sequence  prompt SEP answer  (with a separator) or  prompt answer  (without) and
 * predicts each next token; only the positions whose target is an answer token count in the loss
 * and the accuracies, so without a separator the first answer token is predicted at the prompt's
 * last token (for recall: at the query key, the standard format). task.separator chooses
 * (SeparatorMode: recall has none by default, every other task has one). Sequences shorter than
 * the task's longest are padded at the end with PAD (mask 0), which causal attention never lets
 * earlier positions see.
 *
 * Token ids: symbols 0..n_symbols-1, then SEP = n_symbols, PAD = n_symbols + 1;
 * vocab_size = n_symbols + 2 (SEP keeps its id, unused, in a task without a separator).
 *
 * Tasks (task.name): sort (the input sorted ascending), reverse, copy, recall (task.pairs
 * key-value pairs with distinct keys, then one of the keys; the answer is its value), file
 * (lines 'prompt | answer' of whitespace-separated symbols read from task.file), text (below).
 *
 * Layout of one example: with seq = prompt [SEP] answer of length L, tokens[i] = seq[i] and
 * targets[i] = seq[i + 1] for i < L - 1, mask[i] = 1 exactly where targets[i] is an answer token;
 * positions L - 1 .. T - 1 hold PAD with mask 0. T = the longest L - 1 of the task: sort,
 * reverse, copy 2 * length - 1 + s, recall 2 * pairs + 1 + s, file the longest prompt + answer
 * - 1 + s, where s = 1 with a separator and 0 without.
 *
 * The task file is UTF-8 (a byte-order mark and CRLF line ends are accepted), one example per
 * line; blank lines and lines whose first non-blank character is '#' are ignored, and a '#'
 * after whitespace starts a comment to the end of the line (as in the INI files). A symbol is
 * any run of non-whitespace bytes other than '|'; the alphabet is every symbol of the file,
 * sorted by strcmp so ids do not depend on line order. At most TASK_MAX_FILE_SYMBOLS symbols.
 *
 * task = text: byte-level next-token language modelling on the bytes of task.file, any bytes
 * (no encoding is assumed). Token id = byte value, vocab_size = n_symbols = 256: every byte value
 * has its id whether it occurs or not, so one checkpoint reads any text. There is no SEP and no
 * PAD (sep = pad = -1): every window is full length, T = task.seq_len. With n the file's size,
 * the last floor(n * task.val_fraction) bytes are the held-out tail and the bytes before it the
 * training part (text_train bytes). A window starting at byte s is tokens[i] = byte[s + i],
 * targets[i] = byte[s + i + 1], mask 1 at every i < T (the loss is on every position).
 * Validation example k starts at text_train + k * T: consecutive windows of the tail whose
 * targets do not overlap (each tail byte after the first is scored once), as many as fit, at
 * most task.val_size. Training windows start at s = rng_below(text_train - T) of the training
 * stream, so they lie wholly inside the training part and never touch the tail. Both parts
 * need T + 1 bytes. "answer accuracy" is the token accuracy (train/evaluate.h). */
#ifndef SCALEDOT_TASKS_H
#define SCALEDOT_TASKS_H

#include "config/config.h"
#include "tasks/task.h"
#include "tasks/task_config.h"

/* 1 when c's task puts SEP between prompt and answer: task.separator = true or false, or with
 * auto the task's own format (every task but recall). What a run stores in its config.ini and
 * checkpoint, resolved, so that a resume never depends on a task's default. */
int task_has_separator(const Config *c);

/* A configuration a run stored (its checkpoint's, its config.ini) read as it means now: programs
 * before the text task's rule recorded task.separator = true for every text run (auto resolved
 * so, and true was accepted), which changed nothing for text; it is read as false, so that those
 * runs resume, evaluate and export, and compare equal to their config.ini. A config the user
 * writes with true for text is refused by config_validate instead. */
void task_read_stored_separator(Config *c);

/* Builds the task from the config. Generated tasks: checks the parameters, that the example
 * space holds at least 2 * task.val_size distinct examples (so a disjoint training stream is
 * not starved) and that T fits model.max_seq_len (when it is not 0), all before allocating;
 * then draws task.val_size distinct validation examples from a generator seeded by
 * (run.seed, validation stream) and seeds the training generator from (run.seed, train stream),
 * so the validation set depends on the seed and the task only, not on how much is trained.
 * task = file: reads task.file (see the file comment above), removes duplicate examples and
 * holds out max(1, min(task.val_size, n / 5)) of them, chosen by the validation generator;
 * errors (with "FILE:LINE:") for a line without '|' or with several, an empty prompt or
 * answer, the same prompt with two different answers (naming both lines), invalid UTF-8,
 * more than TASK_MAX_FILE_SYMBOLS symbols, an unreadable file (or a FIFO or device), no or
 * only one distinct example. task = text: reads task.file whole (see the text paragraph above);
 * errors name the file for an empty file, a file too short for task.seq_len and
 * task.val_fraction (saying how many bytes it needs), an unreadable file, a FIFO or device, and
 * T > model.max_seq_len (when that is not 0). On error prints a message naming the file, line and key (via
 * config_origin) to stderr, leaves *t empty (task_free is harmless) and returns -1; 0 on
 * success. */
int task_init(Task *t, const Config *c);

/* The task as far as the model needs it, without its data, for commands that only run the model
 * (--export without --val, --eval --prompt --generate): for task.name = text the vocabulary is
 * the 256 byte values and the windows task.seq_len, so task.file is not read (a corpus moved
 * away is no reason to refuse) and there are no examples (n_val = 0). Every other task:
 * task_init (a file task's vocabulary is read from its file; generated tasks read nothing).
 * Returns as task_init. */
int task_init_model_only(Task *t, const Config *c);

/* task_init for task.name = file with the file's content already in memory: text[0..len) (need
 * not be NUL-terminated) is parsed exactly as the file would be, and name stands for its path in
 * messages ("NAME:LINE: ..."). c->task and c->task_file are ignored; every other key is used as
 * task_init uses it. Same results, errors and return value. The fuzz harness calls this. */
int task_init_text(Task *t, const Config *c, const char *name, const char *text, size_t len);

/* Fills one training batch: tokens and targets [B, T] (int, row-major), mask [B, T] (1 = the
 * target is an answer token, 0 otherwise, PAD included). Generated tasks draw fresh examples
 * from the training generator and skip (counting them in t->skipped) any equal to a
 * validation example; the file task draws its training examples uniformly with replacement;
 * the text task draws each window's start uniformly from the training part (see above). */
void task_train_batch(Task *t, int B, int *tokens, int *targets, float *mask);

/* 1 if the example (tokens, targets and mask of one row, T each) is exactly one of the
 * validation examples, else 0. The mask counts (as answer or not) because without a separator
 * the file lines 'a b | c' and 'a | b c' have the same tokens and targets. */
int task_in_val(const Task *t, const int *tokens, const int *targets, const float *mask);

/* Writes "prompt | answer" for one example (tokens, targets, mask of one row, T each) into buf,
 * always NUL-terminated and truncated to bufsize: symbols are their names for the file task and
 * decimal ids otherwise. The prompt is the tokens before the first answer target (with a
 * separator: before SEP) or up to and including it (without one), and before any SEP or PAD; the
 * answer is the targets where mask is 1. */
void task_format(const Task *t, const int *tokens, const int *targets, const float *mask,
                 char *buf, int bufsize);

/* Writes the text of one token into buf: the symbol's name (file task) or number, "<sep>",
 * "<pad>", or "?" for an id outside the vocabulary; for the text task the byte itself when it is
 * printable ASCII, "\\" for a backslash, "␣" (U+2423, open box) for a space, "\n", "\t", "\r",
 * and "\xHH" (two lower-case hex digits) for any other byte. Used to label attention heatmaps. */
void task_token_name(const Task *t, int token, char *buf, int bufsize);

/* Frees everything task_init allocated and zeroes *t; safe on a zeroed or failed Task. */
void task_free(Task *t);

#endif
