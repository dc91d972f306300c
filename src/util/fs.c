#include "util/fs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "util/check.h"
#include "util/rc.h"
#include "util/xmalloc.h"

static const struct fs_chain_info chains[] = {
    {"main", "", 8332, 8333},
    {"test", "testnet3", 18332, 18333},
    {"testnet4", "testnet4", 48332, 48333},
    {"signet", "signet", 38332, 38333},
    {"regtest", "regtest", 18443, 18444},
};

const struct fs_chain_info *fs_chain_info(const char *name)
{
    for (size_t i = 0; i < ARRAY_LEN(chains); i++) {
        if (strcmp(chains[i].name, name) == 0) {
            return &chains[i];
        }
    }
    return NULL;
}

char *fs_default_datadir(void)
{
    const char *home = getenv("HOME");
    if (!home || !*home) {
        home = "/";
    }
    return fs_path_join(home, ".bitcoin");
}

char *fs_path_join(const char *a, const char *b)
{
    if (b[0] == '/' || a[0] == 0) {
        return xstrdup(b);
    }
    if (b[0] == 0) {
        return xstrdup(a);
    }
    size_t la = strlen(a), lb = strlen(b);
    bool slash = a[la - 1] == '/';
    char *p = xmalloc(la + lb + 2);
    memcpy(p, a, la);
    if (!slash) {
        p[la++] = '/';
    }
    memcpy(p + la, b, lb + 1);
    return p;
}

bool fs_is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int fs_mkdir_p(const char *path, char *err, size_t err_len)
{
    char *p = xstrdup(path);
    int rc = RC_OK;
    for (char *s = p + 1;; s++) {
        if (*s == '/' || *s == 0) {
            char c = *s;
            *s = 0;
            if (mkdir(p, 0700) != 0 && errno != EEXIST) {
                snprintf(err, err_len, "cannot create directory %s: %s", p, strerror(errno));
                rc = RC_IO;
                break;
            }
            *s = c;
            if (c == 0) {
                break;
            }
        }
    }
    if (rc == RC_OK && !fs_is_dir(path)) {
        snprintf(err, err_len, "%s exists and is not a directory", path);
        rc = RC_IO;
    }
    free(p);
    return rc;
}

/* Bitcoin Core locks the same .lock with a POSIX record lock (fcntl F_SETLK, the whole file),
 * which flock does not see: without a lock of that kind a bitnoded would run beside a
 * bitcoind on its datadir, overwrite its .cookie and pid file and delete them at shutdown.
 * An open-file-description lock conflicts with Core's and, unlike a POSIX record lock, stays
 * with the open file, so it survives the fork of -daemon as flock does. */
static int lock_like_core(int fd, const char *dir, const char *path, char *err, size_t err_len)
{
#ifdef F_OFD_SETLK
    struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 0};
    if (fcntl(fd, F_OFD_SETLK, &fl) == 0) {
        return RC_OK;
    }
    if (errno != EAGAIN && errno != EACCES) {
        snprintf(err, err_len, "cannot lock %s: %s", path, strerror(errno));
        return RC_IO;
    }
    /* A POSIX lock names its process (an OFD lock, bitnode's, does not: pid -1). */
    struct flock who = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 0};
    if (fcntl(fd, F_OFD_GETLK, &who) == 0 && who.l_type != F_UNLCK && who.l_pid > 0) {
        snprintf(err, err_len,
                 "Cannot obtain a lock on directory %s. Process %ld holds it: Bitcoin Core's "
                 "bitcoind is probably running on it.",
                 dir, (long)who.l_pid);
    } else {
        snprintf(err, err_len,
                 "Cannot obtain a lock on directory %s. bitnode is probably already running.",
                 dir);
    }
    return RC_INVALID;
#else
    (void)fd, (void)dir, (void)path, (void)err, (void)err_len;
    return RC_OK;
#endif
}

int fs_lock_dir(const char *dir, int *fd_out, char *err, size_t err_len)
{
    char *path = fs_path_join(dir, ".lock");
    int rc = RC_OK;
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0) {
        snprintf(err, err_len, "cannot open lock file %s: %s", path, strerror(errno));
        rc = RC_IO;
        goto out;
    }
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        if (errno == EWOULDBLOCK) {
            snprintf(err, err_len,
                     "Cannot obtain a lock on directory %s. bitnode is probably already running.",
                     dir);
            rc = RC_INVALID;
        } else {
            snprintf(err, err_len, "cannot lock %s: %s", path, strerror(errno));
            rc = RC_IO;
        }
        close(fd);
        goto out;
    }
    if ((rc = lock_like_core(fd, dir, path, err, err_len)) != RC_OK) {
        close(fd);
        goto out;
    }
    *fd_out = fd;
out:
    free(path);
    return rc;
}

