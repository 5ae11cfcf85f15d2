/*
 * What a destination remembers of its commits across a reset (docs/migration.md, "Under each
 * failure"): for each source module, the last migration it made live here and in which life
 * of this module, kept in the board's retained RAM (cairn_bus_retained), which a reset keeps
 * and a power loss may not.
 *
 * A STATE part that carries the commit and names an earlier life of this module is answered
 * "no record" (the source kills the task: it may have been made live, then lost with that
 * life) unless this record proves the previous life never committed that migration: then it
 * is answered "failed" and the source resumes the task. The proof needs the record to have
 * been kept through the whole previous life (started in a life before this one) and the part
 * to name exactly the previous life; a source waits for the answer to its migration before it
 * starts another, so the last commit recorded for it in that life is the only one that could
 * be this one.
 *
 * Each word carries its own complement, so that what a power loss leaves proves nothing, and
 * a commit costs one store on the way to making the task live (the commit point's, through
 * the words cairn__mig_record_open returned).
 */
#include "migrator.h"

#define RECORD_MAGIC 0xC0A1u

struct mig_record {
    uint32_t head;                    /* RECORD_MAGIC, then the life it was started in, ~it */
    uint32_t last[CAIRN_NET_MODULES]; /* per source: life, counter, ~life, ~counter */
};

static inline bool sound(uint32_t w)
{
    return ((w ^ w >> 16) & 0xFFFFu) == 0xFFFFu;
}

/* A board whose retained RAM is too small keeps no record: every such part is "no record". */
static struct mig_record *record(void)
{
    unsigned len = 0;
    void *p = cairn_bus_retained(&len);
    return p && len >= sizeof(struct mig_record) ? p : 0;
}

static bool kept(const struct mig_record *r)
{
    return r && r->head >> 16 == RECORD_MAGIC && (((r->head >> 8) ^ r->head) & 0xFFu) == 0xFFu;
}

uint32_t *cairn__mig_record_open(uint8_t life)
{
    struct mig_record *r = record();
    if (!r)
        return 0;
    if (!kept(r)) {
        for (unsigned i = 0; i < CAIRN_NET_MODULES; i++)
            r->last[i] = cairn__mig_record_word(0, 0); /* none */
        r->head = (uint32_t)RECORD_MAGIC << 16 | (uint32_t)(uint8_t)~life << 8 | life;
    }
    return r->last;
}

bool cairn__mig_record_never_committed(uint8_t life, uint8_t named, uint8_t src, uint8_t ctr)
{
    const struct mig_record *r = record();
    uint8_t previous = life == 1u ? 255u : (uint8_t)(life - 1u);
    if (!kept(r) || (uint8_t)r->head == life || named != previous || src >= CAIRN_NET_MODULES ||
        !sound(r->last[src]))
        return false;
    return r->last[src] != cairn__mig_record_word(named, ctr);
}
