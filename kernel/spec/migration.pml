/*
 * Cairn OS atomic task migration (CoMOS section V-D), as a Promela model for SPIN.
 *
 * docs/migration.md describes the protocol step by step and what this model covers; the
 * frames and phases here have the names used there.
 *
 * Three modules: the source S, where task T lives; the destination D; another module O, on
 * which a sender task numbers its messages to T 1..NMSG (with -DBYSTANDER, a fourth module
 * P that only takes part). The bus is one inbox per module (the bus controller's RX FIFO)
 * that the Faults process may drop a frame from (a dropped or a corrupted frame, which the
 * receiver discards), rotate (a frame delayed past the next), or leave alone; and S or D
 * may be reset at any moment (it comes back knowing nothing, as a powered-off module woken
 * by a unicast does).
 *
 * Timers: a retransmission timer fires when nothing else in the device can move (SPIN's
 * `timeout`: every frame has arrived or been lost), or, its first R times in a phase, at
 * any moment (a frame may be delayed for longer than the timeout). Each firing sends the
 * frame again. After K firings the source gives the phase up (it aborts, or stops resending
 * the result) on the next long silence; compiled with -DEAGER, at any moment. The other
 * timers (the commit, a QUERY for a result that does not come, a message) never give up.
 *
 * The order of steps 3-6: the source serialises T at once and sends its state to D in the
 * STATE frame, which freezes D as FREEZE freezes the others, and sends FREEZE to the
 * others only when D has answered DESER(ok); it commits when they have all answered. The
 * STATE names D's epoch (its boot count, as the source knows it: here D's present one, the
 * most the source can know), and D joins a migration on a STATE only for its present
 * epoch, so that a STATE from before D's reset is refused. Compiled with -DFREEZE_FIRST,
 * the source sends FREEZE to every module, D included, and STATE when they have all
 * answered (what it does when it does not know D's epoch): a STATE without a FREEZE on
 * record is refused.
 *
 * The commit on staging: a STATE sent when every other module is frozen already (with
 * FREEZE_FIRST, always: the source sends it only when every FREEZE_ACK is in) carries the
 * commit (COMMIT in its first field), and D makes T live as soon as it has staged it and
 * answers ACTIVATED, with no DESER → RESULT(MOVED) round trip. The STATE names D's epoch as
 * D's FREEZE_ACK said it; D takes no STATE of another life (it may have committed in the
 * earlier one: it answers DESER(2), no record). From the first such STATE the source may no
 * longer resume T on a timeout (it never gives up, as in COMMITTING); it resumes only on
 * DESER(0), D's failure in the life the STATE names (D never stages it in that life), and
 * kills T on DESER(2).
 *
 * Compiled with -DOTHERS_FIRST the source freezes O (and P) first and then sends the STATE
 * first to D, naming D's epoch and carrying the commit: D joins on it, stages and commits at
 * once. This is what a device of two modules does (no other module to freeze: the STATE is
 * the first frame), with O's sender kept so that messages still flow.
 *
 * Deliberately broken variants, each of which SPIN must catch (python -m cairn.spin):
 *   BUG_ROUTE_EARLY    others switch their route to D on FREEZE, before the result
 *   BUG_NO_PENDING     the source does not serialise the messages queued for T
 *   BUG_ACCEPT_FROZEN  the frozen source acknowledges and queues messages for T
 *   BUG_NO_DEDUP       the host does not suppress duplicate messages
 *   BUG_RESUME_SILENT  the source resumes T when the destination is silent after the commit
 *   BUG_RESUME_REFUSED the source resumes T when a reset destination refuses the commit
 *   BUG_NO_TIMER       the source does not serialise T's virtual timer
 *   BUG_ANY_EPOCH      the destination joins a migration on a STATE of any epoch
 *   BUG_NO_DRAIN       (with T_SENDS) the source commits while T's sent messages are kept
 *   BUG_FAST_RESUME    (with FREEZE_FIRST or OTHERS_FIRST) the source resumes T on a timeout
 *                      after a STATE that carried the commit
 *   BUG_FAST_EPOCH     (with OTHERS_FIRST) a STATE with the commit sent again names D's present
 *                      epoch, not the one the first named
 *
 * With -DT_SENDS, T also sends: messages 1..TMSG to a logger on O, from wherever it is
 * live, numbered per (sending module, logger) and kept at that module until the logger's
 * TDACK (a window of one, sent again on a long silence), as the reliable layer does. The
 * logger checks that it takes them in T's order. The drain rule: the source commits only
 * when T's message kept at S (if any) is acknowledged, and gives up (resumes T) after K
 * firings without it. Not with FREEZE_FIRST.
 */

