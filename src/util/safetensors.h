/* safetensors.h: writing tensors in the safetensors format (Hugging Face's; what PyTorch's,
 * JAX's and llm.c-style loaders read without pickle). Knows nothing of the model: the caller
 * hands it named arrays.
 *
 * File layout (the format's own description, github.com/huggingface/safetensors):
 *   u64 N, little-endian: the length of the header in bytes
 *   N bytes: a UTF-8 JSON object, starting with '{', padded at its end with spaces so that the
 *            data start (8 + N) is a multiple of 8:
 *              {"__metadata__":{"key":"value",...},
 *               "NAME":{"dtype":"F32","shape":[d0,d1],"data_offsets":[begin,end]},...}
 *            offsets in bytes, relative to the data start, end exclusive
 *   the data: every tensor's elements row-major, little-endian, in the order given, each
 *            tensor right after the previous one (no gap, no overlap; the last ends the file).
 * __metadata__ is a string -> string map (nothing else is allowed there). */
#ifndef SCALEDOT_SAFETENSORS_H
#define SCALEDOT_SAFETENSORS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define SAFETENSORS_MAX_DIMS 8

typedef enum { SAFETENSORS_F32, SAFETENSORS_I32 } SafetensorsDtype;

/* One tensor to write: name (any string but "__metadata__"; unique in a file), element type,
 * shape[0..ndim) (ndim 0 is a scalar: one element) and the elements (float or int32_t, host
 * order, row-major: shape[0]·...·shape[ndim-1] of them). */
typedef struct {
    const char *name;
    SafetensorsDtype dtype;
    int ndim;
    size_t shape[SAFETENSORS_MAX_DIMS];
    const void *data;
} SafetensorsTensor;

/* One __metadata__ entry. */
typedef struct {
    const char *key, *value;
} SafetensorsMeta;

/* Writes s as a JSON string, quotes included: '"' and '\' escaped with a backslash; the
 * control bytes below 0x20 as \b \f \n \r \t or \u00XX; valid UTF-8 as it is; a byte that is
 * not part of valid UTF-8 as the code point of the same value (\u00XX: read as Latin-1), so the
 * header stays valid UTF-8 whatever the text held. Returns 0, or -1 when writing fails. */
int safetensors_json_string(FILE *f, const char *s);

/* Writes the tensors and metadata to a new file at path. Refuses (returns -1 after a message
 * on stderr naming path and the reason) a path that exists already (a file, a folder or a
 * symbolic link, even a dangling one: nothing is overwritten or written through a link), a
 * missing folder, an invalid tensor (duplicate or reserved name, ndim out of range) and any
 * write error. Writes to a temporary file in path's folder, flushes it to disk and links it to
 * path only when complete (link(2): fails instead of replacing a file that appeared
 * meanwhile), so a reader never sees a partial file. Returns 0 when path is complete. */
int safetensors_write(const char *path, const SafetensorsTensor *tensors, int n_tensors,
                      const SafetensorsMeta *meta, int n_meta);

#endif