void fs_unlock_dir(int fd)
{
    if (fd >= 0) {
        flock(fd, LOCK_UN);
        close(fd);
    }
}

int fs_write_file_atomic(const char *path, const void *data, size_t len, mode_t mode, char *err,
                         size_t err_len)
{
    return fs_write_file_via(path, ".tmp", data, len, mode, err, err_len);
}

int fs_write_file_via(const char *path, const char *suffix, const void *data, size_t len,
                      mode_t mode, char *err, size_t err_len)
{
    size_t n = strlen(path), ns = strlen(suffix);
    char *tmp = xmalloc(n + ns + 1);
    memcpy(tmp, path, n);
    memcpy(tmp + n, suffix, ns + 1);
    int rc = RC_OK;
    unlink(tmp);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
    if (fd < 0) {
        snprintf(err, err_len, "cannot create %s: %s", tmp, strerror(errno));
        rc = RC_IO;
        goto out;
    }
    /* The umask must not widen or narrow what the caller asked for. */
    fchmod(fd, mode);
    const char *p = data;
    size_t left = len;
    while (left > 0) {
        ssize_t w = write(fd, p, left);
        if (w < 0 && errno == EINTR) {
            continue;
        }
        if (w <= 0) {
            snprintf(err, err_len, "cannot write %s: %s", tmp, strerror(errno));
            rc = RC_IO;
            break;
        }
        p += w;
        left -= (size_t)w;
    }
    if (rc == RC_OK && fsync(fd) != 0) {
        snprintf(err, err_len, "cannot fsync %s: %s", tmp, strerror(errno));
        rc = RC_IO;
    }
    close(fd);
    if (rc == RC_OK && rename(tmp, path) != 0) {
        snprintf(err, err_len, "cannot rename %s to %s: %s", tmp, path, strerror(errno));
        rc = RC_IO;
    }
    if (rc != RC_OK) {
        unlink(tmp);
    }
out:
    free(tmp);
    return rc;
}

bool fs_disk_space_ok(const char *dir, uint64_t additional)
{
    struct statvfs st;
    if (statvfs(dir, &st) != 0) {
        return true;
    }
    uint64_t avail = (uint64_t)st.f_bavail * (uint64_t)st.f_frsize;
    return avail >= FS_MIN_DISK_SPACE + additional;
}

int fs_read_file(const char *path, struct buf *out, size_t max_bytes, char *err, size_t err_len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, err_len, "cannot open %s: %s", path, strerror(errno));
        return errno == ENOENT ? RC_NOT_FOUND : RC_IO;
    }
    int rc = RC_OK;
    size_t total = 0;
    for (;;) {
        uint8_t chunk[8192];
        ssize_t r = read(fd, chunk, sizeof(chunk));
        if (r < 0 && errno == EINTR) {
            continue;
        }
        if (r < 0) {
            snprintf(err, err_len, "cannot read %s: %s", path, strerror(errno));
            rc = RC_IO;
            break;
        }
        if (r == 0) {
            break;
        }
        total += (size_t)r;
        if (total > max_bytes) {
            snprintf(err, err_len, "%s is larger than %zu bytes", path, max_bytes);
            rc = RC_TOO_LARGE;
            break;
        }
        buf_append(out, chunk, (size_t)r);
    }
    close(fd);
    return rc;
}

int fs_sync_dir(const char *path, char *err, size_t err_len)
{
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0 || fsync(fd) != 0) {
        snprintf(err, err_len, "cannot fsync the directory %s: %s", path, strerror(errno));
        if (fd >= 0) {
            close(fd);
        }
        return RC_IO;
    }
    close(fd);
    return RC_OK;
}

int fs_pidfile_write(const char *path, pid_t pid, char *err, size_t err_len)
{
    char text[32];
    int n = snprintf(text, sizeof(text), "%ld\n", (long)pid);
    FILE *f = fopen(path, "w");
    if (!f) {
        snprintf(err, err_len, "Unable to create the PID file '%s': %s", path, strerror(errno));
        return RC_IO;
    }
    fwrite(text, 1, (size_t)n, f);
    if (fclose(f) != 0) {
        snprintf(err, err_len, "Unable to write the PID file '%s': %s", path, strerror(errno));
        return RC_IO;
    }
    return RC_OK;
}

int fs_touch_synced(const char *path, char *err, size_t err_len)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0 || fsync(fd) != 0) {
        snprintf(err, err_len, "cannot write %s: %s", path, strerror(errno));
        if (fd >= 0) {
            close(fd);
        }
        return RC_IO;
    }
    close(fd);
    char dir[4200];
    snprintf(dir, sizeof(dir), "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash) {
        *slash = 0;
    }
    char ignored[64]; /* the marker itself is synced; its name is best effort */
    (void)fs_sync_dir(slash ? dir : ".", ignored, sizeof(ignored));
    return RC_OK;
}