#ifndef NMSG
#define NMSG 2          /* messages the sender sends to T (at most 7: 3-bit fields) */
#endif
#ifndef R
#define R 1             /* timer firings that may come early, before a long silence */
#endif
#ifndef K
#define K 2             /* timer firings before the source gives a phase up */
#endif
#ifndef MAXLOSS
#define MAXLOSS 1       /* frames the bus drops or corrupts */
#endif
#ifndef MAXDELAY
#define MAXDELAY 1      /* frames the bus delays past a later one */
#endif
#ifndef MAXCRASH
#define MAXCRASH 1      /* resets of S or D */
#endif
#if NMSG > 3 || MAXCRASH > 6
#error "STATE packs the queued messages (bits 1..NMSG) and D's epoch (3 bits) in one byte"
#endif
#ifndef QCAP
#define QCAP 4          /* the RX FIFO of a module */
#endif

#ifdef EAGER
#define GIVEUP true
#else
#define GIVEUP timeout
#endif

#define S 0
#define D 1
#define O 2
#ifdef BYSTANDER
#define P 3             /* a fourth module that only takes part: no sender, never the host */
#define NMOD 4
#define OTHERS 14       /* the bits of every module but the source */
#else
#define NMOD 3
#define OTHERS 6
#endif

mtype = { DATA, DACK, NOTASK, FREEZE, FREEZE_ACK, STATE, DESER, RESULT, ACTIVATED,
          RESULT_ACK, QUERY, NOMIG, TDATA, TDACK };

#if defined(FREEZE_FIRST) && defined(OTHERS_FIRST)
#error "OTHERS_FIRST is the STATE-first order with the others frozen before it"
#endif
#if defined(T_SENDS) && (defined(FREEZE_FIRST) || defined(OTHERS_FIRST))
#error "T_SENDS models the drain rule in the STATE-first order only"
#endif
#ifndef TMSG
#define TMSG 2          /* messages T sends to the logger (with T_SENDS) */
#endif

/* A timer that has fired n times in this phase may fire again now. */
#define FIRE(n) ((n) < R || timeout)
#define NOTE(n) if :: (n) < K -> n++ :: else -> skip fi

/* The source's timer is running: a participant's QUERY timer is longer than the source's
 * whole schedule of retransmissions, so it fires only when the source's does not. */
#define SOURCE_TIMER (sphase == FREEZING || sphase == TRANSFER || sphase == COMMITTING || \
                      (sphase == RESULTING && racked != OTHERS))
#define QUERY_TIMER (timeout && !SOURCE_TIMER)

/* outcomes */
#define NONE 0
#define MOVED 1
#define RESUMED 2
#define KILLED 3

/* the source's phases */
#define IDLE 0
#define FREEZING 1
#define TRANSFER 2
#define COMMITTING 3
#define RESULTING 4
#define DONE 5

/* a frame: kind, sending module, two fields */
chan inbox[NMOD] = [QCAP] of { mtype, byte, byte, byte };

/* T on each module: a copy is held (live, frozen or staged) and may be live (it runs) */
bool holds[NMOD];
bool live[NMOD];
byte got[NMOD];         /* T's own state: the last sequence number it handled */
byte acc[NMOD];         /* the kernel's table: the last sequence number accepted for T */
byte pend[NMOD];        /* messages accepted and queued for T, as bits 1..NMSG */
bool armed[NMOD];       /* T's virtual timer runs */

/* every module's migrator */
bool frozen[NMOD];      /* messages to T are held back here */
byte route[NMOD];       /* where this module sends T's messages (all S at first) */
byte known[NMOD];       /* the outcome this module knows */

