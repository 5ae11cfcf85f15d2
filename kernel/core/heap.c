/*
 * Cairn OS heap: address-ordered first fit with coalescing and per-block owner.
 *
 * Every block starts with an 8-byte header (struct blk). Free blocks also hold a
 * link to the next free block, and the free list is kept in address order, so a
 * free coalesces with both neighbours while it looks for its place in the list,
 * and an allocation takes the lowest-addressed block that fits.
 * Layout, guarantees and costs: docs/kernel-memory-timers.md.
 */
#include "kernel.h"

#include "cairn/mem.h"

#include "cairn/trace.h"

#define BLK_USED 0xA5u
#define BLK_FREE 0x5Fu
#define ALIGN_MASK (CAIRN_HEAP_ALIGN - 1u)
#define MAX_HEAP 0xFFFFFFF8u

struct blk {
    uint32_t size;   /* whole block, header included; a multiple of 8 */
    uint8_t owner;   /* task id of a used block */
    uint8_t magic;   /* BLK_USED or BLK_FREE; 0 once merged into a neighbour */
    uint16_t check;  /* chk(block, size): rejects pointers that are not block starts */
};

struct cairn_fblk {
    struct blk h;
    struct cairn_fblk *next; /* next free block, higher address */
};
#define fblk cairn_fblk

_Static_assert(sizeof(struct blk) == CAIRN_HEAP_HEADER, "block header is 8 bytes");
_Static_assert(sizeof(struct fblk) <= CAIRN_HEAP_MIN_BLOCK, "a free block fits the minimum");
_Static_assert(CAIRN_HEAP_HEADER % CAIRN_HEAP_ALIGN == 0, "payload stays aligned");

/* The heap's state is the first member of the kernel's (kernel.h). */
#define heap cairn_k.heap

static uint32_t off_of(const void *b)
{
    return (uint32_t)((uintptr_t)b - (uintptr_t)heap.base);
}

/* A 16-bit mix of the block's address and size (both multiples of 8): their XOR,
 * bits 3..18 folded with bits 19..31. A header copied to another address less
 * than 512 KiB away never matches. */
static uint16_t chk(const struct blk *b, uint32_t size)
{
    uint32_t x = (uint32_t)(uintptr_t)b ^ size;
    return (uint16_t)(x >> 3 ^ x >> 19);
}

/* Out of line: it is called from eight places. */
__attribute__((noinline)) static void set_hdr(struct blk *b, uint32_t size, uint8_t magic,
                                              cairn_task_id_t owner)
{
    b->size = size;
    b->owner = owner;
    b->magic = magic;
    b->check = chk(b, size);
}

static void wipe(struct blk *b)
{
    b->magic = 0;
}

static struct blk *blk_end(const struct blk *b)
{
    return (struct blk *)((uint8_t *)b + b->size);
}

/* The block at address a, or NULL when a is not 8-aligned in the heap or its
 * header is not sane: used or free, a size that fits and a matching check. */
static struct blk *blk_at(uintptr_t a)
{
    uint32_t off = off_of((const void *)a);
    struct blk *b = (struct blk *)a;
    if (off >= heap.size || (off & ALIGN_MASK) || (b->magic != BLK_USED && b->magic != BLK_FREE) ||
        b->size < CAIRN_HEAP_MIN_BLOCK || (b->size & ALIGN_MASK) || b->size > heap.size - off ||
        b->check != chk(b, b->size))
        return NULL;
    return b;
}

/* The header of live block p, or NULL when p is not the payload of a used block. */
static struct blk *live(const void *p)
{
    struct blk *b = blk_at((uintptr_t)p - CAIRN_HEAP_HEADER);
    return b && b->magic == BLK_USED ? b : NULL;
}

/* The block after b (the first for NULL), or NULL at the end or at a broken header. */
static struct blk *walk_next(const struct blk *b)
{
    return blk_at(b ? (uintptr_t)blk_end(b) : (uintptr_t)heap.base);
}

/* The link (heap.free or a free block's next) to the first free block at or
 * after address a. */
static struct fblk **link_to(const void *a)
{
    struct fblk **l = &heap.free;
    while (*l && (uintptr_t)*l < (uintptr_t)a)
        l = &(*l)->next;
    return l;
}

static void trace_blk(uint8_t ev, const struct blk *b)
{
    CAIRN_TRACE(ev, b->owner, CAIRN_TRACE_SAT16(b->size - CAIRN_HEAP_HEADER));
    (void)ev;
    (void)b;
}

/* The block size for a request of n > 0 bytes, or 0 (counted as a failure) for a
 * request no block of this heap can hold, checked before the rounding, which
 * would wrap for n close to 4 GiB. */
