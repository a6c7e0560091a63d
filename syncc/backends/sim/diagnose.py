"""Why a run cannot finish, in words.

    diagnose_deadlock(sim)                 nothing can issue any more: every live warp waits at a
                                           barrier (or, in ITS mode, at a warp or convergence sync)
    diagnose_stuck(sim, why, repeat)       warps still issue, but the state repeated (a livelock) or
                                           the cycle budget ran out (never a verdict: E0910)

For a stuck run the simulator goes on for a short window while a Watch records
what every warp does: the addresses it executes, the lock bits it fails to
take, the words it reads and whether anyone changes them. Then each spinning
warp's wait is traced to who holds what it waits for:

  SIMT deadlock   the holder is a lane of the same warp, parked in the SIMT stack
                  at a reconvergence point until the spinners arrive (seed 000 §4.4.1)
  alias deadlock  the bit is held through another word that shares it (1024 words
                  apart), or by the waiting lane itself (seed 000 §4.4.2)
  deadlock        the holder waits at a barrier for the spinners, or has finished
                  without releasing
  livelock        the holders spin too, or (ITS) a split that would release is never
                  scheduled (seed 003 §3.2)
"""
from __future__ import annotations

from collections import Counter, defaultdict

from . import lanes as L
from ..fermi.isa import INSTR_BYTES, RZ
from .findings import Diagnosis, Finding, where
from .its import its_deadlock, its_starvation
from .queues import queue_notes
from .warp import DIV, PBK, SSY, Warp

_READS = {"LDS", "LDSLK", "LD"}
_WRITES = {"STS": 0, "STSUL": 0, "ST": 0}


# ---- watching a stuck run --------------------------------------------------------------

class Watch:
    """What each warp does during the diagnosis window."""

    def __init__(self, sim):
        self.sim = sim
        self.pcs: dict[int, Counter] = defaultdict(Counter)
        self.failed: dict[int, dict[int, list]] = defaultdict(dict)        # uid → bit → [(lane, word, pc)]
        self.reads: dict[int, dict[tuple, tuple]] = defaultdict(dict)      # uid → (space, word) → (pc, lanes)
        self.changed: set[tuple] = set()                                    # (space, word) given a new value
        self.progress = 0                                                   # warps and barriers completed

    def before(self, w: Warp, d, m: int) -> None:
        self.pcs[w.uid][w.pc] += 1
        op = d.ins.op
        if not m or (op not in _READS and op not in _WRITES and op not in ("ATOM", "RED")):
            return
        words = self._words(w, d, m)
        if words is None:
            return
        space = "global" if op in ("LD", "ST", "ATOM", "RED") else "shared"
        memory = self.sim.gmem.words if space == "global" else w.sm.shared.words
        if op in _READS or op == "ATOM":
            for lane, x in words:
                old = self.reads[w.uid].get((space, x))
                lanes = (old[1] if old else 0) | L.LANE[lane]
                self.reads[w.uid][(space, x)] = (w.pc, lanes)
        if op in _WRITES:
            value_reg = d.ins.operands[1].n
            for lane, x in words:
                if 0 <= x < len(memory) and int(memory[x]) != int(w.r[value_reg][lane]):
                    self.changed.add((space, x))
        if op in ("ATOM", "RED"):
            for _, x in words:
                self.changed.add((space, x))

    def _words(self, w: Warp, d, m: int):
        from ..fermi.isa import Mem
        mem = next((o for o in d.ins.operands if isinstance(o, Mem)), None)
        if mem is None:
            return None
        out = []
        for lane in L.lanes(m):
            a = (0 if mem.base.n == RZ else int(w.r[mem.base.n][lane])) + mem.offset & 0xFFFFFFFF
            if d.ins.op in ("LD", "ST", "ATOM", "RED"):
                from .memory import GLOBAL_BASE
                out.append((lane, (a - GLOBAL_BASE) >> 2))
            else:
                out.append((lane, (w.block.base + a) >> 2))
        return out

    def lock_failed(self, w: Warp, failed: list) -> None:
        per = self.failed[w.uid]
        holders = w.sm.shared.holder
        for lane, bit, word in failed:
            h = holders.get(bit)
            per.setdefault(bit, []).append((lane, word, w.pc, h and (h[0], h[1]), h))   # h: one take


def _watch(sim, cycles: int) -> Watch:
    watch = Watch(sim)
    sim.set_watch(watch)
    blocks_before = sim.live_blocks
    try:
        sim.advance(sim.now + cycles)
    except Exception:            # noqa: BLE001 - the diagnosis must not fail on a second fault
        pass
    sim.mem.flush()
    sim.set_watch(None)
    watch.progress = blocks_before - sim.live_blocks
    return watch


