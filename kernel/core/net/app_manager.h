/*
 * The application manager's state (app_manager.c: a load taken and created here;
 * app_broadcast.c: the loading module's broadcast). One kernel-owned heap block, the
 * manager task's state: a module without the manager spends nothing on it.
 */
#ifndef CAIRN_CORE_APP_MANAGER_H
#define CAIRN_CORE_APP_MANAGER_H

#include "net.h"

#include "cairn/app_wire.h"
#include "cairn/appmgr.h"

/* How far a load has come on this module. */
enum { APP_NONE, APP_CREATED, APP_RUNNING };

typedef struct cairn_appmgr {
    const cairn_program_t *images;
    uint32_t retry_ticks;
    uint8_t num_images;
    uint8_t tries;
    uint8_t self;    /* this module's address */
    uint8_t epoch;   /* this boot's number (cairn_bus_boot_epoch; 0 without a bus) */
    uint8_t modules; /* modules on the bus (1 without one) */
    /* The load this module holds: its PEER message (head + patched description, a heap
     * block of the manager's), parsed; who loaded it and its number. */
    uint8_t *peer;
    uint16_t peer_len;
    uint8_t origin, origin_epoch, number, stage;
    int8_t status; /* this module's answer to the last step */
    cairn_app_wire_t w;
    /* The loading module's broadcast: the step out (CAIRN_APPMGR_DESC / _INIT, 0: none),
     * sends left, modules still to answer, modules answered, modules failed. */
    uint8_t step, left, next_number;
    cairn_task_id_t reply_to;
    cairn_port_t reply_port;
    int8_t first_error;
    uint32_t pending, acked, failed;
    uint8_t init_msg[CAIRN_APPMGR_PEER_HEAD]; /* an INIT or DROP message's bytes */
    uint8_t ack[CAIRN_APPMGR_ACK_LEN];        /* this module's last ACK's bytes */
} cairn_appmgr_t;

/* app_manager.c: the held load's three stages on this module. */
cairn_ret_t cairn__appmgr_instantiate(cairn_appmgr_t *s);
cairn_ret_t cairn__appmgr_initialise(cairn_appmgr_t *s);
void cairn__appmgr_remove(cairn_appmgr_t *s);
/* Forgets the held load (removed first when created but not running). */
void cairn__appmgr_forget(cairn_appmgr_t *s);

/* app_broadcast.c: a LOAD message; an ACK; the retry timer; a PEER message to module. */
cairn_ret_t cairn__appmgr_load(cairn_appmgr_t *s, cairn_msg_t *msg);
void cairn__appmgr_ack(cairn_appmgr_t *s, const cairn_msg_t *msg);
void cairn__appmgr_timer(cairn_appmgr_t *s);
cairn_ret_t cairn__appmgr_to(uint8_t module, cairn_port_t port, const void *p, uint16_t len);
/* Whether a frame waiting for the bus still reads p (p may not be freed yet). */
bool cairn__appmgr_queued(const void *p);

#endif /* CAIRN_CORE_APP_MANAGER_H */