/* the source's migrator */
byte sphase;
bool sfast;             /* a STATE with the commit went: D may have committed */
byte sdep;              /* D's epoch as its FREEZE_ACK said (FREEZE_FIRST) */
byte stries;
byte acked;             /* FREEZE_ACKs received, as module bits */
byte racked;            /* RESULT_ACKs received */
byte decision;
bool started;

/* the destination's migrator */
bool part;              /* it has a record of the migration (a FREEZE, STATE or QUERY came) */
byte depoch = 1;        /* its epoch: one more at each reset */
byte dres;              /* de-serialisation: 0 not yet, 1 staged, 2 failed */
bool dshut;             /* refused the migration in this life without a record: never joins it */

/* the sender on O */
byte next = 1;
byte unacked;
byte otries;

/* the world and the checks (ghosts) */
bool deadline;          /* the global clock has passed T's timer deadline */
byte fired;             /* times T's timer fired */
byte last;              /* the last sequence number T handled, wherever it ran */
bool committed;         /* T became live on D */
byte losses;
byte delays;
byte crashes;
bool overflowed;        /* a frame found an RX FIFO full and was discarded */
byte dropped;           /* messages the sender gave up (their host had no T) */

#ifdef T_SENDS
/* T's messages to the logger on O: per module, the one kept until its TDACK (0: none) and
 * its number there; the logger's table per sending module; T's next message; the last one
 * the logger took (a ghost). */
byte tout[NMOD];
byte tseq[NMOD];
byte lacc[NMOD];
byte tnext = 1;
byte llast;
#define T_KEPT (tout[S] != 0 || tout[D] != 0)
#ifdef BUG_NO_DRAIN
#define DRAINED true
#else
#define DRAINED (tout[S] == 0)
#endif
#else
#define T_KEPT false
#define DRAINED true
#endif

/* Scratch for the frame being handled: every step that uses it is atomic and ends with it
 * dead, so it is kept out of the state vector. */
hidden mtype k;
hidden byte from, f, a, b, s;

/* A frame that finds the RX FIFO full is discarded (TX_FULL at the sender). */
inline send(from_, to, k, x, y)
{
    if
    :: nfull(inbox[to]) -> inbox[to]!k, from_, x, y
    :: full(inbox[to]) -> overflowed = 1
    fi
}

/* A message from the sender reaches the module where T is live. */
inline accept(m)
{
#ifdef BUG_NO_DEDUP
    if
    :: a > acc[m] -> acc[m] = a
    :: else -> skip
    fi;
    pend[m] = pend[m] | (1 << a);
#else
    if
    :: a == acc[m] + 1 -> acc[m] = a; pend[m] = pend[m] | (1 << a)
    :: else -> skip     /* a duplicate (or beyond a gap): acknowledged, not queued */
    fi;
#endif
    send(m, from, DACK, acc[m], 0)
}

/* T handles its oldest queued message; the task and the ghost check the order. */
inline handle(m)
{
    s = 1;
    do
    :: s > NMSG -> break
    :: s <= NMSG && (pend[m] & (1 << s)) != 0 -> break
    :: else -> s++
    od;
    assert(s <= NMSG);
    pend[m] = pend[m] - (1 << s);
    assert(s == got[m] + 1);    /* the task's own check: exactly once, in order */
    assert(s == last + 1);      /* across copies: nothing handled twice or skipped */
    got[m] = s;
    last = s
}

/* T's activity on its host: messages, and its timer once the global clock passes it */
#ifdef T_SENDS
#define T_SEND_STEPS(m) \
    :: atomic { live[m] && tnext <= TMSG && tout[m] == 0 -> \
        tout[m] = tnext; tnext++; tseq[m]++; send(m, O, TDATA, tseq[m], tout[m]) } \
    :: atomic { tout[m] != 0 && timeout -> send(m, O, TDATA, tseq[m], tout[m]) }
#else
#define T_SEND_STEPS(m)
#endif
#define TASK_STEPS(m) \
    T_SEND_STEPS(m) \
    :: atomic { live[m] && pend[m] != 0 -> handle(m) } \
    :: atomic { live[m] && armed[m] && deadline -> armed[m] = 0; fired++; assert(fired == 1) }

