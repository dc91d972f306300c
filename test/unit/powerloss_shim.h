/* Finding the power-loss layer for the tests that preload it (powerloss_tests,
 * kv_powerloss_tests): $BITNODE_BUILDDIR/test/util/powerloss.so, else beside the test's own
 * directory (../util/powerloss.so). */
#ifndef BITNODE_TEST_POWERLOSS_SHIM_H
#define BITNODE_TEST_POWERLOSS_SHIM_H

#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* Fills self with the test's real path and shim with the layer's. Returns 0, or 1 after
 * printing TAP's "Bail out!" when the layer is not built (or argv0 cannot be resolved). */
static int powerloss_find_shim(const char *argv0, char *self, char *shim, size_t shim_len)
{
    if (!realpath(argv0, self)) {
        return 1;
    }
    const char *bd = getenv("BITNODE_BUILDDIR");
    if (bd) {
        snprintf(shim, shim_len, "%s/test/util/powerloss.so", bd);
    } else {
        char d[4096];
        snprintf(d, sizeof(d), "%s", self);
        snprintf(shim, shim_len, "%s/../util/powerloss.so", dirname(d));
    }
    if (access(shim, R_OK) != 0) {
        printf("Bail out! %s not built (make test/util/powerloss.so)\n", shim);
        return 1;
    }
    return 0;
}

#endif
