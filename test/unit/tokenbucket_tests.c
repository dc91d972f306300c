/* util/tokenbucket: Core's TokenBucket on a clock passed in. The first refill only sets the
 * time; refills at the rate up to the cap; a full bucket or a clock going back refills
 * nothing; taking reports the floor crossed; the start value is clamped to the cap. */
#include "test.h"
#include "util/tokenbucket.h"

#define S(x) ((int64_t)((x) * 1000000.0))

static void test_first_increment_sets_time(void)
{
    struct token_bucket b;
    token_bucket_init(&b, 2.0, 10.0, 60.0);
    CHECK(token_bucket_value(&b) == 10.0);
    token_bucket_increment(&b, S(1000));
    CHECK(token_bucket_value(&b) == 10.0);
    token_bucket_increment(&b, S(1004));
    CHECK(token_bucket_value(&b) == 18.0);
    /* Half a second: one token. */
    token_bucket_increment(&b, S(1004.5));
    CHECK(token_bucket_value(&b) == 19.0);
}

static void test_cap(void)
{
    struct token_bucket b;
    token_bucket_init(&b, 2.0, 100.0, 60.0);
    CHECK(token_bucket_value(&b) == 60.0);
    token_bucket_increment(&b, S(0));
    token_bucket_increment(&b, S(100));
    CHECK(token_bucket_value(&b) == 60.0);
    CHECK(token_bucket_decrement(&b, 5.0, 0.0));
    token_bucket_increment(&b, S(101));
    CHECK(token_bucket_value(&b) == 57.0);
    token_bucket_increment(&b, S(200));
    CHECK(token_bucket_value(&b) == 60.0);
}

static void test_clock_back(void)
{
    struct token_bucket b;
    token_bucket_init(&b, 1.0, 0.0, 60.0);
    token_bucket_increment(&b, S(50));
    token_bucket_increment(&b, S(40));
    CHECK(token_bucket_value(&b) == 0.0);
    /* The next refill counts from the earlier time. */
    token_bucket_increment(&b, S(45));
    CHECK(token_bucket_value(&b) == 5.0);
    /* Same time: nothing. */
    token_bucket_increment(&b, S(45));
    CHECK(token_bucket_value(&b) == 5.0);
}

static void test_decrement_floor(void)
{
    struct token_bucket b;
    token_bucket_init(&b, 1.0, 3.0, 60.0);
    CHECK_EQ_INT(token_bucket_decrement(&b, 1.0, 0.0), 1);
    CHECK_EQ_INT(token_bucket_decrement(&b, 1.0, 0.0), 1);
    CHECK_EQ_INT(token_bucket_decrement(&b, 1.0, 0.0), 0);
    CHECK(token_bucket_value(&b) == 0.0);
    /* Below zero, down to a floor. */
    CHECK_EQ_INT(token_bucket_decrement(&b, 1.0, -2.0), 1);
    CHECK_EQ_INT(token_bucket_decrement(&b, 1.0, -2.0), 0);
    CHECK(token_bucket_value(&b) == -2.0);
    token_bucket_increment(&b, S(0));
    token_bucket_increment(&b, S(3));
    CHECK(token_bucket_value(&b) == 1.0);
}

int main(void)
{
    TEST(test_first_increment_sets_time);
    TEST(test_cap);
    TEST(test_clock_back);
    TEST(test_decrement_floor);
    return test_done();
}
