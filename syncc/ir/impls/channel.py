"""Channel implementations: what put, signal, poll, get, await and read become.

A channel is an array of write-once slots (`data`). At @thread each slot is
published on its own; at @warp a group of 32 consecutive slots is published
when the warp has stored them all, at @block a group of one slot per thread.

    flag      a ready flag per group: the producer stores the data, then the flag with release;
              the consumer polls the flag with acquire, then loads the data (seed 002). On PTX a
              global @thread slot of at most 32 bits is one 64-bit word, the value in its low half
              and the flag in its high half: one store with release, and the polling load that
              sees the flag brings the value (no second round trip to L2)
    tinylock  Fermi lock bits. @thread: the slot's own word carries the bit, held from the start
              (producer-first initialization), released by the put's STSUL that also stores the
              value; a consumer's LDSLK that succeeds gives the token straight back (one-to-many,
              seed 000 §6). @warp: one bit per group in a word of its own, taken by the warp's
              lanes together and confirmed with a vote (Listing 9). On targets without lock
              bits, a flag.
    atomlock  a spin-lock word per group, locked from the start; the put unlocks it; a consumer
              takes it, reads, and unlocks it again (seed 000 Listings 11 and 14)
    namedbar  the producer warp arrives at the group's named barrier, the consumer warp syncs on
              it, 64 threads: one warp each side (seed 000 Listing 12)

A channel of records carries a record in each slot: its put and get are one IR operation with one
operand (result) per field (ops.OpInfo.fields), and the expansion stores every field before the slot
is published and loads them after it is seen full, as the data of a scalar slot. Where a scalar
slot's value travels with its publication (the flag's packed 64-bit word, a @thread tinylock's
lock bit on the slot's own word), a record's slot is published on its own word instead.

Each implementation class is one registry entry (registry.py): `about`, its catalogue entry;
`defaults`, where a target picks it without `using` and why.
"""
from __future__ import annotations

from ...core.types import BOOL, I32, U32, U64
from ..nodes import Imm, Prim, RecordValue, Ref, imm
from .base import Emitter
from .entry import Expansion, default, entry


class Channel(Expansion):
    """What all implementations share: the data array, slot groups, and get = wait then read."""
    defaults = ()

    @classmethod
    def operations(cls):
        return {"chan.put": cls.do_put, "chan.signal": cls.do_signal, "chan.poll": cls.do_poll,
                "chan.get": cls.do_get, "chan.await": cls.do_await, "chan.read": cls.do_read}

    @staticmethod
    def data(em: Emitter, prim: Prim) -> str:
        return em.state(prim, "data", prim.instances, None, elem=prim.elem)

    @staticmethod
    def value(prim: Prim, operands):
        """A slot's value from the operands (results) that carry it: the one scalar, or a record's
        fields, one each, as one RecordValue that stores and loads write field by field."""
        if prim.elem.kind == "record":
            return RecordValue(dict(zip(prim.elem.field_names, operands)), prim.elem)
        (value,) = operands
        return value

    @classmethod
    def put_value(cls, prim, ins):
        return cls.value(prim, ins.args[1:])

    @classmethod
    def where(cls, em, prim, ins):
        """(the slot, its group)"""
        i = ins.ref.index
        return i, (i if prim.granularity == "thread" else em.group(prim, i))

    @classmethod
    def do_read(cls, em, prim, ins):
        em.b.emit("ld", (cls.value(prim, ins.dests),), (Ref(cls.data(em, prim), ins.ref.index),))

    @classmethod
    def do_put(cls, em, prim, ins):
        em.st(cls.data(em, prim), ins.ref.index, cls.put_value(prim, ins))
        cls.fence(em, ins)
        cls.publish(em, prim, ins)

    @staticmethod
    def fence(em, ins):
        """The put's release fence or the get's acquire (insert_fences leaves them to expansion on
        Fermi): after the value's store, before what marks the slot full, so the value is ordered as
        well as all before it; after the slot is seen full, before the value's load."""
        if ins.attr("fence"):
            em.b.emit("fence", (), (), order="acq_rel", scope=ins.attr("fence"))

    @classmethod
    def do_signal(cls, em, prim, ins):
        cls.publish(em, prim, ins)

    @classmethod
    def do_get(cls, em, prim, ins):
        cls.wait(em, prim, ins)
        cls.fence(em, ins)
        em.b.emit("ld", (cls.value(prim, ins.dests),), (Ref(cls.data(em, prim), ins.ref.index),))

    @classmethod
    def do_await(cls, em, prim, ins):
        cls.wait(em, prim, ins)

    @classmethod
    def do_poll(cls, em, prim, ins):
        """One try; the slot's value is read only once it is known to be full (an earlier read
        would race with the producer's store, harmlessly but still a race)."""
        ok, value = ins.dests[0], cls.value(prim, ins.dests[1:])
        em.b.assign(ok, cls.attempt(em, prim, ins))
        em.b.assign(value, imm(0, prim.elem))

        def load():
            cls.fence(em, ins)
            em.b.emit("ld", (value,), (Ref(cls.data(em, prim), ins.ref.index),))
        em.when(ok, load, hint="full")

    @classmethod
    def wait(cls, em, prim, ins):
        """Spin on `attempt` until the slot's group is published: each consumer on its own at
        @thread; at @warp and @block the party's leader, and the party meets after."""
        _, g = cls.where(em, prim, ins)          # once, before the loop
        if prim.granularity == "thread":
            em.spin(lambda: cls.attempt(em, prim, ins, g), hint="await")
        else:
            cls.by_party(em, prim, lambda: em.spin(lambda: cls.attempt(em, prim, ins, g), hint="await"),
                         after=True)

    @classmethod
    def by_party(cls, em, prim, leader_work, after=None) -> None:
        """At @warp or @block: the party meets, its leader does `leader_work`, the party meets again."""
        mask, leader = em.party(prim.granularity)
        if after is None:
            em.meet(prim.granularity, mask)
        em.when(leader, leader_work, hint="leader")
        if after is not None:
            em.meet(prim.granularity, mask)


