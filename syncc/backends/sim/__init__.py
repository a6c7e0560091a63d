"""The cycle-level Fermi simulator: it runs backends/fermi's kernels (machine,
memory, scheduling, ITS, diagnosis, trace, stats)."""
