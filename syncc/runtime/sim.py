"""Kernels on the Fermi simulator, launched like kernels on a GPU.

    launcher = SimLauncher(sass_program, FermiConfig())
    launcher("nw", [refm, out, 10], grid, block, span)    # numpy arrays, read and written in place

Each launch checks its arguments (args.py), lays the arrays and the kernel's
global state out in a fresh global memory (every element one 32-bit word, an f64 two; bool
arrays as 0/1 words), runs the simulator and copies the arrays back. A run that
cannot finish raises SimStopped with the simulator's Outcome; `diagnostics()`
turns it into diagnostics located in the program (E0903, E0905–E0912). A run that
a failed bounds check stopped (BPT.TRAP, after the check wrote its fault record)
raises faults.IndexOutOfBounds instead, from the record (E0913); so does one that
did not finish after a check failed. Given the IR (`ir=`), a kernel with bounds
checks is emitted again for each launch shape without those the shape proves, as
the GPU launcher does.
"""
from __future__ import annotations

import copy
from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np

from ..backends.sim.machine import FermiConfig
from ..backends.sim.memory import GlobalMemory
from ..backends.fermi.program import SassKernel, SassProgram
from ..backends.sim.simulator import Outcome, Simulator, init_values
from ..core.diagnostics import Diagnostic, Note, Severity
from ..core.records import RecordType, numpy_dtype
from ..core.source import SourceMap, Span
from ..ir.abi import FAULT_RECORD, FAULT_WORDS
from .args import DTYPES, LaunchError, check_arguments, check_shape
from .faults import read_fault

STUCK = ("deadlock", "livelock", "budget")


@contextmanager
def recording_launches() -> Iterator[list[tuple]]:
    """Every launch made meanwhile, as it was before it ran: (kernel, config, grid, block, a copy
    of its global memory, params), so that it can be run again (bench/fermi.py times the
    engines on them; tests/engines compares the engines on them)."""
    global Simulator
    recorded: list[tuple] = []
    real = Simulator

    class Recording(real):
        def __init__(self, kernel, config, grid, block, gmem, params, observer=None, keep_shared=False):
            recorded.append((kernel, config, grid, block, copy.deepcopy(gmem), list(params)))
            super().__init__(kernel, config, grid, block, gmem, params, observer, keep_shared)

    Simulator = Recording
    try:
        yield recorded
    finally:
        Simulator = real


class SimStopped(Exception):
    """A simulated kernel that could not finish: deadlock, livelock, budget, or a fault."""

    def __init__(self, kernel: SassKernel, outcome: Outcome, span: Span | None):
        super().__init__(outcome.status)
        self.kernel, self.outcome, self.span = kernel, outcome, span

    @property
    def stuck(self) -> bool:
        return self.outcome.status in STUCK


