"""How global memory behaves between warps: sequentially consistent, or weak as on a real GPU.

    mem = memory_model(sim)        # ScMemory or WeakMemory, by config.memory
    values = mem.load(w, pat, cached)          # an LD: per lane of the pattern, the value it reads
    mem.store(w, pat, values)                  # an ST
    mem.before_atomic(w, idx)                  # an ATOM/RED is about to be performed at L2
    latency = mem.fence(w, scope)              # MEMBAR.CTA / GL / SYS
    mem.drain(now)  /  mem.flush()             # stores reaching L2; the end of a launch

The weak model (docs/fermi.md, "The memory model") keeps what makes fences
necessary on Fermi and no more:

- **A store is not visible at once.** It enters its SM's store queue. It becomes
  visible to the other warps of its SM after a few cycles (`sm_at`) and to every
  SM when it reaches L2 (`l2_at`), each time delayed by a jitter drawn from the seed and the store, so two
  stores of one warp to different words may become visible in either order.
  The warp that stored reads its own stores at once (forwarding). Stores of one
  SM to one word stay in order at both levels (coherence).
- **`MEMBAR.CTA`** makes the warp's later stores visible within the SM no earlier
  than its earlier ones; it orders nothing for other SMs. **`MEMBAR.GL`/`.SYS`**
  waits until the warp's stores, and the stores of other warps it has read from
  its SM's queue or that arrived before it at a block barrier (cumulativity, as
  in the PTX memory model), have reached L2.
- **Plain loads (`LD`, `LD.CA`) go through a per-SM L1 that is not coherent**: a
  line filled once is read again, whatever other SMs store since, until it is
  evicted (first in, first out, `l1_lines` lines) or this SM stores to it (L1 is
  write-evict). `LD.CG` and `LD.CV` read L2. No fence invalidates L1.
- **Atomics are performed at L2**, after this SM's queued stores to the same word.

Loads take effect when they issue, in program order, so load buffering never
shows: the model is stronger than PTX there (docs/fermi.md says which litmus
outcomes it allows). Everything is deterministic for a seed.
"""
from __future__ import annotations

import heapq

import numpy as np

LINE_WORDS = 32                       # a 128-byte L1 line


def memory_model(sim):
    kind, _, seed = sim.config.memory.partition(":")
    if kind == "sc":
        return ScMemory(sim)
    if not seed:                      # a seeded scheduling policy seeds the memory too
        _, _, seed = sim.config.policy.partition(":")
    return WeakMemory(sim, int(seed or 0))


class ScMemory:
    """Every access takes effect at L2 when it issues: memory is sequentially consistent in the
    order the warps issue. Fences cost time but order nothing that was not ordered already."""
    weak = False

    def __init__(self, sim):
        self.sim, self.gmem, self.config = sim, sim.gmem, sim.config

    def load(self, w, pat, cached: bool) -> tuple[np.ndarray, int]:
        return self.gmem.words[pat.idx_np], 0

    def store(self, w, pat, values: np.ndarray) -> None:
        sim, gmem = self.sim, self.gmem
        words = gmem.words
        changed = words[pat.idx_np] != values
        if changed.any():
            writer, pc = gmem.writer, w.pc
            for k in np.flatnonzero(changed).tolist():
                writer[pat.idx[k]] = (w.uid, pat.lanes[k], pc)
            sim.last_change = sim.now
        words[pat.idx_np] = values
        done = sim.now + self.config.global_store_latency + pat.segments - 1
        if done > w.stores_done_at:
            w.stores_done_at = done

    def before_atomic(self, w, idx: list[int]) -> None:
        pass

    def fence(self, w, scope: str) -> int:
        cfg = self.config
        if scope == "CTA":
            return cfg.membar_cta_latency
        return max(0, w.stores_done_at - self.sim.now) + cfg.membar_gl_latency

    def arrive(self, w, bar) -> None:
        pass

    def released(self, w, bar) -> None:
        pass

    next_drain = float("inf")

    def drain(self, now: int) -> None:
        pass

    def flush(self) -> None:
        pass

    def key(self, now: int) -> tuple:
        return ()


class PendingStore:
    """One lane's store on its way to L2: its sequence number, when its SM and L2 see it, the
    value, and who stored it (warp uid, lane, pc). The compiled core writes its queued stores
    back as these."""
    __slots__ = ("seq", "sm_at", "l2_at", "value", "uid", "lane", "pc")

    def __init__(self, seq, sm_at, l2_at, value, uid, lane, pc):
        self.seq, self.sm_at, self.l2_at, self.value = seq, sm_at, l2_at, value
        self.uid, self.lane, self.pc = uid, lane, pc


