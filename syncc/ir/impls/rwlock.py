"""Reader-writer lock implementations: what enter, poll, lock and unlock become, per mode.

Every operation on an rwlock carries mode=read or mode=write; each implementation is a
pair of Acquirables (protocol.py), one per mode, so structuring, parties and fences treat
`read rw { }` and `write rw { }` exactly as `critical m { }`.

    counter   one word. A writer holds bit 31: cas(word, 0, WRITER). A reader adds 1; if the
              old value had the writer bit, it subtracts the 1 again and retries. Readers look
              at the word first and add only while no writer holds it. Reader-preferring and
              not fair: a stream of readers can starve a writer (Courtois et al. 1971).
    ticket    the phase-fair ticket lock PF-T (Brandenburg & Anderson 2010), the variant of
              Mellor-Crummey & Scott's reader-writer ticket lock (1991, §2.2) with one request and
              one completion counter per side:
                rin   readers' arrivals in units of RINC, plus the present writer's bits (PRES,
                      and PHID, its ticket's parity)      rout  readers' departures, in RINC
                win   writers' tickets                    wout  writers served
              A reader adds RINC to rin and, if a writer was present, waits only until that
              writer's phase ends (its bits leave rin). A writer takes a ticket from win, waits
              for the writers before it (wout), then announces itself in rin and waits for
              the readers that arrived before it (rout reaches the rin it saw). Bounded bypass:
              a reader waits for at most one writer, a writer for the writers and readers that
              arrived before it; FIFO among writers. Counters wrap: at most 2^24 readers and
              2^31 writers may be waiting at once.

A writer's wait has two phases, so its token (the enter result, a register the polls update)
says which: even, `ticket << 1`, while it waits for earlier writers; odd, `rin | 1`, once
it has announced itself and waits for earlier readers (rin's writer bits are 0 then).

`Counter` and `Ticket` are the registry entries (registry.py): `about`, the catalogue entry;
`defaults`, where a target picks it without `using` and why; `modes`, the pair.
"""
from __future__ import annotations

from ...core.types import BOOL, I32
from ..nodes import Prim, imm
from .base import Emitter
from .entry import Expansion, default, entry
from .protocol import Acquirable

WRITER = -0x8000_0000          # bit 31 of the counter word
RINC, WBITS, PRES, PHID = 0x100, 0x3, 0x2, 0x1


class RwMode(Acquirable):
    @classmethod
    def operations(cls):
        return {"rw.enter": cls.do_enter, "rw.poll": cls.do_poll, "rw.lock": cls.do_lock, "rw.unlock": cls.do_unlock}

    @classmethod
    def do_lock(cls, em, prim, ins):
        cls.acquire(em, prim, ins, ins.attr("mode"))

    @classmethod
    def do_unlock(cls, em, prim, ins):
        cls.release(em, prim, ins)


# ---- counter -------------------------------------------------------------------------------------

def _word(em: Emitter, prim: Prim) -> str:
    return em.state(prim, "word", prim.instances, 0)


class CounterRead(RwMode):
    @classmethod
    def attempt(cls, em, prim, ins, token):
        word, at = _word(em, prim), ins.ref.index
        seen = em.ld(word, at, hint="seen", **em.poll_cache(word))

        def join(ok):
            old = em.atom("add", word, at, imm(1), hint="readers", **em.order(ins))
            em.b.emit("cmp.ge", (ok,), (old, imm(0)))
            em.when(em.op("cmp.lt", BOOL, old, imm(0)), lambda: em.atom("sub", word, at, imm(1)),
                    hint="back_out")      # a writer holds it: undo the add, try again
        return em.attempt_if(em.op("cmp.ge", BOOL, seen, imm(0)), join, hint="no_writer")

    @classmethod
    def release(cls, em, prim, ins):
        em.atom("sub", _word(em, prim), ins.ref.index, imm(1), **em.order(ins))


class CounterWrite(RwMode):
    @classmethod
    def attempt(cls, em, prim, ins, token):
        word, at = _word(em, prim), ins.ref.index
        seen = em.ld(word, at, hint="seen", **em.poll_cache(word))

        def take(ok):
            old = em.atom("cas", word, at, imm(0), imm(WRITER), **em.order(ins))
            em.b.emit("cmp.eq", (ok,), (old, imm(0)))
        return em.attempt_if(em.eq(seen, imm(0)), take, hint="free")

    @classmethod
    def release(cls, em, prim, ins):
        # clear bit 31 only: readers' passing increments (about to be undone) stay counted
        em.atom("and", _word(em, prim), ins.ref.index, imm(~WRITER), **em.order(ins))


# ---- ticket (phase-fair) ---------------------------------------------------------------------------

def _counter(em: Emitter, prim: Prim, role: str) -> str:
    """rin, rout, win or wout (created on first use: a program that only reads needs no writer counters)."""
    return em.state(prim, role, prim.instances, 0)


