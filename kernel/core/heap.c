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
    uint16_t check;  /* chk(size, offset): rejects pointers that are not block starts */
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

static uint16_t chk(uint32_t size, uint32_t off)
{
    uint32_t x = (size >> 3) ^ (off << 5) ^ (off >> 11) ^ (size >> 19) ^ 0xC41Bu;
    return (uint16_t)(x ^ (x >> 16));
}

static void set_hdr(struct blk *b, uint32_t size, uint8_t magic)
{
    b->size = size;
    b->magic = magic;
    b->check = chk(size, off_of(b));
}

static void wipe(struct blk *b)
{
    b->magic = 0;
    b->check = 0;
}

static struct blk *blk_end(const struct blk *b)
{
    return (struct blk *)((uint8_t *)b + b->size);
}

/* A header that is sane for a block at offset off of the heap. */
static bool hdr_ok(const struct blk *b, uint32_t off)
{
    return (b->magic == BLK_USED || b->magic == BLK_FREE) && b->size >= CAIRN_HEAP_MIN_BLOCK &&
           (b->size & ALIGN_MASK) == 0 && b->size <= heap.size - off && b->check == chk(b->size, off);
}

/* The header of live block p, or NULL when p is not the payload of a used block. */
static struct blk *live(const void *p)
{
    uintptr_t a = (uintptr_t)p;
    uintptr_t lo = (uintptr_t)heap.base;
    if (a < lo + CAIRN_HEAP_HEADER || a - lo >= heap.size || ((a - lo) & ALIGN_MASK) != 0)
        return NULL;
    struct blk *b = (struct blk *)(a - CAIRN_HEAP_HEADER);
    if (b->magic != BLK_USED || !hdr_ok(b, off_of(b)))
        return NULL;
    return b;
}

/* A request no block of this heap can hold (checked before need_for, which
 * would wrap for n close to 4 GiB). */
static bool too_big(size_t n)
{
    return heap.size < CAIRN_HEAP_MIN_BLOCK || n > heap.size - CAIRN_HEAP_HEADER;
}

static uint32_t need_for(size_t n)
{
    uint32_t need = (uint32_t)((n + ALIGN_MASK) & ~(size_t)ALIGN_MASK) + CAIRN_HEAP_HEADER;
    return need < CAIRN_HEAP_MIN_BLOCK ? CAIRN_HEAP_MIN_BLOCK : need;
}

void cairn_heap_init(void *base, size_t size)
{
    uintptr_t a = (uintptr_t)base;
    size_t adj = (size_t)((CAIRN_HEAP_ALIGN - (a & ALIGN_MASK)) & ALIGN_MASK);
    heap.base = (uint8_t *)base + (size < adj ? 0 : adj);
    size = size < adj ? 0 : (size - adj) & ~(size_t)ALIGN_MASK;
    heap.size = size > MAX_HEAP ? MAX_HEAP : (uint32_t)size;
    heap.free = NULL;
    heap.alloc_failures = 0;
    heap.bad_frees = 0;
    if (heap.size < CAIRN_HEAP_MIN_BLOCK) {
        heap.size = 0;
        return;
    }
    struct fblk *f = (struct fblk *)heap.base;
    set_hdr(&f->h, heap.size, BLK_FREE);
    f->h.owner = 0;
    f->next = NULL;
    heap.free = f;
}

/* Takes need bytes from free block f (whose predecessor in the list is prev),
 * splitting off the rest as a free block when it is large enough. need may be
 * below the minimum block (realloc growing into f): then the new tail header
 * overlaps f's link, which is why it is read first. */
static struct blk *take(struct fblk *f, struct fblk *prev, uint32_t need)
{
    struct fblk *rest = f->next;
    if (f->h.size - need >= CAIRN_HEAP_MIN_BLOCK) {
        struct fblk *tail = (struct fblk *)((uint8_t *)f + need);
        uint32_t tail_size = f->h.size - need;
        f->h.size = need;
        set_hdr(&tail->h, tail_size, BLK_FREE);
        tail->h.owner = 0;
        tail->next = rest;
        rest = tail;
    }
    if (prev)
        prev->next = rest;
    else
        heap.free = rest;
    set_hdr(&f->h, f->h.size, BLK_USED);
    return &f->h;
}

static void *alloc_for(size_t n, cairn_task_id_t owner)
{
    if (n == 0)
        return NULL;
    if (too_big(n)) {
        heap.alloc_failures++;
        return NULL;
    }
    uint32_t need = need_for(n);
    struct fblk *prev = NULL;
    struct fblk *f = heap.free;
    while (f && f->h.size < need) {
        prev = f;
        f = f->next;
    }
    if (!f) {
        heap.alloc_failures++;
        return NULL;
    }
    struct blk *b = take(f, prev, need);
    b->owner = owner;
    void *p = (uint8_t *)b + CAIRN_HEAP_HEADER;
    CAIRN_TRACE(CAIRN_EV_ALLOC, owner, CAIRN_TRACE_SAT16(b->size - CAIRN_HEAP_HEADER));
    return p;
}

void *cairn_malloc(size_t n)
{
    return alloc_for(n, cairn_current_task());
}

/* Returns used block b to the free list, merging it with free neighbours.
 * False (nothing changed) when b overlaps a free block: a corrupted or stale header. */
