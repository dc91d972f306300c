/* What fuzz targets of readers that take a path (config files, block files, the node's small
 * files, stores) share: a scratch directory made once per process under $TMPDIR (default
 * /tmp) and removed with everything in it at exit, and a log that goes nowhere (the code
 * under test logs what it refuses; millions of inputs must not fill a terminal). Included
 * by the target files (static functions). */
#ifndef BITNODE_TEST_FUZZ_FUZZ_UTIL_H
#define BITNODE_TEST_FUZZ_FUZZ_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/log.h"

static char fuzz_dir[512];

static inline void fuzz_tmpdir_remove(void)
{
    char cmd[600];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", fuzz_dir);
    if (system(cmd) != 0) {
        fprintf(stderr, "cannot remove %s\n", fuzz_dir);
    }
}

/* The directory (made on the first call; the process exits if it cannot be made). */
static inline const char *fuzz_tmpdir(void)
{
    if (!fuzz_dir[0]) {
        const char *t = getenv("TMPDIR");
        snprintf(fuzz_dir, sizeof(fuzz_dir), "%s/bitnode-fuzz-XXXXXX", t && *t ? t : "/tmp");
        if (!mkdtemp(fuzz_dir)) {
            perror("mkdtemp");
            exit(1);
        }
        atexit(fuzz_tmpdir_remove);
    }
    return fuzz_dir;
}

/* Opens the log with no file and no console: buffered and later lines are dropped. With
 * BITNODE_FUZZ_LOG set (to debug an input), every category to the console instead. */
static inline void fuzz_quiet_log(void)
{
    static int done;
    if (!done) {
        struct log_options o = {0};
        o.print_to_console = getenv("BITNODE_FUZZ_LOG") != NULL;
        char err[256];
        (void)log_open(&o, err, sizeof(err));
        if (o.print_to_console) {
            log_categories_enable(~0u);
        }
        done = 1;
    }
}

/* path := <dir>/<name>; writes n bytes of p to it (replacing it). Exits on failure. */
static inline void fuzz_write_file(char *path, size_t path_len, const char *name, const void *p, size_t n)
{
    snprintf(path, path_len, "%s/%s", fuzz_tmpdir(), name);
    FILE *f = fopen(path, "wb");
    if (!f || (n && fwrite(p, 1, n, f) != n) || fclose(f) != 0) {
        perror(path);
        exit(1);
    }
}

#endif
