/* -maxuploadtarget's budget (src/net/uploadtarget.c) against Core's CConnman rules. */
#include <stdint.h>

#include "net/uploadtarget.h"
#include "test.h"

static void test_parse(void)
{
    uint64_t v = 0;
    CHECK(upload_target_parse("800", &v));
    CHECK(v == 800ull * 1024 * 1024); /* MiB by default */
    CHECK(upload_target_parse("800M", &v) && v == 800ull * 1024 * 1024);
    CHECK(upload_target_parse("5m", &v) && v == 5000000ull);
    CHECK(upload_target_parse("1k", &v) && v == 1000ull);
    CHECK(upload_target_parse("1K", &v) && v == 1024ull);
    CHECK(upload_target_parse("2G", &v) && v == 2ull << 30);
    CHECK(upload_target_parse("3t", &v) && v == 3000000000000ull);
    CHECK(upload_target_parse("0", &v) && v == 0);
    CHECK(!upload_target_parse("", &v));
    CHECK(!upload_target_parse("abc", &v));
    CHECK(!upload_target_parse("M", &v));
    CHECK(!upload_target_parse("-1", &v));
    CHECK(!upload_target_parse("1.5M", &v));
    CHECK(!upload_target_parse("99999999999999999999", &v));
    CHECK(!upload_target_parse("20000000T", &v)); /* overflows 64 bits */
}

static void test_no_limit(void)
{
    struct upload_target u = {0};
    upload_target_record(&u, 1u << 30, 1000);
    CHECK(!upload_target_reached(&u, 0, 1000));
    CHECK(!upload_target_reached(&u, 1, 1000));
    CHECK_EQ_INT((int)upload_target_time_left(&u, 1000), 0);
    CHECK(upload_target_bytes_left(&u) == 0);
}

static void test_cycle(void)
{
    /* Core's feature_maxuploadtarget: 800 MiB, of which 144 blocks of 4 MB (576 MB) stay
     * for new blocks while a whole day is left. */
    const int64_t t0 = 1700000000;
    struct upload_target u = {.limit = 800ull * 1024 * 1024};
    CHECK_EQ_INT((int)upload_target_time_left(&u, t0), UPLOAD_TARGET_TIMEFRAME_S);
    CHECK(!upload_target_reached(&u, 1, t0));
    uint64_t room = 800ull * 1024 * 1024 - 144ull * 4000000;
    upload_target_record(&u, room - 1, t0);
    CHECK(!upload_target_reached(&u, 1, t0));
    upload_target_record(&u, 1, t0);
    CHECK(upload_target_reached(&u, 1, t0));  /* historical serving stops */
    CHECK(!upload_target_reached(&u, 0, t0)); /* the budget is not spent */
    /* As the day passes, less room is kept: 10 minutes later one block less. */
    CHECK(!upload_target_reached(&u, 1, t0 + 600 + 600));
    upload_target_record(&u, 576000000ull, t0);
    CHECK(upload_target_reached(&u, 0, t0));
    CHECK(upload_target_bytes_left(&u) == 0);
    CHECK_EQ_INT((int)upload_target_time_left(&u, t0 + 100), UPLOAD_TARGET_TIMEFRAME_S - 100);
    /* The cycle ends a day after it began; the next bytes start another. */
    CHECK_EQ_INT((int)upload_target_time_left(&u, t0 + UPLOAD_TARGET_TIMEFRAME_S + 1), 0);
    upload_target_record(&u, 10, t0 + UPLOAD_TARGET_TIMEFRAME_S + 1);
    CHECK(u.sent_in_cycle == 10);
    CHECK(!upload_target_reached(&u, 0, t0 + UPLOAD_TARGET_TIMEFRAME_S + 1));
    CHECK(upload_target_bytes_left(&u) == 800ull * 1024 * 1024 - 10);
    /* A budget smaller than the room kept: historical blocks are never served. */
    struct upload_target small = {.limit = 1024 * 1024};
    CHECK(upload_target_reached(&small, 1, t0));
    CHECK(!upload_target_reached(&small, 0, t0));
}

int main(void)
{
    TEST(test_parse);
    TEST(test_no_limit);
    TEST(test_cycle);
    return test_done();
}
