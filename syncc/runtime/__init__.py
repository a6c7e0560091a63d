"""Running programs: the host block on the CPU (host.py), kernels on a target (gpu.py for
real GPUs through cupy; the Fermi simulator later)."""
