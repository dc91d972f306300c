/* The reject-reason table (reject.h). */
#include "consensus/reject.h"

static const char *const texts[REJECT_COUNT] = {
#define CONSENSUS_REJECT_TEXT(id, text) [REJECT_##id] = text,
    CONSENSUS_REJECT_TABLE(CONSENSUS_REJECT_TEXT)
#undef CONSENSUS_REJECT_TEXT
};

const char *consensus_reject_text(enum consensus_reject r)
{
    return (unsigned)r < REJECT_COUNT ? texts[r] : 0;
}
