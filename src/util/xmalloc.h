/* Allocation that never returns NULL: on failure it prints a message and aborts, so callers
 * never check (doc/conventions.md: allocation failure aborts). */
#ifndef BITNODE_UTIL_XMALLOC_H
#define BITNODE_UTIL_XMALLOC_H

#include <stddef.h>
#include <stdlib.h> /* free() goes with these */

void *xmalloc(size_t n);
/** What the x* functions do when memory runs out (for callers that map memory
 *  themselves): prints the size and aborts. */
_Noreturn void xmalloc_fail(size_t n);
void *xcalloc(size_t count, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
/** Copies n bytes of p into a new allocation (n may be 0: returns a valid 1-byte block). */
void *xmemdup(const void *p, size_t n);
/** Copies the n bytes at s and a NUL into a new string (s needs no NUL of its own). */
char *xstrndup(const char *s, size_t n);

#endif