/* to every module but the source and the destination */
inline to_participants(kind, x)
{
    send(S, O, kind, x, 0)
#ifdef BYSTANDER
    ; send(S, P, kind, x, 0)
#endif
}

/* to every module but the source whose bit is clear in `mask` (it has not answered) */
inline to_silent(mask, kind, x)
{
    if :: (mask & (1 << D)) == 0 -> send(S, D, kind, x, 0) :: else -> skip fi;
    if :: (mask & (1 << O)) == 0 -> send(S, O, kind, x, 0) :: else -> skip fi
#ifdef BYSTANDER
    ; if :: (mask & (1 << P)) == 0 -> send(S, P, kind, x, 0) :: else -> skip fi
#endif
}

inline forget(m)        /* T's copy on m is freed: its state, timers, queued messages */
{
    holds[m] = 0; live[m] = 0; got[m] = 0; acc[m] = 0; pend[m] = 0; armed[m] = 0
}

/* T's serialised state, frozen since the REQUEST: its own state, the kernel's sequence
 * table, its queued messages, its timer; D's epoch (as D's FREEZE_ACK said it when FREEZE
 * went first); and COMMIT when every other module is frozen already (FREEZE went first). */
#define COMMIT 64
#ifdef FREEZE_FIRST
#define EPOCH_TO_D (sdep * 16)
#define FAST COMMIT
/* a STATE joins D only with a FREEZE on record */
#define JOINS(b) part
#else
#ifdef OTHERS_FIRST
/* the epoch D had at the REQUEST (the source's knowledge then), in every STATE sent: a
 * STATE with the commit sent again must not name a later life of D than the first did, or
 * D's new life would commit a copy its earlier life may have run (the implementation keeps
 * the epoch it named first) */
#ifdef BUG_FAST_EPOCH
#define EPOCH_TO_D (depoch * 16)
#else
#define EPOCH_TO_D (sdep * 16)
#endif
#define FAST COMMIT
#define STATE_WENT sfast      /* FREEZING again only after DESER(ok) */
#else
#define EPOCH_TO_D (depoch * 16)
#define FAST 0
#define STATE_WENT true
#endif
#define JOINS(b) (part || (b) / 16 % 8 == depoch)
#endif
inline send_state()
{
    if :: FAST != 0 -> sfast = 1 :: else -> skip fi;
#if defined(BUG_NO_PENDING)
    send(S, D, STATE, got[S] * 8 + acc[S] + FAST, EPOCH_TO_D + armed[S] * 128)
#elif defined(BUG_NO_TIMER)
    send(S, D, STATE, got[S] * 8 + acc[S] + FAST, pend[S] + EPOCH_TO_D)
#else
    send(S, D, STATE, got[S] * 8 + acc[S] + FAST, pend[S] + EPOCH_TO_D + armed[S] * 128)
#endif
}

inline resume_at_source()
{
    decision = RESUMED; known[S] = RESUMED;
    frozen[S] = 0; live[S] = holds[S];
    sphase = RESULTING; stries = 0; racked = 0;
    send(S, D, RESULT, RESUMED, 0);
    to_participants(RESULT, RESUMED)
}

inline moved_at_source()       /* step 7: the migration succeeded; the source's copy goes */
{
    decision = MOVED; known[S] = MOVED;
    forget(S); frozen[S] = 0; route[S] = D;
    sphase = RESULTING; stries = 0; racked = 1 << D;
    to_participants(RESULT, MOVED)
}

inline kill_at_source()        /* D was reset after the commit was asked: T may have run there */
{
    decision = KILLED; known[S] = KILLED;
    forget(S); frozen[S] = 0;
    sphase = RESULTING; stries = 0; racked = 0;
    send(S, D, RESULT, KILLED, 0);
    to_participants(RESULT, KILLED)
}

