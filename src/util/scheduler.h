/* A thread that runs periodic jobs, as Core's scheduler thread ("scheduler") runs its
 * scheduleEvery jobs: each job first runs one interval after it was added, then every
 * interval, one job at a time, none while another runs. Jobs may be added from any thread
 * at any time; scheduler_stop() waits for a running job and runs none after it.
 */
#ifndef BITNODE_UTIL_SCHEDULER_H
#define BITNODE_UTIL_SCHEDULER_H

#include <stdint.h>

struct scheduler;
typedef void (*scheduler_job)(void *ctx);

/** Starts the thread (named "scheduler"; it logs Core's "scheduler thread start"). Returns 0
 *  with *out set, or RC_IO if the thread cannot start. */
int scheduler_start(struct scheduler **out);
/** Runs job(ctx) every interval_ms milliseconds (> 0) from now on, on the thread. */
void scheduler_every(struct scheduler *s, int64_t interval_ms, scheduler_job job, void *ctx);
/** Core's CScheduler::MockForward (the mockscheduler RPC): every job falls due delta_ms
 *  (> 0) earlier than it would have; those now due run at once, in due order. NULL: no-op. */
void scheduler_mock_forward(struct scheduler *s, int64_t delta_ms);
/** Stops the thread after the job it is running, if any; idempotent. */
void scheduler_stop(struct scheduler *s);
/** Stops s and frees it (NULL: no-op). */
void scheduler_free(struct scheduler *s);

#endif
