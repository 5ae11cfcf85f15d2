/*
 * The application manager across modules (cairn/appmgr.h) on the host port's simulated
 * bus: a description loaded on module 0 is patched, instantiated on every module (local
 * tasks, remote TCBs, local members), initialised only once every module has it, and
 * reported; a lost acknowledgement costs a resend, not a second instantiation; a module
 * that refuses or does not answer is reported and the description dropped everywhere,
 * leaving every heap as it was. The retry timer is fired by the test (a TIMEOUT message).
 */
#include <string.h>

#include "ktest.h"
#include "modules.h"

#include "cairn/app_wire.h"
#include "cairn/appmgr.h"

#include "../../core/net/app_manager.h"

#define MODULES 3
#define ARENA (16 * 1024)
#define TRIES 3
#define LOADER 9

static uint8_t arena[MODULES][ARENA];
static size_t used_after_boot[MODULES];

static size_t heap_used(void)
{
    struct cairn_heap_stats st;
    cairn_heap_stats(&st);
    return st.used_bytes;
}

/* ---- task images: each logs "<module>:<image>:<port>" and an INIT's string ------------ */

static cairn_ret_t image(char name, cairn_msg_t *msg)
{
    if (msg->port == CAIRN_PORT_INIT)
        klog("%u:%c:INIT(%.*s)", cairn_net_address(), name, (int)msg->len,
             msg->len ? (const char *)msg->payload : "");
    else if (msg->port >= CAIRN_PORT_APP_BASE)
        klog("%u:%c:%u(%.*s)", cairn_net_address(), name, CAIRN_PORT_NUM(msg->port), (int)msg->len,
             (const char *)msg->payload);
    return CAIRN_OK;
}

struct counter {
    unsigned n;
};

static cairn_ret_t image_a(void *state, cairn_msg_t *msg)
{
    (void)state;
    if (msg->port == CAIRN_PORT(0))
        return cairn_send(0, "tick", 5); /* to the group */
    return image('a', msg);
}
static cairn_ret_t image_b(void *state, cairn_msg_t *msg)
{
    ((struct counter *)state)->n++;
    return image('b', msg);
}
static cairn_ret_t image_c(void *state, cairn_msg_t *msg)
{
    (void)state;
    return image('c', msg);
}

static const cairn_program_t images[] = {
    CAIRN_PROGRAM_STATELESS(image_a), CAIRN_PROGRAM(image_b, struct counter),
    CAIRN_PROGRAM_STATELESS(image_c),
};

/* a on module 0 sends to a group of b (module 1) and c (module 2). */
static const cairn_app_route_t a_out[] = {CAIRN_TO_GROUP(0)};
static const cairn_task_desc_t tasks[] = {
    {.prog = 0, .prio = 2, .module = 0, CAIRN_OUT(a_out), CAIRN_INIT_STRING("go")},
    {.prog = 1, .prio = 3, .module = 1, CAIRN_INIT_STRING("bee")},
    {.prog = 2, .prio = 1, .module = 2},
};
static const cairn_member_desc_t members[] = {
    {.group = 0, .task = 1, .port = CAIRN_PORT(1)},
    {.group = 0, .task = 2, .port = CAIRN_PORT(2)},
};
static const cairn_app_desc_t app = {
    CAIRN_PROGRAMS(images), CAIRN_TASKS(tasks), .num_groups = 1, CAIRN_MEMBERS(members),
};

/* ---- the loader: sends a description, logs the report ---------------------------------- */

static cairn_appmgr_report_t last;
static unsigned reports;

static cairn_ret_t loader(void *state, cairn_msg_t *msg)
{
    (void)state;
    if (msg->port == CAIRN_PORT(3) && msg->len == sizeof last) {
        memcpy(&last, msg->payload, sizeof last);
        reports++;
        klog("report(%d,%u,%x,%x)", last.status, last.step, (unsigned)last.acked,
             (unsigned)last.failed);
    }
    return CAIRN_OK;
}

