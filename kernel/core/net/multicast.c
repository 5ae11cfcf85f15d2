/*
 * Cairn OS multicast across modules (CoMOS V-B.2, the multicast manager): each module
 * keeps the members of its own tasks only (kernel/core/mcast.c); a group message is
 * sent once on the bus, as a broadcast, and every module, the sender's included,
 * delivers it to its local members by priority. The receiving side is the bus
 * manager's (bus_manager.c), which hands a received group message to the local
 * multicast send marked CAIRN_MSG_REMOTE, so it is not broadcast again.
 */
#include "net.h"

cairn_ret_t cairn__net_mcast(cairn_frame_t *f)
{
    cairn_msg_t m = f->msg;
    /* A broadcast has no one destination priority: it is buffered at the sender's. */
    int cur = cairn__cur_prio();
    m.prio = (cairn_prio_t)(cur < 0 ? 0 : cur > CAIRN_PRIO_MAX ? CAIRN_PRIO_MAX : cur);
    m.dst = CAIRN_TASK_MCAST;
    bool sent;
    return cairn__net_submit(&m, CAIRN_NET_BROADCAST, &sent);
}
