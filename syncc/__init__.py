"""syncc: a compiler from a small lock DSL to PTX and to a lock-bit-aware Fermi simulator.

    import syncc
    prog = syncc.compile("examples/wavefront.sync")
    prog.nw(refm, out, 10)              # on the GPU, on numpy or cupy arrays

See docs/python.md. The command line is `syncc` (syncc/cli.py).
"""

from .core.version import VERSION as __version__


def compile(path, defines=None, opt=2, target="ptx", fences=True, sim_config=None, hazards=True,  # noqa: A001
            stdlib=(), bounds_checks=True):
    """Check and compile a .sync file; returns a Program whose kernels can be launched."""
    from .api import compile as _compile
    return _compile(path, defines, opt, target, fences, sim_config, hazards, stdlib, bounds_checks)


def __getattr__(name):
    if name in ("CompileError", "RunError", "Program"):
        from . import api
        return getattr(api, name)
    if name == "GpuUnavailable":
        from .runtime.gpu import GpuUnavailable
        return GpuUnavailable
    if name == "IndexOutOfBounds":
        from .runtime.faults import IndexOutOfBounds
        return IndexOutOfBounds
    raise AttributeError(f"module 'syncc' has no attribute {name!r}")
