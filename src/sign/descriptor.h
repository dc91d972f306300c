/* Output descriptors (BIP380-386), as Bitcoin Core's script/descriptor.cpp has them:
 *  - the checksum;
 *  - inference from a script (InferDescriptor with an empty signing provider, then ToString
 *    with the checksum): what getblock, gettxout and decodescript print as "desc";
 *  - parsing a descriptor string and expanding it into scriptPubKeys (descriptor_parse.c,
 *    descriptor_expand.c):
 *    raw, addr, pk, pkh, wpkh, combo, sh, wsh, multi, sortedmulti, tr (with a script tree of
 *    pk, pkh, multi_a and sortedmulti_a leaves), rawtr and unused; keys as hex public keys,
 *    x-only keys inside tr, WIF private keys, and BIP32 extended keys with paths, ranges
 *    (/ *, / *h) and multipath steps (<0;1>), each with an optional [fingerprint/path]
 *    origin. Not supported: miniscript (beyond pkh() as a tapscript leaf) and musig().
 * Pure: no I/O. */
#ifndef BITNODE_SIGN_DESCRIPTOR_H
#define BITNODE_SIGN_DESCRIPTOR_H

#include <stddef.h>
#include <stdint.h>

#include "consensus/params.h"
#include "util/buf.h"

/* Length of a descriptor checksum and its NUL. */
#define SCRIPT_DESC_CHECKSUM_SIZE 9

/** Core's DescriptorChecksum (BIP380): the 8-character checksum of desc[0..len).
 *  Returns: 0 with out filled (8 characters and a NUL); RC_INVALID if desc holds a
 *           character outside the descriptor character set. */
int script_descriptor_checksum(char out[SCRIPT_DESC_CHECKSUM_SIZE], const char *desc, size_t len);

/** Core's InferDescriptor(script, provider)->ToString() with its "#checksum", appended to out
 *  with a NUL that out->len does not count: "pk(HEX)" for P2PK with a non-hybrid key,
 *  "multi(k,HEX,...)" for bare multisig with non-hybrid keys, "rawtr(XONLY)" for P2TR with a
 *  valid x-only key, "wsh(...)" for the P2WSH of inner when the provider knows it (inner:
 *  the one script it knows, or NULL), "addr(ADDRESS)" for every other script with an
 *  address, else "raw(HEX)"; inside wsh(), a script that decodes as sane miniscript
 *  (sign/miniscript.h) is written as it: "wsh(and_v(v:pk(HEX),older(1)))". */
void script_descriptor_infer(struct buf *out, const uint8_t *s, size_t len, const uint8_t *inner,
                             size_t inner_len, const struct chain_params *p);

/* What an expansion tells about its scripts (the part of Core's FlatSigningProvider that
 * InferDescriptor reads): each key with its origin, and the scripts inside sh() and wsh()
 * (and combo()'s P2WPKH inside P2SH), and the key-path-only tr() outputs. */
struct script_desc_known_key {
    uint8_t pub[65];
    size_t pub_len;   /* 33 or 65 */
    uint8_t fpr[4];   /* the origin's fingerprint */
    uint32_t *path;   /* owned; the origin's path (NULL when empty) */
    size_t path_len;
};
struct script_desc_provider {
    struct script_desc_known_key *keys;
    size_t n_keys;
    struct buf *scripts;
    size_t n_scripts;
    uint8_t (*tr_outputs)[32]; /* output keys of tr(KEY) without leaves ... */
    size_t *tr_keys;           /* ... and the index in keys of each one's internal key */
    size_t n_tr;
};

/** Makes p empty (no allocation). */
void script_desc_provider_init(struct script_desc_provider *p);
/** Frees what p owns and makes it empty. */
void script_desc_provider_clear(struct script_desc_provider *p);

/** Core's InferDescriptor(script, provider)->ToString() with the provider an expansion
 *  filled (script_descriptor_expand_with): as script_descriptor_infer, and besides pkh(),
 *  wpkh(), sh() and wsh() of what prov knows, tr(KEY) of a key-path-only output it knows,
 *  every key it knows written with its origin ("pkh([0c5f9a1e/0h/0h/0]02...)"; a key
 *  without one gets its own key id's fingerprint, "[d34db33f]02...", as Core's). */