static uint32_t need_for(size_t n)
{
    if (heap.size < CAIRN_HEAP_MIN_BLOCK || n > heap.size - CAIRN_HEAP_HEADER) {
        heap.alloc_failures++;
        return 0;
    }
    uint32_t need = (uint32_t)((n + ALIGN_MASK) & ~(size_t)ALIGN_MASK) + CAIRN_HEAP_HEADER;
    return need < CAIRN_HEAP_MIN_BLOCK ? CAIRN_HEAP_MIN_BLOCK : need;
}

void cairn_heap_init(void *base, size_t size)
{
    size_t adj = (size_t)(-(uintptr_t)base & ALIGN_MASK);
    heap.base = (uint8_t *)base + adj;
    size = size < adj ? 0 : size - adj;
    if (size > MAX_HEAP)
        size = MAX_HEAP;
    size &= ~(size_t)ALIGN_MASK;
    heap.free = NULL;
    heap.alloc_failures = 0;
    heap.bad_frees = 0;
    if (size < CAIRN_HEAP_MIN_BLOCK)
        size = 0;
    heap.size = (uint32_t)size;
    if (size) {
        struct fblk *f = (struct fblk *)heap.base;
        set_hdr(&f->h, heap.size, BLK_FREE, 0);
        f->next = NULL;
        heap.free = f;
    }
}

/* Makes free block f (which *link points to) a used block of need bytes,
 * splitting the rest off as a free block when it makes one. */
static struct blk *take(struct fblk **link, uint32_t need, cairn_task_id_t owner)
{
    struct fblk *f = *link;
    uint32_t size = f->h.size;
    *link = f->next;
    if (size - need >= CAIRN_HEAP_MIN_BLOCK) {
        struct fblk *tail = (struct fblk *)((uint8_t *)f + need);
        set_hdr(&tail->h, size - need, BLK_FREE, 0);
        tail->next = *link;
        *link = tail;
        size = need;
    }
    set_hdr(&f->h, size, BLK_USED, owner);
    trace_blk(CAIRN_EV_ALLOC, &f->h);
    return &f->h;
}

static void *alloc_for(size_t n, cairn_task_id_t owner)
{
    uint32_t need = n ? need_for(n) : 0;
    if (!need)
        return NULL;
    struct fblk **l = &heap.free;
    while (*l && (*l)->h.size < need)
        l = &(*l)->next;
    if (!*l) {
        heap.alloc_failures++;
        return NULL;
    }
    return (uint8_t *)take(l, need, owner) + CAIRN_HEAP_HEADER;
}

/* Every call that changes the heap runs with interrupts masked: a handler in the middle of
 * one can be preempted by a higher-priority handler (an interrupt's message) that uses the
 * heap too, and the free list must never be seen half-changed. */
void *cairn_malloc(size_t n)
{
    uint32_t s = arch_irq_save();
    void *p = alloc_for(n, cairn_current_task());
    arch_irq_restore(s);
    return p;
}

/* A block for owner: cairn_malloc and cairn_heap_set_owner in one, without the current
 * task's look-up and the second masked header check (the kernel's own blocks: a staged task,
 * a serialised one). */
void *cairn__malloc_for(size_t n, cairn_task_id_t owner)
{
    uint32_t s = arch_irq_save();
    void *p = alloc_for(n, owner);
    arch_irq_restore(s);
    return p;
}

/* Returns used block b to the free list, merging it with free neighbours, and
 * logs event ev (0: none). False (nothing changed) when b overlaps a free block:
 * a corrupted or stale header. */
static bool release(struct blk *b, uint8_t ev)
{
    struct fblk **l = link_to(b);
    struct fblk *next = *l;
    /* l is heap.free or the next field of the free block before b */
    struct fblk *prev = l == &heap.free
                            ? NULL
                            : (struct fblk *)((uint8_t *)l - __builtin_offsetof(struct fblk, next));
    if ((prev && blk_end(&prev->h) > b) || (next && blk_end(b) > &next->h))
        return false;
    if (ev)
        trace_blk(ev, b);
    uint32_t size = b->size;
    if (next && blk_end(b) == &next->h) { /* next merges into b */
        size += next->h.size;
        wipe(&next->h);
        next = next->next;
    }
    if (prev && blk_end(&prev->h) == b) { /* b merges into prev */
        wipe(b);
        b = &prev->h;
        size += b->size;
    } else {
        *l = (struct fblk *)b;
    }
    set_hdr(b, size, BLK_FREE, 0);
    ((struct fblk *)b)->next = next;
    return true;
}

void cairn_free(void *p)
{
    if (!p)
        return;
    uint32_t s = arch_irq_save();
    struct blk *b = live(p);
    if (!b || !release(b, CAIRN_EV_FREE))
        heap.bad_frees++;
    arch_irq_restore(s);
}

