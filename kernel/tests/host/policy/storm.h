/*
 * A storm for the deadline policies' host tests: tasks 1..n post to each other from their
 * handlers (half of them with a deadline of their own) and from interrupts raised at random
 * times, every handler checking the one-stack property (one_stack.h). The same seed gives
 * the same storm.
 */
#ifndef POLICY_STORM_H
#define POLICY_STORM_H

#include <stdint.h>

#include "ktest.h"

struct storm_counts {
    unsigned handled;   /* messages handled, INIT apart */
    unsigned sent;      /* posts that were accepted */
    unsigned max_depth; /* the deepest stack of handler frames seen */
};

/* Starts a storm over tasks 1..tasks (at most 8), its pseudo-random numbers from seed. */
void storm_start(unsigned tasks, uint32_t seed);
/* The hook of task index i (0-based): odd ones also raise an interrupt now and then. */
rec_hook_t storm_hook_of(unsigned i);
/* The storm's rounds, each an interrupt at a random time that posts, then the dispatch;
 * returns the counts (every accepted post must have been handled). */
struct storm_counts storm_run(unsigned rounds);

#endif /* POLICY_STORM_H */
