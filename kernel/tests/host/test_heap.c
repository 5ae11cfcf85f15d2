/* Host tests of the heap (kernel/core/heap.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cairn/mem.h"
#include "cairn/trace.h"

/* The kernel's allocation calls (heap.c; declared in the private kernel.h). */
void *cairn__malloc_for(size_t n, cairn_task_id_t owner);
void cairn__heap_give(void *p, cairn_task_id_t owner);

/* ---- stubs for the scheduler and the trace port -------------------------- */

static cairn_task_id_t current = 1;
cairn_task_id_t cairn_current_task(void)
{
    return current;
}

/* Interrupt masking without the scheduler: the depth, checked to be balanced. */
static unsigned irq_depth;
uint32_t arch_irq_save(void) { return irq_depth++; }
void arch_irq_restore(uint32_t state) { irq_depth = state; }

static uint32_t trace[64];
static unsigned ntrace;
static unsigned depth_at_trace[64]; /* the masking depth when each event was logged */
void cairn_trace_host_put(uint32_t word)
{
    depth_at_trace[ntrace % 64] = irq_depth;
    trace[ntrace++ % 64] = word;
}

/* ---- fixture and the consistency checker used by every test --------------- */

#define ARENA 4096
static uint8_t *arena;     /* from libc, so ASan guards both ends */
static size_t heap_bytes;  /* usable heap size after init */

struct walk {
    size_t total, used, freeb, nused, nfree, largest;
    int adjacent_free;
    int prev_free;
    uint8_t *expect; /* next block's payload must be here */
    int order_ok;
};

static void walk_cb(void *payload, size_t usable, cairn_task_id_t owner, bool used, void *ctx)
{
    struct walk *w = ctx;
    if ((uint8_t *)payload != w->expect)
        w->order_ok = 0;
    w->expect = (uint8_t *)payload + usable + CAIRN_HEAP_HEADER;
    w->total += usable + CAIRN_HEAP_HEADER;
    if (used) {
        w->used += usable;
        w->nused++;
        assert_int_equal(cairn_alloc_size(payload), usable);
        assert_int_equal(cairn_heap_owner(payload), owner);
    } else {
        w->freeb += usable;
        w->nfree++;
        if (usable > w->largest)
            w->largest = usable;
        if (w->prev_free)
            w->adjacent_free = 1;
        assert_int_equal(cairn_alloc_size(payload), 0);
    }
    w->prev_free = !used;
    assert_int_equal((uintptr_t)payload % CAIRN_HEAP_ALIGN, 0);
    assert_int_equal(usable % CAIRN_HEAP_ALIGN, 0);
}

/* The heap is whole: blocks tile it, the free list matches, stats agree with a walk. */
static void check_heap(void)
{
    assert_int_equal(cairn_heap_check(), CAIRN_OK);
    struct walk w = {.expect = arena + CAIRN_HEAP_HEADER, .order_ok = 1};
    cairn_heap_walk(walk_cb, &w);
    assert_true(w.order_ok);
    assert_false(w.adjacent_free);
    assert_int_equal(w.total, heap_bytes);
    struct cairn_heap_stats st;
    cairn_heap_stats(&st);
    assert_int_equal(st.used_bytes, w.used);
    assert_int_equal(st.free_bytes, w.freeb);
    assert_int_equal(st.blocks_used, w.nused);
    assert_int_equal(st.blocks_free, w.nfree);
    assert_int_equal(st.largest_free, w.largest);
    assert_int_equal(st.free_bytes + st.used_bytes + (st.blocks_free + st.blocks_used) * CAIRN_HEAP_HEADER,
                     heap_bytes);
}

static struct cairn_heap_stats stats(void)
{
    struct cairn_heap_stats st;
    cairn_heap_stats(&st);
    return st;
}

static int setup(void **state)
{
    (void)state;
    arena = malloc(ARENA);
    heap_bytes = ARENA;
    current = 1;
    ntrace = 0;
    cairn_heap_init(arena, ARENA);
    check_heap();
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    check_heap();
    free(arena);
    return 0;
}

