/* The task migrator's private state (migrator.c), part of the bus manager's (net.h). */
#ifndef CAIRN_CORE_NET_MIGRATOR_STATE_H
#define CAIRN_CORE_NET_MIGRATOR_STATE_H

#include "cairn/migrate.h"

typedef struct cairn_mig_state {
    uint8_t phase;
} cairn_mig_state_t;

#endif
