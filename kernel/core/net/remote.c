/*
 * Cairn OS remote TCBs (CoMOS V-B.2): for each task that lives on another module, its
 * ID, priority and module address, so that a send finds the module with no discovery
 * at run time. Local TCBs stay where they were (cairn_k.tasks[]); a remote task has
 * none there, which is what sends the message scheduler's fast paths to the general
 * path and the general path here.
 */
#include "net.h"

/* Indexed by ID (entry id - 1): every remote send looks its TCB up, in a few cycles
 * whatever the number of remote tasks, where a scan grew with it. */
const cairn_rtcb_t *cairn__remote_find(cairn_task_id_t id)
{
    if ((unsigned)id - 1u >= CAIRN_MAX_TASKS)
        return 0;
    const cairn_rtcb_t *r = &cairn_net.remote[id - 1];
    return r->id == id ? r : 0;
}

bool cairn__remote_is(cairn_task_id_t id)
{
    return cairn__remote_find(id) != 0;
}

cairn_ret_t cairn__remote_create(cairn_task_id_t id, cairn_prio_t prio, uint8_t module)
{
    if (id < 1 || id > CAIRN_MAX_TASKS || prio > CAIRN_PRIO_MAX || !cairn_k.net ||
        module == cairn_net.address || module == CAIRN_NET_BROADCAST)
        return CAIRN_EINVAL;
    if (cairn__id_taken(id))
        return CAIRN_EBUSY;
    if (cairn_net.remote_count >= CAIRN_NET_REMOTE_TASKS)
        return CAIRN_EFULL;
    cairn_rtcb_t *r = &cairn_net.remote[id - 1];
    r->id = id;
    r->prio = prio;
    r->module = module;
    cairn_net.remote_count++;
    return CAIRN_OK;
}

cairn_ret_t cairn__remote_remove(cairn_task_id_t id)
{
    cairn_rtcb_t *r = (cairn_rtcb_t *)(uintptr_t)cairn__remote_find(id);
    if (!r)
        return CAIRN_EINVAL;
    r->id = CAIRN_TASK_NONE;
    cairn_net.remote_count--;
    cairn__routes_forget(id);
    return CAIRN_OK;
}

cairn_ret_t cairn_task_create_remote(cairn_task_id_t id, cairn_prio_t prio, uint8_t module)
{
    return cairn__remote_create(id, prio, module);
}

cairn_ret_t cairn_task_remove_remote(cairn_task_id_t id)
{
    return cairn__remote_remove(id);
}

int cairn_task_module(cairn_task_id_t id)
{
    const cairn_rtcb_t *r = cairn__remote_find(id);
    return r ? r->module : -1;
}