/* ---- tests ------------------------------------------------------------------ */

static void test_init_one_free_block(void **state)
{
    (void)state;
    struct cairn_heap_stats st = stats();
    assert_int_equal(st.blocks_free, 1);
    assert_int_equal(st.blocks_used, 0);
    assert_int_equal(st.free_bytes, ARENA - CAIRN_HEAP_HEADER);
    assert_int_equal(st.largest_free, ARENA - CAIRN_HEAP_HEADER);
    assert_int_equal(st.alloc_failures, 0);
    assert_int_equal(st.bad_frees, 0);
}

static void test_init_misaligned_and_tiny(void **state)
{
    (void)state;
    /* base + 3: rounded up to the next 8, size rounded down */
    cairn_heap_init(arena + 3, 100);
    void *p = cairn_malloc(1);
    assert_non_null(p);
    assert_ptr_equal(p, arena + 8 + CAIRN_HEAP_HEADER);
    assert_int_equal(stats().free_bytes + stats().used_bytes + 2 * CAIRN_HEAP_HEADER, 88);
    assert_int_equal(cairn_heap_check(), CAIRN_OK);
    /* too small for a block: every allocation fails and is counted */
    cairn_heap_init(arena, 15);
    assert_null(cairn_malloc(1));
    assert_int_equal(stats().alloc_failures, 1);
    assert_int_equal(stats().blocks_free, 0);
    cairn_free(arena + 8);
    assert_int_equal(stats().bad_frees, 1);
    assert_int_equal(cairn_heap_check(), CAIRN_OK);
    cairn_heap_init(arena, ARENA);
}

static void test_malloc_zero_is_null(void **state)
{
    (void)state;
    assert_null(cairn_malloc(0));
    assert_int_equal(stats().alloc_failures, 0);
    assert_int_equal(stats().blocks_used, 0);
}

static void test_alignment_and_usable_size(void **state)
{
    (void)state;
    void *ps[40];
    for (size_t n = 1; n <= 40; n++) {
        ps[n - 1] = cairn_malloc(n * 3);
        assert_non_null(ps[n - 1]);
        assert_int_equal((uintptr_t)ps[n - 1] % 8, 0);
        size_t us = cairn_alloc_size(ps[n - 1]);
        assert_true(us >= n * 3 && us < n * 3 + 8 + CAIRN_HEAP_MIN_BLOCK);
        memset(ps[n - 1], (int)n, us);
    }
    check_heap();
    for (size_t n = 1; n <= 40; n++) {
        uint8_t *b = ps[n - 1];
        for (size_t i = 0; i < cairn_alloc_size(b); i++)
            assert_int_equal(b[i], (uint8_t)n);
        cairn_free(b);
    }
    assert_int_equal(stats().blocks_free, 1);
    /* a 1-byte request takes the minimum block */
    void *p = cairn_malloc(1);
    assert_int_equal(cairn_alloc_size(p), CAIRN_HEAP_MIN_BLOCK - CAIRN_HEAP_HEADER);
    cairn_free(p);
}

static void test_first_fit_address_order(void **state)
{
    (void)state;
    uint8_t *a = cairn_malloc(64), *b = cairn_malloc(64), *c = cairn_malloc(64),
            *d = cairn_malloc(64);
    assert_true(a < b && b < c && c < d);
    assert_ptr_equal(b, a + 64 + CAIRN_HEAP_HEADER);
    cairn_free(c);
    cairn_free(a);
    check_heap();
    /* the lowest hole that fits, and its tail next */
    uint8_t *e = cairn_malloc(24);
    assert_ptr_equal(e, a);
    uint8_t *f = cairn_malloc(16);
    assert_ptr_equal(f, a + 24 + CAIRN_HEAP_HEADER);
    /* a's hole has 64 - (24 + 8) - (16 + 8) = 8 payload bytes left: a 9-byte
     * request skips to c's hole, an 8-byte one takes it */
    assert_int_equal(cairn_alloc_size(f), 16);
    uint8_t *g = cairn_malloc(40);
    assert_ptr_equal(g, c);
    uint8_t *tiny = cairn_malloc(8);
    assert_ptr_equal(tiny, f + 16 + CAIRN_HEAP_HEADER);
    /* too big for c's remainder: goes after d */
    uint8_t *h = cairn_malloc(64);
    assert_ptr_equal(h, d + 64 + CAIRN_HEAP_HEADER);
    check_heap();
    cairn_free(b), cairn_free(d), cairn_free(e), cairn_free(f), cairn_free(g), cairn_free(h);
    cairn_free(tiny);
    assert_int_equal(stats().blocks_free, 1);
}

