/* Unit tests for BIP324's ciphers: ChaCha20 and FSChaCha20 (crypto/chacha20.h), the
 * ChaCha20-Poly1305 AEAD and FSChaCha20Poly1305 (crypto/chacha20poly1305.h), and the packet
 * cipher (crypto/bip324.h).
 *
 * Expected values come from RFC 8439 (ChaCha20, the AEAD), from Bitcoin Core's unit tests
 * (the forward-secure variants, a block counter that carries into the nonce, AEAD inputs of
 * whole Poly1305 blocks) and from BIP324's packet_encoding_test_vectors.csv, read from
 * ../shared/vectors/bip324/ (or $BITNODE_SHARED) unmodified: every row, from the ECDH's x to
 * the ciphertext and back.
 */
#include "crypto/bip324.h"
#include "crypto/chacha20.h"
#include "crypto/chacha20poly1305.h"
#include "crypto/ellswift.h"
#include "crypto/hash.h"
#include "util/buf.h"
#include "util/check.h"
#include "util/hex.h"
#include "util/rc.h"
#include "util/xmalloc.h"

#include "test.h"

/* Decodes hex that the test itself wrote (or a vector file holds); bad hex fails the case. */
static void unhex(struct buf *out, const char *hex)
{
    buf_reset(out);
    if (hex_decode(out, hex) != RC_OK) {
        printf("# bad hex: %.80s\n", hex);
        test_case_failed = 1;
    }
}

/* Deterministic xorshift64* for the splits of a message into calls. */
static uint64_t rng_state = 0x2545f4914f6cdd1dULL;
static uint64_t rng_next(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545f4914f6cdd1dULL;
}

/* ---------------------------------------------------------------------------------------- */
/* ChaCha20                                                                                  */

static const struct {
    const char *what, *msg, *key; /* msg "": the keystream itself is the output */
    uint32_t nonce32;
    uint64_t nonce64;
    uint32_t block;
    const char *out;
} chacha20_kats[] = {
    {"RFC 8439 2.3.2", "", "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f",
     0x09000000, 0x4a000000, 1,
     "10f1e7e4d13b5915500fdd1fa32071c4c7d1f4c733c068030422aa9ac3d46c4e"
     "d2826446079faa0914c2d705d98b02a2b5129cd1de164eb9cbd083e8a2503c4e"},
    {"RFC 8439 2.4.2",
     "4c616469657320616e642047656e746c656d656e206f662074686520636c6173"
     "73206f66202739393a204966204920636f756c64206f6666657220796f75206f"
     "6e6c79206f6e652074697020666f7220746865206675747572652c2073756e73"
     "637265656e20776f756c642062652069742e",
     "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f", 0, 0x4a000000, 1,
     "6e2e359a2568f98041ba0728dd0d6981e97e7aec1d4360c20a27afccfd9fae0b"
     "f91b65c5524733ab8f593dabcd62b3571639d624e65152ab8f530c359f0861d8"
     "07ca0dbf500d6a6156a38e088a22b65e52bc514d16ccf806818ce91ab7793736"
     "5af90bbf74a35be6b40b8eedf2785e42874d"},
    {"RFC 8439 A.1 #1", "", "0000000000000000000000000000000000000000000000000000000000000000", 0,
     0, 0,
     "76b8e0ada0f13d90405d6ae55386bd28bdd219b8a08ded1aa836efcc8b770dc7"
     "da41597c5157488d7724e03fb8d84a376a43b8f41518a11cc387b669b2ee6586"},
    {"RFC 8439 A.1 #4", "", "00ff000000000000000000000000000000000000000000000000000000000000", 0,
     0, 2,
     "72d54dfbf12ec44b362692df94137f328fea8da73990265ec1bbbea1ae9af0ca"
     "13b25aa26cb4a648cb9b9d1be65b2c0924a66c54d545ec1b7374f4872e99f096"},
    {"RFC 8439 A.1 #5", "", "0000000000000000000000000000000000000000000000000000000000000000", 0,
     0x200000000000000ULL, 0,
     "c2c64d378cd536374ae204b9ef933fcd1a8b2288b3dfa49672ab765b54ee27c7"
     "8a970e0e955c14f3a88e741b97c286f75f8fc299e8148362fa198a39531bed6d"},
    /* Core's: the block counter at 0xffffffff carries into the nonce's first word (data
     * from a 64-bit-counter implementation, PyCryptodome) */
    {"counter carry", "", "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f", 0,
     0xdeadbeef12345678ULL, 0xffffffff,
     "2d292c880513397b91221c3a647cfb0765a4815894715f411e3df5e0dd0ba9df"
     "fd565dea5addbdb914208fde7950f23e0385f9a727143f6a6ac51d84b1c0fb3e"
     "2e3b00b63d6841a1cc6d1538b1d3a74bef1eb2f54c7b7281e36e484dba89b351"
     "c8f572617e61e342879f211b0e4c515df50ea9d0771518fad96cd0baee62deb6"},
};

/* Each vector in one call, then split over three calls at random points (the cipher keeps
 * its place within a block), and for messages also as plaintext XOR keystream. */
