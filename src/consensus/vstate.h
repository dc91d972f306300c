/* A validation verdict (doc/conventions.md: "bad input is not an error"): valid, or invalid with
 * Bitcoin Core's reject reason ("bad-txns-inputs-missingorspent", "high-hash", ...) and a
 * detail for logs. System failures are not verdicts: they travel as negative return codes.
 */
#ifndef BITNODE_CONSENSUS_VSTATE_H
#define BITNODE_CONSENSUS_VSTATE_H

#include <stddef.h>

#include "consensus/reject.h"

enum vstate_mode {
    VSTATE_VALID = 0,
    VSTATE_INVALID = 1,
};

/* Why a block is invalid (Core's BlockValidationResult): decides what may be remembered.
 * A MUTATED block says nothing about its header (another body may be valid), so its hash
 * must not be marked failed; CONSENSUS and INVALID_HEADER may be. */
enum vstate_result {
    VRESULT_NONE = 0,
    VRESULT_CONSENSUS,      /* broke a consensus rule */
    VRESULT_MUTATED,        /* body does not match the header (merkle, witness) */
    VRESULT_INVALID_HEADER, /* the header itself is invalid (pow, bits, time, version) */
    VRESULT_TIME_FUTURE,    /* too far in the future: may become valid later */
    VRESULT_MISSING_PREV,   /* parent unknown */
    VRESULT_INVALID_PREV,   /* parent known invalid */
    VRESULT_CACHED_INVALID, /* known invalid already */
    /* A transaction's own verdict (Core's TX_PREMATURE_SPEND): it spends a coinbase too
     * young, so it may be valid in a later block. In a block it is a CONSENSUS failure. */
    VRESULT_TX_PREMATURE_SPEND,
};

#define VSTATE_REJECT_LEN 160
#define VSTATE_DEBUG_LEN 400

struct vstate {
    enum vstate_mode mode;
    enum vstate_result result;
    char reject[VSTATE_REJECT_LEN]; /* Core's reject reason; "" while valid */
    char debug[VSTATE_DEBUG_LEN];   /* detail for logs; "" while valid */
};

/** Makes s valid. */
void vstate_init(struct vstate *s);
/** Records an invalid verdict (the first one is kept). Returns RC_INVALID, so checks can
 *  end with `return vstate_invalid(...)`. reject is Core's string, made from an entry of
 *  consensus/reject.h's table (use vstate_reject for a plain entry); fmt the detail. */
int vstate_invalid(struct vstate *s, enum vstate_result result, const char *reject,
                   const char *fmt, ...) __attribute__((format(printf, 4, 5)));
#define VSTATE_STRING_LEN (VSTATE_REJECT_LEN + VSTATE_DEBUG_LEN + 2)

/** Core's ValidationState::ToString into out (len bytes, VSTATE_STRING_LEN holds any):
 *  "Valid", the reject reason, or "reason, debug". Returns out. */
const char *vstate_to_string(const struct vstate *s, char *out, size_t len);

/** vstate_invalid with the reason from Core's table (consensus/reject.h; not one of its
 *  formats). Returns RC_INVALID. */
int vstate_reject(struct vstate *s, enum vstate_result result, enum consensus_reject reason,
                  const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static inline int vstate_is_valid(const struct vstate *s)
{
    return s->mode == VSTATE_VALID;
}

#endif
