"""`--target cuda` for a library: each top-level primitive becomes a C++ type.

    struct fair {                         // mutex fair in global @thread using ticket
        int32_t* next;                    // state the caller allocates (global) or declares __shared__
        int32_t* serving;
        __device__ void init() const;     // first values, block-strided: then __syncthreads()
        template <class Body> __device__ void critical(Body&& body) const;
    };

The member functions are the operations' kernels (syncc/frontend/vending.py) written by the kernel writer,
with three changes: state arrays are the type's pointers instead of parameters or `__shared__`
arrays, the store standing for the caller's code calls `body()`, and the store of the result
becomes the function's return value.
"""
from __future__ import annotations

from ...ir.impls.queue.mbarrier import LANES, MBARRIER_INIT
from ...ir.nodes import Array, Reg, Return
from .. import inline_ptx
from ...frontend.vending import (COUNT, HOLE, INDEX, MANY, PERMITS, RESULT, TAKEN, VALUE, VALUES, VendedOp,
                                 field_param, record_of)
from . import CTYPE, KernelWriter, cname, memory_ctype

_ARGS = {INDEX: "index", VALUE: "value", COUNT: "attempts", PERMITS: "permits", MANY: "k"}


class OperationWriter(KernelWriter):
    """One vended operation as a member function of its primitive's type."""

    def __init__(self, vop: VendedOp, kernel):
        super().__init__(kernel)
        self.vop = vop
        self.prefix = vop.prim.decl.name.text + "."
        self.result = None

    def member(self, array: str) -> str:
        return cname(array[len(self.prefix):])

    def array_name(self, name: str) -> str:
        if name.startswith(self.prefix):
            return self.member(name)
        return "a_" + cname(name)

    def declares(self, array: Array) -> bool:
        return array.kind != "state" and array.name not in (HOLE, TAKEN)      # state is the type's; the body the caller's

    def _st(self, ins) -> None:
        if ins.ref.name == HOLE:
            self.emit("body();")
        elif ins.ref.name == RESULT:          # (a record's: one field at a time)
            self.result = self.arrays[RESULT].elem
            self.emit(f"syncc_result{_field(ins.ref)} = {self.value(ins.args[1])};")
        elif ins.ref.name == TAKEN:
            self.emit(f"value{_field(ins.ref)} = {self.value(ins.args[1])};")
        else:
            super()._st(ins)

    def term(self, t) -> None:
        if isinstance(t, Return) and self.vop.op.returns:
            self.emit("return syncc_result;")
        else:
            super().term(t)

    def render_member(self) -> dict:
        k, op = self.k, self.vop.op
        body = self.declarations() + self.code()
        args, unpack = [], []
        record = record_of(self.vop.prim)
        fields = {field_param(f.name): f.name for f in record.fields} if record is not None else {}
        for p in k.params:
            if isinstance(p, Reg) and p.name in _ARGS:
                args.append(f"{CTYPE[p.type.name]} {_ARGS[p.name]}")
                unpack.append(f"    {CTYPE[p.type.name]} {self.reg_name(p.name)} = {_ARGS[p.name]};")
            elif isinstance(p, Reg) and p.name in fields:     # a put's record: the caller gives it whole
                if f"{record.name} value" not in args:
                    args.append(f"{record.name} value")
                unpack.append(f"    {CTYPE[p.type.name]} {self.reg_name(p.name)} = value.{fields[p.name]};")
        if op.takes_values:         # put_many(const T* values, int k): the range put's array, first
            elem = memory_ctype(self.arrays[VALUES].elem)
            args.insert(len(args) - 1, f"const {elem}* values")
            unpack.append(f"    const {elem}* {self.array_name(VALUES)} = values;")
        if op.gives_value:
            args.append(f"{_ctype(self.arrays[TAKEN].elem)}& value")
        if op.has_body:
            args.append("Body&& body")
        ret = "void"
        if op.returns:
            elem = self.arrays[RESULT].elem
            ret = _ctype(elem)
            first = "{}" if elem.kind == "record" else "false" if elem.name == "bool" else 0
            unpack.append(f"    {ret} syncc_result = {first};")
        return {"name": op.name, "doc": op.doc, "template": op.has_body, "ret": ret, "args": ", ".join(args),
                "body": unpack + body}


