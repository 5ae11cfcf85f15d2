/* Host tests of the slab allocator (kernel/core/slab.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "cairn/mem.h"

struct tcb_like {
    uint32_t a, b, c;
    uint8_t d;
};

CAIRN_SLAB_DEFINE(tcbs, struct tcb_like, 5);
CAIRN_SLAB_DEFINE(bytes, uint8_t, 3);

static void test_stride(void **state)
{
    (void)state;
    assert_int_equal(CAIRN_SLAB_STRIDE(1), 2 * sizeof(void *));
    assert_int_equal(CAIRN_SLAB_STRIDE(2 * sizeof(void *)), 2 * sizeof(void *));
    assert_int_equal(CAIRN_SLAB_STRIDE(2 * sizeof(void *) + 1), 3 * sizeof(void *));
    assert_int_equal(sizeof(tcbs_storage[0]), CAIRN_SLAB_STRIDE(sizeof(struct tcb_like)));
    CAIRN_SLAB_INIT(bytes);
    assert_int_equal(bytes.stride, 2 * sizeof(void *));
    assert_int_equal(bytes.count, 3);
}

static void test_alloc_all_distinct_then_exhaust(void **state)
{
    (void)state;
    CAIRN_SLAB_INIT(tcbs);
    struct tcb_like *o[5];
    for (int i = 0; i < 5; i++) {
        o[i] = cairn_slab_alloc(&tcbs);
        assert_non_null(o[i]);
        assert_int_equal((uintptr_t)o[i] % _Alignof(struct tcb_like), 0);
        memset(o[i], 0x11 * (i + 1), sizeof(*o[i]));
        for (int j = 0; j < i; j++)
            assert_ptr_not_equal(o[i], o[j]);
    }
    for (int i = 0; i < 5; i++)
        assert_int_equal(((uint8_t *)o[i])[sizeof(struct tcb_like) - 1], (uint8_t)(0x11 * (i + 1)));
    assert_int_equal(tcbs.used, 5);
    assert_null(cairn_slab_alloc(&tcbs));
    assert_null(cairn_slab_alloc(&tcbs));
    assert_int_equal(tcbs.alloc_failures, 2);
    assert_int_equal(tcbs.peak, 5);
    /* O(1) LIFO reuse */
    cairn_slab_free(&tcbs, o[2]);
    cairn_slab_free(&tcbs, o[4]);
    assert_int_equal(tcbs.used, 3);
    assert_ptr_equal(cairn_slab_alloc(&tcbs), o[4]);
    assert_ptr_equal(cairn_slab_alloc(&tcbs), o[2]);
    assert_null(cairn_slab_alloc(&tcbs));
    assert_int_equal(tcbs.alloc_failures, 3);
    for (int i = 0; i < 5; i++)
        cairn_slab_free(&tcbs, o[i]);
    assert_int_equal(tcbs.used, 0);
    assert_int_equal(tcbs.bad_frees, 0);
    assert_int_equal(tcbs.peak, 5);
}

static void test_bad_frees(void **state)
{
    (void)state;
    CAIRN_SLAB_INIT(tcbs);
    uint8_t *a = cairn_slab_alloc(&tcbs);
    uint8_t *b = cairn_slab_alloc(&tcbs);
    struct tcb_like outside;
    cairn_slab_free(&tcbs, NULL); /* allowed */
    assert_int_equal(tcbs.bad_frees, 0);
    cairn_slab_free(&tcbs, a + 1);                                 /* misaligned */
    cairn_slab_free(&tcbs, a + tcbs.stride / 2);                   /* misaligned */
    cairn_slab_free(&tcbs, &outside);                              /* out of range */
    cairn_slab_free(&tcbs, (uint8_t *)tcbs_storage + 5 * tcbs.stride); /* one past the end */
    cairn_slab_free(&tcbs, (uint8_t *)tcbs_storage - tcbs.stride);     /* before */
    assert_int_equal(tcbs.bad_frees, 5);
    assert_int_equal(tcbs.used, 2);
    /* double frees */
    cairn_slab_free(&tcbs, b);
    cairn_slab_free(&tcbs, b);
    cairn_slab_free(&tcbs, a);
    cairn_slab_free(&tcbs, a);
    cairn_slab_free(&tcbs, b);
    assert_int_equal(tcbs.bad_frees, 8);
    assert_int_equal(tcbs.used, 0);
    /* the free list is intact: exactly 5 distinct slots come back */
    void *o[5];
    for (int i = 0; i < 5; i++) {
        o[i] = cairn_slab_alloc(&tcbs);
        assert_non_null(o[i]);
        for (int j = 0; j < i; j++)
            assert_ptr_not_equal(o[i], o[j]);
    }
    assert_null(cairn_slab_alloc(&tcbs));
}

/* A live object whose first two words look exactly like a free slot's links must
 * still be freed (the canary only triggers a check of the free list). */
static void test_canary_lookalike_is_freed(void **state)
{
    (void)state;
    CAIRN_SLAB_INIT(tcbs);
    void **a = cairn_slab_alloc(&tcbs);
    void **b = cairn_slab_alloc(&tcbs);
    void **c = cairn_slab_alloc(&tcbs);
    cairn_slab_free(&tcbs, b);
    uintptr_t key = (uintptr_t)b[1] ^ (uintptr_t)b ^ (uintptr_t)b[0];
    a[0] = c;
    a[1] = (void *)((uintptr_t)a ^ (uintptr_t)c ^ key);
    cairn_slab_free(&tcbs, a);
    assert_int_equal(tcbs.bad_frees, 0);
    assert_int_equal(tcbs.used, 1);
    cairn_slab_free(&tcbs, c);
    assert_int_equal(tcbs.used, 0);
    assert_int_equal(tcbs.bad_frees, 0);
}

static void test_empty_and_tiny(void **state)
{
    (void)state;
    cairn_slab_t s;
    uint8_t one[2 * sizeof(void *)] __attribute__((aligned(sizeof(void *))));
    cairn_slab_init(&s, one, 1, 0);
    assert_null(cairn_slab_alloc(&s));
    assert_int_equal(s.alloc_failures, 1);
    cairn_slab_free(&s, one);
    assert_int_equal(s.bad_frees, 1);
    cairn_slab_init(&s, one, 1, 1);
    void *p = cairn_slab_alloc(&s);
    assert_ptr_equal(p, one);
    memset(p, 0xFF, sizeof(one)); /* the whole slot belongs to the user */
    assert_null(cairn_slab_alloc(&s));
    cairn_slab_free(&s, p);
    assert_ptr_equal(cairn_slab_alloc(&s), one);
    /* an object too large for the 16-bit stride makes an empty slab */
    cairn_slab_init(&s, one, 70000, 1);
    assert_null(cairn_slab_alloc(&s));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stride),
        cmocka_unit_test(test_alloc_all_distinct_then_exhaust),
        cmocka_unit_test(test_bad_frees),
        cmocka_unit_test(test_canary_lookalike_is_freed),
        cmocka_unit_test(test_empty_and_tiny),
    };
    return cmocka_run_group_tests_name("slab", tests, NULL, NULL);
}