static void test_fragment_then_coalesce(void **state)
{
    (void)state;
    void *p[32];
    for (int i = 0; i < 32; i++)
        p[i] = cairn_malloc(40);
    size_t tail_free = stats().free_bytes;
    for (int i = 0; i < 32; i += 2)
        cairn_free(p[i]);
    check_heap();
    struct cairn_heap_stats st = stats();
    assert_int_equal(st.blocks_free, 17); /* 16 holes and the tail */
    assert_int_equal(st.largest_free, tail_free);
    /* each hole is a 48-byte block with 40 usable bytes */
    assert_int_equal(st.free_bytes, tail_free + 16 * 40);
    /* free the odd ones in a scrambled order; each merges with both neighbours */
    int order[16] = {7, 3, 12, 0, 15, 9, 1, 14, 4, 11, 6, 2, 13, 8, 10, 5};
    for (int i = 0; i < 16; i++) {
        cairn_free(p[2 * order[i] + 1]);
        check_heap();
    }
    st = stats();
    assert_int_equal(st.blocks_free, 1);
    assert_int_equal(st.blocks_used, 0);
    assert_int_equal(st.largest_free, ARENA - CAIRN_HEAP_HEADER);
}

static void test_coalesce_both_sides(void **state)
{
    (void)state;
    void *a = cairn_malloc(32), *b = cairn_malloc(32), *c = cairn_malloc(32), *d = cairn_malloc(32);
    cairn_free(a);
    cairn_free(c);
    assert_int_equal(stats().blocks_free, 3);
    cairn_free(b); /* a + b + c */
    assert_int_equal(stats().blocks_free, 2);
    void *big = cairn_malloc(3 * 40 - 8);
    assert_ptr_equal(big, a);
    cairn_free(big);
    cairn_free(d);
    assert_int_equal(stats().blocks_free, 1);
}

static void test_ownership_free_all(void **state)
{
    (void)state;
    uint8_t *p[12];
    for (int i = 0; i < 12; i++) {
        current = (cairn_task_id_t)(1 + i % 3);
        p[i] = cairn_malloc(20 + (size_t)i);
        memset(p[i], 0xA0 + i, 20 + (size_t)i);
        assert_int_equal(cairn_heap_owner(p[i]), 1 + i % 3);
    }
    cairn_heap_free_all(2);
    check_heap();
    for (int i = 0; i < 12; i++) {
        if (i % 3 == 1) {
            assert_int_equal(cairn_alloc_size(p[i]), 0);
        } else {
            assert_int_equal(cairn_heap_owner(p[i]), 1 + i % 3);
            for (int k = 0; k < 20 + i; k++)
                assert_int_equal(p[i][k], 0xA0 + i);
        }
    }
    assert_int_equal(stats().blocks_used, 8);
    cairn_heap_free_all(7); /* owns nothing */
    assert_int_equal(stats().blocks_used, 8);
    cairn_heap_free_all(1);
    cairn_heap_free_all(3);
    assert_int_equal(stats().blocks_used, 0);
    assert_int_equal(stats().blocks_free, 1);
    assert_int_equal(stats().bad_frees, 0);
}

