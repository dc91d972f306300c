/* Bitcoin Core's TimeOffsets (node/timeoffsets.cpp): the clock offsets of the last 50
 * outbound peers' version messages (their time minus ours, disconnected peers included), the
 * median getnetworkinfo's timeoffset reports, and the clock warning it raises past 10
 * minutes.
 *
 * Pure: no clock, no I/O. One owner: the sync logic (sync.c), on the net thread.
 */
#ifndef BITNODE_NET_TIMEOFFSETS_H
#define BITNODE_NET_TIMEOFFSETS_H

#include <stddef.h>
#include <stdint.h>

#define TIMEOFFSETS_MAX 50           /* Core's TimeOffsets::MAX_SIZE */
#define TIMEOFFSETS_MIN_SAMPLES 5    /* no median below this many */
#define TIMEOFFSETS_WARN_S (10 * 60) /* Core's WARN_THRESHOLD: 10 minutes */

struct timeoffsets {
    int64_t v[TIMEOFFSETS_MAX]; /* a ring: the oldest at head once full */
    size_t n, head;
};

/** Adds a sample (seconds; positive: the peer's clock is ahead), dropping the oldest once
 *  there are TIMEOFFSETS_MAX. */
void timeoffsets_add(struct timeoffsets *t, int64_t offset);

/** Core's Median: 0 below TIMEOFFSETS_MIN_SAMPLES samples, else the upper median (the
 *  sorted samples' element n/2). */
int64_t timeoffsets_median(const struct timeoffsets *t);

/** Core's WarnIfOutOfSync: 1 when the median is more than TIMEOFFSETS_WARN_S away from 0
 *  (the warning stands), else 0 (it is cleared). */
int timeoffsets_out_of_sync(const struct timeoffsets *t);

/** Core's clock warning text (node/timeoffsets.cpp), for the 10 minutes threshold, into buf
 *  (cut to len). */
void timeoffsets_warning(char *buf, size_t len);

#endif
