#include "util/random.h"

#include <limits.h>
#include <openssl/rand.h>

#include "util/check.h"

void random_bytes(uint8_t *out, size_t n)
{
    while (n > 0) {
        int chunk = n > INT_MAX ? INT_MAX : (int)n;
        CHECK_ALWAYS(RAND_bytes(out, chunk) == 1);
        out += chunk;
        n -= (size_t)chunk;
    }
}
