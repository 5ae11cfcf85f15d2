/*
 * Instruction timing (cairn-sim only: QEMU is not cycle accurate).
 *
 * Each block of instructions is timed with SysTick (CLKSOURCE=1, RVR=0xFFFFFF)
 * by reading CVR before and after it:
 *
 *     ldr r2, [r1]      @ r1 = &SYST_CVR
 *     <block>
 *     ldr r3, [r1]
 *
 * raw = r2 - r3. The empty block gives the cost of the second LDR (2 cycles:
 * a load of CVR samples the counter at the same point of each load), so a
 * block's cost is raw - raw(empty). Expected costs are from the Cortex-M0+
 * TRM (single-cycle multiplier, zero-wait-state memory). In "1+N"/"3+N", N
 * is the number of registers in the list, PC included.
 *
 * Prints "name cycles=N expect=M ok|FAIL" per block; exits 1 on a mismatch.
 */
#include <stdint.h>

#include "check.h"
#include "systick.h"
#include "uart.h"

/* RAM scratch for loads and stores (8-byte aligned, zero-filled). */
uint32_t cyc_ram[8] __attribute__((aligned(8)));
const uint32_t cyc_flash_word = 0x5A5A5A5Au;

/* MEASURE(name, setup, block, teardown) defines uint32_t m_name(void) that
 * returns the raw CVR difference around `block`. Registers free for setup
 * and block: r0, r4-r7 (r1 = &CVR, r2 = first sample; r3 is free in the
 * block). `teardown` runs after the second sample. */
#define MEASURE(name, setup, block, teardown)                            \
    uint32_t m_##name(void);                                             \
    __asm__(".section .text.m_" #name ",\"ax\",%progbits\n"              \
            ".balign 4\n"                                                \
            ".global m_" #name "\n"                                      \
            ".type m_" #name ", %function\n"                             \
            ".thumb_func\n"                                              \
            "m_" #name ":\n"                                             \
            "    push {r4-r7, lr}\n"                                     \
            "    ldr  r1, =0xE000E018\n"                                 \
            setup                                                        \
            "    ldr  r2, [r1]\n"                                        \
            block                                                        \
            "    ldr  r3, [r1]\n"                                        \
            teardown                                                     \
            "    subs r0, r2, r3\n"                                      \
            "    pop  {r4-r7, pc}\n"                                     \
            ".balign 4\n"                                                \
            "9:\n"                                                       \
            ".ltorg\n"                                                   \
            ".size m_" #name ", .-m_" #name "\n"                         \
            ".text\n");

#define NONE ""

MEASURE(empty, NONE, NONE, NONE)
MEASURE(nop, NONE, "nop\n", NONE)
MEASURE(nop4, NONE, "nop\n nop\n nop\n nop\n", NONE)
MEASURE(movs_imm, NONE, "movs r4, #1\n", NONE)
MEASURE(adds_reg, "movs r4, #1\n movs r5, #2\n", "adds r4, r4, r5\n", NONE)
MEASURE(alu4, "movs r4, #1\n movs r5, #3\n",
        "lsls r4, r4, #3\n eors r4, r5\n ands r4, r5\n subs r4, #1\n", NONE)
MEASURE(cmp, NONE, "cmp r4, r5\n", NONE)
MEASURE(mov_hi, "mov r6, r8\n", "mov r8, r4\n", "mov r8, r6\n")
MEASURE(ext_rev, "movs r4, #0x81\n",
        "sxtb r5, r4\n uxtb r5, r4\n uxth r5, r4\n rev r5, r4\n", NONE)
