#include "consensus/vstate.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "util/rc.h"

void vstate_init(struct vstate *s)
{
    s->mode = VSTATE_VALID;
    s->result = VRESULT_NONE;
    s->reject[0] = '\0';
    s->debug[0] = '\0';
}

int vstate_invalid(struct vstate *s, enum vstate_result result, const char *reject,
                   const char *fmt, ...)
{
    if (s->mode == VSTATE_VALID) {
        va_list ap;
        s->mode = VSTATE_INVALID;
        s->result = result;
        snprintf(s->reject, sizeof(s->reject), "%s", reject);
        va_start(ap, fmt);
        vsnprintf(s->debug, sizeof(s->debug), fmt, ap);
        va_end(ap);
    }
    return RC_INVALID;
}

int vstate_reject(struct vstate *s, enum vstate_result result, enum consensus_reject reason,
                  const char *fmt, ...)
{
    if (s->mode == VSTATE_VALID) {
        va_list ap;
        s->mode = VSTATE_INVALID;
        s->result = result;
        const char *text = consensus_reject_text(reason);
        snprintf(s->reject, sizeof(s->reject), "%s", text ? text : "unknown");
        va_start(ap, fmt);
        vsnprintf(s->debug, sizeof(s->debug), fmt, ap);
        va_end(ap);
    }
    return RC_INVALID;
}

const char *vstate_to_string(const struct vstate *s, char *out, size_t len)
{
    if (s->mode == VSTATE_VALID) {
        snprintf(out, len, "Valid");
    } else {
        snprintf(out, len, "%s%s%s", s->reject, s->debug[0] ? ", " : "", s->debug);
    }
    return out;
}