proctype Source()
{
end:
    do
    :: atomic { inbox[S]?k, from, a, b ->
        if
        :: k == DATA ->
            if
            :: live[S] -> accept(S)
#ifdef BUG_ACCEPT_FROZEN
            :: holds[S] && frozen[S] ->
                if
                :: a == acc[S] + 1 -> acc[S] = a; pend[S] = pend[S] | (1 << a)
                :: else -> skip
                fi;
                send(S, from, DACK, acc[S], 0)
#else
            :: holds[S] && frozen[S] -> send(S, from, FREEZE, 0, 0)  /* sent before the sender froze */
#endif
            :: !holds[S] && route[S] == D -> send(S, from, RESULT, MOVED, 0)  /* moved: redirect */
            :: else -> send(S, from, NOTASK, 0, 0)
            fi
        :: k == FREEZE_ACK && sphase == FREEZING -> acked = acked | (1 << from);
            if :: from == D -> sdep = a :: else -> skip fi
#ifdef FREEZE_FIRST
        :: k == DESER && sphase == TRANSFER && a == 1 ->
            sphase = COMMITTING; stries = 0; send(S, D, RESULT, MOVED, 0)
#else
        :: k == DESER && sphase == TRANSFER && a == 1 ->
            /* D is frozen and staged: now the others */
            sphase = FREEZING; stries = 0; acked = 1 << D;
            to_participants(FREEZE, 0)
#endif
        :: k == DESER && sphase == TRANSFER && a == 0 -> resume_at_source()
        /* no record in the life the STATE named: D may have committed before its reset */
        :: k == DESER && sphase == TRANSFER && a == 2 && !sfast -> resume_at_source()
        :: k == DESER && sphase == TRANSFER && a == 2 && sfast -> kill_at_source()
        :: k == ACTIVATED && sphase == TRANSFER && sfast && a == 1 -> moved_at_source()
        :: k == ACTIVATED && sphase == TRANSFER && sfast && a == 0 -> kill_at_source()
        :: k == ACTIVATED && sphase == COMMITTING && a == 1 -> moved_at_source()
#ifdef BUG_RESUME_REFUSED
        :: k == ACTIVATED && sphase == COMMITTING && a == 0 -> resume_at_source()
#else
        :: k == ACTIVATED && sphase == COMMITTING && a == 0 -> kill_at_source()
#endif
        :: k == RESULT_ACK -> racked = racked | (1 << from)
#ifdef T_SENDS
        :: k == TDACK && tout[S] != 0 && a >= tseq[S] -> tout[S] = 0
#endif
        :: k == QUERY ->
            if
            :: decision != NONE -> send(S, from, RESULT, decision, 0)
            :: decision == NONE && sphase == IDLE -> send(S, from, NOMIG, 0, 0)
            :: else -> skip     /* undecided: the asker waits */
            fi
        :: else -> skip
        fi }
    /* steps 1-3: a REQUEST; T stops running, FREEZE goes to every other module */
    :: atomic { sphase == IDLE && !started && live[S] ->
        started = 1; live[S] = 0; frozen[S] = 1;
        stries = 0; acked = 0;
#if defined(FREEZE_FIRST)
        sphase = FREEZING;
        send(S, D, FREEZE, 0, 0);
        to_participants(FREEZE, 0)
#elif defined(OTHERS_FIRST)
        sphase = FREEZING; acked = 1 << D;  /* the STATE will freeze D */
        sdep = depoch;
        to_participants(FREEZE, 0)
#else
        sphase = TRANSFER;      /* the STATE freezes D */
        send_state()
#endif
#ifdef BUG_ROUTE_EARLY
        ; route[S] = D
#endif
        }
#ifdef FREEZE_FIRST
    /* step 5: every module answered; T's serialised state goes to D */
    :: atomic { sphase == FREEZING && acked == OTHERS ->
        sphase = TRANSFER; stries = 0;
        send_state()
        }
#else
#ifdef OTHERS_FIRST
    /* the others frozen: the STATE goes first to D, with the commit */
    :: atomic { sphase == FREEZING && acked == OTHERS && !sfast ->
        sphase = TRANSFER; stries = 0;
        send_state()
        }
#endif
    /* every module answered, D with DESER(ok), and T's messages sent from S drained (the
     * drain rule): the commit */
    :: atomic { sphase == FREEZING && acked == OTHERS && DRAINED && STATE_WENT ->
        sphase = COMMITTING; stries = 0; send(S, D, RESULT, MOVED, 0)
        }
#ifdef T_SENDS
    :: atomic { sphase == FREEZING && acked == OTHERS && !DRAINED && stries < K && FIRE(stries) ->
        NOTE(stries) }
    :: atomic { sphase == FREEZING && acked == OTHERS && !DRAINED && stries == K && GIVEUP ->
        resume_at_source() }
#endif
#endif
    :: atomic { sphase == FREEZING && acked != OTHERS && stries < K && FIRE(stries) -> NOTE(stries);
        to_silent(acked, FREEZE, 0) }
    :: atomic { sphase == FREEZING && acked != OTHERS && stries == K && GIVEUP -> resume_at_source() }
    :: atomic { sphase == TRANSFER && stries < K && FIRE(stries) -> NOTE(stries);
        send_state()
        }
#ifdef BUG_FAST_RESUME
    :: atomic { sphase == TRANSFER && stries == K && GIVEUP -> resume_at_source() }
#else
    /* after a STATE with the commit, as in COMMITTING: never gives up */
    :: atomic { sphase == TRANSFER && stries == K && GIVEUP && !sfast -> resume_at_source() }
    :: atomic { sphase == TRANSFER && stries == K && sfast && FIRE(stries) -> send_state() }
#endif
    /* the destination decides: ask it again, never give up */
    :: atomic { sphase == COMMITTING && FIRE(stries) -> NOTE(stries); send(S, D, RESULT, MOVED, 0) }
#ifdef BUG_RESUME_SILENT
    :: atomic { sphase == COMMITTING && stries == K && GIVEUP -> resume_at_source() }
#endif
    :: atomic { sphase == RESULTING && racked != OTHERS && stries < K && FIRE(stries) -> NOTE(stries);
        to_silent(racked, RESULT, decision) }
    :: atomic { sphase == RESULTING && (racked == OTHERS || (stries == K && GIVEUP)) -> sphase = DONE }
    TASK_STEPS(S)
    od
}