class Flag(Channel):
    about = entry("channel", "flag", "shared global", "thread warp block",
                  "data plus a ready flag, written with release and read with acquire", "seed 002 producer-consumer")
    defaults = (
        *default("ptx fermi", "global @thread", "data plus a ready flag with release/acquire: one store and one "
                                                "polling load per message"),
        *default("ptx fermi", "global @warp", "one flag per warp of slots, set after the warp's stores"),
        *default("ptx fermi", "global @block", "one flag per block of slots, set by thread 0 after a block barrier"),
        *default("ptx", "shared @thread", "no lock bits after Fermi: a ready flag per slot, with cta-scope "
                                          "release/acquire"),
        *default("ptx", "shared @warp", "a ready flag per warp of slots; named barriers are limited to 16"),
    )

    FULL = 1 << 32          # a packed slot's flag: its word's high half

    @staticmethod
    def flags(em, prim):
        return em.state(prim, "flag", em.groups(prim, em.block_threads), 0)

    @staticmethod
    def packs(em, prim) -> bool:
        """One 64-bit word a slot (value low, flag high) where the ordering travels on the word's own
        store and load (PTX) and each slot is published alone (@thread) in global memory, whose
        round trips are long (an H100: about 0.14 µs each); a 64-bit access is single-copy atomic."""
        return (prim.granularity == "thread" and prim.placement == "global" and prim.elem.bits <= 32
                and prim.elem.kind != "record" and em.target.ordered_atomics and em.ctx.minimize_fences)

    @classmethod
    def data(cls, em, prim):
        if cls.packs(em, prim):
            return em.state(prim, "word", prim.instances, 0, elem=U64)
        return super().data(em, prim)

    @classmethod
    def value_of(cls, em, prim, word):
        """A packed word's value: its low half, as the channel's type."""
        low = em.op("cvt", U32, word, hint="low")
        return em.as_word(low, prim.elem, hint="value")

    @classmethod
    def do_put(cls, em, prim, ins):
        if not cls.packs(em, prim):
            return super().do_put(em, prim, ins)
        value = ins.args[1]
        low = em.as_word(value, U32, hint="low")
        word = em.op("or", U64, em.op("cvt", U64, low, hint="wide"), imm(cls.FULL, U64), hint="word")
        cls.fence(em, ins)
        em.st(cls.data(em, prim), ins.ref.index, word, **em.order(ins))

    @classmethod
    def publish(cls, em, prim, ins):
        _, g = cls.where(em, prim, ins)
        if cls.packs(em, prim):        # a signal: the flag, and a value of 0
            em.st(cls.data(em, prim), g, imm(cls.FULL, U64), **em.order(ins))
            return
        flag = cls.flags(em, prim)
        if prim.granularity == "thread":
            em.st(flag, g, imm(1), **em.order(ins))
        else:     # after everyone's stores: the warp or block meets, then its leader raises the flag
            cls.by_party(em, prim, lambda: em.st(flag, g, imm(1), **em.order(ins)))

    @classmethod
    def attempt(cls, em, prim, ins, group=None, seen=None):
        """One poll: is the slot (group) full? `seen`, where given, gets the packed word polled."""
        g = group if group is not None else cls.where(em, prim, ins)[1]
        if cls.packs(em, prim):
            data = cls.data(em, prim)
            word = em.ld(data, g, hint="word", **em.poll_cache(data), **em.order(ins))
            if seen is not None:
                em.b.assign(seen, word)
            return em.op("cmp.ne", BOOL, em.op("shr", U64, word, imm(32, U64), hint="flag"), imm(0, U64))
        flag = cls.flags(em, prim)
        return em.op("cmp.ne", BOOL, em.ld(flag, g, hint="ready", **em.poll_cache(flag), **em.order(ins)), imm(0))

    @classmethod
    def do_get(cls, em, prim, ins):
        if not cls.packs(em, prim):
            return super().do_get(em, prim, ins)
        seen = em.b.reg(U64, "seen")
        em.spin(lambda: cls.attempt(em, prim, ins, seen=seen), hint="await")
        em.b.assign(ins.dests[0], cls.value_of(em, prim, seen))

    @classmethod
    def do_read(cls, em, prim, ins):
        if not cls.packs(em, prim):
            return super().do_read(em, prim, ins)
        em.b.assign(ins.dests[0], cls.value_of(em, prim, em.ld(cls.data(em, prim), ins.ref.index, hint="word")))

    @classmethod
    def do_poll(cls, em, prim, ins):
        if not cls.packs(em, prim):
            return super().do_poll(em, prim, ins)
        ok, value = ins.dests
        seen = em.b.reg(U64, "seen")
        em.b.assign(ok, cls.attempt(em, prim, ins, seen=seen))
        em.b.assign(value, imm(0, value.type))
        em.when(ok, lambda: em.b.assign(value, cls.value_of(em, prim, seen)), hint="full")



