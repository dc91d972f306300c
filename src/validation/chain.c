/* The active chain (chain.h). */
#include "validation/chain.h"

#include <stdlib.h>

#include "util/xmalloc.h"

void active_chain_init(struct active_chain *c)
{
    c->v = NULL;
    c->cap = 0;
    c->height = -1;
}

void active_chain_clear(struct active_chain *c)
{
    free(c->v);
    active_chain_init(c);
}

void active_chain_set_tip(struct active_chain *c, struct block_index *tip)
{
    int32_t h = tip ? tip->height : -1;
    if ((size_t)(h + 1) > c->cap) {
        c->cap = (size_t)(h + 1) * 2 + 64;
        c->v = xrealloc(c->v, c->cap * sizeof(*c->v));
    }
    /* Only what differs: a new tip on top of the old one rewrites one entry, a reorganisation
     * the entries back to the fork point. */
    for (struct block_index *e = tip; e && (e->height > c->height || c->v[e->height] != e);
         e = e->prev) {
        c->v[e->height] = e;
    }
    c->height = h;
}