/* Module 0's loader hands len bytes (after its report port) to the manager. */
static void load_bytes(const uint8_t *b, size_t len)
{
    cairn_simbus_select(0);
    uint8_t *p = cairn_malloc(len + 1);
    assert_non_null(p);
    p[0] = CAIRN_PORT(3);
    memcpy(p + 1, b, len);
    /* From the loader, as its handler would: the report comes back to it. */
    assert_int_equal(cairn_send_from(LOADER, 0, p, len + 1), CAIRN_OK);
}

static void load(const cairn_app_desc_t *a)
{
    uint8_t b[128];
    int n = cairn_app_wire_write(a, b, sizeof b);
    assert_true(n > 0);
    load_bytes(b, (size_t)n);
}

static void fire(unsigned m)
{
    cairn_simbus_select(m);
    assert_int_equal(cairn_post(CAIRN_TASK_APPMGR, CAIRN_PORT_TIMEOUT(CAIRN_APPMGR_TIMER), 0, 0),
                     CAIRN_OK);
}

static struct rec loader_rec;

static int setup(void **state)
{
    (void)state;
    cairn_simbus_reset(MODULES, 4);
    for (unsigned m = 0; m < MODULES; m++) {
        ktest_module_boot(m, arena[m], ARENA);
        assert_int_equal(cairn_appmgr_start(images, 3, 1000, TRIES), CAIRN_OK);
        if (m == 0) {
            assert_int_equal(cairn_task_create(LOADER, loader, 0, 1, 0, 1, 0), CAIRN_OK);
            assert_int_equal(cairn_route_set(LOADER, 0, CAIRN_TASK_APPMGR, CAIRN_APPMGR_PORT_LOAD),
                             CAIRN_OK);
            assert_int_equal(cairn_task_init(LOADER, 0, 0), CAIRN_OK);
        }
        assert_int_equal(cairn_net_start(), CAIRN_OK);
        cairn_idle(); /* the bus manager's receive blocks */
        used_after_boot[m] = heap_used();
    }
    cairn_simbus_run();
    cairn_simbus_select(0);
    klog_reset();
    reports = 0;
    memset(&last, 0, sizeof last);
    (void)loader_rec;
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    ktest_modules_check(MODULES);
    return 0;
}

#define ATEST(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

/* Nothing of a load is left on any module: no task, no remote TCB, every heap as it was
 * after boot (the bus manager's receive blocks allocated again). */
static void as_booted(void)
{
    for (unsigned m = 0; m < MODULES; m++) {
        cairn_simbus_select(m);
        cairn_idle();
        for (cairn_task_id_t id = 1; id < LOADER; id++) {
            assert_false(cairn_task_exists(id));
            assert_int_equal(cairn_task_module(id), -1);
        }
        assert_int_equal(heap_used(), used_after_boot[m]);
    }
}

/* ---- tests -------------------------------------------------------------------------------- */

static void test_loaded_on_one_module_it_runs_on_all(void **state)
{
    (void)state;
    load(&app);
    cairn_simbus_run();
    /* Initialised only after every module had instantiated: INITs come after both ACKs. */
    assert_log("0:a:INIT(go) 1:b:INIT(bee) 2:c:INIT() report(0,0,7,0)");
    assert_int_equal(reports, 1);
    assert_int_equal(last.num_tasks, 3);
    assert_int_equal(last.ids[0], 1);
    assert_int_equal(last.ids[1], 2);
    assert_int_equal(last.ids[2], 3);
    /* Every module: its own task, remote TCBs for the others, the same IDs. */
    for (unsigned m = 0; m < MODULES; m++) {
        cairn_simbus_select(m);
        for (unsigned i = 0; i < 3; i++) {
            assert_true(cairn_task_exists(last.ids[i]) == (i == m));
            assert_int_equal(cairn_task_module(last.ids[i]), i == m ? -1 : (int)i);
        }
    }
    /* The group reaches b on module 1 and c on module 2. */
    klog_reset();
    cairn_simbus_select(0);
    assert_int_equal(cairn_post(last.ids[0], CAIRN_PORT(0), 0, 0), CAIRN_OK);
    cairn_simbus_run();
    assert_log("1:b:1(tick) 2:c:2(tick)");
    /* On the bus: DESC and its ACK per module, INIT and its ACK per module (told apart by
     * length: the wire log keeps headers), one broadcast. */
    unsigned n = cairn_simbus_wire_count();
    unsigned desc = 0, init = 0, acks = 0;
    for (unsigned i = 0; i < n; i++) {
        const struct cairn_simbus_wire *w = cairn_simbus_wire(i);
        if (w->head[2] != CAIRN_TASK_APPMGR || w->dst == 0xFF)
            continue;
        if (w->head[3] == CAIRN_APPMGR_PORT_ACK)
            acks++;
        else if (w->len > CAIRN_NET_HEADER + CAIRN_APPMGR_PEER_HEAD) /* with a description */
            desc++;
        else if (w->len == CAIRN_NET_HEADER + CAIRN_APPMGR_PEER_HEAD)
            init++;
    }
    assert_int_equal(desc, 2);
    assert_int_equal(init, 2);
    assert_int_equal(acks, 4);
}

