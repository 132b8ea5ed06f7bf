/* self_exe.c: the running program's path and folder (self_exe.h). */
#include "util/self_exe.h"

#include <string.h>
#include <unistd.h>

int self_exe_path(char *buf, size_t n) {
    ssize_t k = n > 1 ? readlink("/proc/self/exe", buf, n - 1) : -1;
    if (k <= 0 || (size_t)k >= n - 1) return -1; /* n - 1 bytes read: it may have been cut */
    buf[k] = '\0';
    return 0;
}

int self_exe_dir(char *buf, size_t n) {
    if (self_exe_path(buf, n) != 0) return -1;
    char *slash = strrchr(buf, '/');
    if (!slash) return -1; /* readlink gives an absolute path */
    slash[slash == buf] = '\0'; /* "/train" -> "/" */
    return 0;
}
