/* SipHash-2-4: two compression rounds per 8-byte word, four finalisation rounds. */
#include "crypto/siphash.h"
#include "util/buf.h"

struct sip_state {
    uint64_t v0, v1, v2, v3;
};

static uint64_t rotl64(uint64_t x, int b)
{
    return (x << b) | (x >> (64 - b));
}

static void sip_round(struct sip_state *s)
{
    s->v0 += s->v1;
    s->v1 = rotl64(s->v1, 13);
    s->v1 ^= s->v0;
    s->v0 = rotl64(s->v0, 32);
    s->v2 += s->v3;
    s->v3 = rotl64(s->v3, 16);
    s->v3 ^= s->v2;
    s->v0 += s->v3;
    s->v3 = rotl64(s->v3, 21);
    s->v3 ^= s->v0;
    s->v2 += s->v1;
    s->v1 = rotl64(s->v1, 17);
    s->v1 ^= s->v2;
    s->v2 = rotl64(s->v2, 32);
}

static void sip_init(struct sip_state *s, uint64_t k0, uint64_t k1)
{
    s->v0 = 0x736f6d6570736575ULL ^ k0;
    s->v1 = 0x646f72616e646f6dULL ^ k1;
    s->v2 = 0x6c7967656e657261ULL ^ k0;
    s->v3 = 0x7465646279746573ULL ^ k1;
}

static void sip_compress(struct sip_state *s, uint64_t m)
{
    s->v3 ^= m;
    sip_round(s);
    sip_round(s);
    s->v0 ^= m;
}

static uint64_t sip_finish(struct sip_state *s)
{
    s->v2 ^= 0xff;
    sip_round(s);
    sip_round(s);
    sip_round(s);
    sip_round(s);
    return s->v0 ^ s->v1 ^ s->v2 ^ s->v3;
}

uint64_t siphash24(uint64_t k0, uint64_t k1, const void *p, size_t n)
{
    const uint8_t *b = p;
    struct sip_state s;
    uint64_t last;
    size_t i, tail;

    sip_init(&s, k0, k1);
    for (i = 0; i + 8 <= n; i += 8) {
        sip_compress(&s, rd_u64le(b + i));
    }
    /* The final word: the remaining bytes, little-endian, with the length in the top byte. */
    last = (uint64_t)(n & 0xff) << 56;
    tail = n - i;
    for (size_t j = 0; j < tail; j++) {
        last |= (uint64_t)b[i + j] << (8 * j);
    }
    sip_compress(&s, last);
    return sip_finish(&s);
}

uint64_t siphash24_uint256(uint64_t k0, uint64_t k1, const uint8_t h32[32])
{
    struct sip_state s;
    sip_init(&s, k0, k1);
    sip_compress(&s, rd_u64le(h32));
    sip_compress(&s, rd_u64le(h32 + 8));
    sip_compress(&s, rd_u64le(h32 + 16));
    sip_compress(&s, rd_u64le(h32 + 24));
    sip_compress(&s, (uint64_t)32 << 56);
    return sip_finish(&s);
}

uint64_t siphash24_uint256_extra(uint64_t k0, uint64_t k1, const uint8_t h32[32],
                                 uint32_t extra)
{
    struct sip_state s;
    sip_init(&s, k0, k1);
    sip_compress(&s, rd_u64le(h32));
    sip_compress(&s, rd_u64le(h32 + 8));
    sip_compress(&s, rd_u64le(h32 + 16));
    sip_compress(&s, rd_u64le(h32 + 24));
    sip_compress(&s, ((uint64_t)36 << 56) | extra);
    return sip_finish(&s);
}