static void test_chacha20_kats(void)
{
    struct buf msg, key, want, got;
    buf_init(&msg);
    buf_init(&key);
    buf_init(&want);
    buf_init(&got);
    for (size_t i = 0; i < ARRAY_LEN(chacha20_kats); i++) {
        unhex(&msg, chacha20_kats[i].msg);
        unhex(&key, chacha20_kats[i].key);
        unhex(&want, chacha20_kats[i].out);
        size_t n = want.len;
        CHECK(msg.len == 0 || msg.len == n);
        buf_reset(&got);
        buf_append_fill(&got, 0, n);
        struct chacha20 *c = chacha20_new(key.data);
        for (int round = 0; round < 11; round++) {
            size_t cut1 = round ? rng_next() % (n + 1) : n;
            size_t cut2 = cut1 + (round ? rng_next() % (n - cut1 + 1) : 0);
            size_t cuts[4] = {0, cut1, cut2, n};
            chacha20_seek(c, chacha20_kats[i].nonce32, chacha20_kats[i].nonce64,
                          chacha20_kats[i].block);
            for (int j = 0; j < 3; j++) {
                size_t at = cuts[j], len = cuts[j + 1] - cuts[j];
                if (msg.len) {
                    chacha20_crypt(c, got.data + at, msg.data + at, len);
                } else {
                    chacha20_keystream(c, got.data + at, len);
                }
            }
            CHECK_EQ_MEM(got.data, want.data, n);
        }
        if (msg.len) {
            chacha20_seek(c, chacha20_kats[i].nonce32, chacha20_kats[i].nonce64,
                          chacha20_kats[i].block);
            chacha20_keystream(c, got.data, n);
            for (size_t j = 0; j < n; j++) {
                got.data[j] ^= msg.data[j];
            }
            CHECK_EQ_MEM(got.data, want.data, n);
        }
        if (test_case_failed) {
            printf("#   in vector \"%s\"\n", chacha20_kats[i].what);
        }
        chacha20_free(c);
    }
    buf_clear(&msg);
    buf_clear(&key);
    buf_clear(&want);
    buf_clear(&got);
}

/* set_key restarts at nonce 0, block 0; crypt in place works. */
static void test_chacha20_set_key(void)
{
    uint8_t key[32] = {0}, a[64], b[64], want[64];
    hex_decode_fixed(want, 64,
                     "76b8e0ada0f13d90405d6ae55386bd28bdd219b8a08ded1aa836efcc8b770dc7"
                     "da41597c5157488d7724e03fb8d84a376a43b8f41518a11cc387b669b2ee6586");
    key[0] = 1;
    struct chacha20 *c = chacha20_new(key);
    chacha20_keystream(c, a, 64);
    CHECK(memcmp(a, want, 64) != 0);
    memset(key, 0, sizeof(key));
    chacha20_seek(c, 5, 5, 5);
    chacha20_set_key(c, key);
    memset(b, 0, sizeof(b));
    chacha20_crypt(c, b, b, 64);
    CHECK_EQ_MEM(b, want, 64);
    chacha20_free(c);
    chacha20_free(NULL);
}

/* FSChaCha20 against Core's vectors: rekey_interval messages as plain ChaCha20 would give,
 * then the message after the rekey. The rekey is also rebuilt by hand: the next 32 bytes of
 * keystream as the key, nonce (0, 1). */
static void test_fschacha20(void)
{
    static const struct {
        const char *plain, *key;
        uint32_t interval;
        const char *after;
    } v[] = {
        {"000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f",
         "0000000000000000000000000000000000000000000000000000000000000000", 256,
         "a93df4ef03011f3db95f60d996e1785df5de38fc39bfcb663a47bb5561928349"},
        {"01", "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f", 5, "ea"},
        {"e93fdb5c762804b9a706816aca31e35b11d2aa3080108ef46a5b1f1508819c0a",
         "8ec4c3ccdaea336bdeb245636970be01266509b33f3d2642504eaf412206207a", 4096,
         "8bfaa4eacff308fdb4a94a5ff25bd9d0c1f84b77f81239f67ff39d6e1ac280c9"},
    };
    struct buf plain, key, after;
    buf_init(&plain);
    buf_init(&key);
    buf_init(&after);
    for (size_t i = 0; i < ARRAY_LEN(v); i++) {
        unhex(&plain, v[i].plain);
        unhex(&key, v[i].key);
        unhex(&after, v[i].after);
        size_t n = plain.len;
        uint8_t *fs_out = xmalloc(n), *c_out = xmalloc(n);
        struct fschacha20 *fs = fschacha20_new(key.data, v[i].interval);
        struct chacha20 *c = chacha20_new(key.data);
        int same = 1;
        for (uint32_t j = 0; j < v[i].interval; j++) {
            fschacha20_crypt(fs, fs_out, plain.data, n);
            chacha20_crypt(c, c_out, plain.data, n);
            same &= memcmp(fs_out, c_out, n) == 0;
        }
        CHECK(same);
        uint8_t new_key[32];
        chacha20_keystream(c, new_key, sizeof(new_key));
        chacha20_set_key(c, new_key);
        chacha20_seek(c, 0, 1, 0);
        fschacha20_crypt(fs, fs_out, plain.data, n);
        chacha20_crypt(c, c_out, plain.data, n);
        CHECK_EQ_MEM(fs_out, after.data, n);
        CHECK_EQ_MEM(c_out, after.data, n);
        fschacha20_free(fs);
        chacha20_free(c);
        free(fs_out);
        free(c_out);
    }
    fschacha20_free(NULL);
    buf_clear(&plain);
    buf_clear(&key);
    buf_clear(&after);
}

