/* out_dir.h: the default report folder of ./train --compare, reports/<run1>_vs_<run2>...: only
 * letters, digits and . _ - in it (no spaces, parentheses or slashes from a run's name), and a
 * short name with a hash of the run list when the full one would be unwieldy, so comparing
 * another set of runs never lands in (and replaces) the folder of an earlier comparison. */
#ifndef SCALEDOT_OUT_DIR_H
#define SCALEDOT_OUT_DIR_H

#include <stddef.h>

/* Longest folder name (after "reports/") built from the run names; longer lists get
 * "<first>_vs_<n-1>_more_<hash>". */
#define OUT_DIR_MAX_NAME 80

/* Writes "reports/NAME" for the runs names[0..n) into out (n bytes). Characters other than
 * [A-Za-z0-9._-] become '_' (runs of them one '_', none at either end); the hash (FNV-1a, 32
 * bits, of the names as given, each followed by a NUL) keeps two lists that sanitize alike
 * apart. */
void out_dir_default(char *out, size_t n, const char *const *names, int n_names);

#endif
