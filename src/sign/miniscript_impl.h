/* Miniscript internals shared by miniscript_node.c (a node's type, size, ops and stack sizes)
 * and miniscript.c (decoding a script, sanity, printing). Not for use elsewhere: the
 * interface is miniscript.h. */
#ifndef BITNODE_SIGN_MINISCRIPT_IMPL_H
#define BITNODE_SIGN_MINISCRIPT_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "sign/miniscript.h"

enum frag {
    F_JUST_0, F_JUST_1, F_PK_K, F_PK_H, F_OLDER, F_AFTER, F_SHA256, F_HASH256, F_RIPEMD160,
    F_HASH160, F_WRAP_A, F_WRAP_S, F_WRAP_C, F_WRAP_D, F_WRAP_V, F_WRAP_J, F_WRAP_N, F_AND_V,
    F_AND_B, F_OR_B, F_OR_C, F_OR_D, F_OR_I, F_ANDOR, F_THRESH, F_MULTI,
};

/* Core's MaxInt: a maximum that may not exist. */
struct maxint {
    int valid;
    uint32_t v;
};

/* Core's SatInfo: the stack effect of a set of execution traces (valid: not empty). */
struct satinfo {
    int valid;
    int32_t netdiff, exec;
};

struct miniscript {
    enum frag frag;
    uint32_t k;
    uint8_t (*keys)[33];
    size_t n_keys;
    uint8_t data[32];
    size_t data_len;
    struct miniscript **subs;
    size_t n_subs;
    uint32_t type;
    size_t scriptlen;
    uint32_t ops_count;
    struct maxint ops_sat, ops_dsat;
    struct satinfo ss_sat, ss_dsat;
};

/** 1 if the type mask x has every property letter of s ("Bdu"). */
int miniscript_type_has(uint32_t x, const char *s);
/** A new node of fragment f over subs (n_subs of them; ownership passes), k its number;
 *  keys and data are filled by the caller before miniscript_node_finish. */
struct miniscript *miniscript_node_new(enum frag f, struct miniscript **subs, size_t n_subs,
                                       uint32_t k);
/** Computes the node's type, script size, ops and stack sizes (Core's Node constructor). */
void miniscript_node_finish(struct miniscript *m);
/** Core's IsValid: a type, and within the P2WSH script size. */
int miniscript_node_valid(const struct miniscript *m);

#endif
