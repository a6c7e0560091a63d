"""Kernels on a real GPU, through cupy.

    launcher = GpuLauncher(module, timeout=10.0)        # the IR module, after every pass
    launcher("nw", [refm, out, 10], grid, block, span)  # numpy arrays, read and written in place

The PTX is built for the device's own architecture and loaded with cupy's driver
wrappers. Before each launch the launcher checks every argument against the kernel's
parameters (dtype and shape of each array, the range of each scalar, which it wraps in
the matching numpy type: cupy checks nothing and sends a Python int as 64 bits),
copies the arrays to the device, allocates the kernel's global state arrays and fills
them with their first values (abi.py). A kernel with a grid barrier needs every block
resident at once, and so does one marked `coresident` (a wait that only another block can
end): the launcher computes the occupancy and launches cooperatively, or refuses. The launch runs under a watchdog: a kernel that has not finished within
`timeout` seconds is reported as a probable deadlock or livelock, naming the
primitives it can wait on (ProbableDeadlock); the GPU stays busy, so the caller should
end the process (syncc run exits with status 3).

A kernel with run-time bounds checks is launched without those that its launch's shape proves
(an index from `bid` or `gtid` is checked because a launch may give any grid; the launcher
knows the grid it gives): a build of the kernel for that shape, made once per shape. The
checks left (indices from data) get their fault record (ir/abi.py) in mapped pinned
host memory, zeroed before each launch: the first failing thread writes it and fences at
system scope, and every failing thread then stalls at its check for good, before the access
(the back end says why not a trap). The watchdog reads the record as it waits and raises
faults.IndexOutOfBounds with the index, the thread and the check's site as soon as it is
written; the kernel goes on running, as a hung one does, so the caller should end the
process (`syncc run` exits).
"""
from __future__ import annotations

import atexit
import ctypes
import os
import sys
import time
from dataclasses import dataclass, replace

import numpy as np

from ..backends.ptx import PtxProgram, build_ptx
from ..ir.abi import F_DONE, FAULT_WORDS, KernelABI, Param
from ..ir.faults import check_sites, drop_proven_checks
from ..core.types import BOOL
from ..ir.nodes import Kernel, Module
from ..core.source import Span
from .args import LaunchError, check_arguments, check_shape
from .faults import read_fault
from .host import DTYPES


class GpuUnavailable(Exception):
    """No cupy, no CUDA device, or a driver error before anything ran."""


class ProbableDeadlock(Exception):
    def __init__(self, message: str, span: Span | None, waits: list[str]):
        super().__init__(message)
        self.message, self.span, self.waits = message, span, waits


_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8     # CUfunction_attribute CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
_NOT_READY = 600                       # cudaErrorNotReady: cudaStreamQuery of a stream still running


@dataclass(frozen=True)
class Device:
    name: str
    arch: str
    sms: int
    shared_per_block: int = 48 * 1024     # the most shared memory a block can ask for (opt-in)


def _cupy():
    try:
        import cupy
    except ImportError as e:       # pragma: no cover - depends on the machine
        raise GpuUnavailable(f"cupy is not installed ({e}); `pip install 'syncc[gpu]'`") from None
    try:
        if cupy.cuda.runtime.getDeviceCount() < 1:
            raise GpuUnavailable("no CUDA device")
    except cupy.cuda.runtime.CUDARuntimeError as e:
        raise GpuUnavailable(f"no usable CUDA device: {e}") from None
    return cupy


def device() -> Device:
    cupy = _cupy()
    d = cupy.cuda.Device()
    props = cupy.cuda.runtime.getDeviceProperties(d.id)
    name = props["name"].decode() if isinstance(props["name"], bytes) else props["name"]
    return Device(name, f"sm_{d.compute_capability}", props["multiProcessorCount"],
                  props.get("sharedMemPerBlockOptin") or props.get("sharedMemPerBlock", 48 * 1024))


def numpy_type(p: Param):
    """The dtype of a state array on the device (records: their bytes, cupy has no structured dtype)."""
    return np.uint8 if p.elem == BOOL or p.elem.kind == "record" else DTYPES[p.elem.name]


def _state_length(p: Param, blocks: int, threads: int) -> int:
    n = p.length(blocks, threads)
    return n * p.elem.size if p.elem.kind == "record" else n


def _to_device(cupy, v):
    """A host argument on the device: an array of records as its bytes (cupy has no structured dtype)."""
    if not isinstance(v, np.ndarray):
        return v
    return cupy.asarray(v.view(np.uint8) if v.dtype.names else v)


