#include "util/time.h"

#include <errno.h>
#include <stdio.h>
#include <time.h>

int64_t time_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec;
}

int64_t time_now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

int64_t time_mono_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

uint64_t time_mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void time_format_iso(char out[TIME_ISO_LEN], int64_t t)
{
    time_t tt = (time_t)t;
    struct tm tm;
    gmtime_r(&tt, &tm);
    strftime(out, TIME_ISO_LEN, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

void time_sleep_ms(int64_t ms)
{
    struct timespec req = {.tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L};
    while (nanosleep(&req, &req) != 0 && errno == EINTR) {
    }
}

struct timespec time_deadline(clockid_t clock, uint64_t ns)
{
    struct timespec t;
    clock_gettime(clock, &t);
    uint64_t nsec = (uint64_t)t.tv_nsec + ns % 1000000000ull;
    t.tv_sec += (time_t)(ns / 1000000000ull + nsec / 1000000000ull);
    t.tv_nsec = (long)(nsec % 1000000000ull);
    return t;
}