static void *realloc_masked(void *p, size_t n)
{
    if (!p)
        return cairn_malloc(n);
    struct blk *b = live(p);
    if (!b) {
        heap.bad_frees++;
        return NULL;
    }
    if (n == 0) {
        cairn_free(p);
        return NULL;
    }
    uint32_t need = need_for(n);
    if (!need)
        return NULL;
    /* A grow in place takes the whole next block when it is free and enough... */
    struct blk *nx = walk_next(b);
    if (need > b->size && nx && nx->magic == BLK_FREE && b->size + nx->size >= need) {
        struct fblk **l = link_to(nx);
        if (*l == (struct fblk *)nx) {
            *l = ((struct fblk *)nx)->next;
            set_hdr(b, b->size + nx->size, BLK_USED, b->owner);
            wipe(nx);
        }
    }
    /* ...and, like a shrink, frees what it does not need when that makes a block. */
    if (need <= b->size) {
        if (b->size - need >= CAIRN_HEAP_MIN_BLOCK) {
            struct blk *tail = (struct blk *)((uint8_t *)b + need);
            set_hdr(tail, b->size - need, BLK_USED, 0);
            set_hdr(b, need, BLK_USED, b->owner);
            release(tail, 0);
        }
        return p;
    }
    void *q = alloc_for(n, b->owner);
    if (q) {
        __builtin_memcpy(q, p, b->size - CAIRN_HEAP_HEADER);
        cairn_free(p);
    }
    return q;
}

void *cairn_realloc(void *p, size_t n)
{
    uint32_t s = arch_irq_save();
    void *q = realloc_masked(p, n);
    arch_irq_restore(s);
    return q;
}

void cairn_heap_set_owner(void *p, cairn_task_id_t owner)
{
    uint32_t s = arch_irq_save();
    struct blk *b = live(p);
    if (b)
        b->owner = owner;
    else
        heap.bad_frees++;
    arch_irq_restore(s);
}

void cairn__heap_give(void *p, cairn_task_id_t owner)
{
    ((struct blk *)((uint8_t *)p - CAIRN_HEAP_HEADER))->owner = owner;
}

cairn_task_id_t cairn_heap_owner(const void *p)
{
    const struct blk *b = live(p);
    return b ? b->owner : 0;
}

size_t cairn_alloc_size(const void *p)
{
    const struct blk *b = live(p);
    return b ? b->size - CAIRN_HEAP_HEADER : 0;
}

void cairn_heap_free_all(cairn_task_id_t owner)
{
    /* One pass: the task's blocks become free, and the free list is rebuilt with
     * every run of free blocks merged. */
    uint32_t s = arch_irq_save();
    struct fblk **l = &heap.free;
    struct blk *last = NULL; /* the last free block so far */
    for (struct blk *b = walk_next(NULL), *nb; b; b = nb) {
        nb = walk_next(b);
        if (b->magic == BLK_USED && b->owner == owner) {
            trace_blk(CAIRN_EV_FREE, b);
            b->magic = BLK_FREE;
            b->owner = 0;
        }
        if (b->magic != BLK_FREE)
            continue;
        if (last && blk_end(last) == b) {
            set_hdr(last, last->size + b->size, BLK_FREE, 0);
            wipe(b);
        } else {
            *l = (struct fblk *)b;
            l = &((struct fblk *)b)->next;
            last = b;
        }
    }
    *l = NULL;
    arch_irq_restore(s);
}

void cairn_heap_walk(cairn_heap_walk_fn fn, void *ctx)
{
    for (struct blk *b = walk_next(NULL); b; b = walk_next(b))
        fn((uint8_t *)b + CAIRN_HEAP_HEADER, b->size - CAIRN_HEAP_HEADER, b->owner,
           b->magic == BLK_USED, ctx);
}

void cairn_heap_stats(struct cairn_heap_stats *st)
{
    *st = (struct cairn_heap_stats){.alloc_failures = heap.alloc_failures,
                                    .bad_frees = heap.bad_frees};
    for (struct blk *b = walk_next(NULL); b; b = walk_next(b)) {
        size_t usable = b->size - CAIRN_HEAP_HEADER;
        if (b->magic == BLK_USED) {
            st->used_bytes += usable;
            st->blocks_used++;
        } else {
            st->free_bytes += usable;
            st->blocks_free++;
            if (usable > st->largest_free)
                st->largest_free = usable;
        }
    }
}

cairn_ret_t cairn_heap_check(void)
{
    /* The walk stops at a broken header: the blocks tile the heap when it ends at
     * the heap's end. */
    uint32_t end = 0;
    bool prev_free = false;
    const struct fblk *fl = heap.free;
    for (struct blk *b = walk_next(NULL); b; b = walk_next(b)) {
        bool is_free = b->magic == BLK_FREE;
        if (is_free) {
            if (prev_free || fl != (const struct fblk *)b)
                return CAIRN_EINVAL;
            fl = fl->next;
        }
        prev_free = is_free;
        end = off_of(b) + b->size;
    }
    return end == heap.size && fl == NULL ? CAIRN_OK : CAIRN_EINVAL;
}
