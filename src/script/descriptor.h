/* Output descriptors as Bitcoin Core infers them from a script (InferDescriptor with an empty
 * signing provider, then ToString with the checksum): what getblock, gettxout and
 * decodescript print as "desc". Pure: no I/O. */
#ifndef BITNODE_SCRIPT_DESCRIPTOR_H
#define BITNODE_SCRIPT_DESCRIPTOR_H

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
 *  address, else "raw(HEX)".
 *  Not matched: Core infers miniscript ("wsh(and_v(...))", "wsh(0)") for P2WSH scripts that
 *  are sane miniscript; here those get "addr(...)". */
void script_descriptor_infer(struct buf *out, const uint8_t *s, size_t len, const uint8_t *inner,
                             size_t inner_len, const struct chain_params *p);

#endif
