#include "util/xmalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

_Noreturn void xmalloc_fail(size_t n)
{
    fprintf(stderr, "bitnode: out of memory allocating %zu bytes\n", n);
    abort();
}


void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        xmalloc_fail(n);
    }
    return p;
}

void *xcalloc(size_t count, size_t size)
{
    void *p = calloc(count ? count : 1, size ? size : 1);
    if (!p) {
        xmalloc_fail(count * size);
    }
    return p;
}

void *xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q) {
        xmalloc_fail(n);
    }
    return q;
}

char *xstrdup(const char *s)
{
    return xmemdup(s, strlen(s) + 1);
}

void *xmemdup(const void *p, size_t n)
{
    void *q = xmalloc(n);
    if (n) {
        memcpy(q, p, n);
    }
    return q;
}

char *xstrndup(const char *s, size_t n)
{
    char *q = xmalloc(n + 1);
    memcpy(q, s, n);
    q[n] = 0;
    return q;
}