static void test_set_owner(void **state)
{
    (void)state;
    current = 4;
    void *p = cairn_malloc(10);
    void *q = cairn_malloc(10);
    cairn_heap_set_owner(p, 9);
    assert_int_equal(cairn_heap_owner(p), 9);
    cairn_heap_free_all(4);
    assert_int_equal(cairn_alloc_size(q), 0);
    assert_int_not_equal(cairn_alloc_size(p), 0);
    cairn_heap_set_owner(q, 1); /* q is free now: a bad pointer */
    assert_int_equal(stats().bad_frees, 1);
    assert_int_equal(cairn_heap_owner(q), 0);
    cairn_heap_free_all(9);
    assert_int_equal(stats().blocks_used, 0);
}

/* The kernel's own allocation: owned from the start (no cairn_heap_set_owner after it), and
 * given to a task with one store; both blocks behave as any other afterwards. */
static void test_kernel_owned_block_and_give(void **state)
{
    (void)state;
    current = 4;
    void *p = cairn__malloc_for(24, CAIRN_TASK_NONE);
    void *q = cairn__malloc_for(8, 6);
    assert_non_null(p);
    assert_non_null(q);
    assert_int_equal(cairn_heap_owner(p), CAIRN_TASK_NONE);
    assert_int_equal(cairn_heap_owner(q), 6);
    assert_true(cairn_alloc_size(p) >= 24);
    assert_null(cairn__malloc_for(ARENA, 6)); /* too large: counted as any failure */
    assert_int_equal(stats().alloc_failures, 1);
    check_heap();
    cairn_heap_free_all(4); /* the current task's: neither */
    assert_int_equal(stats().blocks_used, 2);
    cairn__heap_give(p, 9);
    assert_int_equal(cairn_heap_owner(p), 9);
    check_heap();
    cairn_heap_free_all(9);
    assert_int_equal(cairn_alloc_size(p), 0);
    cairn_heap_free_all(6);
    assert_int_equal(stats().blocks_used, 0);
    assert_int_equal(stats().bad_frees, 0);
}

static void test_realloc_semantics(void **state)
{
    (void)state;
    /* NULL: malloc */
    uint8_t *p = cairn_realloc(NULL, 24);
    assert_non_null(p);
    assert_int_equal(cairn_alloc_size(p), 24);
    /* n == 0: free, NULL */
    assert_null(cairn_realloc(p, 0));
    assert_int_equal(stats().blocks_used, 0);
    assert_int_equal(stats().bad_frees, 0);
}

static void test_realloc_shrink(void **state)
{
    (void)state;
    uint8_t *p = cairn_malloc(200);
    uint8_t *after = cairn_malloc(8);
    for (int i = 0; i < 200; i++)
        p[i] = (uint8_t)i;
    /* shrinking by less than a minimum block keeps the block */
    assert_ptr_equal(cairn_realloc(p, 195), p);
    assert_int_equal(cairn_alloc_size(p), 200);
    /* shrinking more splits the tail off as a free block */
    assert_ptr_equal(cairn_realloc(p, 100), p);
    assert_int_equal(cairn_alloc_size(p), 104);
    for (int i = 0; i < 100; i++)
        assert_int_equal(p[i], (uint8_t)i);
    check_heap();
    struct cairn_heap_stats st = stats();
    assert_int_equal(st.blocks_free, 2);
    /* the split tail merges with a free neighbour */
    cairn_free(after);
    assert_ptr_equal(cairn_realloc(p, 8), p);
    assert_int_equal(stats().blocks_free, 1);
    cairn_free(p);
}

