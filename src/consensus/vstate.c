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
