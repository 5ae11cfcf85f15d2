/*
 * Application descriptions on the wire (cairn/app_wire.h): the bytes the layout names,
 * a round trip through write, parse and patch, and malformed bytes refused (never read
 * beyond: every buffer is a heap block of its exact size, under ASan).
 */
#include <stdlib.h>
#include <string.h>

#include "ktest.h"

#include "cairn/app_wire.h"

static cairn_ret_t nop(void *state, cairn_msg_t *msg)
{
    (void)state;
    (void)msg;
    return CAIRN_OK;
}

/* The CoMOS hello world (Listing 2) and a third task reaching a driver by global ID. */
static const cairn_program_t images[] = {
    CAIRN_PROGRAM_STATELESS(nop),
    CAIRN_PROGRAM_STATELESS(nop),
};
static const uint8_t timer_init[3] = {0x7D, 0x00, 0x01};
static const cairn_app_route_t timer_out[] = {CAIRN_TO_GROUP(0), CAIRN_TO(1, CAIRN_PORT(2))};
static const cairn_app_route_t hello_out[] = {CAIRN_TO_GLOBAL(9, CAIRN_PORT(0)), CAIRN_TO_NONE};
static const cairn_task_desc_t tasks[] = {
    {.prog = 0, .prio = 3, .flags = CAIRN_TASK_MOVABLE, .module = 2, CAIRN_OUT(timer_out),
     CAIRN_INIT_DATA(timer_init)},
    {.prog = 1, .prio = 1, CAIRN_OUT(hello_out)},
};
static const cairn_member_desc_t members[] = {{.group = 0, .task = 1, .port = CAIRN_PORT(0)}};
static const cairn_app_desc_t app = {
    CAIRN_PROGRAMS(images), CAIRN_TASKS(tasks), .num_groups = 1, CAIRN_MEMBERS(members),
};

/* The layout's bytes, field by field. */
static const uint8_t expected[] = {
    CAIRN_APP_WIRE_RELATIVE, 2, 1, 1, /* header */
    0, 0, 0,                          /* two task IDs, one group ID, not yet patched */
    0, 3, CAIRN_TASK_MOVABLE, 2, 2, 3, /* task 0: image, prio, flags, module, outputs, init */
    CAIRN_DST_GROUP, 0, 0, CAIRN_DST_TASK, 1, CAIRN_PORT(2), 0x7D, 0x00, 0x01,
    1, 1, 0, 0, 2, 0, /* task 1 */
    CAIRN_DST_GLOBAL, 9, CAIRN_PORT(0), CAIRN_DST_NONE, 0, 0,
    0, 1, CAIRN_PORT(0), /* member */
};

/* A heap copy of exactly len bytes (ASan sees one byte too far). */
static uint8_t *exact(const uint8_t *b, size_t len)
{
    uint8_t *p = malloc(len ? len : 1);
    assert_non_null(p);
    if (len)
        memcpy(p, b, len);
    return p;
}

static cairn_ret_t parse_exact(const uint8_t *b, size_t len, cairn_app_wire_t *w)
{
    uint8_t *p = exact(b, len);
    cairn_ret_t r = cairn_app_wire_parse(p, len, 2, w);
    if (r == CAIRN_OK) { /* read every part of it while the copy lives */
        unsigned sum = 0;
        for (unsigned i = 0; i < w->num_tasks; i++) {
            cairn_task_desc_t d;
            cairn_app_wire_task(w, i, &d);
            for (unsigned k = 0; k < d.num_out; k++)
                sum += d.out[k].kind + d.out[k].target + d.out[k].port;
            for (unsigned k = 0; k < d.init_len; k++)
                sum += ((const uint8_t *)d.init)[k];
            sum += cairn_app_wire_task_id(w, i);
        }
        for (unsigned j = 0; j < w->num_members; j++)
            sum += cairn_app_wire_member(w, j)->task;
        for (unsigned j = 0; j < w->num_groups; j++)
            sum += cairn_app_wire_group_id(w, j);
        (void)sum;
    }
    free(p);
    return r;
}

static void test_the_bytes_are_the_layout(void **state)
{
    (void)state;
    uint8_t buf[64];
    int n = cairn_app_wire_write(&app, buf, sizeof buf);
    assert_int_equal(n, sizeof expected);
    assert_memory_equal(buf, expected, sizeof expected);
}

