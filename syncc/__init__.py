"""syncc: a compiler from a small lock DSL to PTX and to a lock-bit-aware Fermi simulator."""

__version__ = "0.1.0"
