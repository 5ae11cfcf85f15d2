/*
 * Serial-link frames (cairn/serial_frame.h): the CRC's check value, a frame written and
 * decoded back, and a corrupted byte, a bad length and noise refused or skipped and
 * counted, with the next frame still received.
 */
#include <string.h>

#include "ktest.h"

#include "cairn/serial_frame.h"

static const uint8_t desc[] = {0xA0, 2, 1, 1, 0, 0, 0, 3, 0x10, 2, 1, 3};

/* Feeds n bytes; returns how many frames completed and how many were refused. */
static void feed(cairn_serial_rx_t *rx, const uint8_t *p, size_t n, int *frames, int *refused)
{
    for (size_t i = 0; i < n; i++) {
        int r = cairn_serial_rx_feed(rx, p[i]);
        *frames += r == CAIRN_SERIAL_FRAME;
        *refused += r == CAIRN_SERIAL_REFUSED;
    }
}

static void test_crc_check_value(void **state)
{
    (void)state;
    /* CRC-16/CCITT-FALSE's catalogued check value. */
    assert_int_equal(cairn_crc16((const uint8_t *)"123456789", 9, 0xFFFFu), 0x29B1);
}

static void test_a_written_frame_decodes_to_its_payload(void **state)
{
    (void)state;
    uint8_t wire[64], buf[32];
    size_t n = cairn_serial_frame_write(desc, sizeof desc, wire, sizeof wire);
    assert_int_equal(n, sizeof desc + CAIRN_SERIAL_OVERHEAD);
    assert_int_equal(wire[0], CAIRN_SERIAL_START);
    assert_int_equal(wire[1], sizeof desc);
    assert_int_equal(wire[2], 0);
    cairn_serial_rx_t rx;
    cairn_serial_rx_init(&rx, buf, sizeof buf);
    int frames = 0, refused = 0;
    feed(&rx, wire, n, &frames, &refused);
    assert_int_equal(frames, 1);
    assert_int_equal(refused, 0);
    assert_int_equal(rx.len, sizeof desc);
    assert_memory_equal(buf, desc, sizeof desc);
    assert_int_equal(cairn_serial_frame_write(desc, sizeof desc, wire, sizeof desc + 4), 0);
    assert_int_equal(cairn_serial_frame_write(desc, 0, wire, sizeof wire), 0);
}

static void test_every_corrupted_byte_is_refused_and_the_next_frame_arrives(void **state)
{
    (void)state;
    uint8_t wire[64], buf[32];
    size_t n = cairn_serial_frame_write(desc, sizeof desc, wire, sizeof wire);
    /* Corrupting the length, payload or CRC refuses the frame (the start byte: the
     * frame is skipped as noise). Either way a good frame after it is received. */
    for (size_t at = 0; at < n; at++) {
        uint8_t bad[64];
        memcpy(bad, wire, n);
        bad[at] ^= 0x04;
        cairn_serial_rx_t rx;
        cairn_serial_rx_init(&rx, buf, sizeof buf);
        int frames = 0, refused = 0;
        feed(&rx, bad, n, &frames, &refused);
        assert_int_equal(frames, 0);
        if (at == 0) {
            assert_int_equal(refused, 0);
            assert_int_equal(rx.noise, n);
        } else {
            assert_int_equal(refused, 1);
            assert_int_equal(rx.crc_errors + rx.bad_length, 1);
        }
        /* A length made longer than the frame swallows the following bytes: two frames
         * later the decoder is in step again. */
        feed(&rx, wire, n, &frames, &refused);
        feed(&rx, wire, n, &frames, &refused);
        assert_true(frames >= 1);
        assert_memory_equal(buf, desc, sizeof desc);
    }
}

static void test_a_length_beyond_the_buffer_is_refused_at_once(void **state)
{
    (void)state;
    uint8_t wire[64], buf[8];
    size_t n = cairn_serial_frame_write(desc, sizeof desc, wire, sizeof wire);
    cairn_serial_rx_t rx;
    cairn_serial_rx_init(&rx, buf, sizeof buf);
    int frames = 0, refused = 0;
    feed(&rx, wire, 3, &frames, &refused);
    assert_int_equal(refused, 1);
    assert_int_equal(rx.bad_length, 1);
    feed(&rx, wire + 3, n - 3, &frames, &refused);
    assert_int_equal(frames, 0);
    assert_true(rx.noise > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        KTEST(test_crc_check_value),
        KTEST(test_a_written_frame_decodes_to_its_payload),
        KTEST(test_every_corrupted_byte_is_refused_and_the_next_frame_arrives),
        KTEST(test_a_length_beyond_the_buffer_is_refused_at_once),
    };
    return cmocka_run_group_tests_name("serial_frame", tests, NULL, NULL);
}
