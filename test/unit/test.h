/* A tiny always-on unit test harness that speaks TAP, so that automake's tap-driver counts
 * every case (not just every program) and the suite's "N passed, N failed" is honest.
 *
 *   static void test_roundtrip(void) { CHECK_EQ_INT(f(1), 2); }
 *   int main(void) { TEST(test_roundtrip); return test_done(); }
 *
 * A failing CHECK prints file, line and the values compared (as a TAP diagnostic), marks
 * the current case failed and carries on with the case. Each TEST() is one TAP line.
 */
#ifndef BITNODE_TEST_H
#define BITNODE_TEST_H

#include <dirent.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int test_case_failed __attribute__((unused));
static int test_count;
static int test_failed_count;
static int test_planned_skip;

static inline void test_diag_hex(const char *label, const void *p, size_t n)
{
    const uint8_t *b = p;
    printf("#   %s (%zu bytes): ", label, n);
    for (size_t i = 0; i < n && i < 96; i++) {
        printf("%02x", b[i]);
    }
    printf("%s\n", n > 96 ? "..." : "");
}

#define CHECK(cond)                                                                          \
    do {                                                                                     \
        if (!(cond)) {                                                                       \
            printf("# %s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #cond);              \
            test_case_failed = 1;                                                            \
        }                                                                                    \
    } while (0)

#define CHECK_EQ_INT(a, b)                                                                   \
    do {                                                                                     \
        long long va_ = (long long)(a), vb_ = (long long)(b);                                \
        if (va_ != vb_) {                                                                    \
            printf("# %s:%d: CHECK_EQ_INT(%s, %s) failed: %lld != %lld\n", __FILE__,         \
                   __LINE__, #a, #b, va_, vb_);                                              \
            test_case_failed = 1;                                                            \
        }                                                                                    \
    } while (0)

#define CHECK_EQ_U64(a, b)                                                                   \
    do {                                                                                     \
        uint64_t va_ = (uint64_t)(a), vb_ = (uint64_t)(b);                                   \
        if (va_ != vb_) {                                                                    \
            printf("# %s:%d: CHECK_EQ_U64(%s, %s) failed: %" PRIu64 " != %" PRIu64 "\n",     \
                   __FILE__, __LINE__, #a, #b, va_, vb_);                                    \
            test_case_failed = 1;                                                            \
        }                                                                                    \
    } while (0)

#define CHECK_EQ_STR(a, b)                                                                   \
    do {                                                                                     \
        const char *sa_ = (a), *sb_ = (b);                                                   \
        if (!sa_ || !sb_ || strcmp(sa_, sb_) != 0) {                                         \
            printf("# %s:%d: CHECK_EQ_STR(%s, %s) failed: \"%s\" != \"%s\"\n", __FILE__,     \
                   __LINE__, #a, #b, sa_ ? sa_ : "(null)", sb_ ? sb_ : "(null)");            \
            test_case_failed = 1;                                                            \
        }                                                                                    \
    } while (0)

#define CHECK_EQ_MEM(a, b, n)                                                                \
    do {                                                                                     \
        const void *ma_ = (a), *mb_ = (b);                                                   \
        size_t mn_ = (n);                                                                    \
        if (mn_ && memcmp(ma_, mb_, mn_) != 0) {                                         \
            printf("# %s:%d: CHECK_EQ_MEM(%s, %s, %s) failed\n", __FILE__, __LINE__, #a, #b, \
                   #n);                                                                      \
            test_diag_hex(#a, ma_, mn_);                                                     \
            test_diag_hex(#b, mb_, mn_);                                                     \
            test_case_failed = 1;                                                            \
        }                                                                                    \
    } while (0)

/* Reports one case by name, outside TEST() (e.g. one line per vector). */
static inline void test_report(int ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#include <stdarg.h>
static inline void test_report(int ok, const char *fmt, ...)
{
    va_list ap;
    test_count++;
    if (!ok) {
        test_failed_count++;
    }
    printf("%s %d - ", ok ? "ok" : "not ok", test_count);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
    fflush(stdout);
}

#define TEST(fn)                                                                             \
    do {                                                                                     \
        test_case_failed = 0;                                                                \
        fn();                                                                                \
        test_report(!test_case_failed, "%s", #fn);                                           \
    } while (0)

static inline int test_cmp_str_(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names of dir's entries that end in suffix, sorted, at most max of them, each
 * allocated into names (the caller frees them). Returns how many, or -1 if dir cannot be
 * opened. */
static inline int test_list_dir(const char *dir, const char *suffix, char **names, size_t max)
{
    DIR *d = opendir(dir);
    if (!d) {
        return -1;
    }
    size_t n = 0, ls = strlen(suffix);
    struct dirent *e;
    while (n < max && (e = readdir(d))) {
        size_t l = strlen(e->d_name);
        if (l > ls && strcmp(e->d_name + l - ls, suffix) == 0) {
            names[n++] = strdup(e->d_name);
        }
    }
    closedir(d);
    qsort(names, n, sizeof(names[0]), test_cmp_str_);
    return (int)n;
}

/* Where the shared data lives: $BITNODE_SHARED, else $BITNODE_SRCDIR/../shared, else
 * ../shared. Returns a static string. */
static inline const char *test_shared_dir(void)
{
    static char path[4096];
    const char *s = getenv("BITNODE_SHARED");
    if (s && *s) {
        return s;
    }
    s = getenv("BITNODE_SRCDIR");
    snprintf(path, sizeof(path), "%s/../shared", s && *s ? s : ".");
    return path;
}

/* Where the repository's own test data lives: $BITNODE_SRCDIR/test/data. Static string. */
static inline const char *test_data_dir(void)
{
    static char path[4096];
    const char *s = getenv("BITNODE_SRCDIR");
    snprintf(path, sizeof(path), "%s/test/data", s && *s ? s : ".");
    return path;
}

/* Reads a whole file into a new allocation; *len gets its size. NULL if unreadable. */
static inline uint8_t *test_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        return NULL;
    }
    size_t cap = 1 << 16, n = 0;
    uint8_t *p = malloc(cap);
    size_t got;
    while (p && (got = fread(p + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
            cap *= 2;
            p = realloc(p, cap);
        }
    }
    fclose(f);
    if (p) {
        *len = n;
        /* NUL-terminate for text files; the byte is not counted in *len. */
        if (n == cap) {
            p = realloc(p, cap + 1);
        }
        if (p) {
            p[n] = 0;
        }
    }
    return p;
}

/* Missing shared data: a skip with a clear message, unless BITNODE_REQUIRE_SHARED=1 (CI),
 * where it is a failure. Call before the first case; returns the exit code to use. */
static inline int test_missing_shared(const char *what)
{
    const char *req = getenv("BITNODE_REQUIRE_SHARED");
    if (req && strcmp(req, "1") == 0) {
        printf("Bail out! %s not found under %s (set BITNODE_SHARED to the shared/ folder)\n",
               what, test_shared_dir());
        return 1;
    }
    printf("1..0 # SKIP %s not found under %s (set BITNODE_SHARED to the shared/ folder)\n",
           what, test_shared_dir());
    test_planned_skip = 1;
    return 0;
}

/* One case's shared file: 1 if it is readable. Missing, it is a failure under
 * BITNODE_REQUIRE_SHARED=1 (CI) and otherwise a note and 0, so the caller skips the case. */
static inline int test_have_shared_file(const char *path)
{
    if (access(path, R_OK) == 0) {
        return 1;
    }
    const char *req = getenv("BITNODE_REQUIRE_SHARED");
    if (req && strcmp(req, "1") == 0) {
        printf("# %s not found (set BITNODE_SHARED to the shared/ folder)\n", path);
        CHECK(0);
    } else {
        printf("# skipped: %s not found (set BITNODE_SHARED to the shared/ folder)\n", path);
    }
    return 0;
}

/* Ends the run: prints the TAP plan and a summary; returns the process exit code. */
static inline int test_done(void)
{
    if (test_planned_skip) {
        return 0;
    }
    printf("1..%d\n", test_count);
    printf("# %d passed, %d failed\n", test_count - test_failed_count, test_failed_count);
    return test_failed_count ? 1 : 0;
}

#endif