proctype Dest()
{
end:
    do
    :: atomic { inbox[D]?k, from, a, b ->
        if
        :: k == FREEZE && known[D] == NONE && !dshut ->
            part = 1; frozen[D] = 1; send(D, S, FREEZE_ACK, depoch, 0)
#ifdef BUG_ANY_EPOCH
        :: k == STATE && known[D] == NONE && (part || b / 16 % 8 != 0) ->
#else
        /* a STATE for another life of D: it may have committed in the earlier one */
        :: k == STATE && b / 16 % 8 != depoch -> send(D, S, DESER, 2, 0)
        :: k == STATE && b / 16 % 8 == depoch && known[D] == NONE && JOINS(b) && !dshut ->
#endif
            /* step 6: de-serialise into a staged copy that does not run yet (a STATE of
             * D's present epoch freezes D as FREEZE would) */
            part = 1; frozen[D] = 1;
            if
            :: dres == 0 ->
                if
                :: holds[D] = 1; got[D] = a % 64 / 8; acc[D] = a % 8; pend[D] = b % 16;
                   armed[D] = b / 128; dres = 1
                :: dres = 2     /* no memory for it */
                fi
            :: else -> skip
            fi;
            if
            :: dres == 1 && a / 64 == 1 ->
                /* the commit on staging: T runs here from now on */
                live[D] = 1; frozen[D] = 0; known[D] = MOVED; route[D] = D; committed = 1;
                send(D, S, ACTIVATED, 1, 0)
            :: else -> send(D, S, DESER, dres == 1, 0)
            fi
#ifdef BUG_ANY_EPOCH
        :: k == STATE && !part && !(known[D] == NONE && b / 16 % 8 != 0) ->
            send(D, S, DESER, 0, 0)     /* no record: reset since FREEZE, or an earlier epoch's */
#else
        /* this life, a migration it settled: what it knows */
        :: k == STATE && b / 16 % 8 == depoch && known[D] == MOVED -> send(D, S, ACTIVATED, 1, 0)
        :: k == STATE && b / 16 % 8 == depoch && known[D] == KILLED -> send(D, S, ACTIVATED, 0, 0)
        :: k == STATE && b / 16 % 8 == depoch && known[D] == RESUMED -> send(D, S, DESER, 0, 0)
        /* this life, no record (FREEZE went first and never came here): never joins it */
        :: k == STATE && b / 16 % 8 == depoch && known[D] == NONE && (!JOINS(b) || dshut) ->
            dshut = 1; send(D, S, DESER, 0, 0)
#endif
        :: k == RESULT && a == MOVED ->
            if
            :: known[D] == NONE && holds[D] ->
                /* the commit: T runs here from now on */
                live[D] = 1; frozen[D] = 0; known[D] = MOVED; route[D] = D; committed = 1;
                send(D, S, ACTIVATED, 1, 0)
            :: known[D] == MOVED -> send(D, S, ACTIVATED, 1, 0)
            :: known[D] == NONE && !holds[D] ->
                /* reset since it staged T: T may have run here before; it is lost */
                frozen[D] = 0; known[D] = KILLED; send(D, S, ACTIVATED, 0, 0)
            :: known[D] == KILLED -> send(D, S, ACTIVATED, 0, 0)
            :: else -> skip
            fi
        :: k == RESULT && a != MOVED ->
            if
            :: known[D] == NONE -> forget(D); frozen[D] = 0; known[D] = a
            :: else -> skip
            fi;
            send(D, S, RESULT_ACK, 0, 0)
        :: k == NOMIG && known[D] == NONE && part ->
            /* the source was reset: it will never commit; the task, if anywhere, is there */
            forget(D); frozen[D] = 0; known[D] = RESUMED
        :: k == QUERY ->
            /* a participant that does not know the result asks the source in turn */
            if
            :: known[D] != NONE -> send(D, from, RESULT, known[D], 0)
            :: known[D] == NONE -> part = 1; frozen[D] = 1; send(D, S, QUERY, 0, 0)
            :: else -> skip
            fi
#ifdef T_SENDS
        :: k == TDACK && tout[D] != 0 && a >= tseq[D] -> tout[D] = 0
#endif
        :: k == DATA ->
            if
            :: live[D] -> accept(D)
            :: !live[D] && holds[D] -> skip      /* staged: the sender retries */
            :: !holds[D] -> send(D, from, NOTASK, 0, 0)
            fi
        :: else -> skip
        fi }
    /* step 7, recovery: a participant that has waited long for the result asks for it */
    :: atomic { part && known[D] == NONE && QUERY_TIMER -> send(D, S, QUERY, 0, 0) }
    TASK_STEPS(D)
    od
}

