/* A token bucket rate limiter on a clock passed in (Core's util::TokenBucket): tokens come
 * at a steady rate up to a cap, and are taken one or many at a time, the balance allowed to
 * go below zero down to a floor the caller names. Pure: no clock of its own, no I/O. */
#ifndef BITNODE_UTIL_TOKENBUCKET_H
#define BITNODE_UTIL_TOKENBUCKET_H

#include <stdint.h>

/* Caller-owned; fields are the bucket's (read the balance with token_bucket_value). */
struct token_bucket {
    double rate_per_s; /* tokens added per second */
    double cap;        /* the most the balance refills to */
    double value;      /* the balance */
    int64_t last_us;   /* the time of the last refill */
    int started;       /* 0 until the first token_bucket_increment set last_us */
};

/** Sets b up with rate_per_s tokens a second, up to cap, starting at value (clamped to
 *  cap). The first token_bucket_increment only sets the time the refills count from. */
void token_bucket_init(struct token_bucket *b, double rate_per_s, double value, double cap);

/** Refills b for the time since its last refill (rate_per_s per second, never above cap; a
 *  balance already at or above cap stays) and makes now_us the last refill's time. A clock
 *  that went back refills nothing; the next refill counts from the earlier time. */
void token_bucket_increment(struct token_bucket *b, int64_t now_us);

/** Takes n tokens (the balance may go negative). Returns 1 while the balance is still above
 *  floor, 0 once it dropped to floor or below. */
int token_bucket_decrement(struct token_bucket *b, double n, double floor);

/** The balance. */
double token_bucket_value(const struct token_bucket *b);

#endif
