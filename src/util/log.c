#include "util/log.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "util/buf.h"
#include "util/check.h"
#include "util/rc.h"
#include "util/time.h"
#include "util/xmalloc.h"

atomic_uint log_categories_mask;

#define CORE_ONLY(n) (LOG_CAT_CORE_ONLY_FIRST << (n))

static const struct {
    const char *name;
    uint32_t bit;
} categories[] = {
    {"addrman", CORE_ONLY(0)},
    {"bench", LOG_CAT_BENCH},
    {"blockstorage", LOG_CAT_BLOCKSTORAGE},
    {"cmpctblock", CORE_ONLY(1)},
    {"coindb", LOG_CAT_COINDB},
    {"estimatefee", CORE_ONLY(2)},
    {"http", LOG_CAT_HTTP},
    {"i2p", CORE_ONLY(3)},
    {"ipc", CORE_ONLY(4)},
    {"kernel", CORE_ONLY(5)},
    {"leveldb", LOG_CAT_KV},
    {"mempool", CORE_ONLY(6)},
    {"mempoolrej", CORE_ONLY(7)},
    {"net", LOG_CAT_NET},
    {"privatebroadcast", CORE_ONLY(8)},
    {"proxy", CORE_ONLY(9)},
    {"prune", CORE_ONLY(10)},
    {"qt", CORE_ONLY(11)},
    {"rand", CORE_ONLY(12)},
    {"reindex", LOG_CAT_REINDEX},
    {"rpc", LOG_CAT_RPC},
    {"scan", CORE_ONLY(13)},
    {"selectcoins", CORE_ONLY(14)},
    {"tor", CORE_ONLY(15)},
    {"txpackages", CORE_ONLY(16)},
    {"txreconciliation", CORE_ONLY(17)},
    {"validation", LOG_CAT_VALIDATION},
    {"walletdb", CORE_ONLY(18)},
    {"zmq", CORE_ONLY(19)},
};
_Static_assert(LOG_CAT_ALL == (LOG_CAT_CORE_ONLY_FIRST << 20) - 1, "every bit has a name");

/* Lines before log_open() are buffered up to this many bytes (Core does the same), so
 * that start-up messages reach debug.log. */
#define LOG_PREOPEN_MAX (1u << 20)

static pthread_mutex_t log_mutex = PTHREAD_MUTEX_INITIALIZER;
static FILE *log_file;         /* guarded by log_mutex */
static char *log_path;         /* guarded by log_mutex */
static bool log_console;       /* guarded by log_mutex */
static bool log_no_stamps;     /* guarded by log_mutex */
static bool log_micros;        /* guarded by log_mutex */
static bool log_thread_names;  /* guarded by log_mutex */
static _Thread_local char thread_name[32];

void log_thread_rename(const char *name)
{
    char sys[16];
    snprintf(thread_name, sizeof(thread_name), "%s", name);
    snprintf(sys, sizeof(sys), "b-%s", name);
    pthread_setname_np(pthread_self(), sys);
}

void log_thread_start(const char *name)
{
    log_thread_rename(name);
    LOG_INFO("%s thread start", name);
}

void log_thread_exit(const char *name)
{
    LOG_INFO("%s thread exit", name);
}
static bool log_is_open;       /* guarded by log_mutex */
static struct buf log_preopen; /* guarded by log_mutex */
static atomic_bool log_reopen_flag;

static const char *category_name(uint32_t cat)
{
    for (size_t i = 0; i < ARRAY_LEN(categories); i++) {
        if (categories[i].bit == cat) {
            return categories[i].name;
        }
    }
    return NULL;
}

/* Writes one finished line to the outputs. Caller holds log_mutex. */
static void write_line(const char *line, size_t len)
{
    if (!log_is_open) {
        if (log_preopen.len + len <= LOG_PREOPEN_MAX) {
            buf_append(&log_preopen, line, len);
        }
        return;
    }
    if (atomic_exchange(&log_reopen_flag, false) && log_path) {
        FILE *f = fopen(log_path, "a");
        if (f) {
            if (log_file) {
                fclose(log_file);
            }
            log_file = f;
            setvbuf(log_file, NULL, _IOLBF, 0);
        }
    }
    if (log_file) {
        fwrite(line, 1, len, log_file);
    }
    if (log_console) {
        fwrite(line, 1, len, stdout);
        fflush(stdout);
    }
}

