/* SHA3-256: the Keccak-f[1600] sponge with rate 136 bytes and the SHA3 domain padding
 * (FIPS 202). Lanes are little-endian 64-bit words; the permutation follows the round
 * description of the Keccak reference (theta, rho and pi, chi, iota). */
#include <string.h>

#include "crypto/sha3.h"

#define SHA3_256_RATE 136

static const uint64_t round_consts[24] = {
    0x0000000000000001ull, 0x0000000000008082ull, 0x800000000000808aull, 0x8000000080008000ull,
    0x000000000000808bull, 0x0000000080000001ull, 0x8000000080008081ull, 0x8000000000008009ull,
    0x000000000000008aull, 0x0000000000000088ull, 0x0000000080008009ull, 0x000000008000000aull,
    0x000000008000808bull, 0x800000000000008bull, 0x8000000000008089ull, 0x8000000000008003ull,
    0x8000000000008002ull, 0x8000000000000080ull, 0x000000000000800aull, 0x800000008000000aull,
    0x8000000080008081ull, 0x8000000000008080ull, 0x0000000080000001ull, 0x8000000080008008ull};
/* rho's rotation of each lane along pi's path, and that path (lane indices x + 5y). */
static const int rho[24] = {1,  3,  6,  10, 15, 21, 28, 36, 45, 55, 2,  14,
                            27, 41, 56, 8,  25, 43, 62, 18, 39, 61, 20, 44};
static const int pi[24] = {10, 7,  11, 17, 18, 3, 5,  16, 8,  21, 24, 4,
                           15, 23, 19, 13, 12, 2, 20, 14, 22, 9,  6,  1};

static uint64_t rotl64(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

static void keccak_f1600(uint64_t st[25])
{
    uint64_t bc[5], t;
    for (int round = 0; round < 24; round++) {
        for (int i = 0; i < 5; i++) {
            bc[i] = st[i] ^ st[i + 5] ^ st[i + 10] ^ st[i + 15] ^ st[i + 20];
        }
        for (int i = 0; i < 5; i++) {
            t = bc[(i + 4) % 5] ^ rotl64(bc[(i + 1) % 5], 1);
            for (int j = 0; j < 25; j += 5) {
                st[j + i] ^= t;
            }
        }
        t = st[1];
        for (int i = 0; i < 24; i++) {
            int j = pi[i];
            bc[0] = st[j];
            st[j] = rotl64(t, rho[i]);
            t = bc[0];
        }
        for (int j = 0; j < 25; j += 5) {
            for (int i = 0; i < 5; i++) {
                bc[i] = st[j + i];
            }
            for (int i = 0; i < 5; i++) {
                st[j + i] ^= (~bc[(i + 1) % 5]) & bc[(i + 2) % 5];
            }
        }
        st[0] ^= round_consts[round];
    }
}

/* XORs a rate-sized block (little-endian lanes) into the state. */
static void absorb(uint64_t st[25], const uint8_t *b)
{
    for (int i = 0; i < SHA3_256_RATE / 8; i++) {
        uint64_t w = 0;
        for (int k = 7; k >= 0; k--) {
            w = (w << 8) | b[8 * i + k];
        }
        st[i] ^= w;
    }
    keccak_f1600(st);
}

void sha3_256(uint8_t out32[32], const void *p, size_t n)
{
    uint64_t st[25] = {0};
    const uint8_t *d = p;
    for (; n >= SHA3_256_RATE; d += SHA3_256_RATE, n -= SHA3_256_RATE) {
        absorb(st, d);
    }
    uint8_t last[SHA3_256_RATE] = {0};
    memcpy(last, d, n);
    last[n] ^= 0x06; /* SHA3's domain bits and the first pad bit */
    last[SHA3_256_RATE - 1] ^= 0x80;
    absorb(st, last);
    for (int i = 0; i < 32; i++) {
        out32[i] = (uint8_t)(st[i / 8] >> (8 * (i % 8)));
    }
}
