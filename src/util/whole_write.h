/* whole_write.h: appending text to a log so that the file never ends in a torn row. */
#ifndef SCALEDOT_WHOLE_WRITE_H
#define SCALEDOT_WHOLE_WRITE_H

#include <stddef.h>

/* Writes text[0..len) (one or more '\n'-terminated rows) at the end of the file open for writing
 * on fd, with write(2) directly (no stdio buffer that could be flushed half later). When a write
 * fails part way (a full disk: ENOSPC, a file-size limit: EFBIG), the file is cut back to the end
 * of the last whole row it holds, so a reader never sees half a row. Returns 0, or -1 with errno
 * of the failed write (the file then ends where it ended before, plus any whole rows of text). */
int whole_write(int fd, const char *text, size_t len);

#endif