/* ---------------------------------------------------------------------------------------- */
/* ChaCha20-Poly1305                                                                         */

static const struct {
    const char *what, *plain, *aad, *key;
    uint32_t nonce32;
    uint64_t nonce64;
    const char *cipher; /* ciphertext || tag */
} aead_kats[] = {
    {"RFC 8439 2.8.2",
     "4c616469657320616e642047656e746c656d656e206f662074686520636c6173"
     "73206f66202739393a204966204920636f756c64206f6666657220796f75206f"
     "6e6c79206f6e652074697020666f7220746865206675747572652c2073756e73"
     "637265656e20776f756c642062652069742e",
     "50515253c0c1c2c3c4c5c6c7", "808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f",
     7, 0x4746454443424140ULL,
     "d31a8d34648e60db7b86afbc53ef7ec2a4aded51296e08fea9e2b5a736ee62d6"
     "3dbea45e8ca9671282fafb69da92728b1a71de0a9e060b2905d6a5b67ecd3b36"
     "92ddbd7f2d778b8c9803aee328091b58fab324e4fad675945585808b4831d7bc"
     "3ff4def08e4b7a9de576d26586cec64b61161ae10b594f09e26a7e902ecbd060"
     "0691"},
    {"RFC 8439 A.5",
     "496e7465726e65742d4472616674732061726520647261667420646f63756d65"
     "6e74732076616c696420666f722061206d6178696d756d206f6620736978206d"
     "6f6e74687320616e64206d617920626520757064617465642c207265706c6163"
     "65642c206f72206f62736f6c65746564206279206f7468657220646f63756d65"
     "6e747320617420616e792074696d652e20497420697320696e617070726f7072"
     "6961746520746f2075736520496e7465726e65742d4472616674732061732072"
     "65666572656e6365206d6174657269616c206f7220746f206369746520746865"
     "6d206f74686572207468616e206173202fe2809c776f726b20696e2070726f67"
     "726573732e2fe2809d",
     "f33388860000000000004e91", "1c9240a5eb55d38af333888604f6b5f0473917c1402b80099dca5cbc207075c0",
     0, 0x0807060504030201ULL,
     "64a0861575861af460f062c79be643bd5e805cfd345cf389f108670ac76c8cb2"
     "4c6cfc18755d43eea09ee94e382d26b0bdb7b73c321b0100d4f03b7f355894cf"
     "332f830e710b97ce98c8a84abd0b948114ad176e008d33bd60f982b1ff37c855"
     "9797a06ef4f0ef61c186324e2b3506383606907b6a7c02b0f9f6157b53c867e4"
     "b9166c767b804d46a59b5216cde7a4e99040c5a40433225ee282a1b0a06c523e"
     "af4534d7f83fa1155b0047718cbc546a0d072b04b3564eea1b422273f548271a"
     "0bb2316053fa76991955ebd63159434ecebb4e466dae5a1073a6727627097a10"
     "49e617d91d361094fa68f0ff77987130305beaba2eda04df997b714d6c6f2c29"
     "a6ad5cb4022b02709beead9d67890cbb22392336fea1851f38"},
    /* Core's: plaintext, then aad, of whole 16-byte Poly1305 blocks */
    {"whole blocks of plaintext",
     "8d2d6a8befd9716fab35819eaac83b33269afb9f1a00fddf66095a6c0cd91951"
     "a6b7ad3db580be0674c3f0b55f618e34",
     "", "72ddc73f07101282bbbcf853b9012a9f9695fc5d36b303a97fd0845d0314e0c3", 0x3432b75f,
     0xb3585537eb7f4024ULL,
     "f760b8224fb2a317b1b07875092606131232a5b86ae142df5df1c846a7f6341a"
     "f2564483dd77f836be45e6230808ffe402a6f0a3e8be074b3d1f4ea8a7b09451"},
    {"whole blocks of aad, no plaintext", "",
     "36970d8a704c065de16250c18033de5a400520ac1b5842b24551e5823a3314f3"
     "946285171e04a81ebfbe3566e312e74ab80e94c7dd2ff4e10de0098a58d0f503",
     "77adda51d6730b9ad6c995658cbd49f581b2547e7c0c08fcc24ceec797461021", 0x1f90da88,
     0x75dafa3ef84471a4ULL, "aaae5bb81e8407c94b2ae86ae0c7efbe"},
};

/* One AEAD vector: encrypt with the plaintext split at each of a few points, decrypt back,
 * a flipped bit anywhere in the ciphertext, the tag or the aad fails (and zeroes the output),
 * and the keystream XORs the plaintext into the ciphertext. */
