/*
 * The reliable layer's private state (reliable.c), part of the bus manager's (net.h) so
 * that the host port's simulated bus swaps it with the rest.
 */
#ifndef CAIRN_CORE_NET_RELIABLE_H
#define CAIRN_CORE_NET_RELIABLE_H

#include "cairn/msg.h"
#include "cairn/reliable.h"

/* A message kept until its DACK: the payload follows it in the same heap block. */
typedef struct cairn_rel_msg {
    struct cairn_rel_msg *next;
    uint16_t len;
    cairn_port_t port;
    cairn_task_id_t src;
    uint8_t seq;
} cairn_rel_msg_t;

typedef struct cairn_rel_state {
    bool on;
    uint32_t period;
    /* Per destination task (index = ID): the last number given, the unacknowledged
     * messages in order (the head is the one in flight), a token for it in the TX buffer. */
    uint8_t tx_seq[CAIRN_MAX_TASKS + 1];
    cairn_rel_msg_t *pending[CAIRN_MAX_TASKS + 1];
    cairn_rel_msg_t *acked; /* acknowledged, freed at the next idle */
    bool token[CAIRN_MAX_TASKS + 1];
    /* Per local task: the last number accepted from each module (0: none yet) and that
     * module's epoch then. Both travel with a migrating task. */
    uint8_t rx_seq[CAIRN_MAX_TASKS + 1][CAIRN_NET_MODULES];
    uint8_t rx_epoch[CAIRN_MAX_TASKS + 1][CAIRN_NET_MODULES];
    /* This module's epoch, and each peer's as its last DACK or NOTASK said (0: unknown). */
    uint8_t epoch;
    uint8_t peer_epoch[CAIRN_NET_MODULES];
    /* A migration from here waits for its task's sent messages to be acknowledged: every
     * acknowledgement then asks the migrator whether they are (cairn__mig_drained). */
    bool draining;
    cairn_reliable_stats_t stats;
} cairn_rel_state_t;

/* A bus-manager message flag: a token in the TX buffer for a frame the reliable layer or
 * the migrator builds when it is transmitted (msg.port = the frame kind). */
#define CAIRN_MSG_NET_TOKEN 0x08u

#endif /* CAIRN_CORE_NET_RELIABLE_H */