void log_print(uint32_t cat, int level, const char *fmt, ...)
{
    char prefix[48] = "";
    char msg[4096];
    const char *cname = category_name(cat);
    const char *lname = level == LOG_LVL_WARN ? "warning" : level == LOG_LVL_ERROR ? "error" : NULL;

    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    if (cname && lname) {
        snprintf(prefix, sizeof(prefix), "[%s:%s] ", cname, lname);
    } else if (cname) {
        snprintf(prefix, sizeof(prefix), "[%s] ", cname);
    } else if (lname) {
        snprintf(prefix, sizeof(prefix), "[%s] ", lname);
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);

    char line[4200];
    char stamp[TIME_ISO_LEN + 8] = "";
    pthread_mutex_lock(&log_mutex);
    if (!log_no_stamps) {
        time_format_iso(stamp, (int64_t)now.tv_sec);
        if (log_micros) {
            /* Core's -logtimemicros: 2026-11-30T01:02:03.123456Z */
            unsigned us = (unsigned)(now.tv_nsec / 1000) % 1000000u;
            snprintf(stamp + TIME_ISO_LEN - 2, sizeof(stamp) - (TIME_ISO_LEN - 2), ".%06uZ", us);
        }
    }
    char tname[40] = "";
    if (log_thread_names) {
        snprintf(tname, sizeof(tname), "[%s] ", thread_name[0] ? thread_name : "unknown");
    }
    int n = snprintf(line, sizeof(line), "%s%s%s%s%s\n", stamp, stamp[0] ? " " : "", tname,
                     prefix, msg);
    if (n < 0) {
        pthread_mutex_unlock(&log_mutex);
        return;
    }
    size_t len = (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1;
    if (line[len - 1] != '\n') {
        line[len - 1] = '\n';
    }
    write_line(line, len);
    pthread_mutex_unlock(&log_mutex);
}

int log_open(const struct log_options *opt, char *err, size_t err_len)
{
    int rc = RC_OK;
    pthread_mutex_lock(&log_mutex);
    log_console = opt->print_to_console;
    log_no_stamps = opt->no_timestamps;
    log_micros = opt->time_micros;
    log_thread_names = opt->thread_names;
    free(log_path);
    log_path = NULL;
    if (opt->file_path) {
        log_file = fopen(opt->file_path, "a");
        if (!log_file) {
            snprintf(err, err_len, "Could not open debug log file %s", opt->file_path);
            rc = RC_IO;
            goto out;
        }
        setvbuf(log_file, NULL, _IOLBF, 0);
        log_path = xstrdup(opt->file_path);
        /* Core starts each run with blank lines so runs are easy to tell apart. */
        fputs("\n\n\n\n\n", log_file);
    }
    log_is_open = true;
    if (log_preopen.len > 0) {
        if (log_file) {
            fwrite(log_preopen.data, 1, log_preopen.len, log_file);
        }
        if (log_console) {
            fwrite(log_preopen.data, 1, log_preopen.len, stdout);
            fflush(stdout);
        }
    }
    buf_clear(&log_preopen);
out:
    pthread_mutex_unlock(&log_mutex);
    return rc;
}

void log_close(void)
{
    pthread_mutex_lock(&log_mutex);
    if (log_file) {
        fclose(log_file);
        log_file = NULL;
    }
    free(log_path);
    log_path = NULL;
    log_console = false;
    buf_clear(&log_preopen);
    pthread_mutex_unlock(&log_mutex);
}

void log_reopen_request(void)
{
    atomic_store(&log_reopen_flag, true);
}

const char *log_file_path(void)
{
    return log_path ? log_path : "";
}

int log_category_parse(const char *name, uint32_t *mask)
{
    if (strcmp(name, "all") == 0 || strcmp(name, "1") == 0 || strcmp(name, "") == 0) {
        *mask = LOG_CAT_ALL;
        return RC_OK;
    }
    if (strcmp(name, "none") == 0 || strcmp(name, "0") == 0) {
        *mask = 0;
        return RC_OK;
    }
    if (strcmp(name, "kv") == 0) {
        *mask = LOG_CAT_KV;
        return RC_OK;
    }
    if (strcmp(name, "libevent") == 0) {
        /* Core's words: a category that is still accepted and means nothing. */
        LOG_WARN("The logging category `%s` is deprecated, does nothing, and will be removed "
                 "in a future version", name);
        *mask = 0;
        return RC_OK;
    }
    for (size_t i = 0; i < ARRAY_LEN(categories); i++) {
        if (strcmp(name, categories[i].name) == 0) {
            *mask = categories[i].bit;
            return RC_OK;
        }
    }
    return RC_INVALID;
}

static atomic_bool log_ips_on;

void log_set_ips(bool on)
{
    atomic_store(&log_ips_on, on);
}

bool log_ips(void)
{
    return atomic_load(&log_ips_on);
}

void log_categories_enable(uint32_t mask)
{
    atomic_fetch_or(&log_categories_mask, mask);
}

void log_categories_disable(uint32_t mask)
{
    atomic_fetch_and(&log_categories_mask, ~mask);
}

uint32_t log_categories_get(void)
{
    return atomic_load(&log_categories_mask);
}

size_t log_category_count(void)
{
    return ARRAY_LEN(categories);
}

const char *log_category_name(size_t i)
{
    CHECK_ALWAYS(i < ARRAY_LEN(categories));
    return categories[i].name;
}

uint32_t log_category_bit(size_t i)
{
    CHECK_ALWAYS(i < ARRAY_LEN(categories));
    return categories[i].bit;
}

char *log_sanitize(char *out, size_t out_len, const char *s)
{
    size_t i = 0;
    if (out_len == 0) {
        return out;
    }
    for (; s[i] && i + 1 < out_len; i++) {
        unsigned char c = (unsigned char)s[i];
        out[i] = (c >= 0x20 && c < 0x7f) ? (char)c : '?';
    }
    out[i] = 0;
    return out;
}