static void test_realloc_grow_in_place(void **state)
{
    (void)state;
    current = 5;
    uint8_t *p = cairn_malloc(32);
    uint8_t *q = cairn_malloc(64);
    uint8_t *r = cairn_malloc(16);
    memset(p, 0x5A, 32);
    cairn_free(q);
    current = 6;
    /* the next block is free and big enough: stays put, keeps the owner */
    uint8_t *p2 = cairn_realloc(p, 80);
    assert_ptr_equal(p2, p);
    assert_int_equal(cairn_alloc_size(p), 80);
    assert_int_equal(cairn_heap_owner(p), 5);
    for (int i = 0; i < 32; i++)
        assert_int_equal(p[i], 0x5A);
    check_heap();
    /* grow to take the whole next block (remainder too small to split) */
    assert_ptr_equal(cairn_realloc(p, 100), p);
    assert_int_equal(cairn_alloc_size(p), 32 + 64 + CAIRN_HEAP_HEADER);
    assert_ptr_equal((uint8_t *)p + cairn_alloc_size(p) + CAIRN_HEAP_HEADER, r);
    check_heap();
    cairn_free(p);
    cairn_free(r);
    /* growing by less than a minimum block: the new header of the free rest
     * overlaps the old free block's list link */
    p = cairn_malloc(32);
    q = cairn_malloc(32);
    r = cairn_malloc(32);
    cairn_free(q);
    assert_ptr_equal(cairn_realloc(p, 40), p);
    check_heap();
    assert_ptr_equal(cairn_malloc(24), p + 40 + CAIRN_HEAP_HEADER);
    cairn_heap_free_all(5);
    cairn_heap_free_all(6);
}

static void test_realloc_move(void **state)
{
    (void)state;
    current = 3;
    uint8_t *p = cairn_malloc(32);
    uint8_t *q = cairn_malloc(32); /* blocks growth in place */
    for (int i = 0; i < 32; i++)
        p[i] = (uint8_t)(i * 7);
    current = 8;
    uint8_t *p2 = cairn_realloc(p, 300);
    assert_non_null(p2);
    assert_ptr_not_equal(p2, p);
    assert_true(p2 > q);
    assert_int_equal(cairn_heap_owner(p2), 3);
    for (int i = 0; i < 32; i++)
        assert_int_equal(p2[i], (uint8_t)(i * 7));
    assert_int_equal(cairn_alloc_size(p), 0); /* the old block is free */
    check_heap();
    /* a move that cannot be satisfied leaves the block as it was */
    uint32_t fails = stats().alloc_failures;
    assert_null(cairn_realloc(p2, ARENA));
    assert_int_equal(stats().alloc_failures, fails + 1);
    assert_int_equal(cairn_alloc_size(p2), 304);
    assert_int_equal(p2[5], 35);
    /* realloc of something that is not a live block: NULL, counted as a bad free */
    assert_null(cairn_realloc(p, 10));
    assert_int_equal(stats().bad_frees, 1);
    cairn_free(p2);
    cairn_free(q);
}

static void test_exhaustion(void **state)
{
    (void)state;
    void *p[ARENA / 16];
    int n = 0;
    while ((p[n] = cairn_malloc(56)) != NULL)
        n++;
    assert_int_equal(n, ARENA / 64);
    assert_int_equal(stats().alloc_failures, 1);
    assert_null(cairn_malloc(1));
    assert_null(cairn_malloc(SIZE_MAX));
    assert_null(cairn_malloc(SIZE_MAX - 3)); /* no wrap in the rounding */
    assert_int_equal(stats().alloc_failures, 4);
    check_heap();
    /* free one in the middle: exactly that much fits again */
    cairn_free(p[10]);
    assert_null(cairn_malloc(57));
    assert_int_equal(stats().alloc_failures, 5);
    void *again = cairn_malloc(56);
    assert_ptr_equal(again, p[10]);
    for (int i = 0; i < n; i++)
        cairn_free(p[i]);
    assert_int_equal(stats().blocks_free, 1);
    assert_int_equal(stats().bad_frees, 0);
}

