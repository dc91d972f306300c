/* Descriptor internals shared by descriptor_parse.c (parsing) and descriptor_expand.c
 * (string output and expansion): the parsed tree. Not for use outside those two files; the
 * public interface is descriptor.h. */
#ifndef BITNODE_SIGN_DESCRIPTOR_IMPL_H
#define BITNODE_SIGN_DESCRIPTOR_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "consensus/params.h"
#include "sign/bip32.h"
#include "util/buf.h"

/* A parsed descriptor is a tree of nodes (one per function: sh, wsh, multi, ...) whose leaves
 * hold keys. A multipath step (<0;1;...>) in a key makes the string stand for several
 * descriptors; rather than cloning the tree as Core does, each key keeps one path per
 * alternative (or a single path shared by all), and string output and expansion take the
 * alternative's index. */

enum desc_derive { DERIVE_NONE, DERIVE_UNHARDENED, DERIVE_HARDENED };

struct desc_key {
    int has_origin;
    uint8_t origin_fpr[4];
    uint32_t *origin_path;
    size_t origin_len;
    int apostrophe; /* hardened steps are written with ' rather than h */

    int is_bip32;
    /* A constant key: pub (33 or 65 bytes); xonly: written as 32-byte hex (from an x-only key
     * or a WIF inside tr()). */
    uint8_t pub[65];
    size_t pub_len;
    int xonly;
    int has_secret; /* a WIF (constant key) or an xprv (BIP32 root) */
    uint8_t secret[32];
    /* A BIP32 key: the root, then n_paths paths of path_len steps (n_paths > 1 only with a
     * multipath step), then the ranged step. */
    struct bip32_key root;
    uint32_t *paths;
    size_t path_len, n_paths;
    enum desc_derive derive;
};

enum desc_type {
    N_RAW,
    N_ADDR,
    N_PK,
    N_PKH,
    N_WPKH,
    N_COMBO,
    N_MULTI,
    N_SORTEDMULTI,
    N_MULTI_A,
    N_SORTEDMULTI_A,
    N_SH,
    N_WSH,
    N_TR,
    N_RAWTR,
    N_UNUSED,
};

struct desc_node {
    enum desc_type type;
    int xonly; /* pk() / pkh() as a tapscript leaf: the key's 32-byte x-only form */
    uint32_t threshold;
    struct desc_key **keys;
    size_t n_keys;
    struct desc_node **subs;
    size_t n_subs;
    int *depths;       /* tr: the depth of each leaf in subs */
    struct buf script; /* raw() and addr(): the scriptPubKey */
    size_t n_alt;      /* multipath alternatives below this node: 1 or the count */
};

struct script_descriptor {
    struct desc_node *root;
    const struct chain_params *p;
    int has_private;
};

#endif
