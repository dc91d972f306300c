/* Logarithmic duration histogram: see histo.h. */
#include "util/histo.h"

#include <math.h>
#include <string.h>

#define HISTO_BASE_NS 1000.0 /* the first bucket's upper edge */
#define HISTO_GROWTH 1.02

void histo_init(struct histo *h)
{
    memset(h, 0, sizeof(*h));
}

void histo_add(struct histo *h, uint64_t ns)
{
    int i = 0;
    if ((double)ns > HISTO_BASE_NS) {
        i = (int)ceil(log((double)ns / HISTO_BASE_NS) / log(HISTO_GROWTH));
    }
    if (i >= HISTO_BUCKETS) {
        i = HISTO_BUCKETS - 1;
    }
    h->b[i]++;
    h->n++;
    h->sum_ns += ns;
    if (ns > h->max_ns) {
        h->max_ns = ns;
    }
}

uint64_t histo_percentile(const struct histo *h, double p)
{
    if (h->n == 0) {
        return 0;
    }
    /* The sample of rank ceil(p% of n), counted from 1. */
    uint64_t rank = (uint64_t)ceil(p / 100.0 * (double)h->n);
    if (rank < 1) {
        rank = 1;
    }
    if (rank >= h->n) {
        return h->max_ns; /* the largest sample is known exactly */
    }
    uint64_t seen = 0;
    for (int i = 0; i < HISTO_BUCKETS; i++) {
        seen += h->b[i];
        if (seen >= rank && i < HISTO_BUCKETS - 1) {
            double edge = HISTO_BASE_NS * pow(HISTO_GROWTH, i);
            return edge < (double)h->max_ns ? (uint64_t)edge : h->max_ns;
        }
    }
    return h->max_ns;
}