# ---- describing places --------------------------------------------------------------------

def word_name(sim, space: str, word: int, block=None) -> str:
    if space == "global":
        from .memory import GLOBAL_BASE
        return f"`{sim.gmem.name_of(GLOBAL_BASE + 4 * word)}`"
    offset = 4 * word - (block.base if block is not None else 0)
    for a in sim.kernel.shared:
        if a.offset <= offset < a.offset + 4 * a.length:
            from .memory import Allocation
            return f"`{Allocation(a.name, a.offset, a.length, a.dims).index_name((offset - a.offset) // 4)}`"
    return f"shared word 0x{offset:x}"


def _warp_of(sim, uid: int) -> Warp | None:
    return sim.warps[uid] if 0 <= uid < len(sim.warps) else None


def _lane_place(w: Warp, lane: int) -> str:
    """Where a lane of w is: active, parked in its SIMT stack (and why), exited, waiting."""
    bit = L.LANE[lane]
    if w.done or w.exited & bit:
        return "has exited"
    if w.waiting == "bar":
        return "waits at a barrier"
    if w.active & bit:
        return f"runs at 0x{w.pc:04x}"
    for kind, mask, pc in w.parked():
        if mask & bit:
            if kind == SSY:
                return f"waits at the reconvergence point 0x{pc:04x} (an SSY entry of the warp's stack)"
            if kind == PBK:
                return f"has left the loop and waits at 0x{pc:04x} (a PBK entry)"
            return f"waits to resume at 0x{pc:04x} (a divergence entry)"
    return "is not active"


def picture(sim) -> list[str]:
    out = []
    for w in sim.warps:
        if w.done:
            continue
        if w.waiting == "bar":
            state = "waits at a barrier"
        else:
            state = f"{L.describe(w.active)} at {where(sim, w.pc)}"
        stack = "; ".join(f"{k} 0x{pc:04x} {L.describe(m)}" for k, m, pc in w.parked())
        out.append(f"{w.name}: {state}" + (f"; stack: {stack}" if stack else ""))
    return out


# ---- nothing can move ----------------------------------------------------------------------

def diagnose_deadlock(sim) -> Diagnosis:
    findings = []
    for w in sim.warps:
        if w.done or w.its is None or w.waiting == "bar":
            continue
        f = its_deadlock(sim, w)
        if f:
            findings.append(f)
    blocks = {id(w.block): w.block for w in sim.warps if not w.done}
    for block in blocks.values():
        for bar_id, bar in sorted(block.barriers.items()):
            waiting = [x[0] for x in bar.waiting]
            expected = bar.expected or 32 * sum(1 for x in block.warps if not x.done)
            absent = [x for x in block.warps if not x.done and x not in waiting]
            w0 = waiting[0] if waiting else None
            notes = []
            for x in absent:
                if x.waiting == "bar":
                    other = next((k for k, b in block.barriers.items() if any(y[0] is x for y in b.waiting)), "?")
                    notes.append((f"{x.name} waits at barrier {other} instead", x.pc - INSTR_BYTES))
                else:
                    notes.append((f"{x.name} is at {where(sim, x.pc)}", x.pc))
            done = [x for x in block.warps if x.done]
            if done and bar.expected:
                notes.append((f"{len(done)} warp(s) of the block have exited and will never arrive", None))
            names = ", ".join(str(x.index) for x in waiting)
            findings.append(Finding(
                "barrier-deadlock",
                f"barrier deadlock: in block {block.index}, warp(s) {names} wait at barrier {bar_id} for "
                f"{expected} threads, but only {bar.arrived} have arrived and no other warp can move",
                w0, w0.pc - INSTR_BYTES if w0 else None, w0.active if w0 else 0, notes,
                "every warp that a barrier counts must reach it: check the barrier's thread count, and that no "
                "warp waits at a different barrier or has exited first"))
    if not findings:
        findings.append(Finding("deadlock", "deadlock: no warp can issue an instruction any more", None, None, 0))
    return Diagnosis(findings[0].kind, findings, sim.now, picture(sim))


# ---- warps still run, but the kernel cannot finish ---------------------------------------------

