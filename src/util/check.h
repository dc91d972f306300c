/* Invariant checks that stay on in every build (doc/conventions.md: "bug" failures). */
#ifndef BITNODE_UTIL_CHECK_H
#define BITNODE_UTIL_CHECK_H

#include <stdio.h>
#include <stdlib.h>

/* A broken invariant is a bug: say where, then abort. Never used for bad input. */
#define CHECK_ALWAYS(cond)                                                                   \
    do {                                                                                     \
        if (!(cond)) {                                                                       \
            fprintf(stderr, "%s:%d: invariant failed: %s\n", __FILE__, __LINE__, #cond);   \
            abort();                                                                         \
        }                                                                                    \
    } while (0)

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

#endif
