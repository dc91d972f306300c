/* A histogram of durations for percentiles (block connect times, gaps between blocks):
 * logarithmic buckets 2% wide from 1 microsecond to over 1000 seconds, so a percentile is
 * known to within 2% whatever the number of samples, in a fixed 4.4 KB. Not thread-safe:
 * one owner writes and reads it. */
#ifndef BITNODE_UTIL_HISTO_H
#define BITNODE_UTIL_HISTO_H

#include <stdint.h>

#define HISTO_BUCKETS 1100

struct histo {
    uint64_t n;      /* samples */
    uint64_t max_ns; /* the largest, exactly */
    uint64_t sum_ns;
    uint32_t b[HISTO_BUCKETS];
};

/** Empties h. */
void histo_init(struct histo *h);
/** Adds one sample of ns nanoseconds (below 1 us counts in the first bucket). */
void histo_add(struct histo *h, uint64_t ns);
/** The p-th percentile (0 < p <= 100) in nanoseconds: the upper edge of the bucket holding
 *  it, never above max_ns (exactly max_ns for the largest sample and for the last bucket,
 *  which holds everything past 1000 s); 0 with no samples. */
uint64_t histo_percentile(const struct histo *h, double p);

#endif
