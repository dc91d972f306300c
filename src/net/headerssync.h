/* Headers pre-synchronisation (Core's HeadersSyncState, the defence against a peer feeding a
 * long low-work header chain): a chain whose work does not reach the anti-DoS threshold is
 * first downloaded without storing it, keeping only its tip, its work and one salted bit
 * per commitment period; once its work is enough, it is downloaded again from the same
 * start, each header checked against the bits, and released to the block tree in order
 * (the last REDOWNLOAD_BUFFER headers are held back until the work is reached again, so a
 * peer that serves a different chain the second time is caught before it is stored).
 * Memory per peer: one bit per NET_HSYNC_PERIOD headers, bounded by the chain's age, plus
 * the redownload buffer.
 *
 * Pure: no I/O, no locks; the caller (the net thread) owns the state and gives it the
 * chain start (the last stored header the chain builds on) and the clock.
 */
#ifndef BITNODE_NET_HEADERSSYNC_H
#define BITNODE_NET_HEADERSSYNC_H

#include <stddef.h>
#include <stdint.h>

#include "consensus/arith256.h"
#include "consensus/params.h"

#define NET_HSYNC_PERIOD 600              /* headers per commitment bit */
#define NET_HSYNC_REDOWNLOAD_BUFFER 14400 /* headers held back while redownloading */

enum headerssync_state {
    HSYNC_PRESYNC = 0,
    HSYNC_REDOWNLOAD,
    HSYNC_DONE,   /* every header released: the peer's later headers go the normal way */
    HSYNC_FAILED, /* aborted: see the result of headerssync_process */
};

struct headerssync_start {
    uint8_t hash[32];
    int32_t height;
    uint32_t bits;
    struct u256 chain_work;
    int64_t mtp; /* median time past */
};

struct headerssync;

/** A state for a chain built on start whose work must reach min_work. now: the clock, for
 *  the bound on how many headers the chain can have (6 per second since start's mtp, plus
 *  MAX_FUTURE_BLOCK_TIME). Caller frees with headerssync_free. */
struct headerssync *headerssync_new(const struct chain_params *p,
                                    const struct headerssync_start *start,
                                    const struct u256 *min_work, int64_t now);
void headerssync_free(struct headerssync *h);

enum headerssync_result {
    HSYNC_OK = 0,     /* go on (see *more) */
    HSYNC_LOW_WORK,   /* the peer has no more headers and the work is not enough: drop */
    HSYNC_MISBEHAVED, /* the peer broke the rules: err says how */
};

/** Feeds n headers (80 bytes each, in order; full: the message held the maximum count, so
 *  the peer has more). *release (caller frees) gets *n_release headers to store now, in
 *  order (only while redownloading). *more: ask the peer for more, from the locator of
 *  headerssync_locator. Returns enum headerssync_result; HSYNC_MISBEHAVED fills err. */
int headerssync_process(struct headerssync *h, const uint8_t *raw, size_t n, int full,
                        uint8_t **release, size_t *n_release, int *more, char *err, size_t err_len);
/** The locator for the next getheaders: the last header received of the current pass, then
 *  the chain start. *out (caller frees) gets the count returned (1 or 2). */
size_t headerssync_locator(const struct headerssync *h, uint8_t (**out)[32]);
int headerssync_state(const struct headerssync *h);
/** The height and time of the last header seen in the pre-sync pass (getpeerinfo's
 *  presynced_headers; the "Pre-synchronizing blockheaders" log line). */
int32_t headerssync_presync_height(const struct headerssync *h);
int64_t headerssync_presync_time(const struct headerssync *h);

#endif