static void test_round_trip_and_patch(void **state)
{
    (void)state;
    uint8_t buf[sizeof expected];
    assert_int_equal(cairn_app_wire_write(&app, buf, sizeof buf), sizeof buf);
    cairn_app_wire_t w;
    assert_int_equal(cairn_app_wire_parse(buf, sizeof buf, 2, &w), CAIRN_OK);
    assert_false(w.patched);
    assert_int_equal(w.num_tasks, 2);
    assert_int_equal(w.num_groups, 1);
    assert_int_equal(w.num_members, 1);
    for (unsigned i = 0; i < 2; i++) {
        cairn_task_desc_t d;
        cairn_app_wire_task(&w, i, &d);
        assert_int_equal(d.prog, tasks[i].prog);
        assert_int_equal(d.prio, tasks[i].prio);
        assert_int_equal(d.flags, tasks[i].flags);
        assert_int_equal(d.module, tasks[i].module);
        assert_int_equal(d.num_out, tasks[i].num_out);
        assert_memory_equal(d.out, tasks[i].out, d.num_out * sizeof *d.out);
        assert_int_equal(d.init_len, tasks[i].init_len);
        if (d.init_len)
            assert_memory_equal(d.init, tasks[i].init, d.init_len);
        else
            assert_null(d.init);
    }
    assert_memory_equal(cairn_app_wire_member(&w, 0), &members[0], sizeof members[0]);

    const cairn_task_id_t ids[] = {5, 3};
    const uint8_t gids[] = {7};
    cairn_app_wire_patch(buf, &w, ids, gids);
    assert_true(w.patched);
    assert_int_equal(buf[0], CAIRN_APP_WIRE_PATCHED);
    cairn_app_wire_t again;
    assert_int_equal(cairn_app_wire_parse(buf, sizeof buf, 2, &again), CAIRN_OK);
    assert_true(again.patched);
    assert_int_equal(cairn_app_wire_task_id(&again, 0), 5);
    assert_int_equal(cairn_app_wire_task_id(&again, 1), 3);
    assert_int_equal(cairn_app_wire_group_id(&again, 0), 7);
    /* Only the ID tables and the state byte changed. */
    assert_memory_equal(buf + 7, expected + 7, sizeof expected - 7);
}

static void test_write_refuses_what_does_not_fit(void **state)
{
    (void)state;
    for (size_t cap = 0; cap < sizeof expected; cap++) {
        uint8_t *p = malloc(cap ? cap : 1);
        assert_int_equal(cairn_app_wire_write(&app, p, cap), CAIRN_EFULL);
        free(p);
    }
    static uint8_t big[300];
    cairn_task_desc_t t = {.prog = 0, .prio = 1, .init = big, .init_len = sizeof big};
    cairn_app_desc_t a = {CAIRN_PROGRAMS(images), .tasks = &t, .num_tasks = 1};
    uint8_t buf[512];
    assert_int_equal(cairn_app_wire_write(&a, buf, sizeof buf), CAIRN_EINVAL);
    a.num_tasks = 0;
    assert_int_equal(cairn_app_wire_write(&a, buf, sizeof buf), CAIRN_EINVAL);
    a.num_tasks = 1;
    a.num_groups = CAIRN_MAX_GROUPS + 1;
    assert_int_equal(cairn_app_wire_write(&a, buf, sizeof buf), CAIRN_EINVAL);
}

static void test_every_truncation_and_trailing_byte_is_refused(void **state)
{
    (void)state;
    cairn_app_wire_t w;
    for (size_t len = 0; len < sizeof expected; len++)
        assert_int_equal(parse_exact(expected, len, &w), CAIRN_EINVAL);
    uint8_t longer[sizeof expected + 1];
    memcpy(longer, expected, sizeof expected);
    longer[sizeof expected] = 0;
    assert_int_equal(parse_exact(longer, sizeof longer, &w), CAIRN_EINVAL);
    assert_int_equal(parse_exact(expected, sizeof expected, &w), CAIRN_OK);
    assert_int_equal(cairn_app_wire_parse(NULL, 4, 2, &w), CAIRN_EINVAL);
}

/* One byte of the valid description set to v: refused. */
static void refused(size_t at, uint8_t v)
{
    uint8_t b[sizeof expected];
    memcpy(b, expected, sizeof b);
    b[at] = v;
    cairn_app_wire_t w;
    if (parse_exact(b, sizeof b, &w) != CAIRN_EINVAL)
        fail_msg("byte %zu = %u accepted", at, v);
}