class GpuLauncher:
    # a kernel that did not finish, or that stopped at a failed bounds check, stays on the device:
    # the process must end without waiting for it (runtime/run.py, `syncc run`)
    leaves_kernels_running = True

    def __init__(self, module: Module, timeout: float = 10.0, arch: str | None = None, line_info: bool = False):
        self.cupy = _cupy()
        self.device = device()
        self.arch = arch or _supported(self.device.arch)
        # line_info (`syncc run --line-info`): source-line directives, so that tools like
        # compute-sanitizer report .sync lines (the code is the same; building takes longer)
        self.program: PtxProgram = build_ptx(module, self.arch, lines=line_info)
        self.source, self.line_info = module.source, line_info
        self._shaped: dict = {}        # (kernel, grid, block) → (function, ABI[, its own module])
        self.kernels = {k.name: k for k in module.kernels}
        self.sites = {k.name: check_sites(k) for k in module.kernels}
        self.timeout = timeout
        self._module = None
        self._record: FaultRecord | None = None

    @property
    def module(self):
        if self._module is None:
            m = self.cupy.cuda.function.Module()
            m.load(self.program.text.encode())
            self._module = m
        return self._module

    # ---- one launch
    def __call__(self, name: str, args: list, grid, block, span: Span | None = None) -> None:
        # Every copy and the launch go on one stream, in order: a non-blocking stream does not
        # wait for the legacy default stream, so a copy made there could land after the kernel
        # started (it did, on an H100, under load: stale arrays read as lost updates). Nor does it
        # wait for the caller's own stream, where a cupy array passed in was filled: it waits for
        # an event recorded there first.
        stream = self.cupy.cuda.Stream(non_blocking=True)
        stream.wait_event(self.cupy.cuda.get_current_stream().record())
        with stream:
            launch = self._prepare(name, args, grid, block, span)
            launch.fill_state()
            launch.start(stream)
        self._wait(stream, launch, span)
        with stream:
            launch.copy_back()

    # ---- timed launches (syncc bench)
    def timed(self, name: str, args: list, grid, block, repeats: int = 5, warmup: int = 1) -> list[float]:
        """Launch `warmup + repeats` times and return the kernel time of each timed launch, in
        seconds, from CUDA events around the launch alone. The arrays are copied to the device
        once; the kernel's state is refilled with its first values before every launch (outside
        the timed interval), so each launch starts from a fresh primitive. The arrays are copied
        back after the last launch, so the caller can check what the kernels computed."""
        cupy = self.cupy
        stream = cupy.cuda.Stream(non_blocking=True)
        stream.wait_event(cupy.cuda.get_current_stream().record())     # (cupy arrays filled there: __call__)
        with stream:                       # the copies to the device, ordered before the launches
            launch = self._prepare(name, args, grid, block, None)
        times = []
        for k in range(warmup + repeats):
            begin, end = cupy.cuda.Event(), cupy.cuda.Event()
            with stream:
                launch.fill_state()
                begin.record(stream)
                launch.start(stream)
                end.record(stream)
            self._wait(stream, launch, None)
            if k >= warmup:
                times.append(cupy.cuda.get_elapsed_time(begin, end) / 1000)
        with stream:
            launch.copy_back()
        return times

    def timed_batch(self, name: str, args: list, grid, block, launches: int = 20, warmup: int = 2) -> float:
        """Seconds a launch, refill of its state included, from CUDA events around `launches` launches
        queued back to back (after `warmup` more): as a library call that initializes its own state
        is timed, with the host's work on one launch hidden behind the GPU's on the one before. The
        bounds checks' fault record is host memory, cleared as each launch is queued: a check that
        fails in one launch of the batch may be cleared by the next, so check the outputs (the
        bench does) or time a kernel whose checks its shape proves."""
        cupy = self.cupy
        stream = cupy.cuda.Stream(non_blocking=True)
        stream.wait_event(cupy.cuda.get_current_stream().record())
        with stream:
            launch = self._prepare(name, args, grid, block, None)
            for _ in range(warmup):
                launch.fill_state()
                launch.start(stream)
            begin, end = cupy.cuda.Event(), cupy.cuda.Event()
            begin.record(stream)
            for _ in range(launches):
                launch.fill_state()
                launch.start(stream)
            end.record(stream)
        self._wait(stream, launch, None)
        with stream:
            launch.copy_back()
        return cupy.cuda.get_elapsed_time(begin, end) / 1000 / launches

    def _prepare(self, name: str, args: list, grid, block, span) -> "_Launch":
        """Check the shape and arguments, copy numpy arrays to the device (cupy arrays are used
        where they are), allocate the kernel's state, and check co-residency where needed."""
        kernel = self.kernels[name]
        grid, block = check_shape(name, kernel.block, grid, block, span)
        function, abi = self._function(name, grid, block)
        blocks, threads = grid[0] * grid[1] * grid[2], block[0] * block[1] * block[2]
        values = self._arguments(abi, args, span)
        state = [self.cupy.empty(_state_length(p, blocks, threads), dtype=numpy_type(p)) if p.kind == "state"
                 else self.fault_record() for p in abi.params if p.kind in ("state", "fault")]
        device_args = [_to_device(self.cupy, v) for v in values]
        if abi.dynamic_shared:
            if abi.dynamic_shared > self.device.shared_per_block:
                raise LaunchError(f"`{name}`'s shared arrays take {abi.dynamic_shared} bytes, but a block on "
                                  f"{self.device.name} can have {self.device.shared_per_block}", span)
            # (a module's Function has no setter for it: the driver call)
            self.cupy.cuda.driver.funcSetAttribute(function.ptr, _MAX_DYNAMIC_SHARED_SIZE_BYTES, abi.dynamic_shared)
        cooperative = self._needs_coresidency(kernel)
        if cooperative:
            self._check_coresidency(function, kernel, blocks, threads, span, abi.dynamic_shared)
        return _Launch(kernel, abi, function, grid, block, values, device_args, state, cooperative)

    def _function(self, name: str, grid, block):
        """The function to launch and its ABI: the module's, or, where this launch's shape proves
        some of the kernel's bounds checks (indices from `bid` or `gtid` and not from data, in a
        grid small enough), a build of the kernel without them for this shape alone (ir/faults.py,
        drop_proven_checks), made once per shape."""
        key = (name, tuple(grid), tuple(block))
        if key not in self._shaped:
            kernel = drop_proven_checks(self.kernels[name], (tuple(grid), tuple(block)))
            if kernel is self.kernels[name]:
                self._shaped[key] = (self.module.get_function(name), self.program.kernels[name])
            else:
                program = build_ptx(Module((kernel,), self.source), self.arch, lines=self.line_info)
                module = self.cupy.cuda.function.Module()
                module.load(program.text.encode())
                self._shaped[key] = (module.get_function(name), program.kernels[name], module)
        return self._shaped[key][:2]

    def fault_record(self) -> "FaultRecord":
        """The bounds checks' record: FAULT_WORDS words of mapped pinned host memory (one per
        launcher: launches run one after another)."""
        if self._record is None:
            self._record = FaultRecord(self.cupy)
        return self._record

    def _arguments(self, abi: KernelABI, args: list, span) -> list:
        return check_arguments(abi.name, abi.program_params, args, span, numpy_type)

    # ---- co-residency
    def require_coresidency(self, name: str) -> None:
        """Launch `name` with every block resident from now on: a launch shape checked at run time
        found a wait that only another block can end (runtime/launch_check.py)."""
        self.kernels[name] = replace(self.kernels[name], coresident=True)

    @staticmethod
    def _needs_coresidency(kernel: Kernel) -> bool:
        """A grid barrier waits for every block, and a kernel marked `coresident` has a wait that only
        another block can end (checks/residency.py): either needs all its blocks resident at once."""
        return kernel.coresident or any(p.kind == "barrier" and p.granularity == "grid" for p in kernel.prims)

    def _check_coresidency(self, function, kernel: Kernel, blocks: int, threads: int, span,
                           dynamic_shared: int = 0) -> None:
        per_sm = self.cupy.cuda.driver.occupancyMaxActiveBlocksPerMultiprocessor(function.ptr, threads,
                                                                                  dynamic_shared)
        fit = per_sm * self.device.sms
        if blocks > fit:
            barrier = next((p.name for p in kernel.prims if p.kind == "barrier" and p.granularity == "grid"), None)
            what = (f"the grid barrier `{barrier}`" if barrier is not None else
                    "a wait that only another block can end")
            raise LaunchError(f"{what} needs all {blocks} blocks resident at once, but "
                              f"{self.device.name} holds {fit} of these ({per_sm} per SM × {self.device.sms} SMs)",
                              span)

    # ---- the watchdog
    def _wait(self, stream, launch: "_Launch", span) -> None:
        kernel = launch.kernel
        deadline = time.monotonic() + self.timeout
        pause = 1e-4
        try:
            record = next((a for a in launch.state if isinstance(a, FaultRecord)), None)
            while not self._finished(stream):
                if record is not None and record.words[F_DONE]:
                    # A check failed: its thread stalls there for good (codegen._bounds_check), and
                    # the kernel with it, like a hung one.
                    _left_running(self, stream, launch)
                    self._raise_fault(launch)
                if time.monotonic() > deadline:
                    # Unloading the module or freeing the arrays of a running kernel waits for it, that
                    # is forever: keep them alive until the process exits.
                    _left_running(self, stream, launch)
                    self._raise_fault(launch)            # a check failed, then the kernel hung
                    waits = waited_on(kernel)
                    raise ProbableDeadlock(f"`{kernel.name}` has not finished after {self.timeout:g} s: probably "
                                           "deadlocked or livelocked", span, waits)
                time.sleep(pause)
                pause = min(pause * 2, 0.05)
            stream.synchronize()
        except self.cupy.cuda.runtime.CUDARuntimeError:
            # A trap (a .sass file's own, or a launch failure) ends the launch with an error and
            # the context with it: nothing of the launch may be freed now.
            _STUCK.append((self, stream, launch.keep))
            self._raise_fault(launch)
            raise

    def _finished(self, stream) -> bool:
        """Has the stream's work ended, well or not? (cupy's `Stream.done` is false for a stream whose
        launch failed, as after a trap: the failure would wait out the watchdog.) A failure raises,
        from synchronize()."""
        status = self.cupy.cuda.runtime.streamQuery(stream.ptr)
        if status == _NOT_READY:
            return False
        if status != 0:
            stream.synchronize()        # raises the launch's error
        return True

    def _raise_fault(self, launch: "_Launch") -> None:
        record = next((a for a in launch.state if isinstance(a, FaultRecord)), None)
        if record is not None:
            fault = read_fault(launch.kernel.name, record.words, self.sites.get(launch.kernel.name, {}),
                               launch.grid, launch.block)
            if fault is not None:
                raise fault


