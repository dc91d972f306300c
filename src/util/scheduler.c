#include "util/scheduler.h"

#include <pthread.h>
#include <stdbool.h>
#include <time.h>

#include "util/log.h"
#include "util/rc.h"
#include "util/xmalloc.h"

struct job {
    int64_t interval_ms;
    int64_t due_ms; /* CLOCK_MONOTONIC */
    scheduler_job fn;
    void *ctx;
    struct job *next;
};

struct scheduler {
    pthread_mutex_t mu;
    pthread_cond_t cv; /* on CLOCK_MONOTONIC */
    struct job *jobs;  /* guarded by mu */
    bool stop;         /* guarded by mu */
    bool running;      /* the thread was started and not joined */
    pthread_t thread;
};

static int64_t mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The job due first, or NULL. Caller holds mu. */
static struct job *first_due(struct scheduler *s)
{
    struct job *best = NULL;
    for (struct job *j = s->jobs; j; j = j->next) {
        if (!best || j->due_ms < best->due_ms) {
            best = j;
        }
    }
    return best;
}

static void *thread_main(void *arg)
{
    struct scheduler *s = arg;
    log_thread_start("scheduler");
    pthread_mutex_lock(&s->mu);
    while (!s->stop) {
        struct job *j = first_due(s);
        int64_t now = mono_ms();
        if (!j || j->due_ms > now) {
            if (!j) {
                pthread_cond_wait(&s->cv, &s->mu);
            } else {
                struct timespec ts = {.tv_sec = j->due_ms / 1000,
                                      .tv_nsec = (j->due_ms % 1000) * 1000000};
                pthread_cond_timedwait(&s->cv, &s->mu, &ts);
            }
            continue;
        }
        j->due_ms = now + j->interval_ms;
        scheduler_job fn = j->fn;
        void *ctx = j->ctx;
        pthread_mutex_unlock(&s->mu);
        fn(ctx);
        pthread_mutex_lock(&s->mu);
    }
    pthread_mutex_unlock(&s->mu);
    log_thread_exit("scheduler");
    return NULL;
}

int scheduler_start(struct scheduler **out)
{
    struct scheduler *s = xcalloc(1, sizeof(*s));
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&s->cv, &ca);
    pthread_condattr_destroy(&ca);
    pthread_mutex_init(&s->mu, NULL);
    if (pthread_create(&s->thread, NULL, thread_main, s) != 0) {
        scheduler_free(s);
        return RC_IO;
    }
    s->running = true;
    *out = s;
    return RC_OK;
}

void scheduler_every(struct scheduler *s, int64_t interval_ms, scheduler_job job, void *ctx)
{
    struct job *j = xcalloc(1, sizeof(*j));
    j->interval_ms = interval_ms > 0 ? interval_ms : 1;
    j->due_ms = mono_ms() + j->interval_ms;
    j->fn = job;
    j->ctx = ctx;
    pthread_mutex_lock(&s->mu);
    j->next = s->jobs;
    s->jobs = j;
    pthread_cond_signal(&s->cv);
    pthread_mutex_unlock(&s->mu);
}

void scheduler_mock_forward(struct scheduler *s, int64_t delta_ms)
{
    if (!s || delta_ms <= 0) {
        return;
    }
    pthread_mutex_lock(&s->mu);
    for (struct job *j = s->jobs; j; j = j->next) {
        j->due_ms -= delta_ms;
    }
    pthread_cond_signal(&s->cv);
    pthread_mutex_unlock(&s->mu);
}

void scheduler_stop(struct scheduler *s)
{
    if (!s || !s->running) {
        return;
    }
    pthread_mutex_lock(&s->mu);
    s->stop = true;
    pthread_cond_signal(&s->cv);
    pthread_mutex_unlock(&s->mu);
    pthread_join(s->thread, NULL);
    s->running = false;
}

void scheduler_free(struct scheduler *s)
{
    if (!s) {
        return;
    }
    scheduler_stop(s);
    while (s->jobs) {
        struct job *j = s->jobs;
        s->jobs = j->next;
        free(j);
    }
    pthread_cond_destroy(&s->cv);
    pthread_mutex_destroy(&s->mu);
    free(s);
}
