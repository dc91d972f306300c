/* -maxuploadtarget: Bitcoin Core's outbound traffic budget (CConnman's nMaxOutboundLimit and
 * its cycle). Bytes sent are counted in 24-hour cycles; a cycle starts with the first bytes
 * sent after the last one ended. Once the budget is spent, historical blocks (and mempool
 * answers) are refused; before that, historical blocks stop early enough to keep one block
 * interval's worth of room (a 4 MB block every 10 minutes left in the cycle) for new blocks.
 *
 * Pure: the clock (Unix seconds, the node's mockable time) is passed in. One owner: the
 * transport (net.c), on the net thread.
 */
#ifndef BITNODE_NET_UPLOADTARGET_H
#define BITNODE_NET_UPLOADTARGET_H

#include <stdint.h>

#define UPLOAD_TARGET_TIMEFRAME_S (24 * 60 * 60) /* Core's MAX_UPLOAD_TIMEFRAME */

struct upload_target {
    uint64_t limit;         /* bytes per cycle; 0: no limit */
    int64_t cycle_start;    /* 0 before the first bytes */
    uint64_t sent_in_cycle; /* bytes sent since cycle_start */
};

/** Parses a -maxuploadtarget value as Core's ParseByteUnits with MiB as the default unit:
 *  digits, optionally followed by k/m/g/t (powers of 1000) or K/M/G/T (powers of 1024).
 *  Returns: 1 with *out, 0 for anything else (empty, other characters, overflow). */
int upload_target_parse(const char *s, uint64_t *out);

/** Counts bytes sent at now; starts a new cycle first if the last one ended. */
void upload_target_record(struct upload_target *u, uint64_t bytes, int64_t now);

/** Core's OutboundTargetReached: with historical, whether serving old blocks must stop (the
 *  budget minus the room kept for new blocks is spent); else whether the budget is spent.
 *  Always 0 without a limit. */
int upload_target_reached(const struct upload_target *u, int historical, int64_t now);

/** Seconds left in the current cycle (the whole timeframe before any bytes were sent; 0
 *  without a limit). */
int64_t upload_target_time_left(const struct upload_target *u, int64_t now);

/** Bytes left in the cycle's budget (0 without a limit). */
uint64_t upload_target_bytes_left(const struct upload_target *u);

#endif