@dataclass
class _Launch:
    """A kernel launch made ready: its arguments on the device and its state allocated."""
    kernel: Kernel
    abi: KernelABI
    function: object
    grid: tuple
    block: tuple
    values: list            # the checked arguments, host arrays as given
    device_args: list
    state: list
    cooperative: bool

    @property
    def keep(self) -> tuple:
        return (self.device_args, self.state)

    def fill_state(self) -> None:
        for p, a in zip((p for p in self.abi.params if p.kind in ("state", "fault")), self.state):
            a.fill(p.init or 0)

    def start(self, stream) -> None:
        state = [a.argument if isinstance(a, FaultRecord) else a for a in self.state]
        self.function(self.grid, self.block, tuple(self.device_args + state), stream=stream,
                      shared_mem=self.abi.dynamic_shared, enable_cooperative_groups=self.cooperative)

    def copy_back(self) -> None:
        for host, dev in zip(self.values, self.device_args):
            if isinstance(host, np.ndarray):
                (host.view(np.uint8) if host.dtype.names else host)[...] = dev.get()


_STUCK: list = []      # what a hung kernel uses (see GpuLauncher._wait)
_RUNNING = False       # has a kernel been left running on the GPU (_exit_without_waiting is due)?


def _left_running(launcher: GpuLauncher, stream, launch: "_Launch") -> None:
    """A kernel stays on the GPU for good (hung, or stalled at a failed bounds check): keep what
    it uses alive, and end the process at exit without waiting for it."""
    global _RUNNING
    if not _RUNNING:
        atexit.register(_exit_without_waiting)
        _RUNNING = True
    _STUCK.append((launcher, stream, launch.keep))