class WeakMemory(ScMemory):
    """The weak model (the module's docstring). Its state is these public attributes, which the
    compiled core (core/bridge.py) writes back whenever it stops, so that the reference engine,
    the livelock fingerprint (`key`) and diagnosis go on from there: `queues` (per SM: word →
    its PendingStores, in order), `l1` (per SM: line → its words, oldest first), `heap` ((l2_at,
    seq, sm, word) of every queued store), `next_drain`, `seq`, `hits`, `misses`, and per warp
    uid `sm_floor`, `sm_last` and `observed`. The core reads `seed`."""
    weak = True

    def __init__(self, sim, seed: int):
        super().__init__(sim)
        cfg = self.config
        self.seed = seed
        n = cfg.sms
        self.queues: list[dict[int, list[PendingStore]]] = [{} for _ in range(n)]   # per SM: word → in order
        self.l1: list[dict[int, np.ndarray]] = [{} for _ in range(n)]           # per SM: line → its words
        self.heap: list[tuple[int, int, int, int]] = []                          # (l2_at, seq, sm, word)
        self.next_drain = float("inf")
        self.seq = 0
        self.sm_floor: dict[int, int] = {}      # warp uid → earliest SM visibility of its next store
        self.sm_last: dict[int, int] = {}       # warp uid → latest SM visibility of its stores
        self.observed: dict[int, int] = {}      # warp uid → latest l2_at of others' stores it read
        self.hits = self.misses = 0

    # ---- loads
    def load(self, w, pat, cached: bool) -> tuple[np.ndarray, int]:
        s = w.sm.index
        idx_np = pat.idx_np
        extra = 0
        if cached:
            values, hit = self._through_l1(s, pat)
            if hit:
                extra = self.config.l1_latency - self.config.global_latency
        else:
            values = self.gmem.words[idx_np]
        queue = self.queues[s]
        if queue:
            mine = [k for k, i in enumerate(pat.idx) if i in queue]
            if mine:
                values = values.copy()
                now, uid = self.sim.now, w.uid
                for k in mine:
                    for p in reversed(queue[pat.idx[k]]):
                        if p.uid == uid or p.sm_at <= now:
                            values[k] = p.value
                            if p.uid != uid and p.l2_at > self.observed.get(uid, 0):
                                self.observed[uid] = p.l2_at
                            break
        return values, extra

    def _through_l1(self, s: int, pat) -> tuple[np.ndarray, bool]:
        """Values from this SM's L1, filling the lines it lacks from L2 (evicting the oldest).
        The lines are served one after another and each line's lanes read it as it is served:
        a later fill of the same access may evict an earlier line (a full L1 evicts the line
        filled first, which may be one this access just hit)."""
        l1 = self.l1[s]
        words = self.gmem.words
        hit = True
        values = None if len(pat.lines) == 1 else np.empty(len(pat.idx), dtype=np.uint32)
        for line in pat.lines:
            if line not in l1:
                hit = False
                self.misses += 1
                if len(l1) >= self.config.l1_lines:
                    del l1[next(iter(l1))]
                l1[line] = words[line * LINE_WORDS:(line + 1) * LINE_WORDS].copy()
            else:
                self.hits += 1
            if values is not None:
                here = pat.idx_np // LINE_WORDS == line
                values[here] = l1[line][pat.idx_np[here] - line * LINE_WORDS]
        if values is None:
            line = pat.lines[0]
            return l1[line][pat.idx_np - line * LINE_WORDS], hit
        return values, hit

    # ---- stores
    def store(self, w, pat, values: np.ndarray) -> None:
        sim, cfg = self.sim, self.config
        now, uid, s = sim.now, w.uid, w.sm.index
        # The jitter is a function of the store (not of a random stream), so that a repeated
        # machine state has the same future: a livelock fingerprint stays a proof.
        mix = hash((self.seed, uid, w.pc, pat.idx[0], int(values[0]))) & 0xFFFFFFFFFFFF
        sm_at = max(now + 1 + mix % (cfg.sm_store_jitter + 1), self.sm_floor.get(uid, 0))
        l2_at = now + cfg.global_store_latency - cfg.store_jitter // 2 + (mix >> 16) % (cfg.store_jitter + 1)
        if (mix >> 32) % cfg.straggler_every == 0:     # held up in the memory system (a congested slice)
            l2_at += (mix >> 36) % (cfg.straggler_delay + 1)
        l2_at = max(sm_at, l2_at + pat.segments - 1)
        queue, l1, heap = self.queues[s], self.l1[s], self.heap
        writer, pc = self.gmem.writer, w.pc
        last_sm = sm_at
        for lane, i, v in zip(pat.lanes, pat.idx, values.tolist()):
            q = queue.get(i)
            a, b = sm_at, l2_at
            if q is None:
                q = queue[i] = []
            else:                                  # one SM's stores to one word stay in order
                a, b = max(a, q[-1].sm_at), max(b, q[-1].l2_at)
            self.seq += 1
            q.append(PendingStore(self.seq, a, b, v, uid, lane, pc))
            heapq.heappush(heap, (b, self.seq, s, i))
            writer[i] = (uid, lane, pc)
            last_sm = max(last_sm, a)
            if b > w.stores_done_at:
                w.stores_done_at = b
            l1.pop(i // LINE_WORDS, None)           # L1 is write-evict
        self.sm_last[uid] = max(self.sm_last.get(uid, 0), last_sm)
        self.next_drain = heap[0][0]

    def drain(self, now: int) -> None:
        """Stores whose time has come reach L2."""
        heap = self.heap
        while heap and heap[0][0] <= now:
            _, seq, s, i = heapq.heappop(heap)
            self._retire(s, i, seq)
        self.next_drain = heap[0][0] if heap else float("inf")

    def _retire(self, s: int, i: int, seq: int) -> None:
        queue = self.queues[s]
        q = queue.get(i)
        if not q or q[0].seq != seq:
            return                                  # already performed (an atomic drained it)
        p = q.pop(0)
        if not q:
            del queue[i]
        words = self.gmem.words
        if words[i] != p.value:
            words[i] = p.value
            self.sim.last_change = self.sim.now
        self.l1[s].pop(i // LINE_WORDS, None)

    def flush(self) -> None:
        """The end of a launch: every store reaches L2."""
        while self.heap:
            _, seq, s, i = heapq.heappop(self.heap)
            self._retire(s, i, seq)
        self.next_drain = float("inf")

    # ---- atomics and fences
    def before_atomic(self, w, idx: list[int]) -> None:
        s = w.sm.index
        queue, l1 = self.queues[s], self.l1[s]
        for i in idx:
            q = queue.get(i)
            while q:
                self._retire(s, i, q[0].seq)
                q = queue.get(i)
            l1.pop(i // LINE_WORDS, None)

    def fence(self, w, scope: str) -> int:
        cfg, uid = self.config, w.uid
        if scope == "CTA":       # later accesses, shared ones too, come after the block sees these stores
            last = self.sm_last.get(uid, 0)
            self.sm_floor[uid] = last
            return max(cfg.membar_cta_latency, last - self.sim.now)
        until = max(w.stores_done_at, self.observed.get(uid, 0))
        return max(0, until - self.sim.now) + cfg.membar_gl_latency

    # ---- block barriers: cumulative, as in the PTX memory model
    def arrive(self, w, bar) -> None:
        uid = w.uid
        bar.stores_until = max(bar.stores_until, w.stores_done_at, self.observed.get(uid, 0))

    def released(self, w, bar) -> None:
        """A warp let through a barrier has observed what the arrivals stored before it: its next
        MEMBAR.GL waits for those stores too (so one thread's fence after `bar.sync` publishes
        the block's writes). Within the SM they are visible at once: the barrier's latency is
        longer than any store's way to its SM."""
        if bar.stores_until > self.observed.get(w.uid, 0):
            self.observed[w.uid] = bar.stores_until

    # ---- livelock fingerprints
    def key(self, now: int) -> tuple:
        """What of the memory state decides the future, with times relative to now."""
        queues = tuple(sorted((s, i, tuple((p.value, p.uid, max(0, p.sm_at - now), p.l2_at - now) for p in q))
                              for s, queue in enumerate(self.queues) for i, q in queue.items()))
        l1 = tuple((s, tuple((line, words.tobytes()) for line, words in cache.items()))
                   for s, cache in enumerate(self.l1) if cache)
        floors = tuple(sorted((u, t - now) for table in (self.sm_floor, self.sm_last, self.observed)
                              for u, t in table.items() if t > now))
        return queues, l1, floors
