#include "util/rc.h"

const char *rc_str(int rc)
{
    switch (rc) {
    case RC_OK:
        return "ok";
    case RC_TRUNCATED:
        return "truncated input";
    case RC_NONCANONICAL:
        return "non-canonical encoding";
    case RC_TOO_LARGE:
        return "too large";
    case RC_TRAILING:
        return "trailing data";
    case RC_INVALID:
        return "invalid";
    case RC_IO:
        return "I/O error";
    case RC_CORRUPT:
        return "corrupt data";
    case RC_NOT_FOUND:
        return "not found";
    case RC_BACKEND:
        return "storage backend error";
    case RC_STOPPED:
        return "stopped before it was done";
    case RC_USAGE:
        return "bad usage";
    case RC_FOREIGN:
        return "written by another program";
    default:
        return "unknown error";
    }
}