static void test_bad_frees_counted(void **state)
{
    (void)state;
    uint8_t *a = cairn_malloc(40);
    uint8_t *b = cairn_malloc(40);
    uint8_t *c = cairn_malloc(40);
    int local;
    struct cairn_heap_stats before = stats();
    cairn_free(NULL); /* allowed, not an error */
    cairn_free(b + 1);  /* misaligned */
    cairn_free(b + 8);  /* inside the block */
    cairn_free(b + 40); /* the next header's payload position, but not c */
    cairn_free(&local); /* outside the heap */
    cairn_free(arena);  /* the first header itself */
    cairn_free(arena + ARENA + 64);
    struct cairn_heap_stats after = stats();
    assert_int_equal(after.bad_frees, 6);
    assert_int_equal(after.blocks_used, before.blocks_used);
    assert_int_equal(after.free_bytes, before.free_bytes);
    check_heap();
    /* double frees: a plain one, and one after merging with a neighbour */
    cairn_free(b);
    cairn_free(b);
    assert_int_equal(stats().bad_frees, 7);
    cairn_free(a); /* merges with b */
    cairn_free(b);
    cairn_free(a);
    assert_int_equal(stats().bad_frees, 9);
    check_heap();
    /* a forged header inside c's payload that is not in the block structure */
    uint8_t *forged = c + 16;
    memcpy(forged - CAIRN_HEAP_HEADER, c - CAIRN_HEAP_HEADER, CAIRN_HEAP_HEADER);
    cairn_free(forged);
    assert_int_equal(stats().bad_frees, 10);
    assert_int_equal(cairn_alloc_size(forged), 0);
    cairn_free(c);
    assert_int_equal(stats().blocks_free, 1);
    assert_int_equal(stats().alloc_failures, 0);
}

static void test_trace_events(void **state)
{
    (void)state;
    current = 7;
    void *p = cairn_malloc(20);
    cairn_free(p);
    assert_int_equal(ntrace, 2);
    assert_int_equal(CAIRN_TRACE_EVENT(trace[0]), CAIRN_EV_ALLOC);
    assert_int_equal(CAIRN_TRACE_A(trace[0]), 7);
    assert_int_equal(CAIRN_TRACE_B(trace[0]), 24);
    assert_int_equal(CAIRN_TRACE_EVENT(trace[1]), CAIRN_EV_FREE);
    assert_int_equal(CAIRN_TRACE_A(trace[1]), 7);
    assert_int_equal(CAIRN_TRACE_B(trace[1]), 24);
    cairn_free(p); /* a bad free is not traced as a free */
    assert_int_equal(ntrace, 2);
}

/* ---- randomized stress against a shadow model ------------------------------ */

#define SLOTS 64
struct shadow {
    uint8_t *p;
    size_t n;
    uint8_t fill;
    cairn_task_id_t owner;
};

static uint32_t rng;
static uint32_t rnd(uint32_t bound)
{
    rng = rng * 1664525u + 1013904223u;
    return (rng >> 8) % bound;
}

static void shadow_verify(const struct shadow *s)
{
    if (!s->p)
        return;
    assert_true(cairn_alloc_size(s->p) >= s->n);
    assert_int_equal(cairn_heap_owner(s->p), s->owner);
    for (size_t i = 0; i < s->n; i++)
        if (s->p[i] != (uint8_t)(s->fill + i))
            fail_msg("block %p byte %zu changed", (void *)s->p, i);
}

static void shadow_fill(struct shadow *s)
{
    for (size_t i = 0; i < s->n; i++)
        s->p[i] = (uint8_t)(s->fill + i);
}

