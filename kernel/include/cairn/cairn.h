/*
 * Cairn OS: everything an application needs. See docs/kernel.md.
 */
#ifndef CAIRN_CAIRN_H
#define CAIRN_CAIRN_H

#include "cairn/app.h"
#include "cairn/irq.h"
#include "cairn/mem.h"
#include "cairn/msg.h"
#include "cairn/migrate.h"
#include "cairn/net.h"
#include "cairn/reliable.h"
#include "cairn/sched.h"
#include "cairn/sem.h"
#include "cairn/statemsg.h"
#include "cairn/task.h"
#include "cairn/thread.h"
#include "cairn/timer.h"
#include "cairn/trace.h"
#include "cairn/types.h"

#endif /* CAIRN_CAIRN_H */
