/* Return codes shared by every module.
 *
 * Functions return 0 (RC_OK) on success or one of these negative codes. A code says what
 * kind of failure it was; the human-readable detail travels separately (an error buffer or a
 * validation state), because the same kind of failure happens in many places.
 */
#ifndef BITNODE_UTIL_RC_H
#define BITNODE_UTIL_RC_H

enum rc {
    RC_OK = 0,
    RC_TRUNCATED = -1,    /* input ended before a field was complete */
    RC_NONCANONICAL = -2, /* an encoding that has a shorter form, where that is forbidden */
    RC_TOO_LARGE = -3,    /* a size or count past its limit */
    RC_TRAILING = -4,     /* bytes left over after a complete object */
    RC_INVALID = -5,      /* well-formed but not acceptable (bad checksum, bad value) */
    RC_IO = -6,           /* read/write/fsync failed */
    RC_CORRUPT = -7,      /* stored data does not decode */
    RC_NOT_FOUND = -8,    /* a lookup found nothing (only where that is not a verdict) */
    RC_BACKEND = -9,      /* a storage backend reported an error */
    RC_USAGE = -10,       /* the caller passed arguments the contract forbids */
    RC_STOPPED = -11,     /* not done: the thread that does it is stopping (shutdown) */
    RC_FOREIGN = -12,     /* data another program wrote (Bitcoin Core's stores): not ours to use */
};

/** Returns a short static description of a return code ("truncated input", ...). */
const char *rc_str(int rc);

#endif
