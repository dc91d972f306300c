/* Reading a whole file, optionally xz-compressed (the shared data sets ship .json.xz). */
#ifndef BITNODE_UTIL_FILE_H
#define BITNODE_UTIL_FILE_H

#include <stddef.h>

#include "util/buf.h"

/** Appends the contents of the file at path to out; a path ending in ".xz" is
 *  decompressed. out is NUL-terminated just past its length (the NUL is not counted), so
 *  text can be used as a C string.
 *  Returns 0; RC_IO if the file cannot be read; RC_CORRUPT if it is not valid xz. err (may
 *  be NULL) names the file and the cause. */
int file_read_all(struct buf *out, const char *path, char *err, size_t err_len);

#endif
