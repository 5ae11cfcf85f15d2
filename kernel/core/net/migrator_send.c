/*
 * The task migrator's frames out. Every frame but STATE is small (kind, the migration, up to
 * three bytes; docs/migration.md, "Frames") and goes to the controller at once when it is
 * idle, else through a small outbox of whole frames that a TX token names; a full outbox
 * loses the frame, which the timer sends again. A STATE part is built only when the bus takes
 * its token, straight from the blob (cairn__mig_part_put).
 */
#include "migrator_internal.h"

/* A STATE frame numbers its parts in one byte (and its token in seven bits); blob_len is
 * 16 bits; a migration frame fits the bus's largest. */
_Static_assert((CAIRN_MIG_STATE_MAX + MIG_PART - 1u) / MIG_PART < MIG_TOKEN_PART, "STATE parts");
_Static_assert(CAIRN_MIG_FRAME_MAX <= CAIRN_NET_MAX_PAYLOAD, "migration frame");
_Static_assert(MIG_PART_HEAD == CAIRN_MIG_HEAD_MAX && MIG_SMALL_MAX <= CAIRN_MIG_HEAD_MAX, "heads");
_Static_assert(CAIRN_MIG_STATE_MAX <= 0xFFFFu, "blob_len");
_Static_assert(MIG_PART_HEAD + MIG_PART <= sizeof ((cairn_mig_state_t *)0)->part_frame, "inline blob");

bool cairn__mig_submit(uint8_t module, uint8_t token)
{
    cairn_msg_t t = {0};
    t.dst = CAIRN_TASK_NET;
    t.port = CAIRN_NET_KIND_MIG;
    t.src = token;
    t.prio = CAIRN_PRIO_MAX;
    t.flags = CAIRN_MSG_NET_TOKEN;
    return cairn__net_submit_token(&t, module) == CAIRN_OK;
}

/* A migrator frame written to the controller at once when it is idle and nothing is
 * buffered, as the bus manager's submit would write its token, without the token, the
 * slot and the calls between them; false (nothing sent) otherwise. */
static bool tx_now(uint8_t module, const void *data, unsigned len)
{
    if (module != CAIRN_NET_BROADCAST && ((cairn_net.off[module >> 5] >> (module & 31u)) & 1u))
        return false; /* powered off: the general path counts it */
    uint32_t h[3] = {
        CAIRN_NET_KIND_MIG | (uint32_t)cairn_net.address << 8 | (uint32_t)CAIRN_TASK_NET << 16,
        0,
        len,
    };
    uint32_t s = arch_irq_save();
    uint32_t seq = cairn_net.seq;
    h[1] = (seq & 0xFFFFu) << 16;
    if (cairn_net.txq || !cairn_bus_tx_if_idle(module, h, data, len)) {
        arch_irq_restore(s);
        return false;
    }
    sent_now(module, seq, s);
    return true;
}

void cairn__mig_send_small(uint8_t module, const uint8_t *data, unsigned len)
{
    if (tx_now(module, data, len))
        return;
    for (unsigned i = 0; i < MIG_OUTBOX; i++) {
        struct cairn_mig_out *o = &MIG.out[i];
        if (o->len)
            continue;
        __builtin_memcpy(o->data, data, len);
        o->len = (uint8_t)len;
        if (!cairn__mig_submit(module, (uint8_t)i))
            o->len = 0;
        return;
    }
}

/* STATE part `index` written to the idle controller, interrupts masked: its head built in
 * the STATE frame buffer's first words, its bytes read straight from the blob where the
 * serialiser wrote them (word-aligned: the blob is a heap block or the buffer itself, and a
 * part a multiple of four bytes), so a part is built when the bus takes it and copied once,
 * into the controller. */
