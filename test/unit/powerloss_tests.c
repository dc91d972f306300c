/* The power-loss layer itself (test/util/powerloss.c): a child process under powerloss.so
 * changes files and kills itself; after pl_restore the tree must hold exactly what the
 * child's syncs made durable. */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "powerloss_shim.h"
#include "test.h"
#include "../util/powerloss.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define PL_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define PL_SANITIZED 1
#endif
#endif

static char self[4096], shim[4096], base[1024], data[1024 + 8], jour[1024 + 8];

static void put(const char *name, const char *text)
{
    char p[1200];
    snprintf(p, sizeof(p), "%s/%s", data, name);
    int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    CHECK(fd >= 0 && write(fd, text, strlen(text)) == (ssize_t)strlen(text));
    close(fd);
}

/* The file's text, or "<absent>". */
static const char *get(const char *name)
{
    static char buf[256];
    char p[1200];
    snprintf(p, sizeof(p), "%s/%s", data, name);
    int fd = open(p, O_RDONLY);
    if (fd < 0) {
        return "<absent>";
    }
    ssize_t n = read(fd, buf, sizeof(buf) - 1);
    close(fd);
    buf[n > 0 ? n : 0] = 0;
    return buf;
}

#define CHECK_FILE(name, want)                                                               \
    do {                                                                                     \
        const char *got_ = get(name);                                                        \
        if (strcmp(got_, want) != 0) {                                                       \
            printf("# %s:%d: %s holds '%s', not '%s'\n", __FILE__, __LINE__, name, got_,     \
                   want);                                                                    \
            test_case_failed = 1;                                                            \
        }                                                                                    \
    } while (0)

static int fd_of(const char *name, int flags)
{
    char p[1200];
    snprintf(p, sizeof(p), "%s/%s", data, name);
    return open(p, flags, 0600);
}

static void path_of(char *out, size_t n, const char *name)
{
    snprintf(out, n, "%s/%s", data, name);
}

static void wr(int fd, const char *s)
{
    if (write(fd, s, strlen(s)) != (ssize_t)strlen(s)) {
        _exit(3);
    }
}

static void pwr(int fd, const char *s, off_t off)
{
    if (pwrite(fd, s, strlen(s), off) != (ssize_t)strlen(s)) {
        _exit(3);
    }
}

/* ---- what each child does under the layer, then SIGKILL ---- */

