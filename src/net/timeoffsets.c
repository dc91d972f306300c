/* The outbound peers' clock offsets (timeoffsets.h). */
#include "net/timeoffsets.h"

#include <stdio.h>
#include <stdlib.h>

void timeoffsets_add(struct timeoffsets *t, int64_t offset)
{
    if (t->n < TIMEOFFSETS_MAX) {
        t->v[t->n++] = offset;
        return;
    }
    t->v[t->head] = offset;
    t->head = (t->head + 1) % TIMEOFFSETS_MAX;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

int64_t timeoffsets_median(const struct timeoffsets *t)
{
    if (t->n < TIMEOFFSETS_MIN_SAMPLES) {
        return 0;
    }
    int64_t sorted[TIMEOFFSETS_MAX];
    for (size_t i = 0; i < t->n; i++) {
        sorted[i] = t->v[i];
    }
    qsort(sorted, t->n, sizeof(sorted[0]), cmp_i64);
    return sorted[t->n / 2];
}

int timeoffsets_out_of_sync(const struct timeoffsets *t)
{
    int64_t m = timeoffsets_median(t);
    /* -INT64_MIN does not exist: such a median is out of sync as any past the threshold. */
    return m > TIMEOFFSETS_WARN_S || m < -TIMEOFFSETS_WARN_S;
}

void timeoffsets_warning(char *buf, size_t len)
{
    snprintf(buf, len,
             "Your computer's date and time appear to be more than %d minutes out of sync with "
             "the network, this may lead to consensus failure. After you've confirmed your "
             "computer's clock, this message should no longer appear when you restart your "
             "node. Without a restart, it should stop showing automatically after you've "
             "connected to a sufficient number of new outbound peers, which may take some "
             "time. You can inspect the `timeoffset` field of the `getpeerinfo` and "
             "`getnetworkinfo` RPC methods to get more info.",
             TIMEOFFSETS_WARN_S / 60);
}
