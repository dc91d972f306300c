/* Paths and files of a datadir: the per-network subfolder, the lock that keeps two daemons
 * apart, the pid file, and small whole-file reads and atomic writes (cookie, settings).
 */
#ifndef BITNODE_UTIL_FS_H
#define BITNODE_UTIL_FS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "util/buf.h"

/* What the daemon and the client need to know about a chain before consensus is involved
 * (Bitcoin Core's CBaseChainParams): util sits below consensus, so it keeps its own small
 * table; test/unit/args_tests.c checks that it agrees with chain_params_get(). */
struct fs_chain_info {
    const char *name;   /* "main", "test", "testnet4", "signet", "regtest" */
    const char *subdir; /* datadir subfolder: "" for main, "testnet3", ... */
    uint16_t rpc_port;
    uint16_t p2p_port;
};

/** Returns the chain called name, or NULL if there is none. Static storage. */
const struct fs_chain_info *fs_chain_info(const char *name);

/** Returns the default datadir, $HOME/.bitcoin as Core's on Linux ("/.bitcoin" without HOME),
 *  so that bitnoded and bitnode-cli are drop-ins for bitcoind and bitcoin-cli: scripts find
 *  .cookie and bitcoin.conf where they look. Stores Core wrote there are refused (kv_open),
 *  and Core's lock is respected (fs_lock_dir). Caller frees. */
char *fs_default_datadir(void);
/** Returns "a/b" (caller frees); b alone if b is absolute. */
char *fs_path_join(const char *a, const char *b);
/** Returns true if path exists and is a directory. */
bool fs_is_dir(const char *path);
/** Creates path and its missing parents (mode 0700). Returns 0 or RC_IO with err filled. */
int fs_mkdir_p(const char *path, char *err, size_t err_len);

/** Takes an exclusive lock on <dir>/.lock, of both kinds: flock, and an open-file-description
 *  record lock, which conflicts with the POSIX record lock Bitcoin Core takes on the same
 *  file (both stay with the open file, so they survive a fork into the background).
 *  Returns 0 with *fd_out open, RC_INVALID if another process holds it (bitnode, or
 *  Bitcoin Core: the message says which), RC_IO on other failures; err is filled in both. */
int fs_lock_dir(const char *dir, int *fd_out, char *err, size_t err_len);
/** Releases a lock taken by fs_lock_dir (fd < 0: no-op). */
void fs_unlock_dir(int fd);

/** Writes data to path through path.tmp and a rename, with the given mode (e.g. 0600 for
 *  the cookie), so readers never see half a file. Returns 0 or RC_IO with err filled. */
int fs_write_file_atomic(const char *path, const void *data, size_t len, mode_t mode, char *err,
                         size_t err_len);
/** fs_write_file_atomic through path + suffix (mempool.dat goes through mempool.dat.new, as
 *  Core's DumpMempool). */
int fs_write_file_via(const char *path, const char *suffix, const void *data, size_t len,
                      mode_t mode, char *err, size_t err_len);
/** Appends the whole file (at most max_bytes) to out. Returns 0, RC_NOT_FOUND if it does
 *  not exist, RC_TOO_LARGE, or RC_IO; err is filled on failure. */
/* Core's CheckDiskSpace margin: what must stay free beyond what a write needs. */
#define FS_MIN_DISK_SPACE (50ull << 20)

/** Core's CheckDiskSpace: whether the file system holding dir has FS_MIN_DISK_SPACE plus
 *  additional bytes available (to this user: statvfs's f_bavail).
 *  Returns: true when it has, or when statvfs cannot tell (a path that fails to stat is not
 *           a full disk); false when it has not. */
bool fs_disk_space_ok(const char *dir, uint64_t additional);

int fs_read_file(const char *path, struct buf *out, size_t max_bytes, char *err, size_t err_len);

/** Creates path as an empty file (truncated if it exists), then syncs the file and its
 *  directory, so that it is there after a kill or a power cut (a marker: "this store is
 *  being wiped"). Returns 0 or RC_IO with err filled. */
int fs_touch_synced(const char *path, char *err, size_t err_len);

/** fsyncs the directory path itself, so that the names created, renamed or removed in it
 *  survive a power cut (POSIX makes a name durable only so; a journalling file system
 *  orders names anyway). Returns 0 or RC_IO with err filled. */
int fs_sync_dir(const char *path, char *err, size_t err_len);

/** Writes "<pid>\n" to path. Returns 0 or RC_IO with err filled. */
int fs_pidfile_write(const char *path, pid_t pid, char *err, size_t err_len);

#endif
