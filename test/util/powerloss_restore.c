/* The restore step of the power-loss layer (powerloss.h): after the process under
 * powerloss.so was killed, the files go back to their synced bytes and sizes, then the
 * directory operations made since the last commit are undone, the last first. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "powerloss.h"

static int fail(char *err, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, n, fmt, ap);
    va_end(ap);
    return -1;
}

static int read_full(int fd, void *p, size_t n)
{
    size_t got = 0;
    while (got < n) {
        ssize_t k = read(fd, (char *)p + got, n - got);
        if (k < 0 && errno == EINTR) {
            continue;
        }
        if (k <= 0) {
            return -1;
        }
        got += (size_t)k;
    }
    return 0;
}

struct rec {
    uint64_t off, len;
    char *bytes;
};

/* One file back to its synced state from its journal jpath. A record cut short by the kill
 * was never followed by its write, and is passed over. */
static int restore_file(const char *jpath, char *err, size_t n)
{
    int jfd = open(jpath, O_RDONLY | O_CLOEXEC);
    if (jfd < 0) {
        return fail(err, n, "cannot open %s: %s", jpath, strerror(errno));
    }
    struct pl_fhead h;
    if (read_full(jfd, &h, sizeof(h)) != 0 || memcmp(h.magic, PL_FHEAD_MAGIC, 8) != 0) {
        close(jfd); /* cut short before the file's first change */
        return 0;
    }
    h.path[PL_PATH_MAX - 1] = 0;
    struct rec *v = NULL;
    size_t nv = 0, cv = 0;
    struct pl_frec r;
    while (read_full(jfd, &r, sizeof(r)) == 0 && r.len < ((uint64_t)1 << 40)) {
        char *b = malloc(r.len ? r.len : 1);
        if (!b || read_full(jfd, b, r.len) != 0) {
            free(b);
            break;
        }
        if (nv == cv) {
            cv = cv ? 2 * cv : 16;
            v = realloc(v, cv * sizeof(*v));
        }
        v[nv++] = (struct rec){r.off, r.len, b};
    }
    close(jfd);
    int rc = 0, fd = open(h.path, O_RDWR | O_CLOEXEC);
    struct stat st;
    if (fd >= 0 && fstat(fd, &st) == 0 && (uint64_t)st.st_dev == h.dev &&
        (uint64_t)st.st_ino == h.ino) {
        if (ftruncate(fd, (off_t)h.synced_size) != 0) {
            rc = fail(err, n, "cannot truncate %s: %s", h.path, strerror(errno));
        }
        /* The first bytes saved for a place are those of the last sync: applied last. */
        for (size_t i = nv; rc == 0 && i-- > 0;) {
            if (pwrite(fd, v[i].bytes, v[i].len, (off_t)v[i].off) != (ssize_t)v[i].len) {
                rc = fail(err, n, "cannot write %s: %s", h.path, strerror(errno));
            }
        }
    }
    if (fd >= 0) {
        close(fd);
    }
    for (size_t i = 0; i < nv; i++) {
        free(v[i].bytes);
    }
    free(v);
    return rc;
}

static void remove_tree(const char *path)
{
    DIR *d = opendir(path);
    if (!d) {
        unlink(path);
        return;
    }
    struct dirent *de;
    char p[PL_PATH_MAX + 256];
    while ((de = readdir(d))) {
        if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) {
            snprintf(p, sizeof(p), "%s/%s", path, de->d_name);
            remove_tree(p);
        }
    }
    closedir(d);
    rmdir(path);
}

/* One line of dirops undone (fields split by tabs, in place). */
static void undo(char *line)
{
    char *f[4] = {line, NULL, NULL, NULL};
    for (int i = 1; i < 4 && f[i - 1]; i++) {
        char *t = strchr(f[i - 1], '\t');
        if (t) {
            *t = 0;
            f[i] = t + 1;
        }
    }
    if (!f[1]) {
        return;
    }
    switch (f[0][0]) {
    case 'C':
        unlink(f[1]);
        break;
    case 'M':
        remove_tree(f[1]);
        break;
    case 'D':
        mkdir(f[1], 0700);
        break;
    case 'U':
        if (f[2]) {
            rename(f[2], f[1]);
        }
        break;
    case 'R':
        if (f[2] && f[3]) {
            rename(f[2], f[1]);
            if (strcmp(f[3], "-") != 0) {
                rename(f[3], f[2]);
            }
        }
        break;
    }
}