/* Drops module 1's first ACK. */
static unsigned acks_dropped;
static enum cairn_simbus_fate drop_first_ack(const struct cairn_simbus_wire *w)
{
    if (w->src == 1 && w->head[3] == CAIRN_APPMGR_PORT_ACK && acks_dropped == 0) {
        acks_dropped++;
        return CAIRN_SIMBUS_DROP;
    }
    return CAIRN_SIMBUS_PASS;
}

static void test_a_lost_acknowledgement_costs_a_resend_only(void **state)
{
    (void)state;
    acks_dropped = 0;
    cairn_simbus_filter(drop_first_ack);
    load(&app);
    cairn_simbus_run();
    assert_int_equal(acks_dropped, 1);
    assert_int_equal(reports, 0); /* waiting for module 1 */
    assert_log("");
    fire(0);
    cairn_simbus_run();
    /* Module 1 answered the resend from what it had: b created once, initialised once. */
    assert_log("0:a:INIT(go) 1:b:INIT(bee) 2:c:INIT() report(0,0,7,0)");
    cairn_simbus_select(1);
    assert_true(cairn_task_exists(2));
}

static void test_a_module_whose_ids_are_taken_refuses_and_the_load_is_dropped(void **state)
{
    (void)state;
    cairn_simbus_select(2);
    static struct rec squatter = {.name = "squatter"};
    rec_task(2, &squatter, 1, 0); /* ID 2 is taken on module 2 only */
    size_t used2 = heap_used();
    klog_reset();
    load(&app);
    cairn_simbus_run();
    assert_int_equal(reports, 1);
    assert_int_equal(last.status, CAIRN_EBUSY);
    assert_int_equal(last.step, 3);
    assert_int_equal(last.failed, 1u << 2);
    assert_int_equal(last.acked, (1u << 0) | (1u << 1));
    assert_log("report(-5,3,3,4)"); /* no INIT anywhere */
    /* Module 1 was told to drop it; module 0 removed its own. */
    for (unsigned m = 0; m < 2; m++) {
        cairn_simbus_select(m);
        for (cairn_task_id_t id = 1; id <= 3; id++) {
            assert_false(cairn_task_exists(id));
            assert_int_equal(cairn_task_module(id), -1);
        }
    }
    cairn_simbus_select(2);
    assert_true(cairn_task_exists(2));
    cairn_idle(); /* the receive blocks the frames took, allocated again */
    assert_int_equal(heap_used(), used2); /* the refused description was dropped too */
    cairn_simbus_select(1);
    cairn_idle();
    /* Module 1 keeps nothing of the dropped load. */
    assert_int_equal(heap_used(), used_after_boot[1]);
}

static enum cairn_simbus_fate cut_module_2(const struct cairn_simbus_wire *w)
{
    return w->dst == 2 ? CAIRN_SIMBUS_DROP : CAIRN_SIMBUS_PASS;
}

static void test_a_module_that_does_not_answer_is_reported_after_the_last_try(void **state)
{
    (void)state;
    cairn_simbus_filter(cut_module_2);
    load(&app);
    cairn_simbus_run();
    for (unsigned t = 1; t < TRIES; t++) {
        fire(0);
        cairn_simbus_run();
        assert_int_equal(reports, 0);
    }
    fire(0); /* the last try's period ends */
    cairn_simbus_run();
    assert_int_equal(reports, 1);
    assert_int_equal(last.status, CAIRN_EDOWN);
    assert_int_equal(last.failed, 1u << 2);
    unsigned to2 = 0;
    for (unsigned i = 0; i < cairn_simbus_wire_count(); i++)
        to2 += cairn_simbus_wire(i)->dst == 2;
    assert_int_equal(to2, TRIES + 1); /* every try, then the DROP */
    as_booted();
}