static void check_aead_kat(size_t i, struct buf *plain, struct buf *aad, struct buf *key,
                           struct buf *want)
{
    size_t n = plain->len;
    uint32_t n32 = aead_kats[i].nonce32;
    uint64_t n64 = aead_kats[i].nonce64;
    CHECK_EQ_U64(want->len, n + CHACHA20POLY1305_TAG_LEN);
    uint8_t *ct = xmalloc(n + CHACHA20POLY1305_TAG_LEN), *back = xmalloc(n + 1);
    struct chacha20poly1305 *a = chacha20poly1305_new(key->data);
    for (int round = 0; round < 8; round++) {
        size_t cut = round == 0 ? n : round == 1 ? 0 : rng_next() % (n + 1);
        chacha20poly1305_encrypt(a, ct, plain->data, cut, plain->data + cut, n - cut, aad->data,
                                 aad->len, n32, n64);
        CHECK_EQ_MEM(ct, want->data, want->len);
        memset(back, 0xee, n + 1);
        CHECK_EQ_INT(chacha20poly1305_decrypt(a, back, cut, back + cut, n - cut, ct, aad->data,
                                              aad->len, n32, n64),
                     RC_OK);
        CHECK_EQ_MEM(back, plain->data, n);
    }
    for (size_t bit = 0; bit < 8 * want->len; bit += 1 + rng_next() % 61) {
        ct[bit / 8] ^= (uint8_t)(1u << (bit % 8));
        memset(back, 0xee, n + 1);
        CHECK_EQ_INT(chacha20poly1305_decrypt(a, back, n / 2, back + n / 2, n - n / 2, ct,
                                              aad->data, aad->len, n32, n64),
                     RC_INVALID);
        for (size_t j = 0; j < n; j++) {
            CHECK(back[j] == 0);
        }
        ct[bit / 8] ^= (uint8_t)(1u << (bit % 8));
    }
    if (aad->len) {
        aad->data[aad->len - 1] ^= 0x01;
        CHECK_EQ_INT(
            chacha20poly1305_decrypt(a, back, 0, back, n, ct, aad->data, aad->len, n32, n64),
            RC_INVALID);
        aad->data[aad->len - 1] ^= 0x01;
    }
    CHECK_EQ_INT(
        chacha20poly1305_decrypt(a, back, 0, back, n, ct, aad->data, aad->len, n32, n64 ^ 1),
        RC_INVALID);
    chacha20poly1305_keystream(a, back, n, n32, n64);
    for (size_t j = 0; j < n; j++) {
        back[j] ^= plain->data[j];
    }
    CHECK_EQ_MEM(back, want->data, n);
    /* and the AEAD still works after a bare keystream */
    chacha20poly1305_encrypt(a, ct, plain->data, n, NULL, 0, aad->data, aad->len, n32, n64);
    CHECK_EQ_MEM(ct, want->data, want->len);
    chacha20poly1305_free(a);
    free(ct);
    free(back);
}

static void test_chacha20poly1305_kats(void)
{
    struct buf plain, aad, key, want;
    buf_init(&plain);
    buf_init(&aad);
    buf_init(&key);
    buf_init(&want);
    for (size_t i = 0; i < ARRAY_LEN(aead_kats); i++) {
        int failed_before = test_case_failed;
        test_case_failed = 0;
        unhex(&plain, aead_kats[i].plain);
        unhex(&aad, aead_kats[i].aad);
        unhex(&key, aead_kats[i].key);
        unhex(&want, aead_kats[i].cipher);
        check_aead_kat(i, &plain, &aad, &key, &want);
        if (test_case_failed) {
            printf("#   in vector \"%s\"\n", aead_kats[i].what);
        }
        test_case_failed |= failed_before;
    }
    chacha20poly1305_free(NULL);
    buf_clear(&plain);
    buf_clear(&aad);
    buf_clear(&key);
    buf_clear(&want);
}

/* FSChaCha20Poly1305 against Core's vectors: the packet at index 500 (after two rekeys) and
 * 60000, each after as many empty packets; a decrypting twin follows the same way. */
