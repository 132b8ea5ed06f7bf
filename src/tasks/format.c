/* format.c: examples and tokens as text, for --eval, the run's example printout and the labels of
 * the attention heatmaps. */
#include <stdio.h>

#include "tasks/tasks.h"

typedef struct {
    char *buf;
    int size, len;
} Out;

static void out_str(Out *o, const char *s) {
    while (*s && o->len < o->size - 1) o->buf[o->len++] = *s++;
    o->buf[o->len] = '\0';
}

/* One byte of the text task as tasks.h says (task_token_name). */
static void out_byte(Out *o, int b) {
    char s[8];
    if (b == '\\') snprintf(s, sizeof s, "\\\\");
    else if (b == ' ') snprintf(s, sizeof s, "\xe2\x90\xa3"); /* U+2423 OPEN BOX */
    else if (b == '\n') snprintf(s, sizeof s, "\\n");
    else if (b == '\t') snprintf(s, sizeof s, "\\t");
    else if (b == '\r') snprintf(s, sizeof s, "\\r");
    else if (b > ' ' && b < 127) snprintf(s, sizeof s, "%c", b);
    else snprintf(s, sizeof s, "\\x%02x", (unsigned)b & 0xffu);
    out_str(o, s);
}

static void out_sym(Out *o, const Task *t, int id) {
    char num[16];
    if (t->kind == TASK_TEXT) {
        if (id >= 0 && id < 256) out_byte(o, id);
        else out_str(o, "?");
        return;
    }
    if (id >= 0 && id < t->n_symbols) {
        if (t->symbol_names) {
            out_str(o, t->symbol_names[id]);
            return;
        }
        snprintf(num, sizeof num, "%d", id);
        out_str(o, num);
    } else if (id == t->sep) {
        out_str(o, "<sep>");
    } else if (id == t->pad) {
        out_str(o, "<pad>");
    } else {
        out_str(o, "?");
    }
}

void task_format(const Task *t, const int *tokens, const int *targets, const float *mask,
                 char *buf, int bufsize) {
    if (!buf || bufsize <= 0) return;
    Out o = {buf, bufsize, 0};
    buf[0] = '\0';
    int T = t->seq_len;
    /* The first answer target sits at SEP with a separator, at the prompt's last token without,
     * so the prompt ends there or one token later. */
    int end = T;
    for (int i = 0; i < T; i++)
        if (mask[i] > 0.5f) {
            end = t->separator ? i : i + 1;
            break;
        }
    for (int i = 0; i < end && tokens[i] != t->sep && tokens[i] != t->pad; i++) {
        if (i > 0) out_str(&o, " ");
        out_sym(&o, t, tokens[i]);
    }
    out_str(&o, " |");
    for (int i = 0; i < T; i++)
        if (mask[i] > 0.5f) {
            out_str(&o, " ");
            out_sym(&o, t, targets[i]);
        }
}

void task_token_name(const Task *t, int token, char *buf, int bufsize) {
    if (!buf || bufsize <= 0) return;
    Out o = {buf, bufsize, 0};
    buf[0] = '\0';
    out_sym(&o, t, token);
}