def diagnose_stuck(sim, why: str, repeat: tuple[int, int] | None = None) -> Diagnosis:
    """A run that still issues but did not finish. With `repeat` (the machine came back to an
    earlier state: proof that it never finishes) the spins are explained as the deadlock or
    livelock they are. A spent budget proves nothing: it is always `budget`, saying how far the
    run got, with what the warps were doing as notes, never as a verdict."""
    reached, issued = sim.now, sim.warp_instructions
    at_budget = {w.uid: (w.pc, w.active) for w in sim.warps if not w.done and w.waiting != "bar"}
    period = sim.now - repeat[0] if repeat else 0
    window = min(max(2 * period, 4000), 200_000)
    watch = _watch(sim, window)
    if why == "budget":
        return _out_of_cycles(sim, watch, window, reached, issued, at_budget)
    findings: list[Finding] = []
    for w in sim.warps:
        if w.done or w.waiting == "bar" or not watch.pcs.get(w.uid):
            continue
        findings.extend(_explain_spin(sim, watch, w))
    if sim.config.its:
        findings.extend(its_starvation(sim, watch))
    findings = _wait_cycles(sim, findings)
    queue_notes(sim, findings)
    order = ["simt-deadlock", "alias-deadlock", "deadlock", "barrier-deadlock", "livelock"]
    # a wait on a word a finished warp wrote last may be a warp stuck elsewhere that would write it
    # (a chain behind a stuck warp): the other findings come first
    findings.sort(key=lambda f: (f.downstream, order.index(f.kind)))
    head = (f"the machine returned to a state it was in {period} cycles earlier (cycle {repeat[0]}), "
            "so it can never finish")
    if not findings:
        busy = [w for w in sim.warps if not w.done and watch.pcs.get(w.uid)]
        w = busy[0] if busy else None
        findings.append(Finding("livelock", f"livelock: {head}", w, w.pc if w else None, w.active if w else 0))
    else:
        findings[0].notes.append((head, None))
    return Diagnosis(findings[0].kind, findings, reached, picture(sim))


def _out_of_cycles(sim, watch: Watch, window: int, reached: int, issued: int,
                   at_budget: dict[int, tuple[int, int]]) -> Diagnosis:
    """E0910: how far the run got and what was running when the budget ran out, in facts only
    (where each warp was, what the next cycles changed). Why a warp spins is not guessed at: a
    wait that looks hopeless may end a cycle later, and the run says nothing either way."""
    blocks = sim.grid[0] * sim.grid[1] * sim.grid[2]
    finished_then = blocks - sim.live_blocks - len(sim.pending) - watch.progress
    busy = [w for w in sim.warps if w.uid in at_budget]          # issuing when the budget ran out
    w = busy[0] if busy else None
    pc, active = at_budget[w.uid] if w else (None, 0)
    message = (f"out of cycles: the kernel did not finish within {sim.config.max_cycles} cycles (it reached cycle "
               f"{reached} with {issued} warp-instructions issued and {finished_then} of {blocks} block(s) "
               "finished); a spent budget does not show that it cannot finish")
    notes: list[tuple[str, int | None]] = []
    if not sim.live_blocks and not sim.pending:
        said = (f"run on for up to {window} cycles to see what it was doing, it finished at cycle {sim.now}: "
                "a budget above that lets it finish")
        notes.append((said, None))
    else:
        said = (f"in the {window} cycles after the budget, {watch.progress} more block(s) finished and "
                f"{len(watch.changed)} word(s) of memory took new values")
        notes.append((said, None))
    for x in busy[1:4]:
        notes.append((f"{x.name} was at {where(sim, at_budget[x.uid][0])} with "
                      f"{L.describe(at_budget[x.uid][1])}{_going_round(watch, x)}", at_budget[x.uid][0]))
    if len(busy) > 4:
        notes.append((f"and {len(busy) - 4} more warps were issuing", None))
    if w is not None:
        notes.insert(0, (f"{w.name} was here with {L.describe(active)}{_going_round(watch, w)}", None))
    budget = Finding("budget", message, w, pc, active, notes,
                     "raise the budget with --max-cycles if it is only slow; the simulator calls a run a "
                     "deadlock or a livelock only when it can show that it never finishes (no warp can issue, "
                     "or the machine came back to a state it was in before)")
    return Diagnosis("budget", [budget], reached, picture(sim))


def _going_round(watch: Watch, w: Warp) -> str:
    loop = sorted(pc for pc, n in watch.pcs.get(w.uid, {}).items() if n > 1)
    return f"; in the cycles after, it went round 0x{loop[0]:04x}..0x{loop[-1]:04x}" if loop else ""