proctype Other(byte me)
{
end:
    do
    :: atomic { inbox[me]?k, from, a, b ->
        if
        :: k == FREEZE && known[me] == NONE ->
            frozen[me] = 1; send(me, S, FREEZE_ACK, 0, 0)
#ifdef BUG_ROUTE_EARLY
            ; route[me] = D
#endif
        :: k == RESULT ->
            if
            :: known[me] == NONE ->
                known[me] = a; frozen[me] = 0; if :: me == O -> otries = 0 :: else -> skip fi;
                if :: a == MOVED -> route[me] = D :: else -> skip fi
            :: else -> skip
            fi;
            send(me, from, RESULT_ACK, 0, 0)
        :: k == DACK && me == O && unacked != 0 && a >= unacked -> unacked = 0
#ifdef T_SENDS
        :: k == TDATA && me == O ->
            if
            :: a == lacc[from] + 1 -> lacc[from] = a;
                assert(b > llast);      /* the logger takes T's messages in T's order */
                llast = b
            :: else -> skip
            fi;
            send(me, from, TDACK, lacc[from], 0)
#endif
        :: k == NOTASK && me == O && unacked != 0 && from == route[me] && !frozen[me] ->
            dropped++; unacked = 0      /* T was lost with its module */
        :: else -> skip
        fi }
    :: atomic { me == O && !frozen[me] && unacked == 0 && next <= NMSG ->
        unacked = next; next++; otries = 0; send(me, route[me], DATA, unacked, 0) }
    :: atomic { me == O && !frozen[me] && unacked != 0 && FIRE(otries) -> NOTE(otries); send(me, route[me], DATA, unacked, 0) }
    :: atomic { frozen[me] && known[me] == NONE && QUERY_TIMER ->
        send(me, S, QUERY, 0, 0); send(me, D, QUERY, 0, 0) }
    od
}

