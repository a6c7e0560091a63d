"""The Python API: compile a program once, then launch its kernels on numpy or cupy arrays.

    import syncc
    prog = syncc.compile("examples/wavefront.sync", defines={"PENALTY": 5})
    outcome = prog.nw(refm, out, 10, target="fermi-sim")   # on the simulator: outcome.cycles
    prog.nw(refm, out, 10)                       # the launch shape the kernel declares
    prog.nw[(1, 1, 1), (32, 32, 1)](refm, out, 10, target="gpu")
    prog.run(target="gpu")                       # the host block
    print(prog.ptx("sm_90"))

Arrays must have the element type and shape of the kernel's parameters (numpy int32
for `i32`, and so on); a numpy array is copied to the GPU and back, a cupy array is
used in place. `target="fermi-sim"` runs on the built-in Fermi simulator instead, on numpy
arrays, and returns the simulator's outcome (cycles, instructions, statistics). docs/python.md
says more.
"""
from __future__ import annotations

from dataclasses import dataclass

from .backend_table import BACKENDS, RUNS
from .core.diagnostics import Renderer


class CompileError(Exception):
    """The program has errors: `diagnostics` lists them, and str() renders them."""

    def __init__(self, text: str, diagnostics):
        super().__init__(text)
        self.diagnostics = diagnostics


def compile(path: str, defines: dict | None = None, opt: int = 2, target: str = "ptx",  # noqa: A001
            fences: bool = True, sim_config=None, hazards: bool = True, stdlib=(),
            bounds_checks: bool = True) -> "Program":
    """Check and compile a .sync file through every pass for `target` (a `--target` name: "ptx",
    "gpu", ... for the GPU, "fermi-sim" or "fermi-sass" for the simulator; the other machine is
    compiled when first launched on; an unknown name is a ValueError). `sim_config`: the simulator's FermiConfig (policy,
    ITS mode, lock bits, cycle budget). `fences=False` leaves out every memory ordering: only to
    show that a test can fail. `hazards=False` skips the hazard analyses: only for the oracle
    (tests/oracle), to run what they reject. `stdlib`: directories where `import std.X` looks
    instead of the shipped stdlib (`--stdlib`). `bounds_checks=False` leaves out the run-time index
    checks (`--unsafe-no-bounds-checks`): only to measure what they cost."""
    from .driver import parse_define
    parsed = {}
    for name, value in (defines or {}).items():
        key, v = parse_define(f"{name}={'true' if value is True else 'false' if value is False else value}")
        parsed[key] = (v, f"{name}={value}")
    if target not in BACKENDS:
        raise ValueError(f"unknown target `{target}`: expected one of {', '.join(BACKENDS)}")
    options = _Options(path, parsed, opt, fences, sim_config, hazards, tuple(str(d) for d in stdlib), bounds_checks)
    # the target's machine model decides the passes; launches go where that model runs
    runner = next(name for name in RUNS if BACKENDS[name].model == BACKENDS[target].model)
    return Program(_compile(options, runner), options, runner)


@dataclass(frozen=True)
class _Options:
    path: str
    defines: dict
    opt: int
    fences: bool
    sim_config: object
    hazards: bool = True
    stdlib: tuple[str, ...] = ()
    bounds_checks: bool = True


def _compile(options: _Options, target: str):
    from .driver import compile_file
    its = bool(options.sim_config is not None and options.sim_config.its)
    comp = compile_file(options.path, options.defines, target, options.opt, fences=options.fences,
                        its=its, hazards=options.hazards, stdlib=options.stdlib, bounds_checks=options.bounds_checks)
    if not comp.ok:
        renderer = Renderer(comp.sources)
        text = "\n".join(renderer.render(d) for d in comp.diagnostics)
        raise CompileError(text, comp.diagnostics)
    return comp