static void child(const char *c)
{
    char a[1200], b[1200];
    if (strcmp(c, "unsynced") == 0) {
        wr(fd_of("a", O_WRONLY | O_APPEND), " world");
    } else if (strcmp(c, "synced") == 0) {
        int fd = fd_of("a", O_WRONLY | O_APPEND);
        wr(fd, " world");
        fdatasync(fd);
        wr(fd, "!");
    } else if (strcmp(c, "overwrite") == 0) {
        int fd = fd_of("a", O_RDWR);
        pwr(fd, "XY", 2);
        fsync(fd);
        pwr(fd, "ZZZZ", 0);
        pwr(fd, "QQQ", 1);
        pwr(fd, "tail", 8);
        int wo = fd_of("a", O_WRONLY); /* saved through a descriptor it cannot read */
        pwr(wo, "W", 7);
    } else if (strcmp(c, "vector") == 0) {
        int fd = fd_of("a", O_RDWR);
        struct iovec v[2] = {{"AA", 2}, {"BB", 2}};
        lseek(fd, 3, SEEK_SET);
        if (writev(fd, v, 2) != 4 || pwritev(fd, v, 1, 0) != 2) {
            _exit(3);
        }
    } else if (strcmp(c, "created") == 0) {
        wr(fd_of("new", O_WRONLY | O_CREAT | O_EXCL), "data");
    } else if (strcmp(c, "created_committed") == 0) {
        wr(fd_of("new", O_WRONLY | O_CREAT | O_EXCL), "data");
        fsync(fd_of("a", O_RDONLY)); /* commits the creation, not new's bytes */
    } else if (strcmp(c, "created_synced") == 0 || strcmp(c, "created_dir_synced") == 0) {
        int fd = fd_of("new", O_WRONLY | O_CREAT | O_EXCL);
        wr(fd, "data");
        fsync(fd);
        if (strcmp(c, "created_dir_synced") == 0) {
            fsync(open(data, O_RDONLY | O_DIRECTORY));
        }
    } else if (strcmp(c, "rename") == 0 || strcmp(c, "rename_synced") == 0) {
        int fd = fd_of("tmp", O_WRONLY | O_CREAT | O_EXCL);
        wr(fd, "new");
        fsync(fd);
        path_of(a, sizeof(a), "tmp");
        path_of(b, sizeof(b), "a");
        if (rename(a, b) != 0) {
            _exit(3);
        }
        if (strcmp(c, "rename_synced") == 0) {
            fsync(open(data, O_RDONLY | O_DIRECTORY));
        }
    } else if (strcmp(c, "unlink") == 0 || strcmp(c, "unlink_synced") == 0) {
        path_of(a, sizeof(a), "a");
        int fd = fd_of("a", O_WRONLY | O_APPEND);
        wr(fd, "more");
        if (unlink(a) != 0) {
            _exit(3);
        }
        if (strcmp(c, "unlink_synced") == 0) {
            fsync(fd_of("b", O_RDONLY));
        }
    } else if (strcmp(c, "truncate") == 0) {
        int fd = fd_of("a", O_RDWR);
        if (ftruncate(fd, 3) != 0) {
            _exit(3);
        }
        wr(fd, "abc");
        close(fd_of("b", O_WRONLY | O_TRUNC));
        path_of(b, sizeof(b), "b");
        if (truncate(b, 100) != 0 || posix_fallocate(fd, 0, 4096) != 0) {
            _exit(3);
        }
    } else if (strcmp(c, "mkdir") == 0) {
        path_of(a, sizeof(a), "d");
        path_of(b, sizeof(b), "d/f");
        if (mkdir(a, 0700) != 0) {
            _exit(3);
        }
        int fd = open(b, O_WRONLY | O_CREAT, 0600);
        wr(fd, "x");
        fsync(fd); /* durable: d and d/f with their byte */
        path_of(b, sizeof(b), "d/g");
        wr(open(b, O_WRONLY | O_CREAT, 0600), "y");
    } else if (strcmp(c, "dsync") == 0) {
        wr(fd_of("a", O_WRONLY | O_APPEND | O_DSYNC), "+");
    }
    raise(SIGKILL);
    _exit(2);
}

static int strict_mode;

/* Runs case c in a child under the layer, checks it was killed, restores. */
static void run(const char *c)
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        setenv("LD_PRELOAD", shim, 1);
        setenv("POWERLOSS_DIR", data, 1);
        setenv("POWERLOSS_JOURNAL", jour, 1);
        if (strict_mode) {
            setenv("POWERLOSS_DIRSYNC", "strict", 1);
        }
        execl(self, self, "child", c, (char *)NULL);
        _exit(4);
    }
    int st = 0;
    CHECK(pid > 0 && waitpid(pid, &st, 0) == pid);
    CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
    char err[8400];
    int rc = pl_restore(jour, err, sizeof(err));
    if (rc != 0) {
        printf("# restore: %s\n", err);
    }
    CHECK_EQ_INT(rc, 0);
}

/* A fresh tree: a = "hello", b = "0123456789", synced before the child. */
static void fresh(void)
{
    char cmd[8400];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s' && mkdir -p '%s' '%s'", base, data, jour);
    CHECK(system(cmd) == 0);
    put("a", "hello");
    put("b", "0123456789");
}

static void test_unsynced_write_is_lost(void)
{
    fresh();
    run("unsynced");
    CHECK_FILE("a", "hello");
}

static void test_synced_write_survives(void)
{
    fresh();
    run("synced");
    CHECK_FILE("a", "hello world");
}

static void test_overwrites_go_back_to_synced_bytes(void)
{
    fresh();
    run("overwrite");
    CHECK_FILE("a", "heXYo");
    fresh();
    run("vector");
    CHECK_FILE("a", "hello");
}

static void test_created_unsynced_file_is_gone(void)
{
    fresh();
    run("created");
    CHECK_FILE("new", "<absent>");
    fresh();
    run("created_committed"); /* its name durable, its bytes not */
    CHECK_FILE("new", "");
    fresh();
    run("created_synced");
    CHECK_FILE("new", "data");
}

