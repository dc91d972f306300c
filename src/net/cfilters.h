/* BIP157 serving (cfilters.c): answers getcfilters, getcfheaders and getcfcheckpt from the
 * block filter index, as Core's PeerManager does with -peerblockfilters. What sync.c calls
 * for those messages. Net thread only. */
#ifndef BITNODE_NET_CFILTERS_H
#define BITNODE_NET_CFILTERS_H

#include <stddef.h>
#include <stdint.h>

struct blockfilter_index;
struct chainstate;
struct peer;

/* Core's limits: blocks per getcfilters / getcfheaders, and the checkpoint interval. */
#define CFILTERS_MAX_GETCFILTERS 1000
#define CFILTERS_MAX_GETCFHEADERS 2000
#define CFILTERS_CHECKPT_INTERVAL 1000

/** One of the three requests from p (command "getcfilters", "getcfheaders" or
 *  "getcfcheckpt", payload d[0..len)). bfi: the index when the node serves filters
 *  (-peerblockfilters), else NULL: a request is then of an unsupported type and p is
 *  disconnected, as by Core; so is a peer asking for an unknown block, a start above the
 *  stop or too many blocks. A payload that does not decode is logged and dropped. */
void cfilters_on_request(struct blockfilter_index *bfi, struct chainstate *cs, struct peer *p,
                         const char *command, const uint8_t *d, size_t len);

#endif
