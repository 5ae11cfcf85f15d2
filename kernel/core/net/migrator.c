/* The task migrator (docs/migration.md). */
#include "migrator.h"

bool cairn__mig_holds(cairn_task_id_t task)
{
    (void)task;
    return false;
}

bool cairn__mig_refuse(cairn_task_id_t task, uint8_t src)
{
    (void)task;
    (void)src;
    return false;
}

bool cairn__mig_frame(const cairn_msg_t *token, uint32_t *h, const void **payload, unsigned *len)
{
    (void)token;
    (void)h;
    (void)payload;
    (void)len;
    return false;
}

void cairn__mig_rx(uint8_t src, const uint8_t *payload, unsigned len)
{
    (void)src;
    (void)payload;
    (void)len;
}