static void test_rename_durable_at_the_next_sync(void)
{
    fresh();
    run("rename");
    CHECK_FILE("a", "hello");
    CHECK_FILE("tmp", "new");
    fresh();
    run("rename_synced");
    CHECK_FILE("a", "new");
    CHECK_FILE("tmp", "<absent>");
}

static void test_unlink_durable_at_the_next_sync(void)
{
    fresh();
    run("unlink");
    CHECK_FILE("a", "hello");
    fresh();
    run("unlink_synced");
    CHECK_FILE("a", "<absent>");
}

static void test_truncations_are_undone(void)
{
    fresh();
    run("truncate");
    CHECK_FILE("a", "hello");
    CHECK_FILE("b", "0123456789");
}

static void test_new_folder(void)
{
    fresh();
    run("mkdir");
    CHECK_FILE("d/f", "x");
    CHECK_FILE("d/g", "<absent>");
}

/* POWERLOSS_DIRSYNC=strict: a name is durable only once its folder was synced. */
static void test_strict_names_need_the_folder_synced(void)
{
    strict_mode = 1;
    fresh();
    run("created_synced");
    CHECK_FILE("new", "<absent>");
    fresh();
    run("created_dir_synced");
    CHECK_FILE("new", "data");
    fresh();
    run("rename");
    CHECK_FILE("a", "hello");
    CHECK_FILE("tmp", "<absent>");
    fresh();
    run("rename_synced");
    CHECK_FILE("a", "new");
    CHECK_FILE("tmp", "<absent>");
    fresh();
    run("unlink_synced"); /* b synced, not the folder */
    CHECK_FILE("a", "hello");
    fresh();
    run("mkdir"); /* the folder stays, the file synced in it does not */
    CHECK_FILE("d/f", "<absent>");
    struct stat st;
    char p[1200];
    path_of(p, sizeof(p), "d");
    CHECK(stat(p, &st) == 0 && S_ISDIR(st.st_mode));
    strict_mode = 0;
}

static void test_o_dsync_write_is_durable_and_counted(void)
{
    fresh();
    char p[8400];
    snprintf(p, sizeof(p), "%s/counts", jour);
    unlink(p);
    run("dsync");
    CHECK_FILE("a", "hello+");
    run("synced");
    struct pl_counts c;
    int fd = open(p, O_RDONLY);
    CHECK(fd >= 0 && read(fd, &c, sizeof(c)) == (ssize_t)sizeof(c));
    close(fd);
    int found = 0;
    for (uint32_t i = 0; i < c.n; i++) {
        if (strcmp(c.slot[i].label, ".:a") == 0) {
            found = 1;
            CHECK_EQ_U64(c.slot[i].dsync_writes, 1);
            CHECK_EQ_U64(c.slot[i].fdatasync, 1);
            CHECK_EQ_U64(c.slot[i].writes, 3);
        }
    }
    CHECK(found);
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "child") == 0) {
        snprintf(data, sizeof(data), "%s", getenv("POWERLOSS_DIR"));
        child(argv[2]);
    }
#ifdef PL_SANITIZED
    printf("1..0 # SKIP the layer is preloaded, which a sanitizer's runtime refuses\n");
    return 0;
#endif
    if (powerloss_find_shim(argv[0], self, shim, sizeof(shim)) != 0) {
        return 1;
    }
    const char *tmp = getenv("TMPDIR");
    snprintf(base, sizeof(base), "%s/powerloss_tests.%d", tmp ? tmp : "/tmp", (int)getpid());
    snprintf(data, sizeof(data), "%s/d", base);
    snprintf(jour, sizeof(jour), "%s/j", base);
    TEST(test_unsynced_write_is_lost);
    TEST(test_synced_write_survives);
    TEST(test_overwrites_go_back_to_synced_bytes);
    TEST(test_created_unsynced_file_is_gone);
    TEST(test_rename_durable_at_the_next_sync);
    TEST(test_unlink_durable_at_the_next_sync);
    TEST(test_truncations_are_undone);
    TEST(test_new_folder);
    TEST(test_strict_names_need_the_folder_synced);
    TEST(test_o_dsync_write_is_durable_and_counted);
    char cmd[4200];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", base);
    CHECK(system(cmd) == 0);
    return test_done();
}