/* Drops every INIT step to module 2 (a PEER message with no description). */
static enum cairn_simbus_fate cut_init_to_2(const struct cairn_simbus_wire *w)
{
    bool init = w->len == CAIRN_NET_HEADER + CAIRN_APPMGR_PEER_HEAD;
    return w->dst == 2 && init ? CAIRN_SIMBUS_DROP : CAIRN_SIMBUS_PASS;
}

static void test_a_module_that_misses_initialisation_is_reported_and_the_others_run(void **state)
{
    (void)state;
    cairn_simbus_filter(cut_init_to_2);
    load(&app);
    cairn_simbus_run();
    assert_log("0:a:INIT(go) 1:b:INIT(bee)"); /* module 2 has c, uninitialised */
    for (unsigned t = 0; t < TRIES; t++) {
        assert_int_equal(reports, 0);
        fire(0);
        cairn_simbus_run();
    }
    assert_int_equal(reports, 1);
    assert_int_equal(last.status, CAIRN_EDOWN);
    assert_int_equal(last.step, 4);
    assert_int_equal(last.failed, 1u << 2);
    assert_int_equal(last.acked, (1u << 0) | (1u << 1));
    cairn_simbus_select(2);
    assert_true(cairn_task_exists(3));
}

static void test_a_module_powered_off_from_here_is_reported_at_once(void **state)
{
    (void)state;
    cairn_simbus_select(0);
    assert_int_equal(cairn_net_power(2, false), CAIRN_OK);
    cairn_simbus_run();
    load(&app);
    cairn_simbus_run();
    /* Refused by the bus manager (CAIRN_EDOWN) without a try on the wire or a timer. */
    assert_int_equal(reports, 1);
    assert_int_equal(last.status, CAIRN_EDOWN);
    assert_int_equal(last.step, 3);
    assert_int_equal(last.failed, 1u << 2);
    for (unsigned i = 0; i < cairn_simbus_wire_count(); i++)
        assert_int_not_equal(cairn_simbus_wire(i)->dst, 2);
    cairn_simbus_select(0);
    assert_int_equal(cairn_net_power(2, true), CAIRN_OK);
    cairn_simbus_run();
    cairn_simbus_select(2); /* powered on again: a fresh boot, as the bus's power frame does */
    cairn_heap_init(arena[2], ARENA);
    assert_int_equal(cairn_sched_init(), CAIRN_OK);
    assert_int_equal(cairn_net_init(), CAIRN_OK);
    assert_int_equal(cairn_appmgr_start(images, 3, 1000, TRIES), CAIRN_OK);
    assert_int_equal(cairn_net_start(), CAIRN_OK);
    cairn_idle();
    used_after_boot[2] = heap_used();
    as_booted();
}

/* Module m's manager's state. */
static cairn_appmgr_t *manager(unsigned m)
{
    cairn_simbus_select(m);
    return cairn_k.tasks[CAIRN_TASK_APPMGR]->state;
}

/* A PEER frame to module 1's manager as if from module 0's: p, len bytes. */
static void inject_peer(const uint8_t *p, uint16_t len)
{
    uint8_t f[10 + 64];
    assert_true(len <= 64);
    f[0] = CAIRN_NET_KIND_MSG;
    f[1] = 0;
    f[2] = CAIRN_TASK_APPMGR;
    f[3] = CAIRN_APPMGR_PORT_PEER;
    f[4] = CAIRN_APPMGR_PRIO;
    f[5] = CAIRN_TASK_APPMGR;
    f[6] = f[7] = 0;
    f[8] = (uint8_t)len;
    f[9] = (uint8_t)(len >> 8);
    memcpy(f + 10, p, len);
    cairn_simbus_inject(1, 0, f, 10u + len);
    cairn_simbus_run();
}