static void stress(uint32_t seed, int ops)
{
    struct shadow sh[SLOTS] = {0};
    rng = seed;
    for (int op = 0; op < ops; op++) {
        struct shadow *s = &sh[rnd(SLOTS)];
        current = (cairn_task_id_t)(1 + rnd(4));
        uint32_t kind = rnd(100);
        size_t n = rnd(8) == 0 ? rnd(1024) : rnd(128);
        if (kind < 40) { /* malloc */
            if (s->p)
                cairn_free(s->p);
            s->p = cairn_malloc(n);
            s->n = s->p ? n : 0;
            s->owner = current;
            s->fill = (uint8_t)rnd(256);
            if (s->p)
                shadow_fill(s);
        } else if (kind < 70) { /* free */
            cairn_free(s->p);
            s->p = NULL;
            s->n = 0;
        } else if (kind < 97) { /* realloc */
            shadow_verify(s);
            uint8_t *q = cairn_realloc(s->p, n);
            if (n == 0) {
                assert_null(q);
                s->p = NULL;
            } else if (q) {
                if (!s->p) {
                    s->owner = current;
                    s->n = 0;
                }
                size_t keep = s->n < n ? s->n : n;
                s->p = q;
                s->n = keep;
                shadow_verify(s);
                s->n = n;
                shadow_fill(s);
            } else {
                shadow_verify(s); /* untouched on failure */
            }
        } else { /* a task dies */
            cairn_task_id_t t = (cairn_task_id_t)(1 + rnd(4));
            cairn_heap_free_all(t);
            for (int i = 0; i < SLOTS; i++)
                if (sh[i].p && sh[i].owner == t)
                    sh[i] = (struct shadow){0};
        }
        check_heap();
        if (op % 50 == 0) {
            for (int i = 0; i < SLOTS; i++)
                shadow_verify(&sh[i]);
        }
    }
    check_heap();
    size_t used = 0, live = 0;
    for (int i = 0; i < SLOTS; i++) {
        shadow_verify(&sh[i]);
        if (sh[i].p) {
            used += cairn_alloc_size(sh[i].p);
            live++;
        }
    }
    assert_int_equal(stats().used_bytes, used);
    assert_int_equal(stats().blocks_used, live);
    assert_int_equal(stats().bad_frees, 0);
    for (int i = 0; i < SLOTS; i++)
        cairn_free(sh[i].p);
    assert_int_equal(stats().blocks_free, 1);
    assert_int_equal(stats().free_bytes, ARENA - CAIRN_HEAP_HEADER);
}

static void test_stress_shadow(void **state)
{
    (void)state;
    static const uint32_t seeds[] = {1, 42, 0xC0FFEE, 20240601, 7};
    for (size_t i = 0; i < sizeof(seeds) / sizeof(seeds[0]); i++) {
        cairn_heap_init(arena, ARENA);
        stress(seeds[i], 20000);
    }
}

/* A handler in a heap call can be preempted by a higher-priority one that uses the heap
 * too: every change happens with interrupts masked (the events are logged inside), and the
 * masking is undone on return. */
static void test_changes_are_masked(void **st)
{
    (void)st;
    ntrace = 0;
    void *a = cairn_malloc(24);
    void *b = cairn_malloc(40);
    assert_non_null(a);
    assert_non_null(b);
    b = cairn_realloc(b, 400);
    assert_non_null(b);
    cairn_free(a);
    cairn_heap_free_all(current);
    assert_int_equal(irq_depth, 0);
    assert_true(ntrace >= 4);
    for (unsigned i = 0; i < ntrace && i < 64; i++)
        assert_true(depth_at_trace[i] >= 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_init_one_free_block, setup, teardown),
        cmocka_unit_test_setup_teardown(test_init_misaligned_and_tiny, setup, teardown),
        cmocka_unit_test_setup_teardown(test_malloc_zero_is_null, setup, teardown),
        cmocka_unit_test_setup_teardown(test_alignment_and_usable_size, setup, teardown),
        cmocka_unit_test_setup_teardown(test_first_fit_address_order, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fragment_then_coalesce, setup, teardown),
        cmocka_unit_test_setup_teardown(test_coalesce_both_sides, setup, teardown),
        cmocka_unit_test_setup_teardown(test_ownership_free_all, setup, teardown),
        cmocka_unit_test_setup_teardown(test_set_owner, setup, teardown),
        cmocka_unit_test_setup_teardown(test_kernel_owned_block_and_give, setup, teardown),
        cmocka_unit_test_setup_teardown(test_realloc_semantics, setup, teardown),
        cmocka_unit_test_setup_teardown(test_realloc_shrink, setup, teardown),
        cmocka_unit_test_setup_teardown(test_realloc_grow_in_place, setup, teardown),
        cmocka_unit_test_setup_teardown(test_realloc_move, setup, teardown),
        cmocka_unit_test_setup_teardown(test_exhaustion, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bad_frees_counted, setup, teardown),
        cmocka_unit_test_setup_teardown(test_trace_events, setup, teardown),
        cmocka_unit_test_setup_teardown(test_stress_shadow, setup, teardown),
        cmocka_unit_test_setup_teardown(test_changes_are_masked, setup, teardown),
    };
    return cmocka_run_group_tests_name("heap", tests, NULL, NULL);
}
