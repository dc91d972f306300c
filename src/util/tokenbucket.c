/* Token bucket (tokenbucket.h). */
#include "util/tokenbucket.h"

void token_bucket_init(struct token_bucket *b, double rate_per_s, double value, double cap)
{
    b->rate_per_s = rate_per_s;
    b->cap = cap;
    b->value = value < cap ? value : cap;
    b->last_us = 0;
    b->started = 0;
}

void token_bucket_increment(struct token_bucket *b, int64_t now_us)
{
    if (b->started && now_us > b->last_us && b->value < b->cap) {
        double inc = b->rate_per_s * (double)(now_us - b->last_us) / 1e6;
        b->value = b->value + inc < b->cap ? b->value + inc : b->cap;
    }
    /* As Core's: the time moves on even when the bucket is full or the clock went back. */
    b->last_us = now_us;
    b->started = 1;
}

int token_bucket_decrement(struct token_bucket *b, double n, double floor)
{
    b->value -= n;
    return b->value > floor;
}

double token_bucket_value(const struct token_bucket *b)
{
    return b->value;
}