def _explain_spin(sim, watch: Watch, w: Warp) -> list[Finding]:
    """What the spinning lanes of w wait for, and who keeps it from them. A lock bit counts
    only if one and the same lane held it at every refusal in the window (a bit passed from
    spinner to spinner is contention, not the cause); then the words the warp reads that
    nobody changes, blamed on the lane that last gave them their value."""
    loop = sorted(pc for pc, n in watch.pcs[w.uid].items() if n > 1)
    if not loop:
        return []
    span = f"0x{loop[0]:04x}..0x{loop[-1]:04x}"
    out = []
    for bit, tries in sorted(watch.failed.get(w.uid, {}).items()):
        holders = {t[3] for t in tries}
        if len(holders) != 1 or None in holders:
            continue
        lanes = L.from_lanes(t[0] for t in tries)
        lane, word, pc = tries[0][:3]
        what = f"lock bit {bit} (word {word_name(sim, 'shared', word, w.block)})"
        holder = w.sm.shared.holder.get(bit)
        if holder is None or any(t[4] is not holder for t in tries):     # taken again between tries
            if next(iter(holders))[0] == w.uid:          # the warp's own lanes, passing it round: contention
                continue
            out.append(_starved(sim, w, lanes, pc, what, next(iter(holders)), len(tries), span))
            continue
        out.append(_blame(sim, w, lanes, pc, what, (holder[0], holder[1], holder[2]), holder[3], word, span))
    # a word whose lock bit some warp keeps trying to take may still change: that try explains it
    contested = {("shared", t[1]) for uid, per in watch.failed.items() for tries in per.values() for t in tries
                 if t[3] is not None and t[3][0] != uid}
    for (space, word), (pc, lanes) in sorted(watch.reads.get(w.uid, {}).items()):
        if (space, word) in watch.changed or (space, word) in contested:
            continue
        memory = sim.gmem if space == "global" else w.sm.shared
        writer = memory.writer.get(word)
        if writer is None:
            value = int(memory.words[word]) if 0 <= word < len(memory.words) else 0
            out.append(Finding("deadlock", f"deadlock: {L.describe(lanes)} of {w.name} spin at {where(sim, pc)} "
                               f"(the loop {span}) waiting for word {word_name(sim, space, word, w.block)} to "
                               f"change, which no thread has written since the launch (it holds its first "
                               f"value, {_signed(value)})", w, pc, lanes,
                               help="check which slot, flag or lock the waiting threads use: nothing ever "
                                    "signals, puts or releases this one", downstream=True))
            continue
        found = _blame(sim, w, lanes, pc, f"word {word_name(sim, space, word, w.block)} to change",
                       writer, None, word, span, wrote=True)
        found.downstream = _warp_of(sim, writer[0]) is None or _warp_of(sim, writer[0]).done
        out.append(found)
    strong = [f for f in out if f.kind != "livelock"]
    return strong or out[:1]


def _signed(v: int) -> int:
    return v - (1 << 32) if v >= 1 << 31 else v


def _starved(sim, w: Warp, lanes: int, pc: int, what: str, holder: tuple[int, int], tries: int,
             span: str) -> Finding:
    """The bit was free now and then, but held by the same lane at every one of w's tries: two
    loops in step, so w never gets it (timing is deterministic here; on a GPU, jitter might
    break the step, or not)."""
    h = _warp_of(sim, holder[0])
    who = f"lane {holder[1]} of {h.name if h is not None else 'a finished warp'}"
    return Finding("livelock", f"livelock: {L.describe(lanes)} of {w.name} spin at {where(sim, pc)} (the loop "
                   f"{span}) for {what}, and at each of its {tries} tries {who} held it: that lane takes and "
                   "releases the bit in a loop of its own that keeps step with this one, so this warp never "
                   f"gets it{f' (that lane {_lane_place(h, holder[1])})' if h is not None else ''}", w, pc, lanes,
                   help="spin on a plain load until the word looks free and only then try the lock (test and "
                        "test-and-set), or use a lock-bit primitive (`using tinylock`), whose waiters do not "
                        "hold the bit while they look")