MEASURE(adr, NONE, "adr r4, 9f\n", NONE) /* 9: is word aligned, after the code */
MEASURE(muls, "movs r4, #7\n movs r5, #6\n", "muls r4, r5, r4\n", NONE)
MEASURE(ldr_ram, "ldr r5, =cyc_ram\n", "ldr r4, [r5]\n", NONE)
MEASURE(str_ram, "ldr r5, =cyc_ram\n", "str r4, [r5]\n", NONE)
MEASURE(ldrb, "ldr r5, =cyc_ram\n", "ldrb r4, [r5, #1]\n", NONE)
MEASURE(ldrh, "ldr r5, =cyc_ram\n", "ldrh r4, [r5, #2]\n", NONE)
MEASURE(ldrsb, "ldr r5, =cyc_ram\n movs r6, #3\n", "ldrsb r4, [r5, r6]\n", NONE)
MEASURE(ldrsh, "ldr r5, =cyc_ram\n movs r6, #2\n", "ldrsh r4, [r5, r6]\n", NONE)
MEASURE(strb_strh, "ldr r5, =cyc_ram\n", "strb r4, [r5, #4]\n strh r4, [r5, #6]\n", NONE)
MEASURE(ldr_flash, "ldr r5, =cyc_flash_word\n", "ldr r4, [r5]\n", NONE)
MEASURE(ldr_literal, NONE, "ldr r4, =0x12345678\n", NONE)
MEASURE(ldr_sp, NONE, "ldr r4, [sp, #0]\n", NONE)
MEASURE(str_sp, "sub sp, #8\n", "str r4, [sp, #0]\n", "add sp, #8\n")
MEASURE(ldm2, "ldr r5, =cyc_ram\n", "ldmia r5!, {r4, r6}\n", NONE)
MEASURE(ldm3, "ldr r5, =cyc_ram\n", "ldmia r5!, {r4, r6, r7}\n", NONE)
MEASURE(stm2, "ldr r5, =cyc_ram\n", "stmia r5!, {r4, r6}\n", NONE)
MEASURE(push1, NONE, "push {r4}\n", "add sp, #4\n")
MEASURE(push4, NONE, "push {r4-r7}\n", "add sp, #16\n")
MEASURE(pop2, "sub sp, #8\n", "pop {r4, r5}\n", NONE)
MEASURE(pop_pc, "adr r5, 1f\n adds r5, #1\n push {r5}\n", "pop {pc}\n .balign 4\n 1:\n", NONE)
MEASURE(pop_r4_pc, "adr r5, 1f\n adds r5, #1\n push {r4, r5}\n", "pop {r4, pc}\n .balign 4\n 1:\n", NONE)
MEASURE(b, NONE, "b 1f\n 1:\n", NONE)
MEASURE(b_over, NONE, "b 1f\n nop\n nop\n 1:\n", NONE)
MEASURE(beq_taken, "cmp r4, r4\n", "beq 1f\n 1:\n", NONE)
MEASURE(beq_not_taken, "movs r4, #1\n cmp r4, #0\n", "beq 1f\n 1:\n", NONE)
MEASURE(bl, NONE, "bl 1f\n 1:\n", NONE)
MEASURE(bx, "adr r5, 1f\n adds r5, #1\n", "bx r5\n .balign 4\n 1:\n", NONE)
MEASURE(blx, "adr r5, 1f\n adds r5, #1\n", "blx r5\n .balign 4\n 1:\n", NONE)
MEASURE(mov_pc, "adr r5, 1f\n adds r5, #1\n", "mov pc, r5\n .balign 4\n 1:\n", NONE)
MEASURE(add_pc, "movs r5, #0\n", "add pc, r5\n nop\n", NONE)
MEASURE(mrs, NONE, "mrs r4, primask\n", NONE)
MEASURE(msr, "mrs r4, primask\n", "msr primask, r4\n", NONE)
MEASURE(dmb, NONE, "dmb\n", NONE)
MEASURE(dsb, NONE, "dsb\n", NONE)
MEASURE(isb, NONE, "isb\n", NONE)
MEASURE(cps, NONE, "cpsid i\n cpsie i\n", NONE)
MEASURE(loop4, NONE, "movs r4, #4\n 1:\n subs r4, #1\n bne 1b\n", NONE)
MEASURE(call_ret, NONE, "bl 2f\n b 3f\n 2:\n bx lr\n 3:\n", NONE)

struct block {
    const char *name;
    uint32_t (*fn)(void);
    uint32_t expect;
};

