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

- **A load that reads L2 (`LD.CG`, `LD.CV`) may be performed early**: it may return
  any value its word held since the warp's last fence (`MEMBAR`, any scope) or block
  barrier (from when the fence completed, or the barrier opened) and since this thread
  last read the word (a load hoisted above earlier loads to other words, and above the
  branch on them, as PTX allows). Each word keeps its last `HISTORY` values with the
  times they reached L2 (`hv`, `ht`, `hs`: value, time, the writer's SM; `hn` how
  many, 0 for a word not written in this launch); older than the kept history reads
  the oldest kept. Coherence stays: a thread never reads older than a value its own SM
  wrote (it may have read it from the queue) or than what it read of the word before
  (per warp uid, per lane: `ld_words`/`ld_times`, the last `LOAD_TABLE` words it read
  at L2 with when; one pushed out raises `ld_floor`, the time before which nothing
  superseded may be read). The lanes of one load that read one word read one value, the
  latest of their bounds applying (the instruction accesses the word once). The seeded hash
  chooses among the values allowed, as it draws a store's delay. Atomics are performed at L2, now.

So the only loads never reordered are L1 hits and misses (which are stale in their
own way) and loads after a fence; load buffering (LB) never shows: the model is
stronger than PTX there (docs/fermi.md says which litmus outcomes it allows).
Everything is deterministic for a seed.
"""
from __future__ import annotations

import heapq

import numpy as np

from .machine import HUNT_STRAGGLER_EVERY

LINE_WORDS = 32                       # a 128-byte L1 line
HISTORY = 4                           # values kept per word: the current one and three before it
LOAD_TABLE = 4                        # words a thread remembers reading at L2 (coherence)
HASH48 = 0xFFFFFFFFFFFF


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

    def atomic_wrote(self, w, i: int, value: int) -> None:
        pass

    def after_atomic(self, w, lanes: list[int], idx: list[int]) -> None:
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
        # hunt:SEED holds up one store in 2 on its way to L2, not one in 8: a fence left out shows more often
        self.hunting = cfg.policy.startswith("hunt:")
        self.straggler_every = HUNT_STRAGGLER_EVERY if self.hunting else cfg.straggler_every
        # hunt:SEED also lands a warp's unfenced stores last first: a store that follows another of
        # the warp's since its last fence reaches L2 as soon as its SM sees it, before the earlier
        # ones (to other words; one word's stay in order), as a missing fence allows
        self.first: dict[int, int] = {}        # warp uid → the earliest l2_at of those stores
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
        nglobal = max(1, len(self.gmem.words))   # the compiled core shares these four arrays
        self.hv = np.zeros((nglobal, HISTORY), np.int64)   # per word: its last values, newest first
        self.ht = np.zeros((nglobal, HISTORY), np.int64)   # when each reached L2 (-1: before the launch)
        self.hs = np.zeros((nglobal, HISTORY), np.int64)   # the SM that wrote it (-1: the host)
        self.hn = np.zeros(nglobal, np.int64)              # how many are kept (0: not written yet)
        # per warp uid, per lane: its loads read nothing superseded before ld_floor, nor before
        # ld_times[q] of word ld_words[q] (-1: a free entry); a warp not in them has zeros and -1s
        self.ld_floor: dict[int, np.ndarray] = {}      # uid → (32,)
        self.ld_words: dict[int, np.ndarray] = {}      # uid → (32, LOAD_TABLE)
        self.ld_times: dict[int, np.ndarray] = {}      # uid → (32, LOAD_TABLE)

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
        served = ()                           # lanes the SM's queue served
        if queue:
            mine = [k for k, i in enumerate(pat.idx) if i in queue]
            if mine:
                values = values.copy()
                now, uid = self.sim.now, w.uid
                served = set()
                for k in mine:
                    for p in reversed(queue[pat.idx[k]]):
                        if p.uid == uid or p.sm_at <= now:
                            values[k] = p.value
                            served.add(k)
                            if p.uid != uid and p.l2_at > self.observed.get(uid, 0):
                                self.observed[uid] = p.l2_at
                            break
        if not cached:
            old = np.flatnonzero(self.hn[idx_np])
            if len(old):
                values = self._early(w, pat, values.copy(), [k for k in old.tolist() if k not in served])
        return values, extra

    def _early(self, w, pat, values, lanes: list[int]) -> np.ndarray:
        """The lanes (of words written in this launch, not served by the SM's queue) read a value
        their word held since the bound (`_bound`), chosen by the seeded hash; then the warp
        remembers reading them now. The lanes that read one word read one value (one access of
        the instruction), bounded by the latest of their bounds."""
        uid, s, now, pc = w.uid, w.sm.index, self.sim.now, w.pc
        hv, ht, hs, hn = self.hv, self.ht, self.hs, self.hn
        self._tables(uid)
        bounds: dict[int, int] = {}
        for k in lanes:
            x = int(pat.idx[k])
            bounds[x] = max(bounds.get(x, 0), self._bound(uid, pat.lanes[k], x))
        for k in lanes:
            x = pat.idx[k]
            bound = bounds[int(x)]
            j, n = 0, int(hn[x])
            while j + 1 < n and hs[x, j] != s and ht[x, j] > bound:   # entry j + 1 was there after bound
                j += 1
            if j:
                mix = hash((self.seed, -2 - uid, pc, x, int(hv[x, 0]) * 8 + j + 1)) & HASH48
                j = mix % (j + 1)
            values[k] = hv[x, j]
        for k in lanes:
            self._remember(uid, pat.lanes[k], pat.idx[k], now)
        return values

    def _tables(self, uid: int) -> None:
        if uid not in self.ld_floor:
            self.ld_floor[uid] = np.zeros(32, np.int64)
            self.ld_words[uid] = np.full((32, LOAD_TABLE), -1, np.int64)
            self.ld_times[uid] = np.zeros((32, LOAD_TABLE), np.int64)

    def _bound(self, uid: int, lane: int, x: int) -> int:
        """A load of word x by this thread may read a value superseded after this time, and none earlier."""
        bound = int(self.ld_floor[uid][lane])
        words = self.ld_words[uid][lane]
        for q in range(LOAD_TABLE):
            if words[q] == x:
                return max(bound, int(self.ld_times[uid][lane, q]))
        return bound

    def _remember(self, uid: int, lane: int, x: int, t: int) -> None:
        """The thread read word x at L2 at time t: its later loads of x read nothing older. A full
        table forgets its oldest entry (the first of the oldest), raising the thread's floor to
        that entry's time."""
        words, times = self.ld_words[uid][lane], self.ld_times[uid][lane]
        for q in range(LOAD_TABLE):
            if words[q] == x:
                times[q] = max(times[q], t)
                return
        for q in range(LOAD_TABLE):
            if words[q] == -1:
                words[q], times[q] = x, t
                return
        oldest = int(np.argmin(times))
        floor = self.ld_floor[uid]
        floor[lane] = max(floor[lane], times[oldest])
        words[oldest], times[oldest] = x, t

    def _forget(self, uid: int, t: int) -> None:
        """A fence that completes at t, or a block barrier that opens then: the warp's later loads
        read nothing superseded before t."""
        self._tables(uid)
        self.ld_floor[uid][:] = t
        self.ld_words[uid][:] = -1
        self.ld_times[uid][:] = 0

    def landed(self, i: int, value: int, t: int, sm: int) -> None:
        """Word i takes `value` at L2 at time t (written by SM sm): its history keeps it (call it
        before gmem.words[i] changes: the first change keeps the value the launch began with)."""
        hv, ht, hs = self.hv, self.ht, self.hs
        n = int(self.hn[i])
        if n == 0:
            hv[i, 0], ht[i, 0], hs[i, 0] = int(self.gmem.words[i]), -1, -1
            n = 1
        hv[i, 1:], ht[i, 1:], hs[i, 1:] = hv[i, :-1].copy(), ht[i, :-1].copy(), hs[i, :-1].copy()
        hv[i, 0], ht[i, 0], hs[i, 0] = value, t, sm
        self.hn[i] = min(n + 1, HISTORY)

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
        if (mix >> 32) % self.straggler_every == 0:    # held up in the memory system (a congested slice)
            l2_at += (mix >> 36) % (cfg.straggler_delay + 1)
        l2_at = max(sm_at, l2_at + pat.segments - 1)
        if self.hunting:
            first = self.first.get(uid)
            if first is not None:
                l2_at = sm_at
            self.first[uid] = l2_at if first is None else min(first, l2_at)
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
            l2_at, seq, s, i = heapq.heappop(heap)
            self._retire(s, i, seq, l2_at)
        self.next_drain = heap[0][0] if heap else float("inf")

    def _retire(self, s: int, i: int, seq: int, t: int) -> None:
        """The store seq reaches L2 at time t (its l2_at, or earlier: an atomic drained it)."""
        queue = self.queues[s]
        q = queue.get(i)
        if not q or q[0].seq != seq:
            return                                  # already performed (an atomic drained it)
        p = q.pop(0)
        if not q:
            del queue[i]
        self.landed(i, p.value, t, s)
        words = self.gmem.words
        if words[i] != p.value:
            words[i] = p.value
            self.sim.last_change = self.sim.now
        self.l1[s].pop(i // LINE_WORDS, None)

    def flush(self) -> None:
        """The end of a launch: every store reaches L2."""
        while self.heap:
            l2_at, seq, s, i = heapq.heappop(self.heap)
            self._retire(s, i, seq, l2_at)
        self.next_drain = float("inf")

    # ---- atomics and fences
    def before_atomic(self, w, idx: list[int]) -> None:
        s = w.sm.index
        queue, l1 = self.queues[s], self.l1[s]
        for i in idx:
            q = queue.get(i)
            while q:
                self._retire(s, i, q[0].seq, self.sim.now)
                q = queue.get(i)
            l1.pop(i // LINE_WORDS, None)

    def atomic_wrote(self, w, i: int, value: int) -> None:
        """An atomic changed word i at L2, now (before gmem.words[i] changes)."""
        self.landed(i, value, self.sim.now, w.sm.index)

    def after_atomic(self, w, lanes: list[int], idx: list[int]) -> None:
        """The lanes read these words at L2, now: their later loads read nothing older."""
        now, hn = self.sim.now, self.hn
        self._tables(w.uid)
        for lane, i in zip(lanes, idx):
            if hn[i]:
                self._remember(w.uid, lane, i, now)

    def fence(self, w, scope: str) -> int:
        cfg, uid = self.config, w.uid
        self.first.pop(uid, None)
        if scope == "CTA":       # later accesses, shared ones too, come after the block sees these stores
            last = self.sm_last.get(uid, 0)
            self.sm_floor[uid] = last
            latency = max(cfg.membar_cta_latency, last - self.sim.now)
        else:
            until = max(w.stores_done_at, self.observed.get(uid, 0))
            latency = max(0, until - self.sim.now) + cfg.membar_gl_latency
        self._forget(uid, self.sim.now + latency)        # later loads are performed after it
        return latency

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
        self._forget(w.uid, self.sim.now)

    # ---- livelock fingerprints
    def key(self, now: int) -> tuple:
        """What of the memory state decides the future, with times relative to now."""
        queues = tuple(sorted((s, i, tuple((p.value, p.uid, max(0, p.sm_at - now), p.l2_at - now) for p in q))
                              for s, queue in enumerate(self.queues) for i, q in queue.items()))
        l1 = tuple((s, tuple((line, words.tobytes()) for line, words in cache.items()))
                   for s, cache in enumerate(self.l1) if cache)
        floors = tuple(sorted((u, t - now) for table in (self.sm_floor, self.sm_last, self.observed)
                              for u, t in table.items() if t > now))
        firsts = tuple(sorted((u, max(0, t - now)) for u, t in self.first.items()
                              if u in self._live_uids()))
        return queues, l1, floors, firsts, self._early_key(now)

    def _live_uids(self) -> set[int]:
        return {w.uid for sm in self.sim.sms for b in sm.blocks for w in b.warps if not w.done}

    def _early_key(self, now: int) -> tuple:
        """The words' histories and the threads' load bounds. A time in the past is only ever
        compared with the others (a bound set later is now or later, after all of them), and one
        before every live thread's floor compares as that floor: so the key holds each past time's
        rank among them (which a livelock repeats), and a future one (a fence's end) as from now."""
        zero, free = np.zeros(32, np.int64), np.full((32, LOAD_TABLE), -1, np.int64)
        live = [(w.uid, self.ld_floor.get(w.uid, zero), self.ld_words.get(w.uid, free),
                 self.ld_times.get(w.uid, free))
                for sm in self.sim.sms for b in sm.blocks for w in b.warps if not w.done]
        lmin = min((int(floor.min()) for _, floor, _, _ in live), default=0)
        words = np.flatnonzero(self.hn).tolist()
        hn, ht = self.hn, self.ht
        times = {max(int(ht[x, j]), lmin) for x in words for j in range(int(hn[x]) - 1)}
        for _, floor, held, when in live:
            times.update(max(t, lmin) for t in floor.tolist())
            times.update(max(t, lmin) for t in when[held >= 0].tolist())
        past = sorted(t for t in times if t < now)
        code = {t: (0, k) for k, t in enumerate(past)}
        code.update((t, (1, t - now)) for t in times if t >= now)
        history = tuple((x, self.hv[x, :hn[x]].tobytes(), self.hs[x, :hn[x]].tobytes(),
                         tuple(code[max(int(ht[x, j]), lmin)] for j in range(int(hn[x]) - 1))) for x in words)
        bounds = tuple((u, tuple(code[max(t, lmin)] for t in floor.tolist()), held.tobytes(),
                        tuple(code[max(t, lmin)] if x >= 0 else None
                              for x, t in zip(held.ravel().tolist(), when.ravel().tolist())))
                       for u, floor, held, when in live)
        return history, bounds