/* The folder of path, in out. */
static void parent(const char *path, char *out, size_t n)
{
    snprintf(out, n, "%s", path);
    char *s = strrchr(out, '/');
    if (s) {
        *s = 0;
    }
}

/* Whether the operation of lines[i] was made durable by a later sync of its folders ("K"
 * lines, written under POWERLOSS_DIRSYNC=strict). */
static int committed(char **lines, size_t nl, size_t i)
{
    char dirs[2][PL_PATH_MAX], buf[3 * PL_PATH_MAX + 64];
    snprintf(buf, sizeof(buf), "%s", lines[i]);
    char *f[4] = {buf, NULL, NULL, NULL};
    for (int k = 1; k < 4 && f[k - 1]; k++) {
        char *t = strchr(f[k - 1], '\t');
        if (t) {
            *t = 0;
            f[k] = t + 1;
        }
    }
    if (!f[1]) {
        return 0;
    }
    int nd = 1;
    parent(f[1], dirs[0], sizeof(dirs[0]));
    if (f[0][0] == 'R' && f[2]) {
        char *t = strchr(f[2], '\t');
        if (t) {
            *t = 0;
        }
        parent(f[2], dirs[1], sizeof(dirs[1]));
        nd = 2;
    }
    for (int d = 0; d < nd; d++) {
        int found = 0;
        for (size_t j = i + 1; j < nl && !found; j++) {
            found = lines[j][0] == 'K' && lines[j][1] == '\t' && strcmp(lines[j] + 2, dirs[d]) == 0;
        }
        if (!found) {
            return 0;
        }
    }
    return 1;
}

static int undo_dirops(const char *jdir, char *err, size_t n)
{
    char p[PL_PATH_MAX + 16];
    snprintf(p, sizeof(p), "%s/dirops", jdir);
    FILE *f = fopen(p, "rb");
    if (!f) {
        return errno == ENOENT ? 0 : fail(err, n, "cannot open %s: %s", p, strerror(errno));
    }
    char **lines = NULL, *line = NULL;
    size_t nl = 0, cl = 0, cap = 0;
    ssize_t k;
    while ((k = getline(&line, &cap, f)) > 0) {
        if (line[k - 1] != '\n') {
            break; /* cut short: its operation was never made */
        }
        line[k - 1] = 0;
        if (nl == cl) {
            cl = cl ? 2 * cl : 64;
            lines = realloc(lines, cl * sizeof(*lines));
        }
        lines[nl++] = strdup(line);
    }
    free(line);
    fclose(f);
    for (size_t i = nl; i-- > 0;) {
        if (lines[i][0] != 'K' && !committed(lines, nl, i)) {
            undo(lines[i]);
        }
    }
    for (size_t i = 0; i < nl; i++) {
        free(lines[i]);
    }
    free(lines);
    return 0;
}

/* Empties the journal: f.* files, dirops, saved/. */
static int empty_journal(const char *jdir, int restore_files, char *err, size_t n)
{
    char p[PL_PATH_MAX + 300];
    DIR *d = opendir(jdir);
    if (!d) {
        return fail(err, n, "cannot open %s: %s", jdir, strerror(errno));
    }
    struct dirent *de;
    int rc = 0;
    while ((de = readdir(d))) {
        if (strncmp(de->d_name, "f.", 2) == 0) {
            snprintf(p, sizeof(p), "%s/%s", jdir, de->d_name);
            if (restore_files && rc == 0) {
                rc = restore_file(p, err, n);
            }
            unlink(p);
        }
    }
    closedir(d);
    if (rc == 0 && restore_files) {
        rc = undo_dirops(jdir, err, n);
    }
    snprintf(p, sizeof(p), "%s/dirops", jdir);
    if (truncate(p, 0) != 0 && errno != ENOENT) {
        rc = rc ? rc : fail(err, n, "cannot empty %s: %s", p, strerror(errno));
    }
    snprintf(p, sizeof(p), "%s/saved", jdir);
    remove_tree(p);
    return rc;
}

int pl_restore(const char *journal_dir, char *err, size_t err_len)
{
    return empty_journal(journal_dir, 1, err, err_len);
}

int pl_discard(const char *journal_dir, char *err, size_t err_len)
{
    return empty_journal(journal_dir, 0, err, err_len);
}