void cairn__mig_part_put(cairn_mig_state_t *m, unsigned index, uint8_t module, uint32_t seq)
{
    unsigned at = index * MIG_PART;
    unsigned n = m->blob_len - at < MIG_PART ? m->blob_len - at : MIG_PART;
    /* A split state (cairn__mig_serialise_tcb): the first part's fields in the STATE frame
     * buffer, the bytes of T's block, the first part's share too, straight from the block T
     * handed. */
    unsigned state_at = m->stage.state_at, head_words = MIG_PART_HEAD / 4u, bytes_n = n;
    const uint8_t *bytes = m->blob + at;
    if (state_at) {
        if (index) {
            bytes = (const uint8_t *)m->stage.state + (at - state_at);
        } else {
            /* The first: its fields (word-aligned, behind the part's head), then the block's
             * first bytes, which were never copied into the buffer. */
            head_words += state_at / 4u;
            bytes = m->stage.state;
            bytes_n = n - state_at;
        }
    }
    m->part_frame[0] = F_STATE | (uint32_t)m->mig_src << 8 | (uint32_t)m->mig_ctr << 16 |
                       (uint32_t)index << 24;
    m->part_frame[1] = m->count | (uint32_t)m->state_epoch << 8 | (uint32_t)m->task << 16 |
                       part_flags(m, index) << 24;
    const uint32_t h[3] = {
        CAIRN_NET_KIND_MIG | (uint32_t)cairn_net.address << 8 | (uint32_t)CAIRN_TASK_NET << 16,
        (seq & 0xFFFFu) << 16,
        MIG_PART_HEAD + n,
    };
    cairn_bus_tx_sub(module, h, m->part_frame, head_words, bytes, bytes_n);
    if (index + 1u == m->count && m->fast)
        m->commit_out = true;
}

/* The bus manager's transmit of a part's token: false for a stale one (the transfer ended
 * meanwhile). */
bool cairn__mig_part_write(unsigned index, uint8_t module, uint32_t seq)
{
    cairn_mig_state_t *const m = cairn_net.mig;
    if (m->role != MIG_SOURCE || m->phase != PH_TRANSFER || !m->blob || index >= m->count)
        return false;
    cairn__mig_part_put(m, index, module, seq);
    return true;
}

/* A small frame's slot (a STATE part's token is written by cairn__mig_part_write). */
bool cairn__mig_frame(const cairn_msg_t *t, uint32_t *h, const void **payload, unsigned *len)
{
    struct cairn_mig_out *o = &MIG.out[t->src % MIG_OUTBOX];
    if ((t->src & MIG_TOKEN_PART) || !o->len)
        return false;
    /* The slot is free again once the bytes are in the controller: the caller copies. */
    *payload = o->data;
    *len = o->len;
    o->len = 0;
    h[0] = CAIRN_NET_KIND_MIG | (uint32_t)cairn_net.address << 8 | (uint32_t)CAIRN_TASK_NET << 16;
    h[1] = 0;
    h[2] = *len;
    return true;
}

/* A frame of this migration: kind, mig, then up to three bytes (a negative one is left out). */
static inline __attribute__((always_inline)) void frame(uint8_t module, uint8_t kind, int a, int b,
                                                        int c)
{
    uint8_t f[6] = {kind, MIG.mig_src, MIG.mig_ctr, (uint8_t)a, (uint8_t)b, (uint8_t)c};
    unsigned n = 3 + (a >= 0) + (b >= 0) + (c >= 0);
    cairn__mig_send(module, f, n);
}

/* Every caller's third byte is none, and a and b are a byte or -1: the frame as gcc
 * specialised it when its callers were in this file. */
void cairn__mig_frame_to(uint8_t module, uint8_t kind, int a, int b)
{
    if (a < -1 || a > 255 || b < -1 || b > 255)
        __builtin_unreachable();
    frame(module, kind, a, b, -1);
}

/* The same for the frames of one byte after mig (the answers: STATE_ACK, DESERIALIZED,
 * FREEZE_ACK, ACTIVATED), built as the one word they are; the answers on the migration's
 * critical path pay for no byte-by-byte build nor the count of the bytes given. */
void cairn__mig_answer(uint8_t module, uint8_t kind, uint8_t a)
{
    const uint32_t w = kind | (uint32_t)MIG.mig_src << 8 | (uint32_t)MIG.mig_ctr << 16 |
                       (uint32_t)a << 24;
    cairn__mig_send(module, (const uint8_t *)&w, 4);
}

/* RESULT (six bytes, two words; the commit among them). */
void cairn__mig_result_to(uint8_t module)
{
    const uint32_t w[2] = {
        F_RESULT | (uint32_t)MIG.mig_src << 8 | (uint32_t)MIG.mig_ctr << 16 |
            (uint32_t)MIG.outcome << 24,
        MIG.task | (uint32_t)MIG.dest << 8,
    };
    cairn__mig_send(module, (const uint8_t *)w, 6);
}
