"""Lowering of synchronization: primitive declarations and the statements that use them.

For @thread primitives the statements lower to the primitive's blocking
operations, structured ones tagged with a region number (`critical`:
mutex.lock ... mutex.unlock; `acquire`: sem.wait ... sem.post; `read`/`write`:
rw.lock ... rw.unlock with mode=read|write; `when`: chan.get for each input, the
body, region.end). A latch's `count_down` is latch.arrive, its `wait` latch.wait
(a blocking wait like a channel's `await`), and `sync` both. The passes take it from there:
elision and warp combining (-O2), then SIMT-safe structuring into spin loops.

A @warp or @block primitive is held by the whole warp or block: a leader lane
(`elect` / thread 0) acquires it, and the warp (__syncwarp) or block (bar.sync 0)
meets before anyone proceeds; at the release the party meets again and the
leader releases. Channel operations stay abstract at every granularity:
expand_primitives gives them the shape of their implementation.
"""
from __future__ import annotations

from math import prod

from ...core.handlers import HandlerTable
from ...core.types import BOOL, I32, U32
from ...frontend import ast as A
from ...frontend import pools
from ..impls.registry import default_implementation, implementations
from ..nodes import Imm, Prim, Ref, imm
from .context import LoweringContext
from .queue import declare_queue

statements = HandlerTable()
expressions = HandlerTable()     # the expressions on primitives: get, trylock, trywait