def _blame(sim, w: Warp, lanes: int, pc: int, what: str, holder: tuple | None, held_word: int | None,
           word: int, span: str, wrote: bool = False) -> Finding:
    """Who keeps `what` from the spinning lanes, and what kind of hang that makes."""
    verb = "last wrote" if wrote else "holds"
    spin = f"{L.describe(lanes)} of {w.name} spin at {where(sim, pc)} (the loop {span}) waiting for {what}"
    if holder is None:
        return Finding("livelock", f"livelock: {spin}, which nobody holds", w, pc, lanes)
    h = _warp_of(sim, holder[0])
    hlane, hpc = holder[1], holder[2]
    took = (f"lane {hlane} of {'the same warp' if h is w else h.name if h else '?'} "
            f"{'wrote it' if wrote else 'took it'} at {where(sim, hpc)}", hpc)
    if h is not None and h is w and hlane in L.lanes(lanes) and held_word is not None and held_word != word:
        return Finding("alias-deadlock", f"alias deadlock: {spin}; lane {hlane} itself holds that bit through "
                       f"{word_name(sim, 'shared', held_word, w.block)}, a word that shares it", w, pc, lanes,
                       [took], "keep the words whose locks one thread holds at once less than "
                       f"{sim.config.lock_bits} words apart, or release one before taking the other")
    if held_word is not None and held_word != word:
        place = f"{h.name} lane {hlane}" if h else "a finished warp"
        state = _lane_place(h, hlane) if h else "has finished"
        return Finding("alias-deadlock", f"alias deadlock: {spin}; the bit is held through "
                       f"{word_name(sim, 'shared', held_word, h.block if h else None)} (the same bit, "
                       f"{sim.config.lock_bits} words apart) by {place}, which {state}", w, pc, lanes, [took],
                       "allocate fewer lock-bit words per SM (a smaller block, or fewer slots), so that no two "
                       "held words share a bit")
    if h is w:
        place = _lane_place(w, hlane)
        if not (w.active & L.LANE[hlane]):
            stack = "; ".join(f"{k} 0x{p:04x} {L.describe(m)}" for k, m, p in w.parked())
            return Finding("simt-deadlock", f"SIMT deadlock: {spin}, which lane {hlane} of the same warp {verb}; "
                           f"lane {hlane} {place}, and the warp cannot get there before the spinning lanes do",
                           w, pc, lanes, [took, (f"the warp's SIMT stack, top first: {stack}", None)],
                           "release inside the divergent path, before the reconvergence point: the structured "
                           "`critical`/`when` statements do this (seed 000 Listings 7 and 8)")
    if h is None or h.done:
        return Finding("deadlock", f"deadlock: {spin}, which a warp that has finished {verb} without releasing "
                       "it", w, pc, lanes, [took], "release every lock (put every slot) before the kernel ends")
    if h.waiting == "bar":
        return Finding("deadlock", f"deadlock: {spin}, which lane {hlane} of {h.name} {verb}; that warp waits "
                       "at a barrier the spinning warp cannot reach", w, pc, lanes, [took],
                       "release before the barrier, or make the producer take its locks before the barrier "
                       "and the consumers wait after it (seed 000 §4.4.2)")
    return Finding("livelock", f"livelock: {spin}, which lane {hlane} of {h.name} {verb}; it is running too "
                   f"({_lane_place(h, hlane)})", w, pc, lanes, [took], waits_on=(h.uid, hlane))


def _wait_cycles(sim, findings: list[Finding]) -> list[Finding]:
    """Lock-order deadlock: spinning threads that each hold the lock bit the next one waits for,
    round a cycle. Each looks like a livelock on its own (the holder is running: spinning);
    together nothing can ever change, so the cycle is one `deadlock` finding instead."""
    waits: dict[tuple[int, int], Finding] = {}
    for f in findings:
        if f.waits_on is not None and f.warp is not None:
            for lane in L.lanes(f.lanes):
                waits[(f.warp.uid, lane)] = f
    for start in sorted(waits):
        path, node = [], start
        while node in waits and node not in path:
            path.append(node)
            node = waits[node].waits_on
        if node not in path:
            continue
        ring = path[path.index(node):]
        if len(ring) == 1:        # a thread waiting for a word it wrote last itself: no cycle between threads
            continue
        members = list({id(waits[n]): waits[n] for n in ring}.values())     # a finding can cover several lanes
        first = members[0]
        names = [f"lane {lane} of {_warp_of(sim, uid).name}" for uid, lane in ring]
        what = ["a lock bit that {} holds" if "lock bit" in waits[n].message else "a word that {} last wrote"
                for n in ring]
        chain = "; ".join(f"{a} waits for {w.format(b)}" for a, b, w in zip(names, names[1:] + names[:1], what))
        notes = [(f.message.removeprefix("livelock: "), f.pc) for f in members]
        cycle = Finding("deadlock", f"deadlock: {len(ring)} threads wait for each other round a cycle: {chain}",
                        first.warp, first.pc, first.lanes, notes + first.notes[:1],
                        "take the locks in one global order, the lower index first (syncc checks this for "
                        "`critical` and `lock` statements: E0703)")
        return [cycle] + [f for f in findings if all(f is not m for m in members)]
    return findings


__all__ = ["Watch", "diagnose_deadlock", "diagnose_stuck", "picture", "DIV"]
