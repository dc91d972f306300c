/* -maxuploadtarget's budget: see uploadtarget.h. */
#include "net/uploadtarget.h"

#include <string.h>

#define MAX_BLOCK_SERIALIZED_SIZE 4000000ull

int upload_target_parse(const char *s, uint64_t *out)
{
    size_t n = strlen(s);
    if (n == 0) {
        return 0;
    }
    uint64_t unit = 1024ull * 1024;
    static const char units[] = "kKmMgGtT";
    const char *u = strchr(units, s[n - 1]);
    if (u && s[n - 1]) {
        int i = (int)(u - units);
        uint64_t base = (i % 2) ? 1024 : 1000;
        unit = 1;
        for (int k = 0; k <= i / 2; k++) {
            unit *= base;
        }
        n--;
    }
    if (n == 0) {
        return 0;
    }
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9' || v > (UINT64_MAX - (uint64_t)(s[i] - '0')) / 10) {
            return 0;
        }
        v = v * 10 + (uint64_t)(s[i] - '0');
    }
    if (v > UINT64_MAX / unit) {
        return 0;
    }
    *out = v * unit;
    return 1;
}

void upload_target_record(struct upload_target *u, uint64_t bytes, int64_t now)
{
    if (u->cycle_start + UPLOAD_TARGET_TIMEFRAME_S < now) {
        u->cycle_start = now;
        u->sent_in_cycle = 0;
    }
    u->sent_in_cycle += bytes;
}

int64_t upload_target_time_left(const struct upload_target *u, int64_t now)
{
    if (u->limit == 0) {
        return 0;
    }
    if (u->cycle_start == 0) {
        return UPLOAD_TARGET_TIMEFRAME_S;
    }
    int64_t end = u->cycle_start + UPLOAD_TARGET_TIMEFRAME_S;
    return end < now ? 0 : end - now;
}

int upload_target_reached(const struct upload_target *u, int historical, int64_t now)
{
    if (u->limit == 0) {
        return 0;
    }
    if (historical) {
        uint64_t buffer =
            (uint64_t)(upload_target_time_left(u, now) / 600) * MAX_BLOCK_SERIALIZED_SIZE;
        return buffer >= u->limit || u->sent_in_cycle >= u->limit - buffer;
    }
    return u->sent_in_cycle >= u->limit;
}

uint64_t upload_target_bytes_left(const struct upload_target *u)
{
    if (u->limit == 0) {
        return 0;
    }
    return u->sent_in_cycle >= u->limit ? 0 : u->limit - u->sent_in_cycle;
}