static const struct block blocks[] = {
    {"nop", m_nop, 1},
    {"nop x4", m_nop4, 4},
    {"movs imm", m_movs_imm, 1},
    {"adds reg", m_adds_reg, 1},
    {"lsls+eors+ands+subs", m_alu4, 4},
    {"cmp", m_cmp, 1},
    {"mov hi reg", m_mov_hi, 1},
    {"sxtb+uxtb+uxth+rev", m_ext_rev, 4},
    {"adr", m_adr, 1},
    {"muls", m_muls, 1},
    {"ldr ram", m_ldr_ram, 2},
    {"str ram", m_str_ram, 2},
    {"ldrb imm", m_ldrb, 2},
    {"ldrh imm", m_ldrh, 2},
    {"ldrsb reg", m_ldrsb, 2},
    {"ldrsh reg", m_ldrsh, 2},
    {"strb+strh", m_strb_strh, 4},
    {"ldr flash", m_ldr_flash, 2},
    {"ldr literal", m_ldr_literal, 2},
    {"ldr sp", m_ldr_sp, 2},
    {"str sp", m_str_sp, 2},
    {"ldm 2 regs", m_ldm2, 3},
    {"ldm 3 regs", m_ldm3, 4},
    {"stm 2 regs", m_stm2, 3},
    {"push 1 reg", m_push1, 2},
    {"push 4 regs", m_push4, 5},
    {"pop 2 regs", m_pop2, 3},
    {"pop {pc}", m_pop_pc, 4},
    {"pop {r4,pc}", m_pop_r4_pc, 5},
    {"b", m_b, 2},
    {"b over 2 nops", m_b_over, 2},
    {"beq taken", m_beq_taken, 2},
    {"beq not taken", m_beq_not_taken, 1},
    {"bl", m_bl, 3},
    {"bx", m_bx, 2},
    {"blx", m_blx, 2},
    {"mov pc", m_mov_pc, 2},
    {"add pc", m_add_pc, 2},
    {"mrs", m_mrs, 3},
    {"msr", m_msr, 3},
    {"dmb", m_dmb, 3},
    {"dsb", m_dsb, 3},
    {"isb", m_isb, 3},
    {"cpsid+cpsie", m_cps, 2},
    {"loop 4x subs+bne", m_loop4, 12},  /* 1 + 4*1 + 3*2 + 1 */
    {"bl+bx lr+b", m_call_ret, 7},      /* 3 + 2 + 2 */
};

static uint32_t run(uint32_t (*fn)(void))
{
    SYST_CVR = 0; /* reload to 0xFFFFFF on the next cycle: no wrap inside fn */
    return fn() & SYST_MAX_RELOAD;
}

int main(void)
{
    test_begin("cycles");
    SYST_CSR = 0;
    SYST_RVR = SYST_MAX_RELOAD;
    SYST_CVR = 0;
    SYST_CSR = SYST_CSR_CLKSOURCE | SYST_CSR_ENABLE;

    uint32_t base = run(m_empty);
    unsigned bad = 0;
    uart_puts("baseline cycles=");
    uart_put_udec(base);
    uart_puts(" expect=2 ");
    uart_puts(base == 2 ? "ok\n" : "FAIL\n");
    bad += base != 2;

    for (unsigned i = 0; i < sizeof blocks / sizeof blocks[0]; i++) {
        uint32_t raw = run(blocks[i].fn);
        uint32_t again = run(blocks[i].fn);
        uint32_t got = raw - base;
        int ok = got == blocks[i].expect && again == raw;
        uart_puts(blocks[i].name);
        uart_puts(" cycles=");
        uart_put_udec(got);
        uart_puts(" expect=");
        uart_put_udec(blocks[i].expect);
        if (again != raw) {
            uart_puts(" unstable=");
            uart_put_udec(again - base);
        }
        uart_puts(ok ? " ok\n" : " FAIL\n");
        bad += !ok;
    }
    SYST_CSR = 0;

    uart_puts("# blocks=");
    uart_put_udec(1 + sizeof blocks / sizeof blocks[0]);
    uart_puts(" failed=");
    uart_put_udec(bad);
    uart_puts(bad == 0 ? " PASS\n" : " FAIL\n");
    return bad == 0 ? 0 : 1;
}
