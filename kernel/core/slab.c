/*
 * Cairn OS slab allocator: fixed-size slots in a static array, O(1) alloc/free.
 *
 * A free slot holds two link words: the next free slot, and a canary derived from
 * that link and the slot's own address. A free whose slot already carries a valid
 * canary is checked against the free list (the only non-O(1) path), so double
 * frees are caught without a per-slot bitmap. See docs/kernel-memory-timers.md.
 */
#include "cairn/mem.h"

#define SLAB_KEY ((uintptr_t)0x5AB1C0DEu)

struct slot {
    struct slot *next;
    uintptr_t canary;
};

static uintptr_t canary_of(const struct slot *o, const struct slot *next)
{
    return (uintptr_t)o ^ (uintptr_t)next ^ SLAB_KEY;
}

static void bump(uint16_t *counter)
{
    if (*counter != UINT16_MAX)
        (*counter)++;
}

void cairn_slab_init(cairn_slab_t *s, void *storage, size_t obj_size, size_t count)
{
    size_t stride = CAIRN_SLAB_STRIDE(obj_size);
    *s = (cairn_slab_t){0};
    s->base = storage;
    if (!storage || stride > UINT16_MAX)
        return;
    s->stride = (uint16_t)stride;
    s->count = (uint16_t)(count > UINT16_MAX ? UINT16_MAX : count);
    struct slot *next = NULL;
    for (size_t i = s->count; i-- > 0;) {
        struct slot *o = (struct slot *)(s->base + i * stride);
        o->next = next;
        o->canary = canary_of(o, next);
        next = o;
    }
    s->free = next;
}

void *cairn_slab_alloc(cairn_slab_t *s)
{
    struct slot *o = s->free;
    if (!o) {
        bump(&s->alloc_failures);
        return NULL;
    }
    s->free = o->next;
    o->canary = 0;
    s->used++;
    if (s->used > s->peak)
        s->peak = s->used;
    return o;
}

static bool on_free_list(const cairn_slab_t *s, const struct slot *o)
{
    for (const struct slot *f = s->free; f; f = f->next)
        if (f == o)
            return true;
    return false;
}

void cairn_slab_free(cairn_slab_t *s, void *obj)
{
    if (!obj)
        return;
    uintptr_t off = (uintptr_t)obj - (uintptr_t)s->base;
    uint32_t stride = s->stride;
    struct slot *o = obj;
    /* A power-of-two stride (the common case) needs no division. */
    if (off >= (uintptr_t)stride * s->count ||
        ((stride & (stride - 1)) ? off % stride : off & (stride - 1)) != 0 || s->used == 0 ||
        (o->canary == canary_of(o, o->next) && on_free_list(s, o))) {
        bump(&s->bad_frees);
        return;
    }
    o->next = s->free;
    o->canary = canary_of(o, o->next);
    s->free = o;
    s->used--;
}