static void test_fschacha20poly1305(void)
{
    static const struct {
        const char *plain, *aad, *key;
        uint32_t idx;
        const char *cipher;
    } v[] = {
        {"d6a4cb04ef0f7c09c1866ed29dc24d820e75b0491032a51b4c3366f9ca35c19e"
         "a3047ec6be9d45f9637b63e1cf9eb4c2523a5aab7b851ebeba87199db0e839cf"
         "0d5c25e50168306377aedbe9089fd2463ded88b83211cf51b73b150608cc7a60"
         "0d0f11b9a742948482e1b109d8faf15b450aa7322e892fa2208c6691e3fecf4c"
         "711191b14d75a72147",
         "786cb9b6ebf44288974cf0",
         "5c9e1c3951a74fba66708bf9d2c217571684556b6a6a3573bff2847d38612654", 500,
         "9dcebbd3281ea3dd8e9a1ef7d55a97abd6743e56ebc0c190cb2c4e14160b385e"
         "0bf508dddf754bd02c7c208447c131ce23e47a4a14dfaf5dd8bc601323950f75"
         "4e05d46e9232f83fc5120fbbef6f5347a826ec79a93820718d4ec7a2b7cfaaa4"
         "4b21e16d726448b62f803811aff4f6d827ed78e738ce8a507b81a8ae13131192"
         "8039213de18a5120dc9b7370baca878f50ff254418de3da50c"},
        {"8349b7a2690b63d01204800c288ff1138a1d473c832c90ea8b3fc102d0bb3adc"
         "44261b247c7c3d6760bfbe979d061c305f46d94c0582ac3099f0bf249f8cb234",
         "", "3bd2093fcbcb0d034d8c569583c5425c1a53171ea299f8cc3bbf9ae3530adfce", 60000,
         "30a6757ff8439b975363f166a0fa0e36722ab35936abd704297948f45083f4d4"
         "99433137ce931f7fca28a0acd3bc30f57b550acbc21cbd45bbef0739d9caf30c"
         "14b94829deb27f0b1923a2af704ae5d6"},
    };
    struct buf plain, aad, key, want;
    buf_init(&plain);
    buf_init(&aad);
    buf_init(&key);
    buf_init(&want);
    for (size_t i = 0; i < ARRAY_LEN(v); i++) {
        unhex(&plain, v[i].plain);
        unhex(&aad, v[i].aad);
        unhex(&key, v[i].key);
        unhex(&want, v[i].cipher);
        size_t n = plain.len;
        uint8_t *ct = xmalloc(n + 16), *back = xmalloc(n + 1), dummy[16];
        struct fschacha20poly1305 *enc = fschacha20poly1305_new(key.data, 224);
        struct fschacha20poly1305 *dec = fschacha20poly1305_new(key.data, 224);
        int ok = 1;
        for (uint32_t j = 0; j < v[i].idx; j++) {
            fschacha20poly1305_encrypt(enc, dummy, NULL, 0, NULL, 0, NULL, 0);
            ok &= fschacha20poly1305_decrypt(dec, NULL, 0, NULL, 0, dummy, NULL, 0) == RC_OK;
        }
        CHECK(ok);
        size_t cut = n / 3;
        fschacha20poly1305_encrypt(enc, ct, plain.data, cut, plain.data + cut, n - cut, aad.data,
                                   aad.len);
        CHECK_EQ_MEM(ct, want.data, want.len);
        CHECK_EQ_INT(fschacha20poly1305_decrypt(dec, back, n, NULL, 0, ct, aad.data, aad.len),
                     RC_OK);
        CHECK_EQ_MEM(back, plain.data, n);
        /* the next packet has another nonce: the same bytes no longer authenticate */
        CHECK_EQ_INT(fschacha20poly1305_decrypt(dec, back, n, NULL, 0, ct, aad.data, aad.len),
                     RC_INVALID);
        fschacha20poly1305_free(enc);
        fschacha20poly1305_free(dec);
        free(ct);
        free(back);
    }
    fschacha20poly1305_free(NULL);
    buf_clear(&plain);
    buf_clear(&aad);
    buf_clear(&key);
    buf_clear(&want);
}

/* ---------------------------------------------------------------------------------------- */
/* BIP324 packet vectors                                                                     */

enum {
    F_IDX,
    F_PRIV,
    F_ELL_OURS,
    F_ELL_THEIRS,
    F_INITIATING,
    F_CONTENTS,
    F_MULTIPLY,
    F_AAD,
    F_IGNORE,
    F_X_OURS,
    F_X_THEIRS,
    F_X_SHARED,
    F_SHARED_SECRET,
    F_INITIATOR_L,
    F_INITIATOR_P,
    F_RESPONDER_L,
    F_RESPONDER_P,
    F_SEND_TERM,
    F_RECV_TERM,
    F_SESSION_ID,
    F_CIPHERTEXT,
    F_CIPHERTEXT_ENDSWITH,
    F_COUNT
};

static const char *const packet_columns[F_COUNT] = {
    "in_idx",
    "in_priv_ours",
    "in_ellswift_ours",
    "in_ellswift_theirs",
    "in_initiating",
    "in_contents",
    "in_multiply",
    "in_aad",
    "in_ignore",
    "mid_x_ours",
    "mid_x_theirs",
    "mid_x_shared",
    "mid_shared_secret",
    "mid_initiator_l",
    "mid_initiator_p",
    "mid_responder_l",
    "mid_responder_p",
    "mid_send_garbage_terminator",
    "mid_recv_garbage_terminator",
    "out_session_id",
    "out_ciphertext",
    "out_ciphertext_endswith",
};

/* Mainnet's message start: the vectors were made with it. */
static const uint8_t MAGIC[4] = {0xf9, 0xbe, 0xb4, 0xd9};

/* Splits a CSV line in place (no quoting in these files); returns the number of fields. */
static int csv_split(char *line, char **fields, int max)
{
    int n = 0;
    line[strcspn(line, "\r\n")] = 0;
    while (n < max) {
        fields[n++] = line;
        char *comma = strchr(line, ',');
        if (!comma) {
            break;
        }
        *comma = 0;
        line = comma + 1;
    }
    return n;
}

