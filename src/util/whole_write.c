/* whole_write.c: appends rows to a log file whole, or cuts a partial write back to its last
 * complete row (see whole_write.h). */
#include "util/whole_write.h"

#include <errno.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

int whole_write(int fd, const char *text, size_t len) {
    struct stat sb;
    if (fstat(fd, &sb) != 0) return -1;
    off_t start = sb.st_size; /* logs are only ever appended to, so this is where text goes */
    size_t done = 0;
    while (done < len) {
        ssize_t n = write(fd, text + done, len - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            int err = n < 0 ? errno : EIO;
            size_t keep = done; /* back to just after the last '\n' that was written */
            while (keep > 0 && text[keep - 1] != '\n') keep--;
            if (ftruncate(fd, start + (off_t)keep) != 0) { /* nothing better to do: keep err */ }
            lseek(fd, 0, SEEK_END);
            errno = err;
            return -1;
        }
        done += (size_t)n;
    }
    return 0;
}
