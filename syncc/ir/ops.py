"""The operations of the sync IR, as one table.

Each operation has a name (as printed), a group, how many results it defines
and how many operands it takes, and what it does to memory and to the other
threads. Passes ask the table (`op.blocking`, `op.group`), never chains of ifs.

Groups:
  arith     pure arithmetic on registers and immediates (integers, floats and bools, by the
            operands' type; `rem`, the bitwise ops, shifts and `popc` take integers, `sqrt`,
            `fma`, `floor`, `ceil` and `trunc` floats; `bitcast` reinterprets the bits of a value
            as another type of its width, a float's word as an integer and back)
  special   reads of special registers (thread and block indices, clock)
  memory    loads and stores of array elements
  atomic    read-modify-write of one word, with an ordering and a scope
  fence     orders this thread's memory operations, at a scope
  barrier   block barriers (bar.sync/bar.arrive with an id and a thread count)
  warp      warp-level operations: __syncwarp, votes, ballot, leader election
  prim      operations on a declared primitive (mutex, semaphore, channel,
            barrier, rwlock, latch), abstract until `expand_primitives` replaces them by the
            chosen implementation's atomics, loads, fences and lock-bit ops
  lockbit   Fermi lock bits (LDSLK / STSUL); emulated with a shared flag on PTX
  mbarrier  sm_80+ shared-memory transaction barriers (an `mbarrier` queue's stages; PTX only)
  check     run-time checks the compiler inserts (`bounds.check`: an index against its array's
            length; passes/bounds.py), which the back ends expand (ir/faults.py)
  misc      nanosleep, trap (stop the kernel)
"""
from __future__ import annotations

import operator

from ..core.prebuilt import dataclass


@dataclass(frozen=True)
class OpInfo:
    name: str
    group: str
    results: int            # registers defined
    operands: int | None    # operand count (None: checked by the op's own rule)
    memory: bool = False    # reads or writes memory
    blocking: bool = False  # may wait for another thread
    ref: bool = False       # first operand is an array or primitive reference @x[i]
    bare: str | None = None  # an attribute printed as a bare word after the name: `sreg tid.x`, `fence acq_rel`
    judged_as: str | None = None  # the operation the hazard checks and fences read it as (a queue's: a semaphore's)
    permits: bool = False   # takes one more operand at the end, optional: how many permits (an i32; absent: 1)
    fields: bool = False    # on a primitive of records, its value is one operand (or result) per field


def _ops(group: str, spec: str, **flags) -> list[OpInfo]:
    out = []
    for item in spec.split():
        name, shape = item.split("/")
        results, operands = shape.split(":")
        out.append(OpInfo(name, group, int(results), None if operands == "*" else int(operands), **flags))
    return out


def _queue_ops(spec: str) -> list[OpInfo]:
    out = []
    for item in spec.split():
        shape, judged = item.rsplit(":", 1)
        (op,) = _ops("prim", shape, memory=True, ref=True)
        out.append(OpInfo(f"queue.{op.name}", op.group, op.results, op.operands, op.memory, op.blocking, op.ref,
                          judged_as=judged))
    return out


