/* Miniscript (BIP379) decoded from a P2WSH witness script, as Bitcoin Core's
 * miniscript::FromScript and Node::IsSane do it (script/miniscript.h there): the script is
 * split into opcodes, read backwards by Core's state machine into a tree of fragments, each
 * node typed (B/V/K/W and the z o n d u e f s m x g h i j k properties), sized, and checked
 * for the ops limit and the P2WSH stack limit. What InferDescriptor prints as
 * "wsh(and_v(v:pk(KEY),older(1)))". P2WSH context only (no tapscript leaves: multi_a). Pure. */
#ifndef BITNODE_SIGN_MINISCRIPT_H
#define BITNODE_SIGN_MINISCRIPT_H

#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"

struct miniscript;

/* Core's KeyParser: turns the key hash of a pk_h() into its key (FromPKHBytes), and writes a
 * key (with its origin when known). */
struct miniscript_keys {
    /** 0 with the 33-byte key whose HASH160 is h20, or -1 when unknown (no miniscript). */
    int (*from_hash)(void *arg, const uint8_t h20[20], uint8_t key33[33]);
    /** Appends key33 as the descriptor writes it. */
    void (*put_key)(void *arg, struct buf *out, const uint8_t key33[33]);
    void *arg;
};

/** Core's FromScript(script) for P2WSH: 0 with *out (free with miniscript_free) when the
 *  script decodes as a valid top-level (type B) miniscript; -1 otherwise. keys: may have no
 *  from_hash (then pk_h() never decodes). */
int miniscript_from_script(struct miniscript **out, const uint8_t *script, size_t len,
                           const struct miniscript_keys *keys);
/** Core's Node::IsSane: valid at the top level, within the ops and stack limits,
 *  non-malleable, no timelock mix, no repeated key, and a signature always needed. */
int miniscript_is_sane(const struct miniscript *m);
/** Core's Node::ToString: appends the miniscript expression ("and_v(v:pk(K),older(1))"). */
void miniscript_to_string(const struct miniscript *m, struct buf *out,
                          const struct miniscript_keys *keys);
/** The type of m as Core's letters in Core's order ("Bonudemsk"...), into out (>= 20). */
void miniscript_type(const struct miniscript *m, char out[20]);
/** Core's GetOps (the most ops a satisfaction executes, -1 if none) and GetStackSize (the
 *  most stack items a satisfaction needs, -1 if none). */
void miniscript_limits(const struct miniscript *m, int *ops, int *stack);
/** Frees m (NULL: no-op). */
void miniscript_free(struct miniscript *m);

#endif