inline lose(m)
{
    atomic { losses < MAXLOSS && nempty(inbox[m]) -> inbox[m]?k, f, a, b; losses++ }
}

inline delay(m)
{
    atomic { delays < MAXDELAY && len(inbox[m]) >= 2 ->
        inbox[m]?k, f, a, b; inbox[m]!k, f, a, b; delays++ }
}

proctype Faults()
{
end:
    do
    :: lose(S)
    :: lose(D)
    :: lose(O)
#ifdef BYSTANDER
    :: lose(P)
    :: delay(P)
#endif
    :: delay(S)
    :: delay(D)
    :: delay(O)
    :: atomic { crashes < MAXCRASH -> crashes++;        /* S is reset: T is lost with it */
        forget(S); frozen[S] = 0; known[S] = NONE; route[S] = S;
#ifdef T_SENDS
        tout[S] = 0;
#endif
        sphase = IDLE; stries = 0; acked = 0; racked = 0; decision = NONE }
    :: atomic { crashes < MAXCRASH -> crashes++;        /* D is reset */
        forget(D); frozen[D] = 0; known[D] = NONE; route[D] = S;
#ifdef T_SENDS
        tout[D] = 0;
#endif
        part = 0; dres = 0; dshut = 0; depoch++ }
    :: atomic { !deadline -> deadline = 1 }
    od
}

/* Invariants that hold in every state: a monitor that can move only when one is broken. */
#define ONE_LIVE (!(live[S] && live[D]))
#ifdef BYSTANDER
#define BYSTANDER_ROUTE (route[P] == S)
#define BYSTANDER_WAITS (frozen[P] && known[P] == NONE)
#else
#define BYSTANDER_ROUTE true
#define BYSTANDER_WAITS false
#endif
#define ROUTES_KEPT (committed || (route[S] == S && route[D] == S && route[O] == S && BYSTANDER_ROUTE))

proctype Invariants()
{
end:
    atomic { !(ONE_LIVE && ROUTES_KEPT) -> assert(ONE_LIVE); assert(ROUTES_KEPT) }
}

/* Some module still waits for something (its timer will fire on the next long silence). */
#define WAITING ( \
    sphase == FREEZING || sphase == TRANSFER || sphase == COMMITTING || \
    (sphase == RESULTING && racked != OTHERS) || \
    (part && known[D] == NONE) || \
    (!frozen[O] && unacked != 0) || \
    (frozen[O] && known[O] == NONE) || BYSTANDER_WAITS || T_KEPT)

/* When nothing can move any more: every migration has ended, and consistently. */
proctype Final()
{
    atomic { timeout && !WAITING ->
        assert(sphase == IDLE || sphase == DONE);
        assert(!frozen[S] && !frozen[D] && !frozen[O]);
#ifdef BYSTANDER
        assert(!frozen[P]);
#endif
        assert(!part || known[D] != NONE);
        assert(holds[S] == live[S] && holds[D] == live[D]);   /* no copy left behind */
        if
        :: live[S] || live[D] ->
            assert(route[O] == (live[S] -> S : D));
#ifdef BYSTANDER
            assert(route[P] == route[O]);
#endif
            assert(last == NMSG && dropped == 0);                 /* every message, once */
            assert(unacked == 0 && next == NMSG + 1);
            assert(fired == deadline);                            /* the timer fired once */
#ifdef T_SENDS
            assert(crashes > 0 || llast == tnext - 1);            /* T's messages, all taken */
#endif
        :: else -> assert(crashes > 0)                            /* T is lost only with S or D */
        fi
    }
}

init
{
    atomic {
        holds[S] = 1; live[S] = 1; armed[S] = 1;
        run Source(); run Dest(); run Other(O);
#ifdef BYSTANDER
        run Other(P);
#endif
        run Faults(); run Invariants(); run Final()
    }
}

#ifdef LIVENESS
/* Every migration ends: under weak fairness, every run comes to rest with nobody waiting. */
ltl ends { <> [] !WAITING }
#endif