class TinyLock(Channel):
    about = entry("channel", "tinylock", "shared", "thread warp",
                  "one Fermi lock bit per slot: the producer holds it until it puts",
                  "seed 000 Listings 6, 8, 13 and 15", lock_bits=True)
    stand_in = "flag"

    @staticmethod
    def bit_on_slot(prim) -> bool:
        """A @thread slot of one word carries its own lock bit; a record's slot (several words) and
        a @warp group are published on a lock word of their own."""
        return prim.granularity == "thread" and prim.elem.kind != "record"

    @classmethod
    def orders_memory(cls, prim, target):
        return cls.bit_on_slot(prim)    # the value travels in the word whose bit is the lock
    defaults = default("fermi", "shared @thread", "seed 000 Table 2: tiny_lock is the fastest scheme (4.0x atom_lock)")

    @classmethod
    def data(cls, em, prim):
        if cls.bit_on_slot(prim):      # the slots' own words carry the bits, held from the start
            return em.state(prim, "data", prim.instances, "locked", elem=prim.elem, space="shared")
        return em.state(prim, "data", prim.instances, None, elem=prim.elem, space="shared")

    @staticmethod
    def lock(em, prim):
        return em.state(prim, "lock", em.groups(prim, em.block_threads), "locked", space="shared")

    @classmethod
    def publish(cls, em, prim, ins):
        if cls.bit_on_slot(prim):     # do_put stored already; STSUL stores again and unlocks
            data = cls.data(em, prim)
            value = ins.args[1] if ins.op == "chan.put" else em.ld(data, ins.ref.index)
            em.b.emit("lockbit.release", (), (Ref(data, ins.ref.index), value))
            return
        _, g = cls.where(em, prim, ins)
        if prim.granularity == "thread":      # a record's slot: its own lock word
            em.b.emit("lockbit.release", (), (Ref(cls.lock(em, prim), g), imm(0)))
            return
        cls.by_party(em, prim, lambda: em.b.emit("lockbit.release", (), (Ref(cls.lock(em, prim), g), imm(0))))

    @classmethod
    def do_put(cls, em, prim, ins):
        if cls.bit_on_slot(prim):      # the value travels with the unlock (STSUL)
            cls.fence(em, ins)
            cls.publish(em, prim, ins)
        else:
            super().do_put(em, prim, ins)

    @classmethod
    def attempt(cls, em, prim, ins, value=None):
        """@thread: LDSLK the slot (a record's: its lock word); on success give the token back at
        once (STSUL, same value)."""
        if not cls.bit_on_slot(prim):
            _, g = cls.where(em, prim, ins)
            lock = Ref(cls.lock(em, prim), g)
            ok = em.b.reg(BOOL, "ok")
            word = em.b.reg(I32, "word")
            em.b.emit("lockbit.try", (ok, word), (lock,))
            em.when(ok, lambda: em.b.emit("lockbit.release", (), (lock, word)), hint="restore")
            return ok
        data = cls.data(em, prim)
        ok = em.b.reg(BOOL, "ok")
        value = value or em.b.reg(prim.elem, "value")
        em.b.emit("lockbit.try", (ok, value), (Ref(data, ins.ref.index),))
        em.when(ok, lambda: em.b.emit("lockbit.release", (), (Ref(data, ins.ref.index), value)), hint="restore")
        return ok

    @classmethod
    def do_poll(cls, em, prim, ins):
        if not cls.bit_on_slot(prim):
            return super().do_poll(em, prim, ins)
        ok, value = ins.dests
        em.b.assign(ok, cls.attempt(em, prim, ins, value))
        if ins.attr("fence"):     # unminimized only: the lock-bit word brought the value in order
            em.when(ok, lambda: cls.fence(em, ins), hint="full")

    @classmethod
    def wait(cls, em, prim, ins):
        if prim.granularity == "thread":
            em.spin(lambda: cls.attempt(em, prim, ins), hint="await")
            return
        # Listing 9: every lane tries the group's bit; a vote tells the warp when one lane got it,
        # and that lane gives the token back for the warp's other consumers.
        _, g = cls.where(em, prim, ins)
        lock = cls.lock(em, prim)
        ok = em.b.reg(BOOL, "got")

        def attempt():
            em.b.emit("lockbit.try", (ok, em.b.reg(I32, "word")), (Ref(lock, g),))
            return em.op("vote.any", BOOL, ok, hint="any")
        em.spin(attempt, hint="vote")
        em.when(ok, lambda: em.b.emit("lockbit.release", (), (Ref(lock, g), imm(0))), hint="restore")
        em.meet("warp", em.b.op("activemask", U32, hint="lanes"))


