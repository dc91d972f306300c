/* The debug log: "2026-11-30T01:02:03Z [category] message" lines to debug.log and/or the
 * console.
 *
 *   LOG(LOG_CAT_NET, LOG_LVL_DEBUG, "peer %d: %s", id, why);   only with -debug=net
 *   LOG_INFO("loaded %d headers", n);                          always
 *   LOG_WARN(...), LOG_ERROR(...)                              always, "[warning]"/"[error]"
 *
 * LOG() tests the category before evaluating its arguments, so expensive arguments cost
 * nothing while the category is off. Debug lines need their category enabled; info, warning
 * and error lines are always written (with "[cat]", "[cat:warning]", "[cat:error]" as Bitcoin
 * Core 28 writes them). Thread-safe. Messages never carry secrets; strings that came from
 * peers go through log_sanitize() first.
 *
 * Lines logged before log_open() are kept in memory and written when the log opens.
 */
#ifndef BITNODE_UTIL_LOG_H
#define BITNODE_UTIL_LOG_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum log_cat {
    LOG_CAT_NONE = 0,
    LOG_CAT_NET = 1u << 0,
    LOG_CAT_VALIDATION = 1u << 1,
    LOG_CAT_COINDB = 1u << 2,
    LOG_CAT_BLOCKSTORAGE = 1u << 3,
    LOG_CAT_RPC = 1u << 4,
    LOG_CAT_HTTP = 1u << 5,
    LOG_CAT_KV = 1u << 6,
    LOG_CAT_BENCH = 1u << 7,
    LOG_CAT_REINDEX = 1u << 8,
    /* Bitcoin Core's other categories: accepted and listed (so that -debug=mempool and the
     * logging RPC answer as Core's do), written to as the parts that use them land. */
    LOG_CAT_CORE_ONLY_FIRST = 1u << 9,
    LOG_CAT_ADDRMAN = LOG_CAT_CORE_ONLY_FIRST << 0,
    LOG_CAT_CMPCTBLOCK = LOG_CAT_CORE_ONLY_FIRST << 1,
    LOG_CAT_ESTIMATEFEE = LOG_CAT_CORE_ONLY_FIRST << 2,
    LOG_CAT_MEMPOOL = LOG_CAT_CORE_ONLY_FIRST << 6,
    LOG_CAT_MEMPOOLREJ = LOG_CAT_CORE_ONLY_FIRST << 7,
    LOG_CAT_PRUNE = LOG_CAT_CORE_ONLY_FIRST << 10,
    LOG_CAT_TXPACKAGES = LOG_CAT_CORE_ONLY_FIRST << 16,
    LOG_CAT_TXRECONCILIATION = LOG_CAT_CORE_ONLY_FIRST << 17,
    LOG_CAT_ZMQ = LOG_CAT_CORE_ONLY_FIRST << 19,
    LOG_CAT_ALL = (1u << 29) - 1,
};

enum log_level {
    LOG_LVL_DEBUG = 0,
    LOG_LVL_INFO = 1,
    LOG_LVL_WARN = 2,
    LOG_LVL_ERROR = 3,
};

/* The enabled debug categories (a mask of enum log_cat). Read through log_enabled(). */
extern atomic_uint log_categories_mask;

/** Returns true if a line of this category and level would be written. */
static inline bool log_enabled(uint32_t cat, int level)
{
    return level >= LOG_LVL_INFO ||
           (atomic_load_explicit(&log_categories_mask, memory_order_relaxed) & cat) != 0;
}

/** Writes one line (a newline is added). Use the macros below instead. */
void log_print(uint32_t cat, int level, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#define LOG(cat, level, ...)                                                                       \
    do {                                                                                           \
        if (log_enabled((cat), (level))) {                                                         \
            log_print((cat), (level), __VA_ARGS__);                                                \
        }                                                                                          \
    } while (0)
#define LOG_INFO(...) log_print(LOG_CAT_NONE, LOG_LVL_INFO, __VA_ARGS__)
#define LOG_WARN(...) log_print(LOG_CAT_NONE, LOG_LVL_WARN, __VA_ARGS__)
#define LOG_ERROR(...) log_print(LOG_CAT_NONE, LOG_LVL_ERROR, __VA_ARGS__)

struct log_options {
    const char *file_path; /* debug.log path, or NULL for no file; borrowed for the call */
    bool print_to_console; /* also write each line to stdout */
    bool no_timestamps;    /* -nologtimestamps: lines without the time */
    bool time_micros;      /* -logtimemicros: the time to the microsecond */
    bool thread_names;     /* -logthreadnames: each line names its thread */
};

/** Names the calling thread, as Core's util::ThreadRename: the name -logthreadnames prints
 *  ("scriptch.0"), and "b-<name>" for the system (ps, top, gdb; cut to 15 characters).
 *  name is copied (up to 31 characters). */
void log_thread_rename(const char *name);
/** Names the calling thread and logs "<name> thread start", as Core's util::TraceThread
 *  does for each thread it starts (tools and tests watch for these lines). */
void log_thread_start(const char *name);
/** Logs "<name> thread exit" (TraceThread's last line), before a thread returns. */
void log_thread_exit(const char *name);

/** Opens the log as configured and writes the lines buffered so far.
 *  Returns: 0, or RC_IO with err filled ("Could not open debug log file <path>", Core's). */
int log_open(const struct log_options *opt, char *err, size_t err_len);
/** Flushes and closes the log; later lines go nowhere (or to stderr if they are errors). */
void log_close(void);
/** Asks for the log file to be reopened before the next line (SIGHUP, for logrotate).
 *  Async-signal-safe. */
void log_reopen_request(void);
/** Returns the open log's file path, "" if none. Borrowed until log_close(). */
const char *log_file_path(void);

/** Looks up a category by its -debug name: Bitcoin Core's names ("net", "leveldb", ...; "kv"
 *  is bitnode's name for "leveldb", the key-value backend whichever it is), "all", "1" or ""
 *  for all, "none" or "0" for none, "libevent" (deprecated, with Core's warning) for none.
 *  Returns 0 with *mask set, or RC_INVALID for an unknown
 *  name. */
int log_category_parse(const char *name, uint32_t *mask);
/** Enables / disables categories (a mask). */
/** -logips (Core's fLogIPs): peers' addresses in the lines that name a peer. */
void log_set_ips(bool on);
bool log_ips(void);
void log_categories_enable(uint32_t mask);
void log_categories_disable(uint32_t mask);
/** Returns the mask of enabled categories. */
uint32_t log_categories_get(void);
/** The category table, Core's 29 names in Core's (alphabetical) order, for the `logging` RPC
 *  and -help: count, then name and bit by index. */
size_t log_category_count(void);
const char *log_category_name(size_t i);
uint32_t log_category_bit(size_t i);

/** Copies s into out (size out_len, NUL-terminated), replacing characters outside printable
 *  ASCII with '?' so that peer-supplied strings cannot forge log lines. Returns out. */
char *log_sanitize(char *out, size_t out_len, const char *s);

#endif