static bool release(struct blk *b)
{
    struct fblk *prev = NULL;
    struct fblk *next = heap.free;
    while (next && (uintptr_t)next < (uintptr_t)b) {
        prev = next;
        next = next->next;
    }
    if ((prev && (uintptr_t)blk_end(&prev->h) > (uintptr_t)b) ||
        (next && (uintptr_t)blk_end(b) > (uintptr_t)next))
        return false;
    struct fblk *f = (struct fblk *)b;
    f->next = next;
    if (next && blk_end(b) == &next->h) {
        f->next = next->next;
        b->size += next->h.size;
        wipe(&next->h);
    }
    b->owner = 0;
    if (prev && blk_end(&prev->h) == b) {
        prev->next = f->next;
        set_hdr(&prev->h, prev->h.size + b->size, BLK_FREE);
        wipe(b);
    } else {
        set_hdr(b, b->size, BLK_FREE);
        if (prev)
            prev->next = f;
        else
            heap.free = f;
    }
    return true;
}

void cairn_free(void *p)
{
    if (!p)
        return;
    struct blk *b = live(p);
    cairn_task_id_t owner = b ? b->owner : 0;
    uint32_t usable = b ? b->size - CAIRN_HEAP_HEADER : 0;
    if (!b || !release(b)) {
        heap.bad_frees++;
        return;
    }
    CAIRN_TRACE(CAIRN_EV_FREE, owner, CAIRN_TRACE_SAT16(usable));
}

/* Cuts used block b down to need bytes when the rest makes a block of its own. */
static void shrink(struct blk *b, uint32_t need)
{
    if (b->size - need < CAIRN_HEAP_MIN_BLOCK)
        return;
    struct blk *tail = (struct blk *)((uint8_t *)b + need);
    set_hdr(tail, b->size - need, BLK_USED);
    set_hdr(b, need, BLK_USED);
    release(tail);
}

/* Grows used block b in place into the free block right after it, if that is enough. */
static bool grow(struct blk *b, uint32_t need)
{
    struct fblk *nx = (struct fblk *)blk_end(b);
    uint32_t off = off_of(nx);
    if (off >= heap.size || nx->h.magic != BLK_FREE || !hdr_ok(&nx->h, off) ||
        b->size + nx->h.size < need)
        return false;
    struct fblk *prev = NULL;
    struct fblk *f = heap.free;
    while (f && f != nx) {
        prev = f;
        f = f->next;
    }
    if (!f)
        return false;
    take(nx, prev, need - b->size);
    set_hdr(b, b->size + nx->h.size, BLK_USED);
    wipe(&nx->h);
    return true;
}

void *cairn_realloc(void *p, size_t n)
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
    if (too_big(n)) {
        heap.alloc_failures++;
        return NULL;
    }
    uint32_t need = need_for(n);
    if (need <= b->size) {
        shrink(b, need);
        return p;
    }
    if (grow(b, need))
        return p;
    void *q = alloc_for(n, b->owner);
    if (!q)
        return NULL;
    __builtin_memcpy(q, p, b->size - CAIRN_HEAP_HEADER);
    cairn_free(p);
    return q;
}

void cairn_heap_set_owner(void *p, cairn_task_id_t owner)
{
    struct blk *b = live(p);
    if (!b) {
        heap.bad_frees++;
        return;
    }
    b->owner = owner;
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

/* Next block after b, or NULL at the end of the heap or at a broken header. */
static struct blk *walk_next(struct blk *b)
{
    struct blk *n = b ? blk_end(b) : (struct blk *)heap.base;
    uint32_t off = off_of(n);
    if (heap.size == 0 || off >= heap.size || !hdr_ok(n, off))
        return NULL;
    return n;
}

void cairn_heap_free_all(cairn_task_id_t owner)
{
    struct fblk *last = NULL;
    heap.free = NULL;
    for (struct blk *b = walk_next(NULL); b;) {
        struct blk *nb = walk_next(b);
        if (b->magic == BLK_USED && b->owner == owner) {
            CAIRN_TRACE(CAIRN_EV_FREE, owner, CAIRN_TRACE_SAT16(b->size - CAIRN_HEAP_HEADER));
            b->owner = 0;
            b->magic = BLK_FREE;
        }
        if (b->magic == BLK_FREE) {
            if (last && blk_end(&last->h) == b) {
                set_hdr(&last->h, last->h.size + b->size, BLK_FREE);
                wipe(b);
            } else {
                if (last)
                    last->next = (struct fblk *)b;
                else
                    heap.free = (struct fblk *)b;
                last = (struct fblk *)b;
                last->next = NULL;
            }
        }
        b = nb;
    }
}

void cairn_heap_walk(cairn_heap_walk_fn fn, void *ctx)
{
    for (struct blk *b = walk_next(NULL); b; b = walk_next(b))
        fn((uint8_t *)b + CAIRN_HEAP_HEADER, b->size - CAIRN_HEAP_HEADER, b->owner,
           b->magic == BLK_USED, ctx);
}

void cairn_heap_stats(struct cairn_heap_stats *st)
{
    *st = (struct cairn_heap_stats){0};
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
    st->alloc_failures = heap.alloc_failures;
    st->bad_frees = heap.bad_frees;
}

cairn_ret_t cairn_heap_check(void)
{
    if (heap.size == 0)
        return heap.free ? CAIRN_EINVAL : CAIRN_OK;
    uint32_t off = 0;
    bool prev_free = false;
    const struct fblk *fl = heap.free;
    while (off < heap.size) {
        const struct blk *b = (const struct blk *)(heap.base + off);
        if (!hdr_ok(b, off))
            return CAIRN_EINVAL;
        bool is_free = b->magic == BLK_FREE;
        if (is_free) {
            if (prev_free || fl != (const struct fblk *)b)
                return CAIRN_EINVAL;
            fl = fl->next;
        }
        prev_free = is_free;
        off += b->size;
    }
    return off == heap.size && fl == NULL ? CAIRN_OK : CAIRN_EINVAL;
}
