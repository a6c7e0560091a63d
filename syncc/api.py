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

from .backend_table import BACKENDS, BuildOptions, run_targets, runner_of
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
    runner = runner_of(target)
    return Program(_compile(options, runner or target), options, runner)


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
    """A program compiled once per target it runs on (a compilation each, made when first needed)."""

    def __init__(self, comp, options: _Options, default_target: str | None = "gpu"):
        self._comps = {comp.target.name: comp}
        self._first = comp
        self._options = options
        self._launchers: dict[tuple, object] = {}
        self.default_target = default_target          # where launches and run() go when not told
        self.kernels = tuple(k.name for k in comp.ir.kernels)

    def __getattr__(self, name: str) -> "Kernel":
        if name.startswith("_") or name not in self.kernels:
            raise AttributeError(f"the program has no kernel `{name}` (it has: {', '.join(self.kernels)})")
        k = self._first.ir.kernel(name)             # (the launch shape the source declares, on any target)
        return Kernel(self, name, k.grid, k.block)

    def dtype(self, name: str):
        """The numpy dtype of the program's record type `name` (`struct NAME { ... }`): a structured
        dtype with syncc's layout, the same as `np.dtype([...], align=True)`, for the host arrays
        its kernels take (`np.zeros(n, prog.dtype("Entry"))`)."""
        from .core.records import numpy_dtype
        records = self._first.module.records if self._first.module is not None else {}
        if name not in records:
            raise KeyError(f"the program has no record type `{name}` (it has: {', '.join(records) or 'none'})")
        return numpy_dtype(records[name])

    def _runner(self, target: str | None):
        """The table's entry for a target that runs programs; a ValueError for any other."""
        entry = BACKENDS.get(target) if target is not None else None
        if entry is None or entry.launch is None:
            expected = " or ".join(f'"{r}"' for r in run_targets())
            raise ValueError(f"unknown target `{target}`: expected {expected}")
        return entry

    def _comp(self, target: str):
        """The compilation for a target: the PTX passes serve "gpu", the Fermi passes "fermi-sim"."""
        if target not in self._comps:
            self._comps[target] = _compile(self._options, target)
        return self._comps[target]

    def _build(self, target: str, options: BuildOptions) -> str:
        """What `target`'s back end makes of the program, from the compilation it runs as (its
        machine model's runner), as `syncc build --target` writes it."""
        from .backend_table import BuildFailed
        comp = self._comp(runner_of(target) or target)
        try:
            return comp.build(options, BACKENDS[target])
        except BuildFailed as e:
            renderer = Renderer(comp.sources)
            raise CompileError("\n".join(renderer.render(d) for d in e.diagnostics) or str(e),
                               e.diagnostics) from None

    def ptx(self, arch: str = "sm_90") -> str:
        return self._build("ptx", BuildOptions(arch=arch))

    def fermi_sass(self) -> str:
        """The Fermi SASS the simulator runs, as `syncc build --target fermi-sass` prints it."""
        return self._build("fermi-sass", BuildOptions(its=self._sim_config().its))

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
        """The target's launcher (backend_table.py's `launch`), one per target and timeout."""
        key = (target, timeout)
        if key not in self._launchers:
            from .core.diagnostics import DiagnosticsError
            from .runtime.run import RunOptions
            self._runner(target)                        # (an unknown target raises here)
            comp = self._comp(target)
            try:
                self._launchers[key] = comp.target.launch(comp, RunOptions(timeout, self._sim_config()))
            except DiagnosticsError as e:               # what the target's code cannot express
                renderer = Renderer(comp.sources)
                raise CompileError("\n".join(renderer.render(d) for d in e.diagnostics), e.diagnostics) from None
        return self._launchers[key]

    def run(self, target: str | None = None, timeout: float = 10.0, write=print) -> None:
        """Run the host block; raises syncc.RunError when a check fails, a launch cannot be made or
        (e.deadlock) a kernel does not finish."""
        from .runtime.run import run_program
        target = target or self.default_target
        self._runner(target)
        comp = self._comp(target)
        before = len(comp.sink.items)
        outcome = run_program(comp, timeout=timeout, write=write, config=self._sim_config())
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
        simulator = self.program._runner(target).simulator
        if sim_config is not None and not simulator:
            raise ValueError("sim_config is for launches on the simulator (target=\"fermi-sim\")")
        launch = self.program.launcher(target, timeout)
        from .core.diagnostics import DiagnosticsError
        from .runtime.sim import SimStopped, diagnostics
        comp = self.program._comp(target)
        try:
            if not simulator:
                return launch(self.name, list(args), self.grid, self.block, None)
            if sim_config is not None:
                self.program._check_launch_config(sim_config)
            return launch(self.name, list(args), self.grid, self.block, None, config=sim_config)
        except DiagnosticsError as e:          # the hazard checks refuse this launch's shape (launch_check.py)
            raise CompileError("\n".join(Renderer(comp.sources).render(d) for d in e.diagnostics),
                               e.diagnostics) from None
        except SimStopped as e:
            raise RunError(Renderer(comp.sources).render(diagnostics(e, comp.sources)), deadlock=e.stuck) from None


def _dim3(shape) -> tuple[int, int, int]:
    if isinstance(shape, int):
        return (shape, 1, 1)
    shape = tuple(shape)
    return shape + (1,) * (3 - len(shape))
