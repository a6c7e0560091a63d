"""Built-in values (`tid`, `bid`, `lane`, `warp`, `gtid`, ...) computed once, in a kernel's entry
block, so that every block can use them. A kernel's declared block shape cannot change at launch,
so its sizes are constants and the linear `tid` folds to `tid.x` for a one-dimensional block. The
grid is not folded: a launch may give another one."""
from __future__ import annotations

from ..core.types import I32
from .builder import KernelBuilder
from .nodes import Imm, Instr, imm

_FOLD = {"add": lambda a, b: a + b, "mul": lambda a, b: a * b, "div": lambda a, b: a // b}
_AXIS = {"x": 0, "y": 1, "z": 2}
_SREG = {"tid": "tid", "ntid": "ntid", "bid": "ctaid", "nbid": "nctaid"}


class Specials:
    def __init__(self, b: KernelBuilder, entry: str, block: tuple[int, int, int] | None):
        self.b, self.entry, self.block = b, entry, block
        self.cache: dict[str, object] = {}

    def emit(self, op: str, *args, hint: str, **attrs):
        """An instruction appended to the entry block (folded when its operands are constants)."""
        if op in _FOLD and all(isinstance(a, Imm) for a in args):
            return imm(_FOLD[op](*(a.value for a in args)))
        if op == "add" and imm(0) in args:
            return args[1] if args[0] == imm(0) else args[0]
        if op == "mul" and imm(0) in args:
            return imm(0)
        if op == "mul" and imm(1) in args:
            return args[1] if args[0] == imm(1) else args[0]
        dest = self.b.reg(I32, hint)
        self.b.code[self.entry].append(Instr(op, (dest,), tuple(args), tuple(attrs.items()), None))
        return dest

    def get(self, name: str):
        if name not in self.cache:
            self.cache[name] = self._compute(name)
        return self.cache[name]

    def _compute(self, name: str):
        block = self.block
        if "." in name:
            base, c = name.split(".")
            # The block shape is fixed by the header (a launch cannot change it); the grid is not:
            # `launch k(...) grid(...)` and the Python API may launch any grid, so grid-derived
            # values are read at run time.
            if block is not None and base == "ntid":
                return imm(block[_AXIS[c]])
            if block is not None and base == "tid" and block[_AXIS[c]] == 1:
                return imm(0)
            return self.emit("sreg", hint=name.replace(".", "_"), reg=f"{_SREG[base]}.{c}")
        if name in ("tid", "bid"):
            size = "ntid" if name == "tid" else "nbid"
            x, y, z = (self.get(f"{name}.{c}") for c in "xyz")
            nx, ny = (self.get(f"{size}.{c}") for c in "xy")
            t = self.emit("mul", z, ny, hint=name)
            t = self.emit("add", t, y, hint=name)
            t = self.emit("mul", t, nx, hint=name)
            return self.emit("add", t, x, hint=name)
        if name in ("ntid", "nbid"):
            x, y, z = (self.get(f"{name}.{c}") for c in "xyz")
            return self.emit("mul", self.emit("mul", x, y, hint=name), z, hint=name)
        if name == "lane":
            return self.emit("sreg", hint="lane", reg="laneid")
        if name == "warp":
            return self.emit("div", self.get("tid"), imm(32), hint="warp")
        if name == "nwarps":
            return self.emit("div", self.emit("add", self.get("ntid"), imm(31), hint="nwarps"), imm(32),
                             hint="nwarps")
        if name == "gtid":
            return self.emit("add", self.emit("mul", self.get("bid"), self.get("ntid"), hint="gtid"),
                             self.get("tid"), hint="gtid")
        raise KeyError(name)
