/*
 * Serial-link frames (cairn/serial_frame.h): a byte-at-a-time decoder that refuses
 * corrupt frames and resynchronises on the next start byte, and the matching writer.
 */
#include "cairn/serial_frame.h"

enum { WAIT_START, LEN_LO, LEN_HI, PAYLOAD, CRC_HI, CRC_LO };

uint16_t cairn_crc16(const uint8_t *p, size_t n, uint16_t crc)
{
    for (size_t i = 0; i < n; i++) {
        crc ^= (uint16_t)(p[i] << 8);
        for (int b = 0; b < 8; b++)
            crc = (crc & 0x8000u) ? (uint16_t)((crc << 1) ^ 0x1021u) : (uint16_t)(crc << 1);
    }
    return crc;
}

void cairn_serial_rx_init(cairn_serial_rx_t *rx, uint8_t *buf, uint16_t cap)
{
    *rx = (cairn_serial_rx_t){.buf = buf, .cap = cap, .phase = WAIT_START};
}

static uint16_t crc_byte(uint16_t crc, uint8_t b)
{
    return cairn_crc16(&b, 1, crc);
}

int cairn_serial_rx_feed(cairn_serial_rx_t *rx, uint8_t byte)
{
    switch (rx->phase) {
    case WAIT_START:
        if (byte == CAIRN_SERIAL_START) {
            rx->phase = LEN_LO;
            rx->crc = 0xFFFFu;
        } else {
            rx->noise++;
        }
        return CAIRN_SERIAL_MORE;
    case LEN_LO:
        rx->len = byte;
        rx->crc = crc_byte(rx->crc, byte);
        rx->phase = LEN_HI;
        return CAIRN_SERIAL_MORE;
    case LEN_HI:
        rx->len |= (uint16_t)(byte << 8);
        rx->crc = crc_byte(rx->crc, byte);
        if (rx->len == 0 || rx->len > rx->cap) {
            /* A corrupt length must not make the decoder swallow the frames after it. */
            rx->bad_length++;
            rx->phase = WAIT_START;
            return CAIRN_SERIAL_REFUSED;
        }
        rx->got = 0;
        rx->phase = PAYLOAD;
        return CAIRN_SERIAL_MORE;
    case PAYLOAD:
        rx->buf[rx->got++] = byte;
        rx->crc = crc_byte(rx->crc, byte);
        if (rx->got == rx->len)
            rx->phase = CRC_HI;
        return CAIRN_SERIAL_MORE;
    case CRC_HI:
        rx->crc_hi = byte;
        rx->phase = CRC_LO;
        return CAIRN_SERIAL_MORE;
    default:
        rx->phase = WAIT_START;
        if ((uint16_t)(rx->crc_hi << 8 | byte) != rx->crc) {
            rx->crc_errors++;
            return CAIRN_SERIAL_REFUSED;
        }
        rx->frames++;
        return CAIRN_SERIAL_FRAME;
    }
}

size_t cairn_serial_frame_write(const uint8_t *payload, uint16_t len, uint8_t *out, size_t cap)
{
    size_t total = (size_t)len + CAIRN_SERIAL_OVERHEAD;
    if (len == 0 || cap < total)
        return 0;
    out[0] = CAIRN_SERIAL_START;
    out[1] = (uint8_t)len;
    out[2] = (uint8_t)(len >> 8);
    for (uint16_t i = 0; i < len; i++)
        out[3 + i] = payload[i];
    uint16_t crc = cairn_crc16(&out[1], (size_t)len + 2u, 0xFFFFu);
    out[3 + len] = (uint8_t)(crc >> 8);
    out[4 + len] = (uint8_t)crc;
    return total;
}
