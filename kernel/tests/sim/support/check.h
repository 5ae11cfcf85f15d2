/*
 * Transcript helpers for the bare-metal test firmware.
 *
 * Every check prints one line on UART0: "ok <what>" or "FAIL <what> ...".
 * Values printed must not depend on timing, so that QEMU and cairn-sim give
 * the same transcript. test_begin()/test_end() frame the transcript; main()
 * returns test_end(), which is 0 when every check passed and 1 otherwise.
 */
#ifndef CAIRN_TEST_CHECK_H
#define CAIRN_TEST_CHECK_H

#include <stdint.h>

void test_begin(const char *name);
int test_end(void);
unsigned test_failures(void);

/* Free text line. */
void say(const char *s);

void check(int cond, const char *what);
/* "ok what=N" / "FAIL what=N expect=M", decimal or hex. */
void check_eq(const char *what, uint32_t got, uint32_t expect);
void check_eq_hex(const char *what, uint32_t got, uint32_t expect);
/* "ok what: yes" / "FAIL what: no". */
void check_yes(const char *what, int cond);
/* "ok what=\"got\"" / "FAIL what=\"got\" expect=\"exp\"". */
void check_str(const char *what, const char *got, const char *expect);

/* Event sequence: handlers append short tokens; tests compare the whole
 * sequence with check_str(). Safe to call from any priority (it masks
 * interrupts around the append). */
void seq_reset(void);
void seq_add(const char *token);
const char *seq_get(void);

int str_eq(const char *a, const char *b);

#endif
