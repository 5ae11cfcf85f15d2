/*
 * Energy firmware: data processing from flash in the style of Dhrystone (record copies,
 * string copy and compare, array indexing, integer arithmetic and calls), for 5 ms of
 * simulated time. Not Dhrystone itself (DS10152 Table 28 is measured running Dhrystone 2.1):
 * with the shipped profile's flat instruction classes any code draws the Table 28 current,
 * and this is the program the Table 28 tests run. Exits 0 when the checks held.
 */
#include <stdint.h>

#include "energy_clock.h"

ENERGY_SYSTICK_HANDLER

struct record {
    struct record *next;
    uint32_t kind;
    uint32_t value;
    char text[31];
};

static struct record a, b;
static uint32_t table[50];
static char s1[31], s2[31];

__attribute__((noinline)) static void copy_str(char *d, const char *s)
{
    while ((*d++ = *s++) != '\0') {
    }
}

__attribute__((noinline)) static int same_str(const char *x, const char *y)
{
    while (*x != '\0' && *x == *y) {
        x++;
        y++;
    }
    return *x == *y;
}

__attribute__((noinline)) static uint32_t step(struct record *r, uint32_t i)
{
    *r->next = *r;
    r->next->value = r->value * 3u + i;
    table[i % 50u] += r->next->value >> 2;
    return r->next->value / 5u + (r->kind == 2u);
}

int main(void)
{
    uint32_t bad = 0u, i = 0u;
    a.next = &b;
    a.kind = 2u;
    energy_ticks_start(1000u);
    while (energy_ticks < 5u) {
        copy_str(s1, "DHRYSTONE-STYLE PROGRAM, 1'ST");
        copy_str(s2, "DHRYSTONE-STYLE PROGRAM, 2'ND");
        bad |= same_str(s1, s2);
        a.value = step(&a, i++) & 0xFFFFu;
    }
    return (int)bad;
}
