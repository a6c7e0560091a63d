"""What every implementation's expansion uses: state arrays, memory operations with the
orderings the fence pass asked for, single-lane spin loops, and the parties of @warp
and @block primitives."""
from __future__ import annotations

from dataclasses import dataclass, field

from ...core.types import BOOL, I32, ScalarType
from ..builder import KernelBuilder
from ..context import PassContext
from ..fold import bitcast, fold
from ..nodes import Array, Imm, Instr, Prim, Ref, Reg, imm

_FOLD = ("add", "sub", "mul", "xor")


@dataclass
class SpinState:
    """What the attempts of one enclosing `spin` left for its loop to emit."""
    fences: set[str] = field(default_factory=set)      # scopes owed an acquire fence at the exit (Fermi)
    deferred: set[str] = field(default_factory=set)    # scopes whose polls' acquire the exit's fence may carry (PTX)
    pauses: list = field(default_factory=list)         # what to do between a failed attempt and the next


class Emitter:
    """Emits one primitive operation's expansion into a KernelBuilder at its current block."""

    def __init__(self, b: KernelBuilder, ctx: PassContext, prims: dict[str, Prim], builtin, expansion_of=None):
        self.b, self.ctx, self.prims = b, ctx, prims
        self.target = ctx.target
        self.builtin = builtin          # tid, ntid, bid, nbid, lane as registers (entry block)
        # Prim → its implementation's class (registry.expansion), for an implementation whose
        # operations also act on another primitive (a ring queue's get looks at its close latch)
        self.expansion_of = expansion_of
        self.spinning: list[SpinState] = []   # one per enclosing spin
        self._carried: dict[tuple, Reg] = {}   # (primitive, role, instance) → its register (carried)
        self.split_phases: set[str] = set()   # grid barriers the kernel arrives at and waits for apart

    # ---- state
    def state(self, prim: Prim, role: str, count: int, init=None, elem: ScalarType = I32,
              space: str | None = None, per: str | None = None) -> str:
        """The array `prim.role` (created on first use)."""
        name = f"{prim.name}.{role}"
        if not any(a.name == name for a in self.b.arrays):
            self.b.add_array(Array(name, space or prim.placement, elem, (count,), "state", init, per))
        return name

    def carried(self, prim: Prim, ins: Instr, type: ScalarType, role: str = "phase") -> Reg:
        """A register that carries a value from one operation on `prim[i]` to a later one (a grid
        barrier's round, from its `arrive` to its `wait`): one per instance, set to 0 in the
        kernel's entry block so that every path has assigned it before it is read."""
        index = ins.ref.index
        key = (prim.name, role, index.value if isinstance(index, Imm) else None)
        reg = self._carried.get(key)
        if reg is None:
            hint = f"{prim.name}.{role}" + (f".{index.value}" if isinstance(index, Imm) and prim.instances > 1 else "")
            reg = self._carried[key] = self.b.reg(type, hint)
            entry = self.b.order[0]
            self.b.code[entry].append(Instr("mov", (reg,), (imm(0, type),), (), None))
        return reg

    # ---- operations
    def order(self, ins: Instr | None) -> dict:
        """The ordering an instruction asked for, where the target's memory operations carry it."""
        if ins is None or not self.target.ordered_atomics or ins.attr("order") is None \
                or not self.ctx.minimize_fences:
            return {}
        return {"order": ins.attr("order"), "scope": ins.attr("scope")}

    def poll_cache(self, array: str) -> dict:
        """Polling loads of global memory bypass L1, which is not coherent (ld.relaxed.gpu on PTX)."""
        return {"cache": "cg"} if self._array(array).space == "global" else {}

    def _array(self, name: str) -> Array:
        return next(a for a in self.b.arrays if a.name == name)

    def ld(self, array: str, index, hint="v", **attrs) -> Reg:
        return self.ordered(lambda extra: self.b.op("ld", self._array(array).elem, Ref(array, index), hint=hint,
                                                    **extra), array, attrs)

    def st(self, array: str, index, value, **attrs) -> None:
        self.ordered(lambda extra: self.b.emit("st", (), (Ref(array, index), value), **extra), array, attrs)

    def atom(self, op: str, array: str, index, *values, hint="old", **attrs) -> Reg:
        elem = self._array(array).elem
        attrs.setdefault("order", "relaxed")
        return self.ordered(lambda extra: self.b.op(f"atom.{op}", elem, Ref(array, index), *values, hint=hint,
                                                    **extra), array, attrs)

    def ordered(self, emit, array: str, attrs: dict):
        """Emit a memory operation with the ordering `attrs` asks for: on the operation itself where
        the target's loads, stores and atomics carry one (PTX), else as explicit fences around it, a
        release before and an acquire after (Fermi)."""
        order, scope = attrs.pop("order", None), attrs.pop("scope", None)
        scope = scope or ("cta" if self._array(array).space == "shared" else "gpu")
        if not self.ctx.fences and order is not None:
            order = "relaxed" if attrs.get("cache") is None and self.target.ordered_atomics else None
        if self.target.ordered_atomics and self.ctx.minimize_fences:
            spin = self.spinning[-1] if self.spinning else None
            if spin is not None and spin.deferred:
                # an access after a deferred acquire in the same attempt: the acquire must come first
                # (on every path: one fence before each such access, as branches may skip another's)
                self._deferred_fence(spin.deferred)
            if order is not None:
                attrs.update(order=order, scope=scope)
            if order == "acquire" and spin is not None:
                # the back end may poll relaxed and let one acquire fence at the loop's exit carry the
                # ordering (sm_90: `fence.acquire` is an L1 invalidate, 10 cycles, where every
                # `ld.acquire` poll waits for its load and invalidates L1)
                attrs["deferred"] = True
                spin.deferred.add(scope)
            return emit(attrs)
        if order in ("release", "acq_rel"):
            self.b.emit("fence", (), (), order="acq_rel", scope=scope)
        result = emit(attrs)
        if order in ("acquire", "acq_rel"):
            if self.spinning and order == "acquire" and self.ctx.minimize_fences:
                self.spinning[-1].fences.add(scope)   # one fence when the spin ends, not one per poll
            else:
                self.b.emit("fence", (), (), order="acq_rel", scope=scope)
        return result

    def as_word(self, value, type: ScalarType, hint="t"):
        """`value` as `type` where a value travels as the bits of a word (a channel's slot, a ring's
        wide slot): a float's own bits (`bitcast`, to or from an integer of its width), an
        integer converted (`cvt`)."""
        if value.type == type:
            return value
        if value.type.is_float or type.is_float:
            if isinstance(value, Imm):
                return imm(bitcast(value.value, value.type, type), type)
            return self.op("bitcast", type, value, hint=hint)
        return self.op("cvt", type, value, hint=hint)

    def op(self, op: str, type: ScalarType, *args, hint="t", **attrs):
        """An arithmetic result: folded when the operands are constants or an identity applies."""
        if op in _FOLD and all(isinstance(a, Imm) for a in args) and args[0].type.is_int:
            return imm(fold(op, args[0].type, [a.value for a in args]), type)
        if op in ("add", "sub") and isinstance(args[1], Imm) and args[1].value == 0:
            return args[0]
        if op == "add" and isinstance(args[0], Imm) and args[0].value == 0:
            return args[1]
        if op == "mul" and any(isinstance(a, Imm) and a.value == 0 for a in args):
            return imm(0, type)
        if op == "mul" and any(isinstance(a, Imm) and a.value == 1 for a in args):
            return args[1] if isinstance(args[0], Imm) and args[0].value == 1 else args[0]
        return self.b.op(op, type, *args, hint=hint, **attrs)

    def eq(self, a, b) -> Reg:
        return self.b.op("cmp.eq", BOOL, a, b, hint="eq")

    def fence_if_needed(self, ins: Instr) -> None:
        """A fence after an acquire that succeeded, where atomics carry no ordering."""
        carried = self.target.ordered_atomics and self.ctx.minimize_fences
        if not carried and ins.attr("order") is not None:
            self.b.emit("fence", (), (), order="acq_rel", scope=ins.attr("scope"))

    def acquire_before_dependent_reads(self, scope: str) -> None:
        """An acquire between a read that decided (a latch seen closed) and the reads whose values
        it vouches for, in the same attempt, where orderings are not carried by the operations:
        those loads may otherwise be performed before the deciding one. (Where they are carried,
        `ordered` puts the deferred acquire before the next access itself.)"""
        if self.ctx.fences and not (self.target.ordered_atomics and self.ctx.minimize_fences):
            self.b.emit("fence", (), (), order="acq_rel", scope=scope)

    # ---- control flow
    def spin(self, attempt, on_fail=None, hint="wait") -> None:
        """Repeat `attempt()` (returning a bool register) until it is true: a loop for one lane,
        or a warp-uniform loop (Listing 9's vote). A failed attempt goes round through a retry
        block, which holds `on_fail` and what the attempt asked for with `between_polls` (a
        backoff's sleep), so the attempt that succeeds leaves at once. Where fences stand in for
        acquiring loads (Fermi), the loop polls relaxed and one fence follows it; on PTX the
        polls' acquire is marked `deferred` and an acquire fence, also marked, follows the loop:
        the back end keeps one or the other."""
        head = self.b.new_block(hint, after=self.b.current)
        exit_ = self.b.new_block(f"{hint}.done", after=head)
        self.b.jump(head)
        self.b.at(head)
        self.spinning.append(SpinState())
        ok = attempt()
        spin = self.spinning.pop()
        pauses = ([on_fail] if on_fail is not None else []) + spin.pauses
        if not pauses:
            self.b.branch(ok, exit_, head)
        else:
            retry = self.b.new_block(f"{hint}.retry", after=head)
            self.b.branch(ok, exit_, retry)
            self.b.at(retry)
            for pause in pauses:
                pause()
            self.b.jump(head)
        self.b.at(exit_)
        widest = ("cta", "gpu", "sys").index        # the widest scope's fence covers the rest
        for scope in sorted(spin.fences, key=widest)[-1:]:
            self.b.emit("fence", (), (), order="acq_rel", scope=scope)
        if spin.deferred:
            self._deferred_fence(spin.deferred)

    def _deferred_fence(self, scopes: set[str]) -> None:
        """The acquire fence that stands for deferred polls' acquire (the widest scope covers the rest)."""
        scope = max(scopes, key=("cta", "gpu", "sys").index)
        self.b.emit("fence", (), (), order="acquire", scope=scope, deferred=True)

    def between_polls(self, pause, unless: Reg | None = None) -> None:
        """Run `pause()` after a failed attempt, before the next: on the retry edge of the
        enclosing spin, or here and now where the polling loop is the program's (a structured
        `x.poll`), there only where the attempt's result `unless` is false (without it, `pause`
        must test for itself whether the attempt failed)."""
        if self.spinning:
            self.spinning[-1].pauses.append(pause)
        elif unless is None:
            pause()
        else:
            self.when(self.op("cmp.eq", BOOL, unless, imm(False, BOOL)), pause, hint="backoff")

    def when(self, cond, emit, hint="then") -> None:
        """if cond { emit() }"""
        then = self.b.new_block(hint, after=self.b.current)
        join = self.b.new_block(f"{hint}.end", after=then)
        self.b.branch(cond, then, join)
        self.b.at(then)
        emit()
        if self.b.open:
            self.b.jump(join)
        self.b.at(join)

    def either(self, cond, yes, no, hint="choose") -> None:
        """if cond { yes() } else { no() }"""
        then = self.b.new_block(hint, after=self.b.current)
        other = self.b.new_block(f"{hint}.else", after=then)
        join = self.b.new_block(f"{hint}.end", after=other)
        self.b.branch(cond, then, other)
        self.b.at(then)
        yes()
        self.b.jump(join)
        self.b.at(other)
        no()
        self.b.jump(join)
        self.b.at(join)

    def attempt_if(self, cond, attempt, hint="try") -> Reg:
        """One attempt made only where `cond` holds (test, then test-and-set): `attempt(ok)`
        sets the bool register `ok`, which is false where `cond` does not hold."""
        ok = self.b.reg(BOOL, "ok")
        self.either(cond, lambda: attempt(ok), lambda: self.b.assign(ok, imm(False, BOOL)), hint=hint)
        return ok

    # ---- parties of @warp and @block primitives
    def party(self, gran: str):
        """(mask, leader): every lane the warp has and lane 0 (KernelBuilder.warp_party), or the block
        and thread 0."""
        if gran == "warp":
            return self.b.warp_party(self.builtin)
        return None, self.b.op("cmp.eq", BOOL, self.builtin("tid"), imm(0), hint="leader", party="leader")

    def meet(self, gran: str, mask) -> None:
        if gran == "warp":
            self.b.emit("warp.sync", (), (mask,))
        elif gran == "block":
            self.b.emit("bar.sync", (), (imm(0),))

    def group(self, prim: Prim, index) -> object:
        """The slot group a @warp (32 slots) or @block (one per thread) channel publishes at once."""
        size = imm(32) if prim.granularity == "warp" else self.builtin("ntid")
        if isinstance(index, Imm) and isinstance(size, Imm):
            return imm(index.value // size.value)
        return self.b.op("div", I32, index, size, hint="group")

    def groups(self, prim: Prim, block_threads: int | None) -> int:
        if prim.granularity == "thread":
            return prim.instances
        size = 32 if prim.granularity == "warp" else (block_threads or 1)
        return max(1, -(-prim.instances // size))
