/*
 * Frames on a serial link (a UART): how an application description reaches a module's
 * application manager over a byte stream that may lose or corrupt bytes.
 *
 *   0x7E   len (2 bytes, little-endian, 1..cap)   len payload bytes   CRC (2 bytes, big-endian)
 *
 * The CRC is CRC-16/CCITT-FALSE (polynomial 0x1021, initial 0xFFFF) over the two length
 * bytes and the payload. The decoder takes one byte at a time (from a UART's receive
 * interrupt task) and refuses a frame whose CRC or length is wrong, counting it; it then
 * waits for the next start byte, so one corrupt frame costs only that frame.
 */
#ifndef CAIRN_SERIAL_FRAME_H
#define CAIRN_SERIAL_FRAME_H

#include <stddef.h>
#include <stdint.h>

#define CAIRN_SERIAL_START 0x7Eu
#define CAIRN_SERIAL_OVERHEAD 5u /* start, length, CRC */

/* What a byte completed. */
#define CAIRN_SERIAL_MORE 0    /* nothing yet */
#define CAIRN_SERIAL_FRAME 1   /* a whole frame: its payload is buf[0 .. len) */
#define CAIRN_SERIAL_REFUSED 2 /* a frame was refused (counted in crc_errors or bad_length) */

typedef struct cairn_serial_rx {
    uint8_t *buf;
    uint16_t cap;
    uint16_t len; /* the frame's payload length (valid from the length bytes on) */
    uint16_t got;
    uint16_t crc;
    uint8_t phase;
    uint8_t crc_hi;
    /* Counters: whole frames, frames refused for their CRC or length, bytes outside any frame. */
    uint16_t frames, crc_errors, bad_length, noise;
} cairn_serial_rx_t;

/* The decoder, empty, writing payloads into buf (cap bytes: the longest frame accepted). */
void cairn_serial_rx_init(cairn_serial_rx_t *rx, uint8_t *buf, uint16_t cap);

/* Takes the next byte of the link: CAIRN_SERIAL_MORE, _FRAME or _REFUSED. */
int cairn_serial_rx_feed(cairn_serial_rx_t *rx, uint8_t byte);

/* CRC-16/CCITT-FALSE of n bytes, continuing from crc (0xFFFF to start). */
uint16_t cairn_crc16(const uint8_t *p, size_t n, uint16_t crc);

/* Writes payload (len bytes, 1..65535) as a frame into out (cap bytes). The frame's
 * length, or 0 when it does not fit or len is 0. */
size_t cairn_serial_frame_write(const uint8_t *payload, uint16_t len, uint8_t *out, size_t cap);

#endif