static void fixed(uint8_t *p, size_t n, const char *hex)
{
    if (hex_decode_fixed(p, n, hex) != RC_OK) {
        printf("# bad hex in the vector file: %.80s\n", hex);
        test_case_failed = 1;
        memset(p, 0, n);
    }
}

/* One parsed row. */
struct packet_row {
    uint32_t idx, multiply;
    int initiating, ignore;
    uint8_t priv[32], ours[64], theirs[64];
    struct buf contents, aad; /* contents: in_contents already repeated in_multiply times */
    char **f;
};

/* The row's values before the cipher: both x coordinates, the ECDH's x and secret, and the
 * four keys of the HKDF (salt "bitcoin_v2_shared_secret" || magic). */
static void check_row_derivation(const struct packet_row *r)
{
    uint8_t x[32], want[32], secret[32], prk[32];
    uint8_t salt[28];
    ellswift_decode(r->ours, x);
    fixed(want, 32, r->f[F_X_OURS]);
    CHECK_EQ_MEM(x, want, 32);
    ellswift_decode(r->theirs, x);
    fixed(want, 32, r->f[F_X_THEIRS]);
    CHECK_EQ_MEM(x, want, 32);
    CHECK_EQ_INT(ellswift_ecdh_x(x, r->theirs, r->priv), RC_OK);
    fixed(want, 32, r->f[F_X_SHARED]);
    CHECK_EQ_MEM(x, want, 32);
    CHECK_EQ_INT(ellswift_xdh(secret, r->ours, r->theirs, r->priv, r->initiating), RC_OK);
    fixed(want, 32, r->f[F_SHARED_SECRET]);
    CHECK_EQ_MEM(secret, want, 32);
    memcpy(salt, "bitcoin_v2_shared_secret", 24);
    memcpy(salt + 24, MAGIC, 4);
    hash_hkdf_sha256_extract(prk, salt, sizeof(salt), secret, sizeof(secret));
    static const char *const infos[4] = {"initiator_L", "initiator_P", "responder_L",
                                         "responder_P"};
    for (int k = 0; k < 4; k++) {
        hash_hkdf_sha256_expand32(x, prk, infos[k], strlen(infos[k]));
        fixed(want, 32, r->f[F_INITIATOR_L + k]);
        CHECK_EQ_MEM(x, want, 32);
    }
}

/* A cipher for the row's side, initialized; self_decrypt as given. */
static struct bip324_cipher *row_cipher(const struct packet_row *r, int initiating, int self_dec)
{
    struct bip324_cipher *c = NULL;
    CHECK_EQ_INT(bip324_cipher_new_keyed(&c, r->priv, r->ours), RC_OK);
    CHECK(c != NULL && memcmp(bip324_our_pubkey(c), r->ours, 64) == 0);
    bip324_cipher_initialize(c, r->theirs, initiating, self_dec, MAGIC);
    return c;
}

/* Decrypts the idx empty decoys (each BIP324_EXPANSION bytes in dummies) to reach the
 * packet; all must authenticate with their ignore bit set. */
static void skip_dummies(struct bip324_cipher *c, const uint8_t *dummies, uint32_t idx)
{
    int ok = 1;
    for (uint32_t i = 0; i < idx; i++) {
        const uint8_t *d = dummies + (size_t)i * BIP324_EXPANSION;
        int ignore = 0;
        ok &= bip324_decrypt_length(c, d) == 0;
        ok &= bip324_decrypt(c, d + BIP324_LENGTH_LEN, 0, NULL, 0, &ignore, NULL) == RC_OK;
        ok &= ignore == 1;
    }
    CHECK(ok);
}

/* Decrypting ct (the row's packet) with a self-decrypting twin: the contents and the ignore
 * bit come back; a flipped bit in the header, contents or tag, a changed aad, or the other
 * side's keys make it fail. */
static void check_row_decrypt(const struct packet_row *r, const uint8_t *dummies, const uint8_t *ct,
                              size_t ct_len)
{
    size_t n = r->contents.len;
    uint8_t *back = xmalloc(n + 1), *bad = xmalloc(ct_len);
    /* error 0: none; 1..3: a bit of the header, the contents, the tag; 4: the aad one byte
     * longer; 5: the wrong side */
    for (int error = 0; error <= 5; error++) {
        struct bip324_cipher *c = row_cipher(r, error == 5 ? !r->initiating : r->initiating, 1);
        skip_dummies(c, dummies, error == 5 ? 0 : r->idx);
        memcpy(bad, ct, ct_len);
        size_t body = BIP324_LENGTH_LEN;
        if (error == 1) {
            bad[body] ^= 0x80;
        } else if (error == 2 && n) {
            bad[body + 1 + rng_next() % n] ^= (uint8_t)(1u << (rng_next() % 8));
        } else if (error == 3) {
            bad[ct_len - 1 - rng_next() % BIP324_TAG_LEN] ^= 0x01;
        }
        struct buf aad;
        buf_init(&aad);
        buf_append(&aad, r->aad.data, r->aad.len);
        if (error == 4) {
            buf_put_u8(&aad, 0);
        }
        uint32_t len = bip324_decrypt_length(c, bad);
        if (error == 5) {
            /* the other side's length key: almost surely another length */
            CHECK(len != n || bip324_decrypt(c, bad + body, n, aad.data, aad.len, &(int){0},
                                             back) == RC_INVALID);
        } else {
            CHECK_EQ_U64(len, n);
            int ignore = -1;
            int rc = bip324_decrypt(c, bad + body, n, aad.data, aad.len, &ignore, back);
            if (error == 2 && n == 0) {
                rc = RC_INVALID; /* nothing to flip */
            }
            CHECK_EQ_INT(rc, error == 0 ? RC_OK : RC_INVALID);
            if (error == 0) {
                CHECK_EQ_MEM(back, r->contents.data, n);
                CHECK_EQ_INT(ignore, r->ignore);
            }
        }
        buf_clear(&aad);
        bip324_cipher_free(c);
    }
    free(back);
    free(bad);
}

