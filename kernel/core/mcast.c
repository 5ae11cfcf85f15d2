/*
 * Cairn OS local multicast groups (CoMOS multicast manager, local part).
 *
 * One table of (group, task, input port) entries for all groups. A send to a
 * group delivers one message per member, highest-priority member first (members
 * of equal priority in table order); each delivery follows the normal preemption
 * rules. Members share a heap payload; the send holds it on the execution stack
 * until every member has it (see take.c).
 */
#include "kernel.h"

_Static_assert(CAIRN_MAX_GROUPS >= 1 && CAIRN_MAX_GROUPS <= 32, "groups: 1..32 (a bit mask)");
_Static_assert(CAIRN_MCAST_ENTRIES >= 1 && CAIRN_MCAST_ENTRIES <= 255, "member table size");

typedef struct member {
    uint8_t group; /* 0 = free entry */
    cairn_task_id_t task;
    cairn_port_t port;
} member_t;

static member_t members[CAIRN_MCAST_ENTRIES];
static uint32_t groups_used; /* bit g-1: group g reserved by cairn_group_alloc */

void cairn__groups_init(void)
{
    for (unsigned i = 0; i < CAIRN_MCAST_ENTRIES; i++)
        members[i] = (member_t){0};
    groups_used = 0;
}

static bool group_ok(uint8_t group)
{
    return group >= 1 && group <= CAIRN_MAX_GROUPS;
}

uint8_t cairn_group_alloc(void)
{
    for (unsigned g = 1; g <= CAIRN_MAX_GROUPS; g++) {
        uint32_t bit = 1u << (g - 1);
        if (!(groups_used & bit)) {
            groups_used |= bit;
            return (uint8_t)g;
        }
    }
    return 0;
}

void cairn_group_free(uint8_t group)
{
    if (!group_ok(group))
        return;
    groups_used &= ~(1u << (group - 1));
    for (unsigned i = 0; i < CAIRN_MCAST_ENTRIES; i++)
        if (members[i].group == group)
            members[i] = (member_t){0};
}

static member_t *find(uint8_t group, cairn_task_id_t task, cairn_port_t port)
{
    for (unsigned i = 0; i < CAIRN_MCAST_ENTRIES; i++)
        if (members[i].group == group && members[i].task == task && members[i].port == port)
            return &members[i];
    return 0;
}

cairn_ret_t cairn_group_join(uint8_t group, cairn_task_id_t task, cairn_port_t in_port)
{
    if (!group_ok(group) || !cairn__tcb(task) || in_port >= CAIRN_PORT_LIMIT ||
        in_port == CAIRN_PORT_INIT)
        return CAIRN_EINVAL;
    if (find(group, task, in_port))
        return CAIRN_OK;
    member_t *free = find(0, 0, 0);
    if (!free)
        return CAIRN_EFULL;
    *free = (member_t){.group = group, .task = task, .port = in_port};
    return CAIRN_OK;
}

cairn_ret_t cairn_group_leave(uint8_t group, cairn_task_id_t task, cairn_port_t in_port)
{
    member_t *m = group_ok(group) ? find(group, task, in_port) : 0;
    if (!m)
        return CAIRN_EINVAL;
    *m = (member_t){0};
    return CAIRN_OK;
}

unsigned cairn_group_size(uint8_t group)
{
    unsigned n = 0;
    for (unsigned i = 0; i < CAIRN_MCAST_ENTRIES; i++)
        n += group_ok(group) && members[i].group == group;
    return n;
}

void cairn__groups_forget(cairn_task_id_t id)
{
    for (unsigned i = 0; i < CAIRN_MCAST_ENTRIES; i++)
        if (members[i].group && members[i].task == id)
            members[i] = (member_t){0};
}

cairn_ret_t cairn__mcast_send(cairn_task_id_t src, uint8_t group, const void *payload,
                              uint16_t len, uint8_t flags)
{
    /* Snapshot the members, by priority (high first), stable: handlers that run
     * during the deliveries may change the table. */
    cairn_route_t to[CAIRN_MCAST_ENTRIES];
    cairn_prio_t prio[CAIRN_MCAST_ENTRIES];
    unsigned n = 0;
    for (unsigned i = 0; i < CAIRN_MCAST_ENTRIES; i++) {
        if (!group_ok(group) || members[i].group != group)
            continue;
        cairn_prio_t p = cairn_task_prio(members[i].task);
        unsigned j = n++;
        for (; j > 0 && prio[j - 1] < p; j--) {
            to[j] = to[j - 1];
            prio[j] = prio[j - 1];
        }
        to[j] = CAIRN_ROUTE(members[i].task, members[i].port);
        prio[j] = p;
    }

    /* Hold the payload on the stack until the last member has it. At idle the
     * hold frame takes level 0: an interrupt's prio-0 message then waits for the
     * end of this send instead of running inside it. */
    int cur = cairn__cur_prio();
    cairn_frame_t f = {.tcb = cairn_k.top ? cairn_k.top->tcb : 0,
                       .prio = (cairn_prio_t)(cur < 0 ? 0 : cur),
                       .msg = {.payload = payload, .len = len, .flags = flags}};
    cairn_msg_t *hold = &f.msg;
    cairn__push(&f);
    cairn_ret_t ret = CAIRN_OK, last = CAIRN_OK;
    for (unsigned i = 0; i < n; i++) {
        if (i + 1 == n)
            hold->flags = 0; /* the last member may take it without a copy */
        last = cairn__deliver(src, to[i].task, to[i].port, payload, len, flags);
        if (last != CAIRN_OK && ret == CAIRN_OK)
            ret = last;
    }
    cairn__pop(&f);
    if (n == 0 || last != CAIRN_OK) {
        hold->flags = flags;
        cairn__release(hold);
    }
    return ret;
}