void script_descriptor_infer_with(struct buf *out, const uint8_t *s, size_t len,
                                  const struct script_desc_provider *prov,
                                  const struct chain_params *p);

/* ---- parsing (descriptor_parse.c), printing and expansion (descriptor_expand.c) -------- */

/* A parsed descriptor: opaque, immutable after parsing (safe to read from several threads). */
struct script_descriptor;

/* The most scriptPubKeys one expansion gives (combo(): P2PK, P2PKH, P2WPKH, P2SH-P2WPKH). */
#define SCRIPT_DESC_MAX_SCRIPTS 4

/** Core's Parse(descriptor, provider, error, require_checksum) for chain p (whose address and
 *  key prefixes apply): the optional "#checksum" is checked (required when
 *  require_checksum), then the descriptor is parsed.
 *
 *  Returns: 0 with *out (free with script_descriptor_free); RC_INVALID with *out NULL and
 *           Core's error message in *err, a new string the caller frees (e.g. "Provided
 *           checksum 'abcdefgh' does not match computed checksum 'qwertyui'", "pkh(): key
 *           'xpub...' is not valid"; empty where Core's is, for text left after an
 *           expression).
 *  In:      desc: NUL-terminated.  p: borrowed for the descriptor's life.
 *  Out:     err: may be NULL (no message wanted); untouched on success. */
int script_descriptor_parse(struct script_descriptor **out, const char *desc, int require_checksum,
                            const struct chain_params *p, char **err);

/** Frees d (NULL: no-op), wiping the private keys it holds. */
void script_descriptor_free(struct script_descriptor *d);

/** 1 if some key is ranged (ends in / * or / *h), so expansion needs an index. */
int script_descriptor_is_range(const struct script_descriptor *d);

/** Core's IsSolvable: 1 unless the descriptor is raw() or addr(). */
int script_descriptor_is_solvable(const struct script_descriptor *d);

/** 1 if at least one key was given as a private key (WIF or xprv): getdescriptorinfo's
 *  "hasprivatekeys". */
int script_descriptor_has_private_keys(const struct script_descriptor *d);

/** How many descriptors the string stands for: 1, or the length of its multipath steps
 *  (<0;1> gives 2). Every alt argument below is < this count. */
size_t script_descriptor_multipath_count(const struct script_descriptor *d);

/** Core's ToString(): appends the public form of alternative alt with "#" and its checksum,
 *  and a NUL that out->len does not count. Private keys are shown as their public keys
 *  (WIF as hex, xprv as xpub); hardened steps keep the marker the input used ("'" or "h"). */
void script_descriptor_to_string(struct buf *out, const struct script_descriptor *d, size_t alt);

/** Core's Expand(pos): the scriptPubKeys of alternative alt at derivation index pos (ignored
 *  when not ranged; must be < 2^31).
 *
 *  Returns: 0 with *n_spks scripts appended to spks[0..*n_spks) (combo() gives 2 or 4,
 *           unused() none, others 1); RC_INVALID if a hardened step needs a private key the
 *           descriptor does not have (Core: "Cannot derive script without private keys").
 *  Out:     spks: SCRIPT_DESC_MAX_SCRIPTS initialised buffers. */
int script_descriptor_expand(const struct script_descriptor *d, size_t alt, uint32_t pos,
                             struct buf spks[SCRIPT_DESC_MAX_SCRIPTS], size_t *n_spks);
/** script_descriptor_expand that also adds to prov (initialised; may be NULL) the keys with
 *  their origins and the scripts the expansion made, as Core's Expand fills its
 *  FlatSigningProvider. */
int script_descriptor_expand_with(const struct script_descriptor *d, size_t alt, uint32_t pos,
                                  struct buf spks[SCRIPT_DESC_MAX_SCRIPTS], size_t *n_spks,
                                  struct script_desc_provider *prov);

#endif
