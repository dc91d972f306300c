/* A synced batch of the configured backend survives a power cut, under POSIX's rule for names
 * (test/util/powerloss.so with POWERLOSS_DIRSYNC=strict): a child writes synced batches until
 * the store has written more than BDB's 10 MiB log file (so that BDB, LevelDB and RocksDB
 * begin new log files, whose names must be durable too), says on stdout which batch was the
 * last to return, and is killed; after the restore the store must hold that batch. */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kv/kv.h"
#include "powerloss_shim.h"
#include "test.h"
#include "util/buf.h"
#include "../util/powerloss.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define PL_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define PL_SANITIZED 1
#endif
#endif

#define VALUE_BYTES (256 * 1024)
#define BATCHES 56 /* 14 MiB of values */

static char self[4096], shim[4096], base[1024], data[1100], jour[1100], store[1200];

/* Under the layer: synced batches, each announced once written, then SIGKILL. */
static int child(const char *dir)
{
    struct kv *kv = NULL;
    if (kv_open(&kv, kv_default_ops(), dir, NULL) != 0) {
        fprintf(stderr, "open: %s\n", kv_last_error(NULL));
        return 2;
    }
    uint8_t *val = malloc(VALUE_BYTES);
    struct kv_batch *b = kv_batch_new();
    for (uint32_t i = 0; i < BATCHES; i++) {
        memset(val, (int)(i & 0xff), VALUE_BYTES);
        uint8_t key[5] = {'v', (uint8_t)(i >> 24), (uint8_t)(i >> 16), (uint8_t)(i >> 8),
                          (uint8_t)i};
        kv_batch_clear(b);
        kv_batch_put(b, key, sizeof(key), val, VALUE_BYTES);
        kv_batch_put(b, "last", 4, key + 1, 4);
        if (kv_write(kv, b, 1) != 0) {
            fprintf(stderr, "write: %s\n", kv_last_error(kv));
            return 2;
        }
        printf("%u\n", i);
        fflush(stdout);
    }
    raise(SIGKILL);
    return 3;
}

static void test_synced_batches_survive_a_power_cut(void)
{
    int fds[2];
    CHECK(pipe(fds) == 0);
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(fds[1], 1);
        close(fds[0]);
        setenv("LD_PRELOAD", shim, 1);
        setenv("POWERLOSS_DIR", data, 1);
        setenv("POWERLOSS_JOURNAL", jour, 1);
        setenv("POWERLOSS_DIRSYNC", "strict", 1);
        execl(self, self, "child", store, (char *)NULL);
        _exit(4);
    }
    close(fds[1]);
    char out[4096] = "";
    size_t n = 0;
    ssize_t k;
    while (n < sizeof(out) - 1 && (k = read(fds[0], out + n, sizeof(out) - 1 - n)) > 0) {
        n += (size_t)k;
    }
    out[n] = 0;
    close(fds[0]);
    int st = 0;
    CHECK(waitpid(pid, &st, 0) == pid);
    CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
    char *last_line = strrchr(out, '\n');
    long last = -1;
    if (last_line) {
        *last_line = 0;
        char *p = strrchr(out, '\n');
        last = strtol(p ? p + 1 : out, NULL, 10);
    }
    CHECK_EQ_INT(last, BATCHES - 1);
    char err[8400];
    int rc = pl_restore(jour, err, sizeof(err));
    if (rc) {
        printf("# restore: %s\n", err);
    }
    CHECK_EQ_INT(rc, 0);
    struct kv *kv = NULL;
    rc = kv_open(&kv, kv_default_ops(), store, NULL);
    if (rc) {
        printf("# open after the cut: %s\n", kv_last_error(NULL));
    }
    CHECK_EQ_INT(rc, 0);
    if (rc == 0) {
        struct buf v;
        buf_init(&v);
        rc = kv_get(kv, &v, "last", 4);
        CHECK_EQ_INT(rc, 0);
        CHECK_EQ_INT(v.len, 4);
        if (rc == 0 && v.len == 4) {
            long got = (long)v.data[0] << 24 | (long)v.data[1] << 16 | (long)v.data[2] << 8 |
                       (long)v.data[3];
            CHECK_EQ_INT(got, last);
        }
        buf_clear(&v);
        kv_close(kv);
    }
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "child") == 0) {
        return child(argv[2]);
    }
#ifdef PL_SANITIZED
    printf("1..0 # SKIP the layer is preloaded, which a sanitizer's runtime refuses\n");
    return 0;
#endif
    if (powerloss_find_shim(argv[0], self, shim, sizeof(shim)) != 0) {
        return 1;
    }
    const char *tmp = getenv("TMPDIR");
    snprintf(base, sizeof(base), "%s/kv_powerloss.%d", tmp ? tmp : "/tmp", (int)getpid());
    snprintf(data, sizeof(data), "%s/d", base);
    snprintf(jour, sizeof(jour), "%s/j", base);
    snprintf(store, sizeof(store), "%s/store", data);
    char cmd[4200];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s' && mkdir -p '%s' '%s'", base, data, jour);
    if (system(cmd) != 0) {
        return 1;
    }
    printf("# backend=%s\n", kv_backend_name());
    TEST(test_synced_batches_survive_a_power_cut);
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", base);
    CHECK(system(cmd) == 0);
    return test_done();
}