class SyncLowering:
    def __init__(self, cx: LoweringContext, preferred: dict | None = None):
        self.cx = cx
        self.preferred = preferred or {}     # a queue's PrimDecl → the implementation class the cost model chose
        self.queue_candidates: dict = {}     # IR name → (PrimDecl, parts) of a queue the cost model may choose again
        self.b = cx.b
        self.prims_of: dict = {}      # PrimDecl node → primitive name
        self.queues: dict = {}        # a queue's PrimDecl node → (its implementation class, its parts)
        self.queue_counters: dict = {}   # an mbarrier queue's counts of puts and gets: name → register
        self.region_count = 0
        # primitives used with `trylock`: their default implementation must let a waiter give up
        # (every `trylock` is an expression the checker typed)
        self.tried = {self.cx.symbol(e.place).decl for e in self.cx.types if isinstance(e, A.TryLock)}
        # work pools (frontend/pools.py): the queues `for` loops take from and put into, and those puts
        loops = pools.find_pools(cx.info.decl.body, cx.refs)
        self.pool_decls = pools.pool_queues(loops, cx.refs)
        self.inner_puts = {id(put) for puts in loops.values() for put in puts}
        self.fault_sites = 0          # the run-time checks lowering adds itself (a pool's full queue)

    def prim_name(self, sym) -> str:
        return self.prims_of[sym.decl]

    def default_implementation(self, kind: str, placement: str, granularity: str, **how):
        """The target's default implementation of a primitive (impls/registry.py), for the parts
        a queue's implementation declares."""
        return default_implementation(self.cx.ctx.target, kind, placement, granularity, **how)

    def new_region(self) -> int:
        self.region_count += 1
        return self.region_count

    # ---- declarations ------------------------------------------------------------------

    @statements.on(A.PrimDecl)
    def prim_decl(self, d: A.PrimDecl) -> None:
        info = next(p for p in self.cx.info.prims if p.decl is d)
        name = self.b.fresh(d.name.text)
        if info.kind == "queue":
            self.queues[d] = declare_queue(self, d, info, name)
            return
        if info.impl is not None:
            impl, params = info.impl.name, tuple(info.impl_params.items())
            why = "chosen with `using`"
        else:
            choice = default_implementation(self.cx.ctx.target, info.kind, info.placement, info.granularity,
                                            info.named, d in self.tried, prod(info.dims), info.permits)
            impl, params = choice.impl, choice.params
            why = f"the {self.cx.ctx.target.name} default: {choice.reason}"
        chosen = implementations(info.kind)[impl]
        if chosen.lock_bits and self.cx.ctx.target.lock_bits is None:
            why += "; this target has no lock bits, so it becomes a flag in shared memory"
        prim = Prim(name, info.kind, info.dims, info.placement, info.granularity, impl, params, info.elem,
                    info.count, (), d.span)
        self.b.prims.append(prim)
        self.prims_of[d] = name
        self.cx.ctx.remark(self.b.name, "implementation",
                           f"{info.kind} `{d.name.text}` ({info.placement} @{info.granularity}): {impl} — {why}",
                           d.span)

    def place(self, p: A.Place) -> tuple[Prim, Ref]:
        sym = self.cx.symbol(p)
        name = self.prims_of[sym.decl]
        prim = self.b.prim(name)
        index = self.cx.exprs.linear(list(p.indices), prim.dims) if p.indices else imm(0)
        return prim, Ref(name, index)

    # ---- parties: who acts for a @warp or @block primitive ----------------------------------

    def leader(self, gran: str, span):
        """(mask, is-leader): a warp's lanes and lane 0 (KernelBuilder.warp_party says why never
        `activemask`), or (None, is-thread-0) for a block."""
        if gran == "warp":
            return self.b.warp_party(self.cx.builtin, span, party="sync")
        # party=leader marks the branch as the compiler's own: hazard checks do not count it as divergence
        return None, self.b.op("cmp.eq", BOOL, self.cx.builtin("tid"), imm(0), hint="leader", span=span,
                               party="leader")

    def party_sync(self, gran: str, mask, span) -> None:
        # party=sync: the meeting belongs to the statement (hazard checks judge the statement)
        if gran == "warp":
            self.b.emit("warp.sync", (), (mask,), span, party="sync")
        else:
            self.b.emit("bar.sync", (), (imm(0),), span, party="sync")

    def only_where(self, cond, emit, span, hint: str) -> None:
        """Run `emit()` only where `cond` holds (a party's leader; a queue's try that took a permit)."""
        then, done = self.b.new_block(hint), self.b.new_block(f"{hint}.done")
        self.b.branch(cond, then, done, span)
        self.b.at(then)
        emit()
        self.b.jump(done)
        self.b.at(done)

    def acquire_as_party(self, prim: Prim, ref: Ref, op: str, span, more=(), **attrs):
        """The leader of a @warp or @block party acquires for it (`more`: a semaphore's permits
        operand, the leader's), then the party meets."""
        mask, lead = self.leader(prim.granularity, span)
        self.only_where(lead, lambda: self.b.emit(op, (), (ref, *more), span, **attrs), span, "acquire")
        self.party_sync(prim.granularity, mask, span)
        return mask, lead

    def release_as_party(self, prim: Prim, ref: Ref, op: str, span, mask=None, lead=None, more=(), **attrs) -> None:
        if lead is None:
            mask, lead = self.leader(prim.granularity, span)
        self.party_sync(prim.granularity, mask, span)
        self.only_where(lead, lambda: self.b.emit(op, (), (ref, *more), span, **attrs), span, "release")

    def permits(self, k) -> tuple:
        """The operands a semaphore operation takes for `(k)`: none for one permit (no `(k)`, or the
        constant 1), else k evaluated once here, as an i32 in a register of its own (the checker saw
        an integer; a wider one is clamped to 0 .. 2^31-1 first, and a value below 1 is the
        run-time check's: passes/bounds.py)."""
        if k is None:
            return ()
        n = self.cx.exprs.expr(k)
        if isinstance(n, Imm) and n.value == 1:
            return ()
        if n.type != I32:
            n = self.b.op("cvt", I32, self.clamp(n, 0, 0x7FFF_FFFF, k.span), span=k.span)
        elif not isinstance(n, Imm):     # a copy: `acquire s(n)` gives back what it took if its body assigns `n`
            n = self.b.op("mov", I32, n, hint="permits", span=k.span)
        return (n,)

    # ---- structured statements -----------------------------------------------------------------

    @statements.on(A.Critical)
    def critical(self, s: A.Critical) -> None:
        prim, ref = self.place(s.target)
        self.guarded(prim, ref, "mutex.lock", "mutex.unlock", s.body, s.span)

    @statements.on(A.Acquire)
    def acquire(self, s: A.Acquire) -> None:
        prim, ref = self.place(s.target)
        self.guarded(prim, ref, "sem.wait", "sem.post", s.body, s.span, self.permits(s.permits))

    @statements.on(A.RwSection)
    def rw_section(self, s: A.RwSection) -> None:
        prim, ref = self.place(s.target)
        self.guarded(prim, ref, "rw.lock", "rw.unlock", s.body, s.span, mode=s.mode)

    def guarded(self, prim: Prim, ref: Ref, acquire: str, release: str, body: A.Block, span, more=(),
                **attrs) -> None:
        """The section: acquire, the body, release (`more`: the permits both take, evaluated once)."""
        end = body.span.last_char()
        if prim.granularity == "thread":
            region = self.new_region()
            self.b.emit(acquire, (), (ref, *more), span, region=region, **attrs)
            self.cx.stmts.block(body)
            self.b.emit(release, (), (ref, *more), end, region=region, **attrs)
            return
        mask, lead = self.acquire_as_party(prim, ref, acquire, span, more, **attrs)
        self.cx.stmts.block(body)
        self.release_as_party(prim, ref, release, end, mask, lead, more, **attrs)

    @statements.on(A.When)
    def when(self, s: A.When) -> None:
        region = self.new_region()
        for binding in s.bindings:
            prim, ref = self.place(binding.source)
            reg = self.b.reg(prim.elem, binding.name.text)
            self.cx.vars[binding] = reg
            self.b.emit("chan.get", (reg,), (ref,), binding.span, region=region)
        self.cx.stmts.block(s.body)
        self.b.emit("region.end", (), (), s.body.span.last_char(), region=region)

    # ---- low-level statements ------------------------------------------------------------------

    _PRIM_OPS = {"lock": "mutex.lock", "unlock": "mutex.unlock", "wait": "sem.wait", "post": "sem.post",
                 "signal": "chan.signal", "await": "chan.await", "sync": "prim.sync", "arrive": "prim.arrive"}

    # (a barrier's `wait` is prim.wait: the second half of a grid barrier's `arrive` ... `wait`)
    # a latch: count_down arrives, wait waits, and sync does both
    _LATCH_OPS = {"count_down": ("latch.arrive",), "wait": ("latch.wait",), "sync": ("latch.arrive", "latch.wait")}

    @statements.on(A.PrimOp)
    def prim_op(self, s: A.PrimOp) -> None:
        if s.op == "close":
            impl, parts, index = self.queue_place(s.target)
            impl.close(self, parts, index, s.span)
            return
        prim, ref = self.place(s.target)
        if prim.kind == "latch":
            for op in self._LATCH_OPS[s.op]:
                if prim.granularity == "thread":
                    self.b.emit(op, (), (ref,), s.span)
                elif op == "latch.wait":
                    self.acquire_as_party(prim, ref, op, s.span)
                else:
                    self.release_as_party(prim, ref, op, s.span)
            return
        op = "prim.wait" if prim.kind == "barrier" and s.op == "wait" else self._PRIM_OPS[s.op]
        more = self.permits(s.permits) if prim.kind == "semaphore" else ()
        if prim.kind in ("mutex", "semaphore") and prim.granularity != "thread":
            if op in ("mutex.lock", "sem.wait"):
                self.acquire_as_party(prim, ref, op, s.span, more)
            else:
                self.release_as_party(prim, ref, op, s.span, more=more)
            return
        self.b.emit(op, (), (ref, *more), s.span)

    def queue_place(self, p: A.Place):
        """(the queue's implementation class, its parts, the linear index of the instance) where `p`
        names a queue, else None."""
        queue = self.queues.get(self.cx.symbol(p).decl)
        if queue is None:
            return None
        impl, parts = queue
        return impl, parts, (self.cx.exprs.linear(list(p.indices), parts.dims) if p.indices else imm(0))

    @statements.on(A.Put)
    def put(self, s: A.Put) -> None:
        queue = self.queue_place(s.target)
        if queue is not None:
            impl, parts, index = queue
            if s.range is not None:         # `put q = src[lo .. hi]` (a @thread ring: the front end, E0426)
                source = self.cx.arrays[self.cx.symbol(s.value).decl]
                lo, hi = (self.cx.exprs.linear([end], (None,)) for end in s.range)
                impl.put_range(self, parts, index, source, lo, hi, s.span)
                return
            value = self.cx.exprs.expr(s.value, parts.elem)
            if id(s) in self.inner_puts:
                impl.inner_put(self, parts, index, value, s.span)
            else:
                impl.put(self, parts, index, value, s.span)
            return
        prim, ref = self.place(s.target)
        value = self.cx.exprs.expr(s.value, prim.elem)
        self.b.emit("chan.put", (), (ref, value), s.span)

    @expressions.on(A.Get)
    def get(self, e: A.Get, want, dest):
        queue = self.queue_place(e.place)
        if queue is not None:
            impl, parts, index = queue
            return self.cx.exprs.emit_value(dest, "mov", parts.elem, impl.get(self, parts, index, e.span), span=e.span)
        prim, ref = self.place(e.place)
        return self.cx.exprs.emit_value(dest, "chan.get", prim.elem, ref, span=e.span)

    @expressions.on(A.Tile)
    def tile(self, e: A.Tile, want, dest):
        prim, ref = self.place(e.place)
        return self.cx.exprs.emit_value(dest, "scan.tile", I32, ref, span=e.span)

    @expressions.on(A.Scan)
    def scan(self, e: A.Scan, want, dest):
        prim, ref = self.place(e.place)
        value = self.cx.exprs.expr(e.value, prim.elem)
        return self.cx.exprs.emit_value(dest, "scan.add", prim.elem, ref, value, span=e.span,
                                        side="inclusive" if e.inclusive else "exclusive")

    @expressions.on(A.TryPut)
    def tryput(self, e: A.TryPut, want, dest):
        impl, parts, index = self.queue_place(e.place)
        return impl.tryput(self, parts, index, self.cx.exprs.expr(e.value, parts.elem), dest, e.span)

    @statements.on(A.ForEach)
    def for_each(self, s: A.ForEach) -> None:
        impl, parts, index = self.queue_place(s.source)
        var = self.b.reg(parts.elem, s.var.text)
        self.cx.vars[s] = var
        impl.for_each(self, parts, index, var, s.body, s.span)

    @statements.on(A.TryGet)
    def tryget(self, s: A.TryGet) -> None:
        impl, parts, index = self.queue_place(s.place)
        got = self.b.reg(parts.elem, s.name.text)
        self.cx.vars[s] = got
        took = impl.tryget(self, parts, index, got, s.span)
        then, other, done = self.b.new_block("took"), self.b.new_block("empty"), self.b.new_block("tryget.end")
        self.b.branch(took, then, other, s.span)
        self.b.at(then)
        self.cx.stmts.block(s.body)
        self.b.jump(done)
        self.b.at(other)
        if s.orelse is not None:
            self.cx.stmts.block(s.orelse)
        self.b.jump(done)
        self.b.at(done)

    @expressions.on(A.TryLock)
    def trylock(self, e: A.TryLock, want, dest):
        prim, ref = self.place(e.place)
        return self.try_as_party(prim, "mutex.trylock", (ref,), e.span, dest)

    @expressions.on(A.TryWait)
    def trywait(self, e: A.TryWait, want, dest):
        """`trywait s` is sem.trywait; `trywait s for n` is sem.tryfor with n, evaluated once, as an
        i32; `trywait s for t us` is sem.tryfor unit=ns with t in nanoseconds, as a u32."""
        prim, ref = self.place(e.place)
        more = self.permits(e.permits)
        if e.attempts is None:
            return self.try_as_party(prim, "sem.trywait", (ref, *more), e.span, dest)
        n = self.cx.exprs.expr(e.attempts)
        if e.unit is not None:
            per = A.TIME_UNITS[e.unit.text]      # clamp to 0 .. 4 s first: the product then fits a u32
            n = self.b.op("cvt", U32, self.clamp(n, 0, A.MAX_TRYWAIT_NS // per, e.span), span=e.span)
            if per != 1:
                n = self.b.op("mul", U32, n, imm(per, U32), span=e.span)
            return self.try_as_party(prim, "sem.tryfor", (ref, n, *more), e.span, dest, unit="ns")
        if n.type != I32:    # clamp to 0..2^31-1 before narrowing: more attempts than that never end anyway
            n = self.b.op("cvt", I32, self.clamp(n, 0, 0x7FFF_FFFF, e.span), span=e.span)
        return self.try_as_party(prim, "sem.tryfor", (ref, n, *more), e.span, dest)

    def new_fault_site(self) -> int:
        """A site number for a run-time check lowering adds (the bounds pass numbers its own after)."""
        self.fault_sites += 1
        return self.fault_sites - 1

    def clamp(self, n, low: int, high: int, span):
        """n limited to low .. high, in n's type (a bound the type cannot pass is left out)."""
        t = n.type
        if t.signed or low > 0:
            n = self.b.op("max", t, n, imm(low, t), span=span)
        if high < (1 << (t.bits - t.signed)) - 1:
            n = self.b.op("min", t, n, imm(high, t), span=span)
        return n

    def try_as_party(self, prim: Prim, op: str, args: tuple, span, dest, **attrs):
        """A try (true when it took the primitive): the thread's own, or the party leader's for all."""
        if prim.granularity == "thread":
            return self.cx.exprs.emit_value(dest, op, BOOL, *args, span=span, **attrs)
        mask, lead = self.leader(prim.granularity, span)
        got = self.b.reg(BOOL, "got")
        self.b.assign(got, imm(False, BOOL), span)
        self.only_where(lead, lambda: self.b.emit(op, (got,), args, span, **attrs), span, "try")
        if prim.granularity == "warp":   # the leader's answer, for every lane
            return self.cx.exprs.emit_value(dest, "vote.any", BOOL, got, mask, span=span)
        # thread 0 tells the block through a shared word: the first barrier lets every thread
        # finish reading the word's last answer, the second publishes the new one
        shared = self.trylock_slot()
        self.b.emit("bar.sync", (), (imm(0),), span)
        self.only_where(lead, lambda: self.b.emit("st", (), (Ref(shared, imm(0)), self.b.op(
            "cvt", I32, got, span=span)), span), span, "tell")
        self.b.emit("bar.sync", (), (imm(0),), span)
        word = self.b.op("ld", I32, Ref(shared, imm(0)), span=span, uniform="block")
        return self.cx.exprs.binop_into(dest, "cmp.ne", BOOL, word, imm(0), span=span)

    def trylock_slot(self) -> str:
        """A shared word through which thread 0 tells its block whether a @block trylock succeeded."""
        from ..nodes import Array
        for a in self.b.arrays:
            if a.name == "trylock.result":
                return a.name
        self.b.add_array(Array("trylock.result", "shared", I32, (1,), "data"))
        return "trylock.result"

    @statements.on(A.BarrierStmt)
    def barrier(self, s) -> None:
        self.b.emit("bar.sync", (), (imm(0),), s.span)

    @statements.on(A.Fence)
    def fence(self, s: A.Fence) -> None:
        self.b.emit("fence", (), (), s.span, order="sc", scope=s.scope.text)