_TABLE: list[OpInfo] = [
    # name/results:operands
    *_ops("arith", "mov/1:1 neg/1:1 not/1:1 abs/1:1 popc/1:1 cvt/1:1 bitcast/1:1 "
                   "add/1:2 sub/1:2 mul/1:2 div/1:2 rem/1:2 and/1:2 or/1:2 xor/1:2 shl/1:2 shr/1:2 "
                   "min/1:2 max/1:2 select/1:3 "
                   "sqrt/1:1 floor/1:1 ceil/1:1 trunc/1:1 fma/1:3 "
                   "cmp.eq/1:2 cmp.ne/1:2 cmp.lt/1:2 cmp.le/1:2 cmp.gt/1:2 cmp.ge/1:2"),
    *_ops("special", "sreg/1:0", bare="reg"),
    *_ops("memory", "ld/1:1 st/0:2", memory=True, ref=True),
    *_ops("atomic", "atom.add/1:2 atom.sub/1:2 atom.exch/1:2 atom.min/1:2 atom.max/1:2 atom.and/1:2 "
                    "atom.or/1:2 atom.xor/1:2 atom.cas/1:3", memory=True, ref=True),
    *_ops("fence", "fence/0:0", memory=True, bare="order"),
    *_ops("barrier", "bar.sync/0:* bar.arrive/0:2", memory=True, blocking=True),
    # ballot and the votes take the value and, optionally, the lanes that must take part (a
    # party's whole warp); without it, the lanes that happen to be active
    *_ops("warp", "warp.sync/0:1 ballot/1:* vote.any/1:* vote.all/1:* activemask/1:0 elect/1:0"),
    # On a primitive reference @p[i]. lock/unlock, wait/post, get/await/put/signal and sync/arrive
    # (and a grid barrier's split phase, prim.arrive then prim.wait) are what the program says;
    # structuring turns the blocking ones into enter/poll/exit loops.
    # A semaphore's wait, post and tries take k permits at once where a last operand gives k
    # (`sem.wait @s[0], %k`: `wait s(k)`), one without it (`permits` in the table).
    *_ops("prim", "sem.wait/0:1 sem.trywait/1:1 sem.tryfor/1:2 sem.post/0:1", memory=True, ref=True, permits=True),
    *_ops("prim", "mutex.lock/0:1 mutex.trylock/1:1 mutex.unlock/0:1 "
                  "rw.lock/0:1 rw.unlock/0:1 latch.arrive/0:1 latch.wait/0:1 "
                  "chan.await/0:1 chan.signal/0:1 "
                  "prim.sync/0:1 prim.arrive/0:1 prim.wait/0:1", memory=True, ref=True),
    # A channel's value: on a channel of records, one register (operand) per field, in the
    # record's order (`chan.get %e.key, %e.value = @c[%i]`), so that a put or get of a whole record
    # stays one operation for every analysis; chan.poll's first result is `ready`, its fields after.
    *_ops("prim", "chan.get/1:1 chan.read/1:1 chan.put/0:2", memory=True, ref=True, fields=True),
    # What structuring leaves: `enter` once (a ticket, or a backoff delay), then `poll` in a loop;
    # `mutex.pause @m[i], %token` between two failed rounds of an all-or-nothing nest (a backoff's sleep).
    # rw.* carry mode=read|write; sem.tryfor's second operand is the number of attempts (an i32),
    # or with unit=ns the time in nanoseconds (a u32).
    *_ops("prim", "mutex.enter/1:1 mutex.poll/1:2 mutex.pause/0:2 "
                  "rw.enter/1:1 rw.poll/1:2 latch.poll/1:1",
          memory=True, ref=True),
    *_ops("prim", "chan.poll/2:1", memory=True, ref=True, fields=True),
    *_ops("prim", "sem.enter/1:1 sem.poll/1:2", memory=True, ref=True, permits=True),
    # A `ring` queue's operations (ir/impls/queue/ring.py), on one of its two counting semaphores
    # @q.space[i] (free slots) and @q.items[i] (stored values). Each is that semaphore's wait,
    # post or single try for every analysis (judged_as), and besides carries the ticket that
    # names the slot: reserve (put) and claim (get) wait and return it; publish and free post it.
    # `queue.next` is the get of `for v in q`: a flag (false once the queue is closed and drained)
    # and the ticket; structuring leaves its enter and `queue.pollnext` (ready, and that flag).
    *_queue_ops("reserve/1:1:sem.wait claim/1:1:sem.wait publish/0:2:sem.post free/0:2:sem.post "
                "tryreserve/2:1:sem.trywait tryclaim/2:1:sem.trywait enter/1:1:sem.enter poll/1:2:sem.poll "
                "next/2:1:sem.wait pollnext/2:2:sem.poll"),
    # A work pool's put inside its own `for` loop (ir/impls/queue/pool.py): a tail ticket and one look
    # at its slot, never a wait (a flag: the slot was free, and the ticket); a single try to the analyses.
    *_queue_ops("push/2:1:sem.trywait"),
    # A @thread ring whose slot is one 64-bit word, value and sequence word (the target's
    # wide_slots, impls/queue/ring.py): take is a claim that returns the value too, give a publish that
    # stores it; their structured and single-attempt forms carry the value as well.
    *_queue_ops("take/2:1:sem.wait give/0:3:sem.post polltake/2:2:sem.poll trytake/3:1:sem.trywait "
                "nexttake/3:1:sem.wait pollnexttake/3:2:sem.poll"),
    # An `mbarrier` queue's wait for the slot of a ticket the party counted itself (no ticket to
    # take: ir/impls/queue/mbarrier.py), then the same publish and free.
    *_queue_ops("await/0:2:sem.wait"),
    # A range put (`put q = src[lo .. hi]`, ir/impls/queue/ring.py): `%t = queue.reservemany @q.space[i], %k`
    # takes k tail tickets with one atomic and returns the first, waiting for nothing (judged as
    # `none`, no semaphore operation: the analyses read the waits that follow); then for each ticket `queue.reserveat
    # @q.space[i], %t` waits until that ticket's slot is empty for its round (judged as a wait on
    # q.space, as a put's reserve is; structuring leaves `queue.poll` on the ticket), and the slot is
    # published as a put's.
    *_queue_ops("reservemany/1:2:none reserveat/0:2:sem.wait"),
    # A scan's operations (ir/impls/scan.py): `scan.tile @s` takes the block's tile; `scan.add @s, %v
    # side=exclusive|inclusive` gives each thread the sum of the values before its own (or up to it).
    # Not `blocking` for the passes: the wait inside scan.add, for earlier tiles, ends whatever the
    # grid, because of where the front end lets the two stand (frontend/check_scan.py, E0419), and
    # the expansion is the whole block's, warp-uniform, with nothing for structuring to do.
    *_ops("prim", "scan.tile/1:1 scan.add/1:2", memory=True, ref=True),
    *_ops("lockbit", "lockbit.try/2:1 lockbit.release/0:2", memory=True, ref=True),
    # @bar[i]: init with the arrivals a phase needs; arrive (release at cta scope); test: true once
    # the phase of the given parity has completed (acquire at cta scope)
    *_ops("mbarrier", "mbar.init/0:2 mbar.arrive/0:1 mbar.test/1:2", memory=True, ref=True),
    # An index that must lie in 0 .. len-1 of the array or primitive it addresses:
    # `bounds.check %i array=locks len=48 site=0` (passes/bounds.py); the back ends expand it into a
    # compare and a branch to a path that records the failure and traps (ir/faults.py).
    *_ops("check", "bounds.check/0:*"),      # the index; and the length where the launch gives it
    *_ops("misc", "nanosleep/0:1"),
    # Stop the kernel: every thread of the launch ends, and the launch fails (a failed check's end).
    *_ops("misc", "trap/0:0"),
    # The end of a `when` body (region=N); structuring removes it.
    *_ops("misc", "region.end/0:0"),
]