/* The receiving keys, which the ciphertext does not show: the peer's packet 0 made with the
 * vector's keys for the other side (FSChaCha20 and FSChaCha20Poly1305 by hand) decrypts. */
static void check_row_receive(const struct packet_row *r)
{
    uint8_t kl[32], kp[32], pkt[BIP324_EXPANSION + 5], back[5];
    static const uint8_t msg[5] = {'h', 'e', 'l', 'l', 'o'};
    fixed(kl, 32, r->f[r->initiating ? F_RESPONDER_L : F_INITIATOR_L]);
    fixed(kp, 32, r->f[r->initiating ? F_RESPONDER_P : F_INITIATOR_P]);
    struct fschacha20 *l = fschacha20_new(kl, 224);
    struct fschacha20poly1305 *p = fschacha20poly1305_new(kp, 224);
    uint8_t len3[3] = {5, 0, 0}, header = 0;
    fschacha20_crypt(l, pkt, len3, 3);
    fschacha20poly1305_encrypt(p, pkt + 3, &header, 1, msg, sizeof(msg), r->aad.data, r->aad.len);
    struct bip324_cipher *c = row_cipher(r, r->initiating, 0);
    int ignore = -1;
    CHECK_EQ_U64(bip324_decrypt_length(c, pkt), 5);
    CHECK_EQ_INT(bip324_decrypt(c, pkt + 3, 5, r->aad.data, r->aad.len, &ignore, back), RC_OK);
    CHECK_EQ_MEM(back, msg, 5);
    CHECK_EQ_INT(ignore, 0);
    bip324_cipher_free(c);
    fschacha20_free(l);
    fschacha20poly1305_free(p);
}

/* The row's cipher: terminators and session id, in_idx decoys, then the packet, compared
 * with out_ciphertext or the end of it. */
static void check_row_encrypt(struct packet_row *r)
{
    uint8_t want[32];
    struct bip324_cipher *c = row_cipher(r, r->initiating, 0);
    fixed(want, 32, r->f[F_SESSION_ID]);
    CHECK_EQ_MEM(bip324_session_id(c), want, 32);
    fixed(want, 16, r->f[F_SEND_TERM]);
    CHECK_EQ_MEM(bip324_send_garbage_terminator(c), want, 16);
    fixed(want, 16, r->f[F_RECV_TERM]);
    CHECK_EQ_MEM(bip324_recv_garbage_terminator(c), want, 16);

    uint8_t *dummies = xmalloc((size_t)r->idx * BIP324_EXPANSION + 1);
    for (uint32_t i = 0; i < r->idx; i++) {
        bip324_encrypt(c, NULL, 0, NULL, 0, 1, dummies + (size_t)i * BIP324_EXPANSION);
    }
    size_t ct_len = r->contents.len + BIP324_EXPANSION;
    uint8_t *ct = xmalloc(ct_len);
    bip324_encrypt(c, r->contents.data, r->contents.len, r->aad.data, r->aad.len, r->ignore, ct);
    struct buf exp;
    buf_init(&exp);
    if (r->f[F_CIPHERTEXT][0]) {
        unhex(&exp, r->f[F_CIPHERTEXT]);
        CHECK_EQ_U64(exp.len, ct_len);
        CHECK_EQ_MEM(ct, exp.data, exp.len == ct_len ? ct_len : 0);
    } else {
        unhex(&exp, r->f[F_CIPHERTEXT_ENDSWITH]);
        CHECK(exp.len > 0 && exp.len <= ct_len);
        CHECK_EQ_MEM(ct + ct_len - exp.len, exp.data, exp.len <= ct_len ? exp.len : 0);
    }
    buf_clear(&exp);
    bip324_cipher_free(c);
    check_row_decrypt(r, dummies, ct, ct_len);
    free(dummies);
    free(ct);
}

static void check_packet_row(char **f)
{
    struct packet_row r = {.f = f};
    struct buf one;
    buf_init(&one);
    buf_init(&r.contents);
    buf_init(&r.aad);
    r.idx = (uint32_t)strtoul(f[F_IDX], NULL, 10);
    r.multiply = (uint32_t)strtoul(f[F_MULTIPLY], NULL, 10);
    r.initiating = strcmp(f[F_INITIATING], "1") == 0;
    r.ignore = strcmp(f[F_IGNORE], "1") == 0;
    fixed(r.priv, 32, f[F_PRIV]);
    fixed(r.ours, 64, f[F_ELL_OURS]);
    fixed(r.theirs, 64, f[F_ELL_THEIRS]);
    unhex(&one, f[F_CONTENTS]);
    for (uint32_t i = 0; i < r.multiply; i++) {
        buf_append(&r.contents, one.data, one.len);
    }
    unhex(&r.aad, f[F_AAD]);
    check_row_derivation(&r);
    check_row_encrypt(&r);
    check_row_receive(&r);
    buf_clear(&one);
    buf_clear(&r.contents);
    buf_clear(&r.aad);
}

