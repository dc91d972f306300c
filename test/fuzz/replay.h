/* The standalone driver of the fuzz targets (built without libFuzzer): replays the files and
 * directories given on the command line through LLVMFuzzerTestOneInput. Included by one
 * target file each (static functions). */
#ifndef BITNODE_TEST_FUZZ_REPLAY_H
#define BITNODE_TEST_FUZZ_REPLAY_H

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/buf.h"
#include "util/file.h"
#include "util/xmalloc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* One input file through the target: 0, or 1 if it cannot be read. */
static int fuzz_replay_file(const char *path)
{
    struct buf b;
    char err[256];
    buf_init(&b);
    if (file_read_all(&b, path, err, sizeof(err)) != 0) {
        fprintf(stderr, "cannot read %s: %s\n", path, err);
        return 1;
    }
    static const uint8_t none[1];
    LLVMFuzzerTestOneInput(b.data ? b.data : none, b.len);
    buf_clear(&b);
    return 0;
}

/* argv[1..argc-1]: files, or directories whose files are replayed. Adds the inputs run to
 * *count; returns 0, or 1 if one could not be read. */
static int fuzz_replay_paths(int argc, char **argv, size_t *count)
{
    int rc = 0;
    for (int i = 1; i < argc; i++) {
        struct stat sb;
        if (stat(argv[i], &sb) != 0) {
            fprintf(stderr, "cannot stat %s\n", argv[i]);
            rc = 1;
            continue;
        }
        if (!S_ISDIR(sb.st_mode)) {
            rc |= fuzz_replay_file(argv[i]);
            (*count)++;
            continue;
        }
        DIR *d = opendir(argv[i]);
        struct dirent *e;
        while (d && (e = readdir(d))) {
            if (e->d_name[0] == '.') {
                continue;
            }
            size_t l = strlen(argv[i]) + strlen(e->d_name) + 2;
            char *p = xmalloc(l);
            snprintf(p, l, "%s/%s", argv[i], e->d_name);
            rc |= fuzz_replay_file(p);
            free(p);
            (*count)++;
        }
        if (d) {
            closedir(d);
        }
    }
    return rc;
}

/* The strings through the target, each as its bytes from the start to the first NUL after
 * `skip` bytes (a leading selector byte may be 0); how many were run. (Inline: not every
 * target has string seeds.) */
static inline size_t fuzz_run_strings(const char *const *seeds, size_t n, size_t skip)
{
    for (size_t i = 0; i < n; i++) {
        LLVMFuzzerTestOneInput((const uint8_t *)seeds[i], skip + strlen(seeds[i] + skip));
    }
    return n;
}

/* The n rows of a table of row_len-byte inputs through the target, each whole; n. */
static inline size_t fuzz_run_rows(const uint8_t *rows, size_t n, size_t row_len)
{
    for (size_t i = 0; i < n; i++) {
        LLVMFuzzerTestOneInput(rows + i * row_len, row_len);
    }
    return n;
}

/* A target's main: with no argument, its built-in inputs (builtin runs them and returns how
 * many), as one TAP case described by tap if that is not NULL (the target is then a unit test
 * too), else followed by the "replayed N inputs" line; with arguments, the files and
 * directories given (fuzz_replay_paths) and that line. Exit status: 0, or 1 if one could
 * not be read (a crash or a property's abort ends the process before). */
static int fuzz_replay_main(int argc, char **argv, size_t (*builtin)(void), const char *tap)
{
    size_t count = 0;
    if (argc < 2) {
        count = builtin();
        if (tap) {
            printf("ok 1 - %zu %s\n1..1\n", count, tap);
            return 0;
        }
    }
    int rc = fuzz_replay_paths(argc, argv, &count);
    printf("replayed %zu inputs\n", count);
    return rc;
}

#endif
