"""Primitive rules of the checker: declarations, granularity × placement, implementations,
and the statements that use primitives (critical, acquire, when, put, get, lock, ...).

The rules, in the order they are checked:
  * a granularity is @thread, @warp, @block or @grid, and one the kind allows (@grid only for barriers);
  * shared memory belongs to one block, so a shared primitive cannot be contended by blocks (@block/@grid);
  * warp and block barriers are SM hardware and live `in shared`;
  * a semaphore takes its initial count, a latch its count of parties (>= 1, and no more than a
    shared latch's block can have); a named barrier (@warp with a count) counts threads in
    multiples of 32, no more than the block has, and a kernel has at most 15 of them;
  * a queue takes its capacity (>= 1);
  * a channel or a queue declares its slot type, nothing else does;
  * `using` names an implementation of that kind that supports the placement and granularity.
"""
from __future__ import annotations

from ..core.diagnostics import Note, did_you_mean
from ..core.handlers import HandlerTable
from . import ast as A
from . import pools
from .check_context import CheckContext
from .builtins import FENCE_SCOPES
from .catalogue import GRANULARITIES, KINDS, MAX_NAMED_BARRIERS
from .symbols import PrimInfo, Symbol
from ..core.records import RecordType
from ..core.types import ERROR, ArrayType, PrimType, is_int

# statement → the primitive kind it works on
# statement → the primitive kinds it works on (`wait` and `sync` mean one thing per kind)
OP_KINDS = {
    "critical": ("mutex",), "lock": ("mutex",), "unlock": ("mutex",), "trylock": ("mutex",),
    "acquire": ("semaphore",), "wait": ("semaphore", "latch", "barrier"), "post": ("semaphore",), "trywait": ("semaphore",),
    "when": ("channel",), "get": ("channel", "queue"), "put": ("channel", "queue"), "signal": ("channel",),
    "tryput": ("queue",), "tryget": ("queue",), "close": ("queue",), "for": ("queue",),
    "await": ("channel",),
    "sync": ("barrier", "latch"), "arrive": ("barrier",),
    "read": ("rwlock",), "write": ("rwlock",), "count_down": ("latch",),
    "tile": ("scan",), "exclusive": ("scan",), "inclusive": ("scan",),
}
# kind → how to use it, for "wrong kind" help
_USES = {
    "mutex": "`critical {n} {{ }}`, `lock {n}`, `unlock {n}` or `trylock {n}`",
    "semaphore": "`acquire {n} {{ }}`, `wait {n}`, `post {n}` or `trywait {n}`",
    "rwlock": "`read {n} {{ }}` or `write {n} {{ }}`",
    "latch": "`count_down {n}`, `wait {n}` or `sync {n}`",
    "channel": "`put {n}[..] = v`, `get {n}[..]`, `when x = {n}[..] {{ }}`, `await` or `signal`",
    "queue": "`put {n} = v`, `get {n}`, `tryput {n} = v`, `tryget v = {n} {{ }}`, `close {n}` and "
             "`for v in {n} {{ }}`",
    "barrier": "`sync {n}` (`arrive {n}` for a named barrier; `arrive {n}` ... `wait {n}` for a grid barrier)",
    "scan": "`let t = tile {n}` and then `let before = exclusive {n}(v)` (or `inclusive`)",
}
# the slot types a scan adds (numbers; a bool has no sum)
SCAN_TYPES = ("i32", "u32", "i64", "u64", "f32", "f64")


statements = HandlerTable()


