"""The compiled core of the Fermi simulator (engine.py, numba) and its bridge to the reference
engine's objects (bridge.py). `Simulator` picks it for a launch when it can run it:

    bridge, why = core.load()        # the bridge, or why there is none (numba is missing)
    why = bridge.unsupported(sim)    # None, or why this launch stays on the reference engine
    sim.core = bridge.Core(sim)      # then Simulator.run advances through sim.core.advance

That is all the Simulator asks of the core. The other way, the bridge uses the Simulator's public
names only (simulator.Simulator's docstring lists them, weakmem.WeakMemory's its state).
layout.py names the columns of the arrays the engine and the bridge share, and each file
imports the names it uses from it.
"""
from __future__ import annotations


def load():
    """The bridge module, or the reason the compiled core cannot be had here (numba missing)."""
    try:
        from . import bridge
    except ImportError as e:             # numba is not installed: the reference engine runs everything
        return None, f"the compiled core needs numba ({e})"
    return bridge, None