OPS: dict[str, OpInfo] = {info.name: info for info in _TABLE}

INTEGER_ONLY = {"rem", "and", "or", "xor", "shl", "shr", "popc"}          # (and `not`: integers and bools)
FLOAT_ONLY = {"sqrt", "floor", "ceil", "trunc", "fma"}

BLOCKING_PRIM = {"mutex.lock", "sem.wait", "chan.get", "chan.await", "rw.lock", "latch.wait",  # waits structuring rewrites
                 "queue.reserve", "queue.claim", "queue.next", "queue.take", "queue.nexttake", "queue.reserveat"}
RELEASES = {"mutex.unlock", "sem.post", "chan.put", "chan.signal", "rw.unlock", "latch.arrive",  # what a waiter may wait for
            "queue.publish", "queue.free", "queue.give"}
LOCKS = {"mutex.lock": "mutex.unlock", "rw.lock": "rw.unlock"}           # exclusive or shared holds, and their ends

# The comparisons: what each computes, the one that holds with its operands swapped (x < y is
# y > x) and the one that holds where it does not (the other edge of a branch on it).
COMPARE = {"cmp.eq": operator.eq, "cmp.ne": operator.ne, "cmp.lt": operator.lt, "cmp.le": operator.le,
           "cmp.gt": operator.gt, "cmp.ge": operator.ge}
SWAPPED = {"cmp.eq": "cmp.eq", "cmp.ne": "cmp.ne", "cmp.lt": "cmp.gt", "cmp.le": "cmp.ge",
           "cmp.gt": "cmp.lt", "cmp.ge": "cmp.le"}
NEGATED = {"cmp.eq": "cmp.ne", "cmp.ne": "cmp.eq", "cmp.lt": "cmp.ge", "cmp.le": "cmp.gt",
           "cmp.gt": "cmp.le", "cmp.ge": "cmp.lt"}
SPECIAL_REGISTERS = ("tid.x", "tid.y", "tid.z", "ntid.x", "ntid.y", "ntid.z", "ctaid.x", "ctaid.y", "ctaid.z",
                     "nctaid.x", "nctaid.y", "nctaid.z", "laneid", "clock", "globaltimer_lo")
ORDERS = ("relaxed", "acquire", "release", "acq_rel", "sc")
SCOPES = ("cta", "gpu", "sys")
CACHE = ("cg", "volatile")


def info(name: str) -> OpInfo:
    return OPS[name]


def judged_as(op: str) -> str:
    """The operation the analyses read `op` as: a queue's the semaphore operation it performs
    (publish a post, reserve a wait, ...), every other operation itself."""
    return OPS[op].judged_as or op
