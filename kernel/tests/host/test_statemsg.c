/* Host tests of state messages (kernel/core/statemsg.c): the depth formula, the latest
 * value wins, reads do not consume it, a read is whole unless depth writes came in between
 * (detected, never returned silently), the slow reader's atomic copy. The writes that a
 * preemption would bring are made between read_begin and read_end. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "cairn/statemsg.h"

struct reading {
    uint32_t seq;
    uint8_t bytes[12];
};

static struct reading value(uint32_t k)
{
    struct reading r;
    r.seq = k;
    memset(r.bytes, (int)(k & 0xFFu), sizeof r.bytes);
    return r;
}

static bool whole(const struct reading *r)
{
    for (unsigned i = 0; i < sizeof r->bytes; i++)
        if (r->bytes[i] != (uint8_t)(r->seq & 0xFFu))
            return false;
    return true;
}

static void test_depth_from_the_writer_and_the_longest_read(void **state)
{
    (void)state;
    /* A read shorter than the writer's slack (period - deadline): one write at most. */
    assert_int_equal(cairn_statemsg_depth(10, 4, 5), 2);
    assert_int_equal(cairn_statemsg_depth(10, 4, 6), 2);
    /* Deadline = period: two writes can come back to back. */
    assert_int_equal(cairn_statemsg_depth(10, 10, 5), 3);
    assert_int_equal(cairn_statemsg_depth(10, 10, 10), 3);
    assert_int_equal(cairn_statemsg_depth(10, 10, 11), 4);
    /* x_max = 1 + ceil((17 - 6) / 10) = 3. */
    assert_int_equal(cairn_statemsg_depth(10, 4, 17), 4);
    assert_int_equal(cairn_statemsg_depth(0, 0, 5), 0);
    assert_int_equal(cairn_statemsg_depth(10, 11, 5), 0);
    assert_int_equal(cairn_statemsg_depth(1, 1, 1000), 0); /* beyond 255 slots */
}

static void test_the_latest_value_wins_and_reads_do_not_consume_it(void **state)
{
    (void)state;
    _Alignas(4) uint8_t buf[CAIRN_STATEMSG_BYTES(sizeof(struct reading), 3)];
    cairn_statemsg_t sm;
    struct reading first = value(7), out;
    assert_int_equal(cairn_statemsg_init(&sm, buf, sizeof first, 3, &first), CAIRN_OK);
    assert_int_equal(cairn_statemsg_read(&sm, &out), CAIRN_OK);
    assert_int_equal(out.seq, 7);
    for (uint32_t k = 8; k < 20; k++) {
        struct reading v = value(k);
        cairn_statemsg_write(&sm, &v);
    }
    for (int twice = 0; twice < 2; twice++) {
        memset(&out, 0, sizeof out);
        assert_int_equal(cairn_statemsg_read(&sm, &out), CAIRN_OK);
        assert_int_equal(out.seq, 19);
        assert_true(whole(&out));
    }
    assert_int_equal(cairn_statemsg_writes(&sm), 12);
    cairn_statemsg_read_atomic(&sm, &out);
    assert_int_equal(out.seq, 19);
}

static void test_a_read_is_whole_until_depth_writes_come_in_between(void **state)
{
    (void)state;
    enum { DEPTH = 4 };
    _Alignas(4) uint8_t buf[CAIRN_STATEMSG_BYTES(sizeof(struct reading), DEPTH)];
    cairn_statemsg_t sm;
    struct reading v = value(1);
    assert_int_equal(cairn_statemsg_init(&sm, buf, sizeof v, DEPTH, &v), CAIRN_OK);
    for (unsigned between = 0; between <= DEPTH + 1; between++) {
        uint32_t c;
        const struct reading *p = cairn_statemsg_read_begin(&sm, &c);
        uint32_t seen = p->seq;
        for (unsigned k = 0; k < between; k++) {
            v = value(v.seq + 1);
            cairn_statemsg_write(&sm, &v);
        }
        bool ok = cairn_statemsg_read_end(&sm, c);
        /* The slot read is overwritten by the depth-th write after it. */
        assert_int_equal(ok, between < DEPTH);
        if (ok)
            assert_true(p->seq == seen && whole(p));
        else
            assert_true(p->seq != seen);
    }
}

static void test_a_word_value_needs_one_slot(void **state)
{
    (void)state;
    _Alignas(4) uint8_t buf[CAIRN_STATEMSG_BYTES(2, 1)];
    cairn_statemsg_t sm;
    uint16_t x = 0xBEEF, out = 0;
    assert_int_equal(cairn_statemsg_init(&sm, buf, sizeof x, 1, &x), CAIRN_OK);
    assert_int_equal(cairn_statemsg_read(&sm, &out), CAIRN_OK);
    assert_int_equal(out, 0xBEEF);
    for (uint16_t k = 0; k < 300; k++) {
        cairn_statemsg_write(&sm, &k);
        assert_int_equal(cairn_statemsg_read(&sm, &out), CAIRN_OK);
        assert_int_equal(out, k);
    }
}

static void test_bad_set_ups_are_refused(void **state)
{
    (void)state;
    _Alignas(4) uint8_t buf[64];
    cairn_statemsg_t sm;
    assert_int_equal(cairn_statemsg_init(&sm, buf, 0, 2, 0), CAIRN_EINVAL);
    assert_int_equal(cairn_statemsg_init(&sm, buf, 4, 0, 0), CAIRN_EINVAL);
    assert_int_equal(cairn_statemsg_init(&sm, buf, 5, 1, 0), CAIRN_EINVAL); /* not one store */
    assert_int_equal(cairn_statemsg_init(&sm, buf + 1, 4, 2, 0), CAIRN_EINVAL);
    assert_int_equal(cairn_statemsg_init(&sm, 0, 4, 2, 0), CAIRN_EINVAL);
    assert_int_equal(cairn_statemsg_init(&sm, buf, 5, 2, 0), CAIRN_OK);
    uint8_t out[5] = {1, 1, 1, 1, 1};
    assert_int_equal(cairn_statemsg_read(&sm, out), CAIRN_OK);
    assert_memory_equal(out, (uint8_t[5]){0}, 5); /* zeros without an initial value */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_depth_from_the_writer_and_the_longest_read),
        cmocka_unit_test(test_the_latest_value_wins_and_reads_do_not_consume_it),
        cmocka_unit_test(test_a_read_is_whole_until_depth_writes_come_in_between),
        cmocka_unit_test(test_a_word_value_needs_one_slot),
        cmocka_unit_test(test_bad_set_ups_are_refused),
    };
    return cmocka_run_group_tests(tests, 0, 0);
}
