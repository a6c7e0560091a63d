"""The Python API: compile a program once, then launch its kernels on numpy or cupy arrays.

    import syncc
    prog = syncc.compile("examples/wavefront.sync", defines={"PENALTY": 5})
    prog.nw(refm, out, 10)                       # the launch shape the kernel declares
    prog.nw[(1, 1, 1), (32, 32, 1)](refm, out, 10, target="gpu")
    prog.run(target="gpu")                       # the host block
    print(prog.ptx("sm_90"))

Arrays must have the element type and shape of the kernel's parameters (numpy int32
for `i32`, and so on); a numpy array is copied to the GPU and back, a cupy array is
used in place. `target="fermi-sim"` will run on the simulator once it lands. docs/python.md
says more.
"""
from __future__ import annotations

from dataclasses import dataclass

from .diagnostics import Renderer


class CompileError(Exception):
    """The program has errors: `diagnostics` lists them, and str() renders them."""

    def __init__(self, text: str, diagnostics):
        super().__init__(text)
        self.diagnostics = diagnostics


def compile(path: str, defines: dict | None = None, opt: int = 2, target: str = "ptx",  # noqa: A001
            fences: bool = True) -> "Program":
    """Check and compile a .sync file through every pass for `target` ("ptx" or "fermi-sim").
    `fences=False` leaves out every memory ordering: only to show that a test can fail."""
    from .driver import compile_file, parse_define
    parsed = {}
    for name, value in (defines or {}).items():
        key, v = parse_define(f"{name}={'true' if value is True else 'false' if value is False else value}")
        parsed[key] = (v, f"{name}={value}")
    comp = compile_file(path, parsed, target, opt, fences=fences)
    if not comp.ok:
        renderer = Renderer(comp.sources)
        text = "\n".join(renderer.render(d) for d in comp.diagnostics)
        raise CompileError(text, comp.diagnostics)
    return Program(comp)


class Program:
    def __init__(self, comp):
        self._comp = comp
        self._launchers: dict[str, object] = {}
        self.kernels = tuple(k.name for k in comp.ir.kernels)

    def __getattr__(self, name: str) -> "Kernel":
        if name.startswith("_") or name not in self.kernels:
            raise AttributeError(f"the program has no kernel `{name}` (it has: {', '.join(self.kernels)})")
        k = self._comp.ir.kernel(name)
        return Kernel(self, name, k.grid, k.block)

    def ptx(self, arch: str = "sm_90") -> str:
        from .backends.ptx import build_ptx
        return build_ptx(self._comp.ir, arch).text

    def launcher(self, target: str, timeout: float):
        key = f"{target}:{timeout}"
        if key not in self._launchers:
            if target == "gpu":
                from .runtime.gpu import GpuLauncher
                self._launchers[key] = GpuLauncher(self._comp.ir, timeout)
            else:
                raise NotImplementedError(f"target `{target}` is not built yet (the Fermi simulator is issue 5)")
        return self._launchers[key]

    def run(self, target: str = "gpu", timeout: float = 10.0, write=print) -> None:
        """Run the host block; raises syncc.RunError when a check fails or a launch cannot be made."""
        from .runtime.run import run_program
        before = len(self._comp.sink.items)
        outcome = run_program(self._comp, target, timeout, write)
        if not outcome.ok:
            renderer = Renderer(self._comp.sources)
            raise RunError("\n".join(renderer.render(d) for d in self._comp.sink.items[before:])
                           or outcome.unavailable or "the run failed", deadlock=outcome.deadlock)


class RunError(Exception):
    def __init__(self, text: str, deadlock: bool = False):
        super().__init__(text)
        self.deadlock = deadlock


@dataclass
class Kernel:
    program: Program
    name: str
    grid: tuple | None
    block: tuple | None

    def __getitem__(self, shape) -> "Kernel":
        grid, block = shape
        return Kernel(self.program, self.name, _dim3(grid), _dim3(block))

    def __call__(self, *args, target: str = "gpu", timeout: float = 10.0) -> None:
        self.program.launcher(target, timeout)(self.name, list(args), self.grid, self.block, None)


def _dim3(shape) -> tuple[int, int, int]:
    if isinstance(shape, int):
        return (shape, 1, 1)
    shape = tuple(shape)
    return shape + (1,) * (3 - len(shape))