/* Every row of BIP324's packet_encoding_test_vectors.csv, one TAP line each. */
static void test_bip324_packet_vectors(void)
{
    char path[4200];
    snprintf(path, sizeof(path), "%s/vectors/bip324/packet_encoding_test_vectors.csv",
             test_shared_dir());
    FILE *fp = fopen(path, "r");
    if (!fp) {
        test_report(0, "%s not found", path);
        return;
    }
    char *line = NULL, *f[F_COUNT + 1];
    size_t cap = 0;
    int rows = 0, header_ok = 0;
    if (getline(&line, &cap, fp) > 0 && csv_split(line, f, F_COUNT + 1) == F_COUNT) {
        header_ok = 1;
        for (int i = 0; i < F_COUNT; i++) {
            header_ok &= strcmp(f[i], packet_columns[i]) == 0;
        }
    }
    test_report(header_ok, "bip324 packet vectors: the columns are the expected ones");
    while (header_ok && getline(&line, &cap, fp) > 0) {
        test_case_failed = 0;
        if (csv_split(line, f, F_COUNT + 1) != F_COUNT) {
            test_report(0, "bip324 packet vector row %d: %d columns", rows + 1, F_COUNT);
            continue;
        }
        check_packet_row(f);
        rows++;
        test_report(!test_case_failed, "bip324 packet vector row %d (in_idx %s, %s)", rows,
                    f[F_IDX], f[F_INITIATING][0] == '1' ? "initiator" : "responder");
    }
    free(line);
    fclose(fp);
    test_report(rows == 7, "bip324 packet vectors: %d rows read (7 expected)", rows);
}

/* The cipher's own contract: a fresh key's encoding, invalid keys refused, two peers talk. */
static void test_bip324_cipher_pair(void)
{
    uint8_t a[32], b[32], ent[32] = {7}, zero[32] = {0}, ell[64] = {0};
    struct bip324_cipher *ca = NULL, *cb = NULL, *untouched = (struct bip324_cipher *)&ent;
    hash_sha256(a, "a", 1);
    hash_sha256(b, "b", 1);
    CHECK_EQ_INT(bip324_cipher_new(&untouched, zero, ent), RC_INVALID);
    CHECK(untouched == (struct bip324_cipher *)&ent);
    CHECK_EQ_INT(bip324_cipher_new_keyed(&untouched, zero, ell), RC_INVALID);
    CHECK(untouched == (struct bip324_cipher *)&ent);
    CHECK_EQ_INT(bip324_cipher_new(&ca, a, ent), RC_OK);
    CHECK_EQ_INT(bip324_cipher_new(&cb, b, ent), RC_OK);
    bip324_cipher_initialize(ca, bip324_our_pubkey(cb), 1, 0, MAGIC);
    bip324_cipher_initialize(cb, bip324_our_pubkey(ca), 0, 0, MAGIC);
    CHECK_EQ_MEM(bip324_session_id(ca), bip324_session_id(cb), 32);
    CHECK_EQ_MEM(bip324_send_garbage_terminator(ca), bip324_recv_garbage_terminator(cb), 16);
    CHECK_EQ_MEM(bip324_recv_garbage_terminator(ca), bip324_send_garbage_terminator(cb), 16);
    /* 500 packets each way (past two rekeys), of growing sizes */
    uint8_t msg[600], ct[600 + BIP324_EXPANSION], back[600];
    int ok = 1;
    for (int i = 0; i < 500; i++) {
        size_t n = (size_t)i % 600;
        memset(msg, i & 0xff, n);
        struct bip324_cipher *from = i & 1 ? cb : ca, *to = i & 1 ? ca : cb;
        bip324_encrypt(from, msg, n, NULL, 0, i % 7 == 0, ct);
        int ignore = -1;
        ok &= bip324_decrypt_length(to, ct) == n;
        ok &= bip324_decrypt(to, ct + 3, n, NULL, 0, &ignore, back) == RC_OK;
        ok &= memcmp(back, msg, n) == 0 && ignore == (i % 7 == 0);
    }
    CHECK(ok);
    bip324_cipher_free(ca);
    bip324_cipher_free(cb);
    bip324_cipher_free(NULL);
}

int main(void)
{
    /* chacha20.h */
    TEST(test_chacha20_kats);
    TEST(test_chacha20_set_key);
    TEST(test_fschacha20);
    /* chacha20poly1305.h */
    TEST(test_chacha20poly1305_kats);
    TEST(test_fschacha20poly1305);
    /* bip324.h */
    TEST(test_bip324_cipher_pair);
    test_bip324_packet_vectors();
    return test_done();
}