class AtomLock(Channel):
    about = entry("channel", "atomlock", "shared global", "thread warp",
                  "one spin-lock word per slot (at @warp, one per warp)", "seed 000 Listings 11 and 14")

    @staticmethod
    def lock(em, prim):
        return em.state(prim, "lock", em.groups(prim, em.block_threads), 1)   # 1: empty, held by the producer

    @classmethod
    def publish(cls, em, prim, ins):
        _, g = cls.where(em, prim, ins)
        lock = cls.lock(em, prim)
        if prim.granularity == "thread":
            em.atom("exch", lock, g, imm(0), **em.order(ins))
        else:
            cls.by_party(em, prim, lambda: em.atom("exch", lock, g, imm(0), **em.order(ins)))

    @classmethod
    def attempt(cls, em, prim, ins, group=None):
        g = group if group is not None else cls.where(em, prim, ins)[1]
        lock = cls.lock(em, prim)
        ok = em.eq(em.atom("cas", lock, g, imm(0), imm(1), **em.order(ins)), imm(0))
        em.when(ok, lambda: em.atom("exch", lock, g, imm(0)), hint="restore")   # the token, for other consumers
        return ok



class NamedBar(Channel):
    about = entry("channel", "namedbar", "shared", "warp",
                  "producer warp bar.arrive, consumer warp bar.sync on a named barrier", "seed 000 Listing 12")
    defaults = default("fermi", "shared @warp", "seed 000 Table 2: warp_barr (2.6x) beats warp_vote (2.0x) for "
                                                "warp-to-warp channels")
    COUNT = 64    # the producer warp and the consumer warp
    one_consumer_warp = True      # the named barrier counts the producer warp and one other

    @classmethod
    def instead(cls, target, instances):
        groups = -(-instances // 32)
        if groups > target.named_barriers - 1:
            return TinyLock.about.name, (
                f"{groups} warps of slots need more named barriers than the {target.named_barriers - 1} "
                "a block can spare, so one lock bit per warp with a vote (seed 000 Listing 9: "
                "warp_vote, 2.0x atom_lock)")
        return None

    @classmethod
    def named_barriers(cls, prim):
        return max(1, -(-prim.instances // 32))        # one per warp of slots

    @classmethod
    def meets_at_block_barrier(cls, prim):
        return False        # no state: the named barrier is the slot

    @classmethod
    def orders_memory(cls, prim, target):
        return True         # bar.arrive/bar.sync order the two warps' accesses

    @classmethod
    def barrier(cls, em, prim, ins):
        _, g = cls.where(em, prim, ins)
        base = prim.attr("bars")[0]
        return imm(g.value + base) if isinstance(g, Imm) else em.op("add", I32, g, imm(base), hint="bar")

    @classmethod
    def publish(cls, em, prim, ins):
        em.b.emit("bar.arrive", (), (cls.barrier(em, prim, ins), imm(cls.COUNT)))

    @classmethod
    def wait(cls, em, prim, ins):
        em.b.emit("bar.sync", (), (cls.barrier(em, prim, ins), imm(cls.COUNT)))


IMPLEMENTATIONS = (TinyLock, AtomLock, Flag, NamedBar)   # the catalogue's order