def _exit_without_waiting() -> None:
    """At exit, freeing device memory waits for every kernel, that is for ever: leave at once,
    with status 1 (the process saw a kernel hang or fail), after the output is flushed. Exit
    handlers registered before this one do not run."""
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(1)


class FaultRecord:
    """The bounds checks' record in mapped pinned host memory: the GPU writes it through the bus
    (it is the kernel's argument), the host reads `words` directly, even after a trap."""
    MAPPED = 2             # cudaHostAllocMapped

    def __init__(self, cupy):
        runtime = cupy.cuda.runtime
        self.ptr = runtime.hostAlloc(4 * FAULT_WORDS, self.MAPPED)
        self.words = np.ctypeslib.as_array((ctypes.c_uint32 * FAULT_WORDS).from_address(self.ptr))
        # The device's address of the memory: with unified addressing (every 64-bit platform CUDA
        # supports) the host's own, which pointerGetAttributes confirms.
        try:
            device = getattr(runtime.pointerGetAttributes(self.ptr), "devicePointer", 0)
        except runtime.CUDARuntimeError:
            device = 0
        self.argument = np.uint64(device or self.ptr)

    def fill(self, value: int) -> None:
        self.words[:] = value


def waited_on(kernel: Kernel) -> list[str]:
    """The kernel's primitives that a thread can wait on, in words, with where they are declared."""
    out = []
    for p in kernel.prims:
        where = f" (declared at {p.span.line}:{p.span.col})" if p.span else ""
        out.append(f"{p.kind} `{p.name}` ({p.placement} @{p.granularity}, {p.impl}){where}")
    return out


def _supported(arch: str) -> str:
    """The device's architecture, or the newest syncc builds for when the device is newer."""
    from ..backends.ptx.target import ARCHS
    if arch in ARCHS:
        return arch
    newer = [a for a in ARCHS if int(a[3:]) <= int(arch[3:].rstrip("a"))]
    return newer[-1] if newer else ARCHS[-1]