static void test_a_load_of_a_later_life_is_not_taken_for_a_resend(void **state)
{
    (void)state;
    load(&app);
    cairn_simbus_run();
    assert_int_equal(last.status, CAIRN_OK);
    cairn_appmgr_t *s1 = manager(1);
    uint8_t desc[64];
    uint16_t len = s1->peer_len;
    memcpy(desc, s1->peer, len);
    assert_int_equal(desc[0], CAIRN_APPMGR_DESC);
    assert_int_equal(desc[3], manager(0)->epoch);
    klog_reset();
    /* The same DESC again: a resend, answered from what was kept. */
    inject_peer(desc, len);
    s1 = manager(1);
    assert_int_equal(s1->status, CAIRN_OK);
    assert_int_equal(s1->stage, APP_RUNNING);
    /* The same number from module 0's next life: a new load, whose IDs are taken here. */
    desc[3]++;
    inject_peer(desc, len);
    s1 = manager(1);
    assert_int_equal(s1->status, CAIRN_EBUSY);
    assert_int_equal(s1->origin_epoch, desc[3]);
    assert_true(cairn_task_exists(2)); /* the running application is untouched */
    assert_log("");
}

static void test_bad_loads_are_reported(void **state)
{
    (void)state;
    uint8_t b[128];
    int n = cairn_app_wire_write(&app, b, sizeof b);
    assert_true(n > 0);
    load_bytes(b, (size_t)n - 1); /* truncated */
    cairn_simbus_run();
    assert_int_equal(last.status, CAIRN_EINVAL);
    assert_int_equal(last.step, 1);
    b[4 + 3 + 1] = 7; /* task 0's image: beyond the table */
    load_bytes(b, (size_t)n);
    cairn_simbus_run();
    assert_int_equal(last.status, CAIRN_EINVAL);
    b[4 + 3 + 1] = 0;
    b[0] = CAIRN_APP_WIRE_PATCHED; /* a loader sends relative IDs */
    b[4] = 1, b[5] = 2, b[6] = 3;
    load_bytes(b, (size_t)n);
    cairn_simbus_run();
    assert_int_equal(last.status, CAIRN_EINVAL);
    /* Longer than one frame carries: a task with init data up to the limit. */
    static uint8_t big[255];
    const cairn_task_desc_t t = {.prog = 0, .prio = 1, .init = big, .init_len = 255};
    const cairn_app_desc_t a = {CAIRN_PROGRAMS(images), .tasks = &t, .num_tasks = 1};
    uint8_t w[CAIRN_APPMGR_MAX_DESC + 32];
    int wn = cairn_app_wire_write(&a, w, sizeof w);
    assert_true(wn > (int)CAIRN_APPMGR_MAX_DESC);
    load_bytes(w, (size_t)wn);
    cairn_simbus_run();
    assert_int_equal(last.status, CAIRN_EINVAL);
    assert_int_equal(last.step, 1);
    assert_int_equal(reports, 4);
    assert_int_equal(cairn_simbus_wire_count(), 0); /* nothing was broadcast */
    as_booted();
    /* One load at a time. */
    cairn_simbus_filter(cut_module_2);
    load(&app);
    load(&app);
    assert_int_equal(reports, 5);
    assert_int_equal(last.status, CAIRN_EBUSY);
    for (unsigned t = 0; t < TRIES; t++) {
        fire(0);
        cairn_simbus_run();
    }
    assert_int_equal(reports, 6);
    assert_int_equal(last.status, CAIRN_EDOWN);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        ATEST(test_loaded_on_one_module_it_runs_on_all),
        ATEST(test_a_lost_acknowledgement_costs_a_resend_only),
        ATEST(test_a_module_whose_ids_are_taken_refuses_and_the_load_is_dropped),
        ATEST(test_a_module_that_does_not_answer_is_reported_after_the_last_try),
        ATEST(test_a_module_that_misses_initialisation_is_reported_and_the_others_run),
        ATEST(test_a_module_powered_off_from_here_is_reported_at_once),
        ATEST(test_a_load_of_a_later_life_is_not_taken_for_a_resend),
        ATEST(test_bad_loads_are_reported),
    };
    return cmocka_run_group_tests_name("appmgr", tests, NULL, NULL);
}
