/* Clocks and timestamps. */
#ifndef BITNODE_UTIL_TIME_H
#define BITNODE_UTIL_TIME_H

#include <stdint.h>
#include <time.h>

#define TIME_ISO_LEN 21 /* "2026-11-30T01:02:03Z" and a NUL */

/** Returns the wall-clock time in seconds since the Unix epoch. */
int64_t time_now_s(void);
/** Returns the wall-clock time in microseconds since the Unix epoch. */
int64_t time_now_us(void);
/** Returns a monotonic clock in microseconds (only differences mean anything). */
int64_t time_mono_us(void);
/** The same clock in nanoseconds (for timing the work of threads). */
uint64_t time_mono_ns(void);
/** Writes t (seconds since the epoch, UTC) as "YYYY-MM-DDTHH:MM:SSZ" into out. */
void time_format_iso(char out[TIME_ISO_LEN], int64_t t);
/** The time ns nanoseconds from now on clock (CLOCK_REALTIME, or the clock a condition
 *  variable was set to): the deadline pthread_cond_timedwait takes. */
struct timespec time_deadline(clockid_t clock, uint64_t ns);
/** Sleeps for ms milliseconds (restarting after signals). */
void time_sleep_ms(int64_t ms);

#endif
