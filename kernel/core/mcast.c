/*
 * Cairn OS local multicast groups (CoMOS multicast manager, local part).
 *
 * One table of (group, task, input port) entries for all groups, in the kernel's
 * state. A send to a group delivers one message per member, highest-priority
 * member first (members of equal priority in table order); each delivery follows
 * the normal preemption rules. Members share a heap payload; the send holds it on
 * the execution stack until every member has it (see payload.c).
 */
#include "kernel.h"

_Static_assert(CAIRN_MAX_GROUPS >= 1 && CAIRN_MAX_GROUPS <= 32, "groups: 1..32 (a bit mask)");
_Static_assert(CAIRN_MCAST_ENTRIES >= 1 && CAIRN_MCAST_ENTRIES <= 255, "member table size");

#define members cairn_k.members
#define END (members + CAIRN_MCAST_ENTRIES)

typedef struct cairn_member member_t;

static bool group_ok(uint8_t group)
{
    return (unsigned)group - 1u < CAIRN_MAX_GROUPS;
}

uint8_t cairn_group_alloc(void)
{
    for (unsigned g = 1; g <= CAIRN_MAX_GROUPS; g++) {
        uint32_t bit = 1u << (g - 1);
        if (!(cairn_k.groups_used & bit)) {
            cairn_k.groups_used |= bit;
            return (uint8_t)g;
        }
    }
    return 0;
}

/* Frees the entries of group (group >= 1), or of task when task is not 0. */
static void forget(uint8_t group, cairn_task_id_t task)
{
    for (member_t *m = members; m < END; m++)
        if (m->group && (task ? m->task == task : m->group == group))
            m->group = 0;
}

void cairn_group_free(uint8_t group)
{
    if (!group_ok(group))
        return;
    cairn_k.groups_used &= ~(1u << (group - 1));
    forget(group, 0);
}

void cairn__groups_forget(cairn_task_id_t id)
{
    forget(0, id);
}

cairn_ret_t cairn_group_join(uint8_t group, cairn_task_id_t task, cairn_port_t in_port)
{
    if (!group_ok(group) || !cairn__tcb(task) || !cairn__in_port_ok(in_port))
        return CAIRN_EINVAL;
    member_t *free = 0;
    for (member_t *m = members; m < END; m++) {
        if (m->group == group && m->task == task && m->port == in_port)
            return CAIRN_OK; /* already a member */
        if (!m->group && !free)
            free = m;
    }
    if (!free)
        return CAIRN_EFULL;
    free->group = group;
    free->task = task;
    free->port = in_port;
    return CAIRN_OK;
}

cairn_ret_t cairn_group_leave(uint8_t group, cairn_task_id_t task, cairn_port_t in_port)
{
    if (group_ok(group))
        for (member_t *m = members; m < END; m++)
            if (m->group == group && m->task == task && m->port == in_port) {
                m->group = 0;
                return CAIRN_OK;
            }
    return CAIRN_EINVAL;
}

unsigned cairn_group_size(uint8_t group)
{
    unsigned n = 0;
    if (group_ok(group))
        for (const member_t *m = members; m < END; m++)
            n += m->group == group;
    return n;
}

cairn_ret_t cairn__mcast_send(cairn_frame_t *f)
{
    cairn_msg_t *hold = &f->msg;
    /* CoMOS: the multicast manager first sends the message over the bus, then to the
     * local members (members on other modules are known only there). */
    cairn_ret_t bus = CAIRN_OK;
    if (cairn_k.net && !(hold->flags & CAIRN_MSG_REMOTE))
        bus = cairn_k.net->mcast(f);
    uint8_t group = hold->port, flags = hold->flags;
    /* Snapshot the members as prio << 16 | task << 8 | port, by priority (high
     * first), stable: handlers that run during the deliveries may change the
     * table. Group 0 (free entries) has no members. */
    uint32_t to[CAIRN_MCAST_ENTRIES];
    unsigned n = 0;
    for (const member_t *m = members; m < END; m++) {
        if (!group || m->group != group)
            continue;
        uint32_t p = (uint32_t)cairn_task_prio(m->task) << 16;
        unsigned j = n++;
        for (; j > 0 && to[j - 1] < p; j--)
            to[j] = to[j - 1];
        to[j] = p | (uint32_t)m->task << 8 | m->port;
    }

    /* f holds the payload on the stack until the last member has it. At idle it
     * takes level 0: an interrupt's prio-0 message then waits for the end of this
     * send instead of running inside it. */
    int cur = cairn__cur_prio();
    f->tcb = cairn_k.top ? cairn_k.top->tcb : 0;
    f->prio = (cairn_prio_t)(cur < 0 ? 0 : cur);
    cairn__push(f);
    cairn_ret_t ret = CAIRN_OK, last = CAIRN_OK;
    for (unsigned i = 0; i < n; i++) {
        cairn_frame_t g;
        g.msg = *hold;
        g.msg.flags = flags;
        g.msg.dst = (cairn_task_id_t)(to[i] >> 8);
        g.msg.port = (cairn_port_t)to[i];
        if (i + 1 == n)
            hold->flags = 0; /* the last member may take it without a copy */
        last = cairn__deliver(&g);
        if (ret == CAIRN_OK)
            ret = last;
    }
    cairn__pop(f);
    if (n == 0 || last != CAIRN_OK) {
        hold->flags = flags;
        cairn__release(hold);
    }
    return ret != CAIRN_OK ? ret : bus;
}
