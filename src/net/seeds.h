/* Where a node with no addresses starts: the DNS seeds and the fixed seed nodes of each
 * network (Core's chainparams vSeeds and chainparamsseeds.h). */
#ifndef BITNODE_NET_SEEDS_H
#define BITNODE_NET_SEEDS_H

#include <stddef.h>
#include <stdint.h>

/** The fixed seeds of chain ("main", "test", "testnet4", "signet"): *data (static) holds
 *  *count BIP155 tuples (network id u8, address length u8, address, big-endian port u16)
 *  in *len bytes. 1, or 0 with nothing for a chain without any (regtest). */
int net_fixed_seeds(const char *chain, const uint8_t **data, size_t *len, size_t *count);

/** The DNS seeds of chain: a NULL-terminated static list (empty for regtest). */
const char *const *net_dns_seeds(const char *chain);

#endif