class Program:
    def __init__(self, comp, options: _Options, default_target: str = "gpu"):
        self._comps = {default_target: comp}
        self._options = options
        self._launchers: dict[str, object] = {}
        self.default_target = default_target          # where launches and run() go when not told
        self.kernels = tuple(k.name for k in comp.ir.kernels)

    def __getattr__(self, name: str) -> "Kernel":
        if name.startswith("_") or name not in self.kernels:
            raise AttributeError(f"the program has no kernel `{name}` (it has: {', '.join(self.kernels)})")
        k = self._comp("gpu" if "gpu" in self._comps else self.default_target).ir.kernel(name)
        return Kernel(self, name, k.grid, k.block)

    def _comp(self, target: str):
        """The compilation for a target: the PTX passes serve "gpu", the Fermi passes "fermi-sim"."""
        if target not in RUNS:
            expected = " or ".join(f'"{r}"' for r in RUNS)
            raise ValueError(f"unknown target `{target}`: expected {expected}")
        if target not in self._comps:
            self._comps[target] = _compile(self._options, target)
        return self._comps[target]

    def ptx(self, arch: str = "sm_90") -> str:
        from .backends.ptx import build_ptx
        return build_ptx(self._comp("gpu").ir, arch).text

    def fermi_sass(self) -> str:
        """The Fermi SASS the simulator runs, as `syncc build --target fermi-sass` prints it."""
        from .backends.fermi.printer import print_program
        comp = self._comp("fermi-sim")
        return print_program(self._fermi_program(), comp.sources)

    def _fermi_program(self):
        from .backends.fermi.emit import build_fermi_sass
        from .core.diagnostics import DiagnosticsError
        comp = self._comp("fermi-sim")
        try:
            return build_fermi_sass(comp.ir, its=self._sim_config().its)
        except DiagnosticsError as e:
            renderer = Renderer(comp.sources)
            raise CompileError("\n".join(renderer.render(d) for d in e.diagnostics), e.diagnostics) from None

    def _sim_config(self):
        from .backends.sim.machine import FermiConfig
        return self._options.sim_config or FermiConfig()

    def _check_launch_config(self, config) -> None:
        problem = config.check()
        if problem:
            raise ValueError(problem)
        if config.its != self._sim_config().its:
            # ITS code has convergence barriers that SIMT-stack code lacks, and the other way round
            raise ValueError(f"the program was compiled {'with' if self._sim_config().its else 'without'} ITS: "
                             "compile it with the sim_config's ITS mode to launch in that mode")

    def launcher(self, target: str, timeout: float):
        key = f"{target}:{timeout}" if target == "gpu" else target
        if key not in self._launchers:
            comp = self._comp(target)                   # (an unknown target raises here)
            if target == "gpu":
                from .runtime.gpu import GpuLauncher
                self._launchers[key] = GpuLauncher(comp.ir, timeout)
            else:
                from .ir.faults import check_sites
                from .runtime.sim import SimLauncher
                self._launchers[key] = SimLauncher(self._fermi_program(), self._sim_config(),
                                                   sites={k.name: check_sites(k) for k in comp.ir.kernels},
                                                   ir=comp.ir)
        return self._launchers[key]

    def run(self, target: str | None = None, timeout: float = 10.0, write=print) -> None:
        """Run the host block; raises syncc.RunError when a check fails, a launch cannot be made or
        (e.deadlock) a kernel does not finish."""
        from .runtime.run import run_program
        target = target or self.default_target
        comp = self._comp(target)
        before = len(comp.sink.items)
        outcome = run_program(comp, target, timeout, write, config=self._sim_config() if target == "fermi-sim"
                              else None)
        if not outcome.ok:
            renderer = Renderer(comp.sources)
            raise RunError("\n".join(renderer.render(d) for d in comp.sink.items[before:])
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

    def __call__(self, *args, target: str | None = None, timeout: float = 10.0, sim_config=None):
        """Launch on the GPU (returns None) or on the simulator (returns its Outcome: cycles,
        instructions, stats); a simulated kernel that cannot finish raises RunError, and one that a
        run-time bounds check stopped raises syncc.IndexOutOfBounds (on either target).
        `sim_config` replaces the program's FermiConfig for this one simulated launch, so one
        compiled program can run under many scheduling policies; its ITS mode must be the one
        the program was compiled for."""
        target = target or self.program.default_target
        if sim_config is not None and target != "fermi-sim":
            raise ValueError("sim_config is for launches on the simulator (target=\"fermi-sim\")")
        launch = self.program.launcher(target, timeout)
        if target != "fermi-sim":
            return launch(self.name, list(args), self.grid, self.block, None)
        if sim_config is not None:
            self.program._check_launch_config(sim_config)
        from .runtime.sim import SimStopped, diagnostics
        try:
            return launch(self.name, list(args), self.grid, self.block, None, config=sim_config)
        except SimStopped as e:
            comp = self.program._comp("fermi-sim")
            raise RunError(Renderer(comp.sources).render(diagnostics(e, comp.sources)), deadlock=e.stuck) from None


def _dim3(shape) -> tuple[int, int, int]:
    if isinstance(shape, int):
        return (shape, 1, 1)
    shape = tuple(shape)
    return shape + (1,) * (3 - len(shape))
