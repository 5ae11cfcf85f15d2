/*
 * Cairn OS memory manager: an owning heap and slab allocators.
 *
 * The heap is an address-ordered first-fit allocator with coalescing and libc
 * semantics. Every block records the task that owns it (cairn_current_task() at
 * allocation), so a task's memory can be freed in one call when it is killed or
 * migrated, and a message payload can be handed to its receiver.
 *
 * The slab allocator hands out fixed-size kernel objects (TCBs, timer entries,
 * routing entries) from a static array in O(1).
 *
 * Bad input never corrupts the allocators: a free of a pointer that is not a live
 * block is detected (as far as cheaply possible), counted and ignored.
 * See docs/kernel-memory-timers.md.
 */
#ifndef CAIRN_MEM_H
#define CAIRN_MEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cairn/types.h"

/* Provided by the scheduler: the task on whose behalf the kernel is running
 * (0 = the kernel itself). The heap tags new blocks with it. */
cairn_task_id_t cairn_current_task(void);

/* ---- heap ---------------------------------------------------------------- */

/* Alignment of every pointer the heap returns. */
#define CAIRN_HEAP_ALIGN 8u
/* Bytes of header in front of every block (see docs for the layout). */
#define CAIRN_HEAP_HEADER 8u
/* Smallest block (header + payload); smaller remainders are not split off. */
#define CAIRN_HEAP_MIN_BLOCK 16u

struct cairn_heap_stats {
    size_t free_bytes;       /* payload bytes in free blocks (sum of their usable sizes) */
    size_t used_bytes;       /* payload bytes in used blocks (sum of cairn_alloc_size) */
    size_t largest_free;     /* the largest request that can succeed right now */
    size_t blocks_used;
    size_t blocks_free;
    uint32_t alloc_failures; /* malloc/realloc that returned NULL for lack of memory */
    uint32_t bad_frees;      /* free/realloc/set_owner of a pointer that is not a live block */
};

/* Takes over [base, base + size). base is rounded up to CAIRN_HEAP_ALIGN and the
 * size down; at most 4 GiB - 8 are used. A region too small for one block gives
 * an empty heap (every allocation fails). Resets the statistics. */
void cairn_heap_init(void *base, size_t size);

/* n == 0 returns NULL (not counted as a failure). Returns NULL and counts a
 * failure when no free block is large enough. The block is owned by
 * cairn_current_task(). */
void *cairn_malloc(size_t n);

/* libc realloc: p == NULL is cairn_malloc(n); n == 0 frees p and returns NULL.
 * Shrinks in place; grows in place when the next block is free and large
 * enough, otherwise moves (copying the old contents). The owner is kept. On
 * failure returns NULL, counts it and leaves p untouched. A p that is not a live
 * block is counted as a bad free and NULL is returned. */
void *cairn_realloc(void *p, size_t n);

/* p == NULL does nothing. A p that is not a live block (outside the heap,
 * misaligned, already free, not the start of a block) is counted and ignored. */
void cairn_free(void *p);

/* Frees every block owned by owner. */
void cairn_heap_free_all(cairn_task_id_t owner);

/* Gives the live block p to owner (a bad p is counted as a bad free). */
void cairn_heap_set_owner(void *p, cairn_task_id_t owner);

/* Owner of the live block p; 0 when p is not a live block. */
cairn_task_id_t cairn_heap_owner(const void *p);

/* Usable size of the live block p (>= the size asked for); 0 when p is not a
 * live heap block. */
size_t cairn_alloc_size(const void *p);

/* Walks the heap and fills *st (O(blocks)). */
void cairn_heap_stats(struct cairn_heap_stats *st);

/* Consistency check for tests and debugging (O(blocks + free blocks)): the blocks
 * tile the heap exactly, every header is valid, no two free blocks are adjacent,
 * and the free list holds exactly the free blocks in address order. Returns
 * CAIRN_OK or CAIRN_EINVAL. */
cairn_ret_t cairn_heap_check(void);

/* Calls fn for every block in address order. */
typedef void (*cairn_heap_walk_fn)(void *payload, size_t usable, cairn_task_id_t owner, bool used,
                                   void *ctx);
void cairn_heap_walk(cairn_heap_walk_fn fn, void *ctx);

/* ---- slab ---------------------------------------------------------------- */

/* A slab slot holds the object or, while free, two link words. */
#define CAIRN_SLAB_STRIDE(obj_size)                                                               \
    (((obj_size) + sizeof(void *) - 1) / sizeof(void *) * sizeof(void *) < 2 * sizeof(void *)     \
         ? 2 * sizeof(void *)                                                                     \
         : ((obj_size) + sizeof(void *) - 1) / sizeof(void *) * sizeof(void *))

typedef struct cairn_slab {
    uint8_t *base;     /* first slot */
    void *free;        /* free list head (link word 0 of a free slot) */
    uint16_t stride;   /* CAIRN_SLAB_STRIDE(obj_size) */
    uint16_t count;    /* slots */
    uint16_t used;     /* slots handed out */
    uint16_t peak;     /* highest value of used */
    uint16_t alloc_failures;
    uint16_t bad_frees;
} cairn_slab_t;

/* storage: count * CAIRN_SLAB_STRIDE(obj_size) bytes, aligned for the object
 * (and at least to a pointer). obj_size and count must fit 16 bits; count is
 * clamped to what fits. */
void cairn_slab_init(cairn_slab_t *s, void *storage, size_t obj_size, size_t count);

/* A free slot (contents undefined), or NULL (counted) when all are in use. */
void *cairn_slab_alloc(cairn_slab_t *s);

/* obj == NULL does nothing. An obj outside the storage, not at a slot start or
 * already free is counted in bad_frees and ignored. */
void cairn_slab_free(cairn_slab_t *s, void *obj);

/* Static storage for `count` objects of `type` and a slab over it, initialised
 * on first use by cairn_slab_init(&name, name##_storage, sizeof(type), count)
 * (or use CAIRN_SLAB_INIT(name)). */
#define CAIRN_SLAB_DEFINE(name, type, count)                                                      \
    static union {                                                                                \
        type obj;                                                                                 \
        void *link[2];                                                                            \
    } name##_storage[(count)];                                                                    \
    _Static_assert(sizeof(name##_storage[0]) == CAIRN_SLAB_STRIDE(sizeof(type)),                  \
                   "slab slot size");                                                             \
    static cairn_slab_t name

#define CAIRN_SLAB_INIT(name)                                                                     \
    cairn_slab_init(&(name), (name##_storage), sizeof((name##_storage)[0].obj),                  \
                    sizeof(name##_storage) / sizeof((name##_storage)[0]))

#endif /* CAIRN_MEM_H */
