"""The syncc oracle: seeded random programs and mutants, run under several schedules, each
classified against what `syncc check` said about it (see README.md in this folder).

    python -m tests.oracle.run --seed 1 --count 200 --mutants 200 --out results/oracle
"""