class TicketRead(RwMode):
    @classmethod
    def enter(cls, em, prim, ins):
        rin = _counter(em, prim, "rin")
        arrived = em.atom("add", rin, ins.ref.index, imm(RINC), hint="arrived")
        return em.op("and", I32, arrived, imm(WBITS), hint="writer")     # the writer present then, if any

    @classmethod
    def attempt(cls, em, prim, ins, token):
        rin = _counter(em, prim, "rin")
        now = em.ld(rin, ins.ref.index, hint="rin", **em.poll_cache(rin), **em.order(ins))
        phase_over = em.op("cmp.ne", BOOL, em.op("and", I32, now, imm(WBITS), hint="bits"), token, hint="over")
        return em.op("or", BOOL, em.eq(token, imm(0)), phase_over, hint="ok")

    @classmethod
    def release(cls, em, prim, ins):
        rout = _counter(em, prim, "rout")
        em.atom("add", rout, ins.ref.index, imm(RINC), **em.order(ins))


class TicketWrite(RwMode):
    @classmethod
    def enter(cls, em, prim, ins):
        win = _counter(em, prim, "win")
        ticket = em.atom("add", win, ins.ref.index, imm(1), hint="ticket")
        return em.op("shl", I32, ticket, imm(1), hint="token")

    @classmethod
    def attempt(cls, em, prim, ins, token):
        rin, rout, wout = (_counter(em, prim, role) for role in ("rin", "rout", "wout"))
        at = ins.ref.index

        def writers_before():
            served = em.ld(wout, at, hint="served", **em.poll_cache(wout), **em.order(ins))

            def announce():     # our turn among writers: present, with our phase, to new readers
                phase = em.op("and", I32, em.op("shr", I32, token, imm(1)), imm(PHID), hint="phase")
                seen = em.atom("add", rin, at, em.op("or", I32, phase, imm(PRES), hint="bits"), hint="rin")
                em.b.emit("or", (token,), (seen, imm(1)))
            em.when(em.eq(em.op("shl", I32, served, imm(1), hint="served2"), token), announce, hint="turn")
        phase1 = em.eq(em.op("and", I32, token, imm(1), hint="odd"), imm(0))
        em.when(phase1, writers_before, hint="writers")

        def readers_before(ok):
            left = em.ld(rout, at, hint="rout", **em.poll_cache(rout), **em.order(ins))
            em.b.emit("cmp.eq", (ok,), (left, em.op("xor", I32, token, imm(1), hint="rin")))
        return em.attempt_if(em.eq(em.op("and", I32, token, imm(1), hint="odd"), imm(1)), readers_before,
                             hint="readers")

    @classmethod
    def release(cls, em, prim, ins):
        rin, wout = _counter(em, prim, "rin"), _counter(em, prim, "wout")
        em.atom("and", rin, ins.ref.index, imm(~WBITS), **em.order(ins))     # the phase ends: readers go
        em.atom("add", wout, ins.ref.index, imm(1), **em.order(ins))         # the next writer goes


# ---- the registry entries ---------------------------------------------------------------------------

_EVERYWHERE = "global @thread, global @warp, global @block, shared @thread, shared @warp"


class RwLock(Expansion):
    """A reader-writer lock: its `modes`, a reader's and a writer's protocol, expand each operation."""
    modes: dict[str, type[RwMode]] = {}

    @classmethod
    def expand(cls, em, prim, ins):
        cls.modes[ins.attr("mode")].operations()[ins.op](em, prim, ins)


class Counter(RwLock):
    about = entry("rwlock", "counter", "global shared", "thread warp block",
                  "one word: readers add 1 (and back out if a writer holds bit 31), a writer CASes 0 to bit 31; "
                  "reader-preferring, writers can starve", "Courtois, Heymans & Parnas 1971 (readers' priority); syncc")
    defaults = default("fermi", _EVERYWHERE, "fewest atomics: a reader adds and a writer CASes one word, "
                                             "where the ticket lock takes two per write; seed 001 finds every "
                                             "extra atomic costly on Fermi, whose atomic unit serializes a "
                                             "contended line")
    modes = {"read": CounterRead, "write": CounterWrite}
    nested_reads = True     # a writer waits for the word to be 0, so none is queued between two reads


class Ticket(RwLock):
    about = entry("rwlock", "ticket", "global shared", "thread warp block",
                  "reader-writer ticket lock: one ticket counter for both; a writer waits for every earlier ticket, "
                  "a reader only for earlier writers; fair (FIFO)", "Mellor-Crummey & Scott 1991, section 2.2")
    defaults = default("ptx", _EVERYWHERE, "fair as the ticket mutex is (docs/references.md: tickets scale under "
                                           "contention on H100), and no writer starves behind a stream of readers")
    modes = {"read": TicketRead, "write": TicketWrite}


IMPLEMENTATIONS = (Counter, Ticket)