static void test_fields_out_of_range_are_refused(void **state)
{
    (void)state;
    refused(0, 0x00);                        /* state */
    refused(1, 0);                           /* no tasks */
    refused(1, CAIRN_MAX_TASKS + 1);         /* tasks */
    refused(2, CAIRN_MAX_GROUPS + 1);        /* groups */
    refused(3, 2);                           /* members: the length no longer adds up */
    refused(7, 2);                           /* image beyond the table */
    refused(8, 255);                         /* priority beyond CAIRN_PRIO_MAX */
    refused(11, 3);                          /* outputs: runs into the init data */
    refused(12, 200);                        /* init length beyond the bytes */
    refused(13, 9);                          /* route kind */
    refused(14, 1);                          /* group route to group 1 of 1 */
    refused(17, 2);                          /* task route to task 2 of 2 */
    refused(18, CAIRN_PORT_INIT);            /* a route to INIT */
    refused(18, CAIRN_PORT_LIMIT);           /* a port beyond the ports */
    refused(29, 0);                          /* global route to ID 0 */
    refused(29, CAIRN_MAX_TASKS + 1);        /* global route beyond the IDs */
    refused(34, 1);                          /* member of group 1 of 1 */
    refused(35, 2);                          /* member task 2 of 2 */
    refused(36, CAIRN_PORT_INIT);            /* member's port: INIT */
    refused(36, CAIRN_PORT_LIMIT);           /* member's port: beyond the ports */
}

static void test_patched_ids_must_be_distinct_and_in_range(void **state)
{
    (void)state;
    uint8_t b[sizeof expected];
    memcpy(b, expected, sizeof b);
    b[0] = CAIRN_APP_WIRE_PATCHED;
    const uint8_t cases[][3] = {
        {0, 2, 1}, {3, 3, 1}, {CAIRN_MAX_TASKS + 1, 2, 1}, {1, 2, 0}, {1, 2, CAIRN_MAX_GROUPS + 1},
    };
    cairn_app_wire_t w;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        memcpy(b + 4, cases[c], 3);
        assert_int_equal(parse_exact(b, sizeof b, &w), CAIRN_EINVAL);
    }
    memcpy(b + 4, (const uint8_t[]){CAIRN_MAX_TASKS, 1, CAIRN_MAX_GROUPS}, 3);
    assert_int_equal(parse_exact(b, sizeof b, &w), CAIRN_OK);
}

/* Random bytes and random changes to the valid description: refused, or accepted and read
 * wholly inside the bytes (parse_exact reads every part of what it accepts). */
static void test_random_bytes_never_read_beyond(void **state)
{
    (void)state;
    uint32_t x = 12345;
    unsigned accepted = 0, refused_n = 0;
    for (unsigned round = 0; round < 20000; round++) {
        uint8_t b[64];
        size_t len;
        if (round % 2) {
            memcpy(b, expected, sizeof expected);
            len = sizeof expected;
            for (unsigned k = 0; k < 1 + round % 3; k++) {
                x = x * 1103515245u + 12345u;
                b[(x >> 8) % len] = (uint8_t)(x >> 20);
            }
        } else {
            x = x * 1103515245u + 12345u;
            len = (x >> 16) % sizeof b;
            for (size_t k = 0; k < len; k++) {
                x = x * 1103515245u + 12345u;
                b[k] = (uint8_t)(x >> 16);
            }
            if (len >= 4) { /* plausible headers now and then */
                b[0] = (x & 1) ? CAIRN_APP_WIRE_RELATIVE : CAIRN_APP_WIRE_PATCHED;
                b[1] = (uint8_t)(1 + (x >> 3) % 3);
                b[2] = (uint8_t)((x >> 5) % 2);
                b[3] = (uint8_t)((x >> 7) % 2);
            }
        }
        cairn_app_wire_t w;
        if (parse_exact(b, len, &w) == CAIRN_OK)
            accepted++;
        else
            refused_n++;
    }
    /* Both outcomes happened: the rounds exercised the checks and the readers. */
    assert_true(accepted > 100);
    assert_true(refused_n > 100);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        KTEST(test_the_bytes_are_the_layout),
        KTEST(test_round_trip_and_patch),
        KTEST(test_write_refuses_what_does_not_fit),
        KTEST(test_every_truncation_and_trailing_byte_is_refused),
        KTEST(test_fields_out_of_range_are_refused),
        KTEST(test_patched_ids_must_be_distinct_and_in_range),
        KTEST(test_random_bytes_never_read_beyond),
    };
    return cmocka_run_group_tests_name("app_wire", tests, NULL, NULL);
}