class SimLauncher:
    def __init__(self, program: SassProgram, config: FermiConfig | None = None, observer=None,
                 keep_shared: bool = False, sites: dict | None = None, ir=None):
        self.program = program
        self.sites = sites or {}                     # kernel → its bounds checks (ir/faults.check_sites)
        # the IR the program was emitted from, when given: a kernel with run-time bounds checks is
        # emitted again for each launch shape, without the checks that shape proves (as on a GPU)
        self.ir = {k.name: k for k in ir.kernels} if ir is not None else {}
        self._shaped: dict = {}
        self.config = config or FermiConfig()
        self.observer = observer                     # trace/progress hooks, one object for every launch
        self.keep_shared = keep_shared               # keep each block's shared memory (to print it)
        self.runs: list[tuple[SassKernel, Outcome, tuple, tuple]] = []   # kernel, outcome, grid, block

    def __call__(self, name: str, args: list, grid, block, span: Span | None = None,
                 config: FermiConfig | None = None) -> Outcome:
        """Run one launch; `config` replaces the launcher's FermiConfig for this launch only."""
        k = self.program.kernel(name)
        if k is None:
            raise LaunchError(f"no kernel `{name}` in the program", span)
        grid, block = check_shape(name, k.block, grid, block, span)
        k = self._shaped_kernel(k, grid, block)
        program_params = [p for p in k.params if p.kind in ("array", "scalar")]
        values = check_arguments(name, program_params, args, span)
        gmem, words, arrays, record = GlobalMemory(), [], [], None
        blocks, threads = grid[0] * grid[1] * grid[2], block[0] * block[1] * block[2]
        given = iter(values)
        for p in k.params:
            if p.kind == "array":
                host = next(given)
                data = _to_host(host)
                memory = _as_words(data, p.name, span)
                words.append(gmem.allocate(p.name, memory, (len(memory),) if data.dtype.names else p.dims))
                arrays.append((host, data, words[-1]))
            elif p.kind == "scalar":
                value = next(given)
                # a float parameter's word is its bit pattern; an f64's two words, low first
                if isinstance(value, np.float64):
                    bits = int(value.view(np.uint64))
                    words += [bits & 0xFFFFFFFF, bits >> 32]
                elif p.elem in ("i64", "u64"):                   # a 64-bit integer's two words, low first
                    bits = int(value) & 0xFFFFFFFFFFFFFFFF
                    words += [bits & 0xFFFFFFFF, bits >> 32]
                else:
                    words.append(int(value.view(np.uint32)) if isinstance(value, np.float32)
                                 else int(value) & 0xFFFFFFFF)
            else:
                n = p.length * (blocks if p.per == "block" else blocks * threads if p.per == "thread" else 1)
                n *= p.elem.size // 4 if getattr(p.elem, "kind", None) == "record" \
                    else 2 if p.elem in ("f64", "i64", "u64") else 1          # (records, 64-bit slots: words)
                words.append(gmem.allocate(p.name, init_values(p.init, n), (n,)))
                if p.name == FAULT_RECORD:
                    record = words[-1]
        config = config or self.config
        config = config.with_(its=True) if k.its and not config.its else config
        sim = Simulator(k, config, grid, block, gmem, words, self.observer, self.keep_shared)
        outcome = sim.run()
        self.runs.append((k, outcome, grid, block))
        if outcome.status == "fault" and outcome.fault and outcome.fault.kind == "launch":
            raise LaunchError(f"cannot launch `{name}` on the simulated Fermi: {outcome.fault.message}", span)
        for host, data, base in arrays:          # also from a run that stopped: memory as it was then
            if data.dtype.names:                                 # records: their bytes, as they lie
                data[...] = gmem.read_back(base, data.nbytes // 4).view(data.dtype).reshape(data.shape)
            else:
                back = gmem.read_back(base, data.size * (2 if data.itemsize == 8 else 1)) \
                    .view(_WORD_VIEW.get(data.dtype, np.int32))
                data[...] = back.reshape(data.shape).astype(data.dtype)
            if host is not data:                                 # a cupy array: copy back to the device
                host[...] = _device_copy(host, data)
        if not outcome.ok and record is not None:
            fault = read_fault(name, gmem.read_back(record, FAULT_WORDS), self.sites.get(name, {}), grid, block)
            if fault is not None and fault.check is not None:     # (a .sass file's trap: E0912 at it)
                raise fault
        if not outcome.ok:
            raise SimStopped(k, outcome, span)
        return outcome


    def _shaped_kernel(self, k: SassKernel, grid, block) -> SassKernel:
        """The kernel to run for this launch shape: the program's, or, where the shape proves some of
        its bounds checks (an index from `bid` or `gtid` in a small enough grid), the kernel emitted
        again without them (ir/faults.py, drop_proven_checks), once per shape."""
        ir = self.ir.get(k.name)
        if ir is None:
            return k
        key = (k.name, tuple(grid), tuple(block))
        if key not in self._shaped:
            from ..backends.fermi.emit import emit_kernel
            from ..ir.faults import drop_proven_checks
            kernel = drop_proven_checks(ir, (tuple(grid), tuple(block)))
            self._shaped[key] = k if kernel is ir else emit_kernel(kernel, k.source, k.its)
        return self._shaped[key]


def _to_host(a):
    if isinstance(a, np.ndarray):
        return a
    import cupy                       # a cupy array: the simulator works on a host copy
    return cupy.asnumpy(a)


def _device_copy(host, data):
    import cupy
    return cupy.asarray(data)


# how a word is read back into an array of each dtype (a bool's 0 or 1 through int32)
_WORD_VIEW = {np.dtype(np.uint32): np.uint32, np.dtype(np.float32): np.float32, np.dtype(np.float64): np.float64,
              np.dtype(np.int64): np.int64, np.dtype(np.uint64): np.uint64}


def _as_words(a: np.ndarray, name: str, span) -> np.ndarray:
    """An array as the words global memory holds (a 64-bit element two, low first)."""
    if a.dtype in (np.float64, np.int64, np.uint64):
        return np.ascontiguousarray(a).reshape(-1).view(np.uint32)
    return a.astype(np.uint32).reshape(-1) if a.dtype == np.bool_ else a.reshape(-1).view(np.uint32)


# ---- what went wrong, as diagnostics ------------------------------------------------------------

def diagnostics(stop: SimStopped, sources: SourceMap, sass_file: str | None = None) -> Diagnostic:
    """One diagnostic for a run that could not finish, at the source line of the instruction
    where it got stuck (or its line in `sass_file`, or the launch), with notes for the other
    places involved."""
    from ..backends.sim.findings import CODES
    k, outcome = stop.kernel, stop.outcome

    def span_of(pc: int | None) -> Span | None:
        """The instruction's source line, else its own line in the .sass file it was read from."""
        if pc is None or not 0 <= pc // 8 < len(k.instrs):
            return None
        ins = k.instrs[pc // 8]
        for path, loc in ((k.source, ins.loc), (sass_file, ins.at)):
            source = sources.get(path) if path and loc else None
            if source is not None:
                return source.span_at(loc[0], loc[1])
        return None

    if outcome.status == "fault":
        f = outcome.fault
        code = "E0911" if f.kind == "memory" else "E0912"
        where = f" in {f.warp.name}" if f.warp is not None else ""
        notes = [Note(f"at 0x{f.pc:04x}: `{k.instrs[f.pc // 8]}`")] if f.pc is not None and f.pc // 8 < len(
            k.instrs) else []
        return Diagnostic(Severity.ERROR, code, f"`{k.name}`{where}: {f.message}", span_of(f.pc) or stop.span,
                          tuple(notes))
    d = outcome.diagnosis
    first = d.primary
    code = CODES[d.kind]
    notes = []
    if first.pc is not None:
        notes.append(Note(f"at 0x{first.pc:04x}: `{k.instrs[first.pc // 8]}` (cycle {d.cycle})"))
    for text, pc in first.notes:
        notes.append(Note(text, span_of(pc)))
    for other in d.findings[1:4]:
        notes.append(Note(other.message, span_of(other.pc)))
    if len(d.findings) > 4:
        notes.append(Note(f"and {len(d.findings) - 4} more like these"))
    return Diagnostic(Severity.ERROR, code, f"`{k.name}`: {first.message}", span_of(first.pc) or stop.span,
                      tuple(notes), first.help)


# ---- .sass files -------------------------------------------------------------------------------------

def run_sass(program: SassProgram, launcher: "SimLauncher", write) -> None:
    """Run every kernel of a .sass file, in order, with the arrays and scalars its header gives,
    and print the arrays its `.print` names (a shared array: as block (0, 0, 0) left it; a run
    that cannot finish: as they are when it is stopped)."""
    for k in program.kernels:
        args, arrays = [], {}
        sizes = {p.name: (p.init.value if p.init is not None else 0) for p in k.params if p.kind == "scalar"}
        for p in k.params:
            if p.kind == "array":
                if isinstance(p.elem, RecordType):       # a `.record`'s array: its words, as the record dtype
                    arrays[p.name] = a = _sass_records(p, sizes, k.name)
                    args.append(a)
                    continue
                dtype = np.dtype({"u32": np.uint32, "f32": np.float32, "bool": np.bool_}.get(p.elem, np.int32))
                try:
                    dims = p.dims_with(sizes)
                except KeyError as e:
                    raise LaunchError(f"`{p.name}` is sized by `{e.args[0]}`, which is no scalar .param of "
                                      f"`{k.name}`") from None
                length = 1
                for d in dims:
                    length *= d
                a = init_values(p.init, length).view(_WORD_VIEW.get(dtype, np.int32))
                a = a.astype(dtype).reshape(dims or (length,))
                arrays[p.name] = a
                args.append(a)
            elif p.kind == "scalar":
                value = p.init.value if p.init is not None else 0
                args.append(np.array([value], dtype=np.int64).astype(np.uint32).view(np.float32)[0]
                            if p.elem == "f32" else value)
        try:
            outcome = launcher(k.name, args, k.grid or (1, 1, 1), k.block, None)
        except SimStopped as e:            # print what memory holds where it stopped, then report
            if e.stuck:
                _print_arrays(k, e.outcome, arrays, write)
            raise
        _print_arrays(k, outcome, arrays, write)


def _sass_records(p, sizes: dict, kernel: str) -> np.ndarray:
    """A .sass file's array of records: its INIT word by word (every field is a word on Fermi), as a
    structured array of the record's dtype."""
    try:
        dims = p.dims_with(sizes)
    except KeyError as e:
        raise LaunchError(f"`{p.name}` is sized by `{e.args[0]}`, which is no scalar .param of `{kernel}`") from None
    length = int(np.prod(dims)) if dims else 1
    words = init_values(p.init, length * (p.elem.size // 4)).astype(np.int64).astype(np.uint32)
    return words.view(numpy_dtype(p.elem)).reshape(dims or (length,)).copy()


def _print_arrays(k: SassKernel, outcome: Outcome, arrays: dict, write) -> None:
    from ..runtime.host import HostRunner
    for name in k.prints:
        if name in arrays:
            value = arrays[name]
        else:
            a = k.shared_array(name)
            words = (outcome.shared_after or {}).get((0, 0, 0))
            if a is None or words is None:
                continue
            value = words[a.offset // 4: a.offset // 4 + a.length].view(
                {"u32": np.uint32, "f32": np.float32}.get(a.elem, np.int32)).reshape(a.dims or (a.length,))
        write(f"{name} = {HostRunner.show(value)}")


__all__ = ["SimLauncher", "SimStopped", "diagnostics", "run_sass", "DTYPES"]