def state_members(kernels, prefix: str) -> list[dict]:
    """Every state array any operation uses, once, in first-use order."""
    seen: dict[str, Array] = {}
    for k in kernels:
        for a in k.arrays:
            if a.kind == "state" and a.name.startswith(prefix):
                seen.setdefault(a.name, a)
    out = []
    for a in seen.values():
        n = a.length
        per = {None: "", "block": " per block of the launch", "thread": " per thread of the launch"}[a.per]
        length = {None: f"{n}", "block": f"{n} * gridDim.x * gridDim.y * gridDim.z",
                  "thread": f"{n} * gridDim.x * gridDim.y * gridDim.z * blockDim.x * blockDim.y * blockDim.z"}[a.per]
        name = cname(a.name[len(prefix):])
        if a.init == MBARRIER_INIT:
            sets, first = _mbarrier_init(name), f"an mbarrier of {LANES} arrivals each (init())"
        elif a.elem.kind == "record":        # a channel's or queue's record slots
            sets, first = [f"{name}[i] = {a.elem.name}{{}};"], "first value all fields 0"
        else:
            init = a.init if isinstance(a.init, int) else 0
            sets, first = [f"{name}[i] = {init};"], f"first value {init}"
        out.append({"name": name, "type": memory_ctype(a.elem), "sets": sets, "space": a.space, "length": length,
                    "doc": f"{a.space}, {n} {a.elem}{per}, {first}"})
    return out


def _ctype(elem) -> str:
    """The C++ type of a value an operation hands back: a scalar's, or the struct of a record."""
    return elem.name if elem.kind == "record" else CTYPE[elem.name]


def _field(ref) -> str:
    """`.FIELD` where a store writes one field of a record, else nothing."""
    return f".{ref.field}" if ref.field is not None else ""


def _mbarrier_init(name: str) -> list[str]:
    """mbarrier.init of element i, for the architecture the code is compiled for (the two shared
    words that stand in for one before sm_80 start the same way: inline_ptx.mbar_init)."""
    lines = []
    for test, native in (("#if __CUDA_ARCH__ >= 800", True), ("#else", False)):
        lines += [test, KernelWriter.asm(inline_ptx.mbar_init(native), [],
                                         [f"__cvta_generic_to_shared(&{name}[i])", f"(uint32_t){LANES}"])]
    return lines + ["#endif"]


def initializers(state: list[dict]) -> list[dict]:
    """The functions that give the state its first values: `init()`, or, where a type has both
    global and shared state (a global `spsc` queue's sides count in their blocks' shared memory),
    `init()` for the global state, once, and `init_block()` for the shared state, in each block."""
    if len({s["space"] for s in state}) < 2:
        return [{"name": "init", "state": state, "doc": "every element's first value, strided over the block's threads"}]
    return [{"name": "init", "state": [s for s in state if s["space"] == "global"],
             "doc": "the global state's first values, strided over the block's threads: from one block, "
                    "before any block uses the queue"},
            {"name": "init_block", "state": [s for s in state if s["space"] == "shared"],
             "doc": "the shared state's first values: from every block that uses the queue, then __syncthreads()"}]


def vended_types(module, vended: list[VendedOp]) -> list[dict]:
    kernels = {k.name: k for k in module.kernels}
    types: dict[str, dict] = {}
    for vop in vended:
        info = vop.prim
        name = info.decl.name.text
        t = types.get(name)
        if t is None:
            t = types[name] = {"name": cname(name), "info": info, "members": [], "kernels": [],
                               "written": vop.written}
        writer = OperationWriter(vop, kernels[vop.kernel])
        t["members"].append(writer.render_member())
        t["kernels"].append(kernels[vop.kernel])
    for t in types.values():
        t["state"] = state_members(t["kernels"], t["info"].decl.name.text + ".")
        t["inits"] = initializers(t["state"])
        t["decl"], t["about"] = t["written"], describe(t["kernels"][0])
    return list(types.values())


def describe(kernel) -> list[str]:
    """Which implementation the primitive got, and where it comes from."""
    from ...ir.impls.registry import implementations, queue_of
    prim = kernel.prims[0]          # an operation's kernel has its one primitive (a queue: its parts)
    if prim.name.endswith(".space"):        # a queue's first part: its own side, or an ordinary semaphore
        queue = queue_of(prim)
        impl = queue.about
        params = ", ".join(f"{n}={v}" for n, v in prim.params if n != "capacity") if queue.sides else ""
    else:
        impl = implementations(prim.kind)[prim.impl]
        params = ", ".join(f"{n}={v}" for n, v in prim.params)
    return [f"implementation: {impl.name}{f'({params})' if params else ''}: {impl.summary}",
            f"from: {impl.source}"]