class PrimitiveRules:
    def __init__(self, cx: CheckContext):
        self.cx = cx

    # ---- declarations ------------------------------------------------------------------

    @statements.on(A.PrimDecl)
    def prim_decl(self, d: A.PrimDecl, pos):
        if pos.where != "top" and not self.cx.kernel_only(f"a {d.kind} declaration", d.span, pos):
            return
        if not pos.top_level:
            self.cx.error("E0412", f"declare the {d.kind} `{d.name.text}` at the top level of the kernel body",
                          d.span, help="primitives are allocated once per launch; move the declaration up")
        rule = KINDS[d.kind]
        gran = d.granularity.text
        ok = True
        if gran not in GRANULARITIES:
            self.cx.error("E0403", f"unknown granularity `@{gran}`", d.granularity.span,
                          help=did_you_mean(gran, GRANULARITIES, "@") or
                          "the granularities are @thread, @warp, @block and @grid")
            ok = False
        elif gran not in rule.granularities:
            why = "`@grid` is only for barriers" if gran == "grid" else \
                "its parties are the blocks, each adding its tile" if d.kind == "scan" else \
                "a barrier's participants are warps, blocks or the grid, not single threads"
            self.cx.error("E0401", f"a {d.kind} cannot have granularity `@{gran}`: {why}", d.granularity.span,
                          help=f"a {d.kind} can be " + ", ".join(f"@{g}" for g in rule.granularities))
            ok = False
        elif d.placement == "shared" and (gran == "grid" or (gran == "block" and d.kind != "barrier")):
            # (A block barrier is the block's own threads meeting: it belongs in shared.)
            self.cx.error("E0402", f"a shared-memory {d.kind} cannot be contended across blocks", d.span,
                          notes=[Note("each block has its own shared memory, so blocks would never meet")],
                          help=f"use `in global @{gran}`" + ("" if gran == "grid" else
                                                          ", or `@thread`/`@warp` to synchronize within a block"))
            ok = False
        elif d.kind == "barrier" and gran in ("warp", "block") and d.placement == "global":
            self.cx.error("E0414", f"a {gran} barrier is SM hardware; declare it `in shared`", d.span)
            ok = False

        if ok and d.kind == "scan" and pos.kernel is None and self.cx.library:
            self.cx.error("E0419", "a library cannot vend a scan: every scan ends only where the kernel's `tile` "
                          "and scan stand in their one shape, which a C++ caller's kernel would have to keep",
                          d.span, help="declare the scan in the kernel that uses it (docs/language.md, \"Scans\")")
            ok = False
        if ok and d.kind == "scan" and d.dims:
            self.cx.error("E0406", "a scan is one running sum: it takes no array size", d.dims[0].span,
                          help="declare one scan for each running sum")
            ok = False
        dims = self.cx.exprs.dims(d.dims, pos, "a primitive array size")
        info = PrimInfo(d, d.kind, dims or (), d.placement, gran)
        if ok:
            self._prim_args(d, rule, info, pos)
            self._prim_elem(d, rule, info, vended=pos.kernel is None and self.cx.library)
            if d.impl is not None:
                self._prim_impl(d, info, pos)
        else:
            for a in d.args:
                self.cx.exprs.expr(a, pos)
        if ok and dims is not None:
            if pos.kernel is None:          # top level: kernels that use it take it in (prim_place)
                info.top_level = True
                self.cx.module.prims.setdefault(d.name.text, info)
            else:
                self._take_in(info, d.span, pos)
        self.cx.declare(pos.scope, Symbol(d.name.text, "prim", PrimType(d.kind, info.dims, info.elem), d, info=info))

    def take_in(self, info: PrimInfo, span, pos) -> None:
        """A use of `info` in a kernel: a top-level primitive the kernel has not used yet becomes its own."""
        if info.top_level and pos.kernel is not None and info not in pos.kernel.prims:
            self._take_in(info, span, pos)

    def _take_in(self, info: PrimInfo, span, pos) -> None:
        """The kernel allocates `info` for each launch (a top-level one on its first use)."""
        kernel = pos.kernel
        kernel.prims.append(info)
        threads = kernel.threads_per_block
        if info.top_level and info.is_named_barrier and threads is not None and info.count > threads:
            self.cx.error("E0405", f"the named barrier `{info.decl.name.text}` of {info.count} threads cannot fill "
                          f"in a block of {threads}", span, notes=[Note("declared here", info.decl.span)])
        if info.top_level and info.kind == "latch" and info.count is not None:   # judged by this kernel's block
            self._latch_can_open(info.decl, info, info.count, span, pos)
        if info.is_named_barrier and kernel.named_barriers > MAX_NAMED_BARRIERS:
            self.cx.error("E0407", f"the kernel needs {kernel.named_barriers} named barriers; a block has "
                          f"{MAX_NAMED_BARRIERS} (barrier 0 serves `barrier`)", span)

    def _prim_args(self, d, rule, info: PrimInfo, pos) -> None:
        args = list(d.args)
        for kw in d.kwargs:
            if rule.arg is not None and kw.name.text == rule.arg and not args:
                args.append(kw.value)          # `semaphore s(count=4)` says the same as `s(4)`
            elif d.kind == "queue" and kw.name.text == "writers":
                self._writers(kw.value, info, pos)
            else:
                self.cx.error("E0406", f"a {d.kind} has no argument named `{kw.name.text}`", kw.name.span,
                              help="implementation parameters go after `using`, e.g. `using backoff(max_delay=512)`")
        takes = rule.arg is not None and not (d.kind == "barrier" and info.granularity != "warp")
        info.named = d.kind == "barrier" and info.granularity == "warp" and bool(args)
        if not takes:
            if args:
                what = f"a {info.granularity} barrier" if d.kind == "barrier" else f"a {d.kind}"
                self.cx.error("E0406", f"{what} takes no arguments", args[0].span,
                              help="only semaphores and latches (their count), queues (their capacity) and named @warp "
                                   "barriers (their thread count) do")
            return
        if len(args) > 1:
            self.cx.error("E0406", f"a {d.kind} takes one argument, its {rule.arg}", args[1].span)
        if not args:
            if rule.arg_required:
                what = "capacity" if d.kind == "queue" else "initial count"
                self.cx.error("E0406", f"a {d.kind} needs its {what}: `{d.kind} {d.name.text}"
                              f"({8 if d.kind == 'queue' else 1}) ...`", d.span)
            return
        arg = args[0]
        count = self.cx.exprs.int_constant(arg, pos, f"a {d.kind}'s {rule.arg}")
        if count is None:
            return
        if d.kind == "queue":
            if count < 1 or count >= 1 << 20:
                self.cx.error("E0306", f"a queue holds 1 to 2^20 - 1 values, found {count}", arg.span,
                              help="with no room, every `put` would wait for a `get` that has nothing to take")
                return
        elif d.kind == "semaphore":
            if count < 0:
                self.cx.error("E0306", f"a semaphore's count must not be negative, found {count}", arg.span)
                return
        elif d.kind == "latch":
            if count < 1 or count >= 1 << 31:
                self.cx.error("E0306", f"a latch counts 1 to 2^31 - 1 parties, found {count}", arg.span,
                              help="a latch that nobody counts down is always open: drop it")
                return
            if not self._latch_can_open(d, info, count, arg.span, pos):
                return
        else:
            threads = pos.kernel.threads_per_block if pos.kernel is not None else None
            if count <= 0 or count % 32:
                self.cx.error("E0405", f"a named barrier counts whole warps: {count} is not a positive multiple of 32",
                              arg.span, help=f"use {max(32, (count + 31) // 32 * 32)}")
                return
            if threads is not None and count > threads:
                self.cx.error("E0405", f"a named barrier of {count} threads cannot fill in a block of {threads}",
                              arg.span)
                return
        info.count = count

    def _writers(self, arg, info: PrimInfo, pos) -> None:
        """`queue q(8, writers = N)`: the queue closes at its N-th `close`."""
        n = self.cx.exprs.int_constant(arg, pos, "a queue's `writers`")
        if n is None:
            return
        if n < 1 or n >= 1 << 31:
            self.cx.error("E0306", f"a queue's writers count 1 to 2^31 - 1 `close`s, found {n}", arg.span,
                          help="each thread (or party) that puts closes once when it is done")
            return
        info.writers = n

    def _latch_can_open(self, d, info: PrimInfo, count: int, span, pos) -> bool:
        """A shared latch's parties are its block's threads or warps, fixed by the kernel's header;
        a count above them can never reach zero (E0416). A global latch's parties depend on the
        grid, which a `launch` may change, so it is not judged here."""
        threads = pos.kernel.threads_per_block if pos.kernel is not None else None
        if info.placement != "shared" or threads is None:
            return True
        parties, what = (threads, "threads") if info.granularity == "thread" else (-(-threads // 32), "warps")
        if count <= parties:
            return True
        self.cx.error("E0416", f"the latch `{d.name.text}` waits for {count} count-downs, but its block has only "
                      f"{parties} {what}: it can never open", span,
                      notes=[Note(f"each block has its own shared latch, counted by its own {what}")],
                      help=f"count at most {parties}, or declare it `in global` to count across blocks")
        return False

    def _prim_elem(self, d, rule, info: PrimInfo, vended: bool = False) -> None:
        """The slot type of a channel, queue or scan (`vended`: a library's own, vended to C++)."""
        if rule.carries_values:
            if d.elem is None:
                self.cx.error("E0406", f"a {d.kind} needs a slot type: `{d.kind} {d.name.text}...: i32 in ...`",
                              d.name.span)
                info.elem = ERROR
            else:
                info.elem = self.cx.elem_of(d.elem)
                if isinstance(info.elem, RecordType) and d.kind == "scan":
                    self.cx.error("E0214", f"a scan adds numbers; a `{info.elem.name}` record is no number",
                                  d.elem.span, help="scan one field of it: `scan s: i32 in ...` and add `e.count`")
                    info.elem = ERROR
                if d.kind == "scan" and info.elem is not ERROR and info.elem.name not in SCAN_TYPES:
                    self.cx.error("E0406", f"a scan adds numbers ({', '.join(SCAN_TYPES)}), not {info.elem}",
                                  d.elem.span, help="scan a count instead: `u32(flag)` is 1 or 0")
        elif d.elem is not None:
            self.cx.error("E0406", f"only channels, queues and scans carry values; a {d.kind} has no slot type",
                          d.elem.span)

    def _prim_impl(self, d, info: PrimInfo, pos) -> None:
        ref = d.impl
        known = self.cx.catalogue[d.kind]
        impl = known.get(ref.name.text)
        if impl is None:
            self.cx.error("E0408", f"no {d.kind} implementation named `{ref.name.text}`", ref.name.span,
                          help=did_you_mean(ref.name.text, known) or
                          f"{d.kind} implementations: " + ", ".join(f"`{n}`" for n in known))
            return
        if info.placement not in impl.placements or info.granularity not in impl.granularities:
            fits = [n for n, i in known.items()
                    if info.placement in i.placements and info.granularity in i.granularities]
            self.cx.error("E0409", f"`{impl.name}` does not implement a {d.kind} `in {info.placement} @{info.granularity}`",
                          ref.name.span,
                          notes=[Note(f"`{impl.name}` supports " + ", ".join(impl.placements) + " memory at "
                                   + ", ".join(f"@{g}" for g in impl.granularities))],
                          help=("these do: " + ", ".join(f"`{n}`" for n in fits)) if fits else None)
            return
        # a library's queue is vended to C++ callers, who owe it one party a side (docs/stdlib.md);
        # a module's is too, and its importers' kernels cannot use it (they declare their own)
        vendable = impl.vendable and (self.cx.library or self.cx.module.is_module)
        if impl.counted and pos.kernel is None and not vendable:
            self.cx.error("E0409", f"a `{impl.name}` queue is declared in the kernel that uses it: each side "
                          "counts its own puts or gets, which the kernel's analyses must see come from one party",
                          ref.name.span,
                          help="declare it in the kernel's body, or use the default `ring`"
                          + ("; a library's own file may declare it, to vend it to C++" if impl.vendable
                             else ", which a library can vend"))
            return
        threads = pos.kernel.threads_per_block if pos.kernel is not None else None
        unsized = threads is None and not vendable      # (a library's C++ caller owes whole warps)
        if impl.whole_warps and (unsized or threads is not None and threads % 32):
            self.cx.error("E0409", f"an `{impl.name}` queue's stages complete at 32 arrivals, one per lane, so its "
                          "kernel's block must be whole warps" + (f", not {threads} threads" if threads else
                                                                  ", fixed in its header (`launch block(...)`)"),
                          ref.name.span, help="make the block a multiple of 32 threads, or use the default `ring`")
            return
        needs_count = impl.warp_count if info.granularity == "warp" else None
        if needs_count is not None and needs_count != info.named:
            why = ("`bar` at @warp is a named barrier: give the thread count, `barrier b(64) ...`, or use `syncwarp`"
                   if needs_count else
                   "`syncwarp` joins the lanes of one warp; a barrier with a thread count needs `bar`")
            self.cx.error("E0409", why, ref.name.span)
            return
        params = {p.name: p.default for p in impl.params}
        names = [p.name for p in impl.params]
        given: list[tuple[str, A.Expr]] = []
        for i, arg in enumerate(ref.args):
            if i >= len(names):
                self.cx.error("E0410", f"`{impl.name}` takes {len(names)} parameter{'s' if len(names) != 1 else ''}",
                              arg.span, help=_impl_params_help(impl))
                break
            given.append((names[i], arg))
        for kw in ref.kwargs:
            if kw.name.text not in params:
                self.cx.error("E0410", f"`{impl.name}` has no parameter `{kw.name.text}`", kw.name.span,
                              help=_impl_params_help(impl))
                continue
            given.append((kw.name.text, kw.value))
        for name, arg in given:
            v = self.cx.exprs.int_constant(arg, pos, f"the parameter `{name}`")
            if v is not None:
                if v < 0:
                    self.cx.error("E0410", f"`{name}` must not be negative, found {v}", arg.span)
                params[name] = v
        info.impl = impl
        info.impl_params = params

    # ---- statements on primitives -------------------------------------------------------

    def prim_place(self, place: A.Place, op: str, pos) -> PrimInfo | None:
        """Resolve the primitive a statement works on and check its indices."""
        if not self.cx.kernel_only(f"`{op}`", place.span, pos):
            return None
        kinds = OP_KINDS[op]
        want = " or ".join(kinds)
        sym = self.cx.exprs.resolve(place.name.text, place.name.span, pos)
        if sym is None:
            for i in place.indices:
                self.cx.exprs.expr(i, pos)
            return None
        self.cx.refs[place] = sym
        if sym.kind != "prim":
            self.cx.error("E0404", f"`{op}` needs a {want}, but `{sym.name}` is not a synchronization primitive",
                          place.name.span, notes=[Note("declared here", sym.span)] if sym.span else ())
            for i in place.indices:
                self.cx.exprs.expr(i, pos)
            return None
        info: PrimInfo = sym.info
        self.take_in(info, place.span, pos)
        if info.kind not in kinds:
            self.cx.error("E0404", f"`{op}` needs a {want}, but `{sym.name}` is a {info.kind}", place.name.span,
                          notes=[Note("declared here", sym.span)],
                          help=f"a {info.kind} is used with " + _USES[info.kind].format(n=sym.name))
            return None
        if not self.cx.exprs.check_indices(sym.name, info.dims, list(place.indices), place.span, pos, primitive=True):
            return None
        if info.kind == "queue" and info.impl is not None and info.impl.counted \
                and not self._counted_use(sym, info, op, place):
            return None
        if info.kind == "queue" and op in ("close", "for") and info.impl is not None and not info.impl.closable:
            self.cx.error("E0418", f"`{'for v in' if op == 'for' else op} {sym.name}` needs {self._closable()}: a "
                          f"`{info.impl.name}` queue's `get` waits on a semaphore that closing cannot end",
                          place.span, notes=[Note("declared here", sym.span)],
                          help="drop `using " + info.impl.name + "` (`ring` is the default), or count the gets")
            return None
        if info.kind == "barrier" and op in ("arrive", "wait") and not _splits(info, op):
            can = "a named barrier (`@warp` with a thread count) or a grid barrier" if op == "arrive" else \
                "a grid barrier (its split phase: `arrive`, then `wait`)"
            self.cx.error("E0413", f"only {can} can `{op}`; `{sym.name}` is a "
                          f"{'named' if info.is_named_barrier else info.granularity} barrier", place.span,
                          help="`sync` waits for everyone; `arrive` is the producer half of a named barrier, and "
                               "a grid barrier's `arrive` ... `wait` lets work run between arriving and waiting")
            return None
        return info

    def _closable(self) -> str:
        """The queues `close` and `for v in q` work on, as a message names them: "a `ring` queue"."""
        return "a " + " or ".join(f"`{n}`" for n, i in self.cx.catalogue["queue"].items() if i.closable) + " queue"

    def _counted_use(self, sym, info: PrimInfo, op: str, place) -> bool:
        """A queue whose sides count their own operations (its entry's `counted`: `mbarrier`, `spsc`,
        `tinylock`) takes `put` and `get` only: a single attempt or a close would leave the count
        behind (E0418). One whose lanes count in registers (`constant_index`: `mbarrier`) needs a
        constant index."""
        name = info.impl.name
        if op not in ("put", "get"):
            what = "for v in" if op == "for" else op
            self.cx.error("E0418", f"`{what} {sym.name}` needs {self._closable()}: a `{name}` queue's sides count "
                          "their puts and gets, and a single attempt or a close would leave the count behind",
                          place.span, notes=[Note("declared here", sym.span)],
                          help=f"drop `using {name}` (`ring` is the default), or use `put` and `get` only")
            return False
        if info.impl.constant_index and not self.cx.library and \
                any(self.cx.exprs.try_fold(i) is None for i in place.indices):
            self.cx.error("E0418", f"`{op} {sym.name}[...]` on an `{name}` queue needs a constant index: each lane "
                          "counts every instance's puts and gets in a register of its own", place.span,
                          notes=[Note("declared here", sym.span)],
                          help=f"index it with a constant, or drop `using {name}` (`ring` is the default)")
            return False
        return True

    @statements.on(A.Critical)
    def critical(self, s: A.Critical, pos):
        self.prim_place(s.target, "critical", pos)
        self.cx.stmts.block(s.body, pos.region_child("critical section"))

    @statements.on(A.Acquire)
    def acquire(self, s: A.Acquire, pos):
        info = self.prim_place(s.target, "acquire", pos)
        self.permits(s.permits, info, "acquire", s.target, pos)
        self.cx.stmts.block(s.body, pos.region_child("`acquire` block"))

    @statements.on(A.RwSection)
    def rw_section(self, s: A.RwSection, pos):
        self.prim_place(s.target, s.mode, pos)
        self.cx.stmts.block(s.body, pos.region_child(f"`{s.mode}` section"))

    @statements.on(A.When)
    def when(self, s: A.When, pos):
        body_pos = pos.region_child("`when` block")
        seen: dict[str, A.Ident] = {}
        for b in s.bindings:
            info = self.prim_place(b.source, "when", pos)
            if b.name.text in seen:
                self.cx.error("E0102", f"`{b.name.text}` is bound twice in this `when`", b.name.span,
                              notes=[Note("first bound here", seen[b.name.text].span)])
                continue
            seen[b.name.text] = b.name
            elem = info.elem if info is not None else ERROR
            self.cx.declare(body_pos.scope, Symbol(b.name.text, "binding", elem, b))
        self.cx.stmts.block(s.body, body_pos, new_scope=False)

    @statements.on(A.ForEach)
    def for_each(self, s: A.ForEach, pos):
        """for v in q { }: `v` is each value taken, read-only in the body, which is a loop's."""
        if isinstance(s.source, A.Place):
            info = self.prim_place(s.source, "for", pos)
        else:
            self.cx.exprs.expr(s.source, pos)
            self.cx.error("E0404", "`for v in ...` takes the values of a queue, named as `q` or `q[i]`",
                          s.source.span, help="a counted loop is `for i in 0 .. n`")
            info = None
        body_pos = pos.child(loops=pos.loops + 1)
        elem = info.elem if info is not None else ERROR
        self.cx.declare(body_pos.scope, Symbol(s.var.text, "binding", elem, s))
        self.cx.stmts.block(s.body, body_pos, new_scope=False)
        inner = pools.inner_puts(s, self.cx.refs)
        ranged = next((p for p in inner if p.range is not None), None)
        if info is not None and ranged is not None:
            name = s.source.name.text
            self.cx.error("E0427", f"a range put into `{name}` inside the body of a `for` loop over it: an inner "
                          "put of a work pool never waits for room, and a range put fills its slots one after "
                          "another, waiting for each", ranged.span, notes=[Note("the pool's loop", s.source.span)],
                          help=f"put the values one at a time, `for i in lo .. hi {{ put {name} = src[i] }}`: "
                               "each is an inner put")
            return
        if info is not None and inner:
            self._pool(s, info, inner, pos)

    def _pool(self, s: A.ForEach, info: PrimInfo, inner: list, pos) -> None:
        """A work pool: `for v in q` with puts into `q` in its body (frontend/pools.py). One `@thread`
        queue (E0423), whose loop is not inside a held section and whose body waits for no other
        thread and does not return (E0424): the loops' end waits for every body, which the
        analyses do not see."""
        name = s.source.name.text
        if info.granularity != "thread" or info.dims:
            what = f"a @{info.granularity} queue" if info.granularity != "thread" else "an array of queues"
            self.cx.error("E0423", f"this `put` into `{name}` inside a `for` loop over it makes a work pool, and "
                          f"`{name}` is {what}: a work pool is one @thread queue", inner[0].span,
                          notes=[Note("the pool's loop", s.source.span), Note("declared here", info.decl.span)],
                          help=f"declare `{name}` as one `@thread` queue, or put into a different queue")
            return
        if pos.region is not None:
            self.cx.error("E0424", f"this work pool's loop is inside a {pos.region}: its end waits until no worker "
                          "holds an item, and a worker may need what this thread holds", s.source.span,
                          notes=[Note("an inner put, which makes the loop a work pool", inner[0].span)],
                          help="run the pool's loop outside the section")
            return
        found = pools.waits_in_body(s, inner, self.cx.refs)
        if found is not None:
            node, what = found
            self.cx.error("E0424", f"{what} inside the body of a work pool's loop: the loops over `{name}` end "
                          "only once no worker is inside a body, so a worker must never wait for another thread "
                          "there, nor leave without finishing its item", node.span,
                          notes=[Note("the pool's loop", s.source.span),
                                 Note("an inner put, which makes the loop a work pool", inner[0].span)],
                          help="keep a pool's body to computing, atomics, critical sections, single attempts "
                               "(`tryput`, `tryget`) and puts into its own queue")

    @statements.on(A.TryGet)
    def tryget(self, s: A.TryGet, pos):
        info = self.prim_place(s.place, "tryget", pos)
        body_pos = pos.child()
        elem = info.elem if info is not None else ERROR
        self.cx.declare(body_pos.scope, Symbol(s.name.text, "binding", elem, s))
        self.cx.stmts.block(s.body, body_pos, new_scope=False)
        if s.orelse is not None:
            self.cx.stmts.block(s.orelse, pos)

    @statements.on(A.Put)
    def put(self, s: A.Put, pos):
        info = self.prim_place(s.target, "put", pos)
        if s.range is not None:
            self.put_range(s, info, pos)
            return
        t = self.cx.exprs.expr(s.value, pos) if info is not None and isinstance(info.elem, RecordType) else \
            self.cx.exprs.value(s.value, pos)
        if info is not None and info.elem is not None:
            self.cx.exprs.coerce(s.value, t, info.elem, "for the channel slot")

    def put_range(self, s: A.Put, info: PrimInfo | None, pos) -> None:
        """`put q = src[lo .. hi]`: the values src[lo] .. src[hi - 1] into one `@thread` `ring` queue
        (E0426) with one reservation; `src` one-dimensional, of the slot type (E0428); lo and hi
        integers. Inside a work pool's body it is refused (E0427: for_each)."""
        bt = self.cx.exprs.expr(s.value, pos)
        for end in s.range:
            t = self.cx.exprs.value(end, pos)
            if t is not ERROR and not is_int(t):
                self.cx.error("E0201", f"the ends of a range put's `lo .. hi` must be integers, found {t}", end.span)
        if info is None:
            return
        name = s.target.name.text
        if info.kind != "queue" or info.granularity != "thread" or (info.impl is not None and not info.impl.ranges):
            what = (f"a {info.kind}" if info.kind != "queue" else
                    f"a @{info.granularity} queue" if info.granularity != "thread" else
                    f"a `{info.impl.name}` queue")
            self.cx.error("E0426", f"`put {name} = src[lo .. hi]` puts several values with one reservation, and "
                          f"`{name}` is {what}: a range put needs a `@thread` `ring` queue", s.span,
                          notes=[Note("declared here", info.decl.span)],
                          help=("put the values one at a time in a loop, `for i in lo .. hi { put "
                                f"{name} = src[i] }}`, or declare `{name}` as a `@thread` queue without `using` "
                                "(`ring` is the default)"))
            return
        if bt is ERROR:
            return
        src = s.value.id if isinstance(s.value, A.Name) else None
        if src is None or not isinstance(bt, ArrayType) or len(bt.dims) != 1 or bt.elem != info.elem:
            if src is None:
                what = "not an array's name"
            elif isinstance(bt, ArrayType):
                rank = f" with {len(bt.dims)} dimensions" if len(bt.dims) != 1 else ""
                what = f"`{src}`, an array of {bt.elem}{rank}"
            else:
                what = f"`{src}`, {self.cx.exprs.kind_of(s.value, bt)}"
            self.cx.error("E0428", f"the source of a range put into `{name}` must be a one-dimensional array of "
                          f"its slot type {info.elem}, named by itself; it is {what}", s.value.span,
                          help=f"gather the values into a shared or global array of {info.elem} first")

    @statements.on(A.PrimOp)
    def prim_op(self, s: A.PrimOp, pos):
        info = self.prim_place(s.target, s.op, pos)
        self.permits(s.permits, info, s.op, s.target, pos)

    def permits(self, k: A.Expr | None, info: PrimInfo | None, op: str, place: A.Place, pos) -> None:
        """`wait s(k)`, `post s(k)`, `trywait s(k)`, `acquire s(k) { }`: k permits at once, an integer
        of at least 1 where it is a constant (E0422), on a semaphore (E0420) whose implementation
        takes several at once (E0421) where k is not the constant 1."""
        if k is None:
            return
        t = self.cx.exprs.value(k, pos)
        if t is not ERROR and not is_int(t):
            self.cx.error("E0201", f"the number of permits must be an integer, found {t}", k.span)
            return
        if t is not ERROR:
            self.cx.exprs.concrete(k, t)
        if info is None:
            return
        name = place.name.text
        if info.kind != "semaphore":
            what = "`count_down` and `wait`" if info.kind == "latch" else _USES[info.kind].format(n=name)
            self.cx.error("E0420", f"`{op} {name}(...)` takes a number of permits, but only a semaphore's operations "
                          f"take permits, and `{name}` is a {info.kind}", k.span,
                          notes=[Note("declared here", info.decl.span)],
                          help=f"drop the `(...)`: a {info.kind} is used with {what}")
            return
        n = self.cx.exprs.try_fold(k) if t is not ERROR else None
        if n is not None and n < 1:
            self.cx.error("E0422", f"`{op} {name}({n})` takes {n} permits: a wait or post takes at least one",
                          k.span, help=f"`{op} {name}` takes one permit; leave out a wait or post of none")
            return
        if n != 1:
            info.permits = True         # (its default implementation must take several: ir/impls/registry.py)
        if n != 1 and info.impl is not None and not info.impl.permits:
            able = ", ".join(f"`{i.name}`" for i in self.cx.catalogue["semaphore"].values()
                             if i.permits and info.placement in i.placements)
            self.cx.error("E0421", f"a `{info.impl.name}` semaphore takes and gives one permit at a time, and "
                          f"`{op} {name}(...)` takes {n if n is not None else 'several'}", k.span,
                          notes=[Note(f"`{name}` is declared `using {info.impl.name}` here", info.decl.span)],
                          help=f"declare it `using` an implementation that takes several permits at once: {able}"
                               " (or with no `using`: the default then takes several)")

    @statements.on(A.BarrierStmt)
    def barrier(self, s: A.BarrierStmt, pos):
        self.cx.device_only("`barrier`", s.span, pos)

    @statements.on(A.Fence)
    def fence(self, s: A.Fence, pos):
        self.cx.device_only("`fence`", s.span, pos)
        if s.scope.text not in FENCE_SCOPES:
            self.cx.error("E0415", f"unknown fence scope `{s.scope.text}`", s.scope.span,
                          help="`fence cta` orders within the block, `fence gpu` across the GPU, `fence sys` with the host")


def _impl_params_help(impl) -> str:
    if not impl.params:
        return f"`{impl.name}` has no parameters"
    return "parameters: " + ", ".join(f"`{p.name}` (default {p.default})" for p in impl.params)


def _splits(info: PrimInfo, op: str) -> bool:
    """Can this barrier take `arrive` (or `wait`) on its own? A named barrier arrives (its other
    warps sync); a grid barrier arrives now and waits later (its split phase)."""
    if info.granularity == "grid":
        return True
    return op == "arrive" and info.is_named_barrier
