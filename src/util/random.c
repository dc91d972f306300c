#include "util/random.h"

#include <limits.h>
#include <openssl/rand.h>
#include <stdlib.h>

#include "util/check.h"
#include "util/log.h"

void random_bytes(uint8_t *out, size_t n)
{
    while (n > 0) {
        int chunk = n > INT_MAX ? INT_MAX : (int)n;
        CHECK_ALWAYS(RAND_bytes(out, chunk) == 1);
        out += chunk;
        n -= (size_t)chunk;
    }
}

void random_crash_point(uint32_t ratio, const char *where)
{
    if (ratio == 0) {
        return;
    }
    uint32_t r;
    random_bytes((uint8_t *)&r, sizeof(r));
    if (r % ratio == 0) {
        LOG_INFO("dbcrashratio: crash point in %s", where);
        LOG_ERROR("Simulating a crash. Goodbye.");
        _Exit(0);
    }
}
