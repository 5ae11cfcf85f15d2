/*
 * Cairn OS atomic task migration (docs/migration.md): CoMOS's seven steps over the
 * reliable remote messages (cairn/reliable.h).
 */
#ifndef CAIRN_MIGRATE_H
#define CAIRN_MIGRATE_H

#include "cairn/types.h"

/* The bus frame kind of the task migrators' frames (payload: the migration frame). */
#define CAIRN_NET_KIND_MIG 0x17u
/* The longest migration frame's payload (a STATE part is a little shorter). */
#define CAIRN_MIG_FRAME_MAX 64u

#endif /* CAIRN_MIGRATE_H */
