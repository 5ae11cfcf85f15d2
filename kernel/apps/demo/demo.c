/*
 * CPU-bound demo for `make run` and benchmarks: per iteration it fills a
 * 4 KiB buffer from a xorshift32 generator and takes its CRC-32, sieves the
 * primes below 20000, and runs a 256-point fixed-point FFT of a tone in
 * noise. Prints the results on UART0 and exits 0 (1 if a self-check fails).
 *
 * DEMO_ITERATIONS sets the amount of work: about 0.6 million instructions
 * per iteration, so the default of 120 is about 73 million (cairn-sim
 * --stats); e.g. make firmware DEMO_ITERATIONS=10.
 */
#include <stdint.h>

#include "uart.h"

#ifndef DEMO_ITERATIONS
#define DEMO_ITERATIONS 120
#endif

/* ---- CRC-32 (IEEE 802.3, reflected, table driven) ---- */

static uint32_t crc_table[256];

static void crc32_init(void)
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++)
            c = (c & 1u) ? (c >> 1) ^ 0xEDB88320u : c >> 1;
        crc_table[i] = c;
    }
}

static uint32_t crc32_update(uint32_t crc, const uint8_t *p, uint32_t n)
{
    crc = ~crc;
    while (n--)
        crc = crc_table[(crc ^ *p++) & 0xFFu] ^ (crc >> 8);
    return ~crc;
}

/* ---- xorshift32 ---- */

static uint32_t rng_state = 2463534242u;

static uint32_t rng_next(void)
{
    uint32_t x = rng_state;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return rng_state = x;
}

/* ---- sieve ---- */

#define SIEVE_N 20000u
static uint8_t composite[SIEVE_N];

static uint32_t count_primes(void)
{
    for (uint32_t i = 0; i < SIEVE_N; i++)
        composite[i] = 0;
    uint32_t count = 0;
    for (uint32_t i = 2; i < SIEVE_N; i++) {
        if (composite[i])
            continue;
        count++;
        for (uint32_t j = i * i; j < SIEVE_N; j += i)
            composite[j] = 1;
    }
    return count;
}

/* ---- fixed-point FFT (Q15 data, Q15 twiddles) ---- */

#define FFT_LOG2 8
#define FFT_N (1u << FFT_LOG2)
static int16_t sin_table[FFT_N]; /* sin(2*pi*k/N), Q15 */
static int32_t re[FFT_N], im[FFT_N];

/* sin table by the recurrence s[k+1] = 2cos(t) s[k] - s[k-1] in Q30. */
static void fft_init(void)
{
    /* cos(2*pi/256) and sin(2*pi/256) in Q30 */
    const int64_t c = 1073418433; /* 0.99969881869620 * 2^30 */
    const int64_t s1 = 26350943;  /* 0.02454122852291 * 2^30 */
    int64_t prev = 0, cur = s1;
    sin_table[0] = 0;
    for (uint32_t k = 1; k < FFT_N; k++) {
        int32_t q15 = (int32_t)((cur + (1 << 14)) >> 15);
        if (q15 > 32767)
            q15 = 32767;
        if (q15 < -32768)
            q15 = -32768;
        sin_table[k] = (int16_t)q15;
        int64_t next = ((2 * c * cur) >> 30) - prev;
        prev = cur;
        cur = next;
    }
}

static int32_t fft_sin(uint32_t k) { return sin_table[k & (FFT_N - 1)]; }
static int32_t fft_cos(uint32_t k) { return sin_table[(k + FFT_N / 4) & (FFT_N - 1)]; }

static void fft(void)
{
    /* bit reversal */
    for (uint32_t i = 1, j = 0; i < FFT_N; i++) {
        uint32_t bit = FFT_N >> 1;
        for (; j & bit; bit >>= 1)
            j ^= bit;
        j |= bit;
        if (i < j) {
            int32_t t = re[i];
            re[i] = re[j];
            re[j] = t;
            t = im[i];
            im[i] = im[j];
            im[j] = t;
        }
    }
    /* butterflies, scaled by 1/2 per stage */
    for (uint32_t len = 2; len <= FFT_N; len <<= 1) {
        uint32_t step = FFT_N / len;
        for (uint32_t i = 0; i < FFT_N; i += len) {
            for (uint32_t k = 0; k < len / 2; k++) {
                int32_t wr = fft_cos(k * step), wi = -fft_sin(k * step);
                int32_t *ar = &re[i + k], *ai = &im[i + k];
                int32_t *br = &re[i + k + len / 2], *bi = &im[i + k + len / 2];
                int32_t tr = (*br * wr - *bi * wi) >> 15;
                int32_t ti = (*br * wi + *bi * wr) >> 15;
                *br = (*ar - tr) >> 1;
                *bi = (*ai - ti) >> 1;
                *ar = (*ar + tr) >> 1;
                *ai = (*ai + ti) >> 1;
            }
        }
    }
}

#define TONE_BIN 17u

static uint32_t fft_run(uint32_t *energy)
{
    for (uint32_t n = 0; n < FFT_N; n++) {
        int32_t noise = (int32_t)(rng_next() & 0x3FFu) - 512;
        re[n] = ((8000 * fft_cos(n * TONE_BIN)) >> 15) + noise;
        im[n] = 0;
    }
    fft();
    uint32_t peak = 0, best = 0, sum = 0;
    for (uint32_t k = 1; k < FFT_N / 2; k++) {
        uint32_t m = (uint32_t)(re[k] < 0 ? -re[k] : re[k]) +
                     (uint32_t)(im[k] < 0 ? -im[k] : im[k]);
        sum += m;
        if (m > best) {
            best = m;
            peak = k;
        }
    }
    *energy = sum;
    return peak;
}

/* ---- main ---- */

static uint32_t buffer[1024];

static void line_hex(const char *name, uint32_t v)
{
    uart_puts(name);
    uart_put_hex(v);
    uart_puts("\n");
}

static void line_dec(const char *name, uint32_t v)
{
    uart_puts(name);
    uart_put_udec(v);
    uart_puts("\n");
}

int main(void)
{
    int bad = 0;
    crc32_init();
    fft_init();

    static const uint8_t check[] = "123456789";
    uint32_t c = crc32_update(0, check, 9);
    bad |= c != 0xCBF43926u;

    uint32_t crc = 0, primes = 0, peak = 0, energy = 0, peak_ok = 0;
    for (uint32_t it = 0; it < DEMO_ITERATIONS; it++) {
        for (uint32_t i = 0; i < 1024; i++)
            buffer[i] = rng_next();
        crc = crc32_update(crc, (const uint8_t *)buffer, sizeof buffer);
        primes = count_primes();
        uint32_t e;
        peak = fft_run(&e);
        energy += e;
        peak_ok += peak == TONE_BIN;
    }
    bad |= primes != 2262u;
    bad |= peak_ok != DEMO_ITERATIONS;

    uart_puts("demo: crc32 + sieve + fft\n");
    line_dec("iterations=", DEMO_ITERATIONS);
    line_hex("crc32(\"123456789\")=", c);
    line_hex("crc32(data)=", crc);
    line_dec("primes below 20000=", primes);
    line_dec("fft peak bin=", peak);
    line_hex("fft energy=", energy);
    uart_puts(bad ? "demo: FAIL\n" : "demo: ok\n");
    return bad;
}
