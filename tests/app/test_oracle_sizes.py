"""The oracle's size batch (tests/oracle/sizes.py): kernels that declare ranges of grids and sizes,
with host checks that hold across them, and the configurations declared.py runs them at."""
from pathlib import Path

import pytest
from oracle.generate import batch_prefix, generate, program_seed, program_text
from oracle.judge import Program, frontend_errors
from oracle.sizes import generate_sized

from helpers import syncc as syncc_cli

SEED = 2026


def sized(folder: Path, n: int) -> list[Path]:
    paths = []
    for i in range(n):
        path = folder / f"{batch_prefix(sizes=True)}_{SEED}_{i:04d}.sync"
        path.write_text(program_text(program_seed(SEED, i), sizes=True))
        paths.append(path)
    return paths


def test_size_programs_declare_their_ranges_and_start_the_host_with_a_configuration():
    program = generate_sized(program_seed(SEED, 1))
    text = program.text()
    assert text == program_text(program_seed(SEED, 1), sizes=True)        # a function of the seed
    assert f"launch grid(1 .. {program.grid_hi}) block({program.block})" in text
    assert f"kernel k0({program.size.declaration()}" in text
    host = text[text.index("host main {"):].splitlines()
    lets = [line.strip() for line in host[2:2 + len(program.configuration)]]
    assert lets == [f"let {k} = {v}" for k, v in program.configuration.items()]
    assert "grid(oracle_grid)" in text and "want_" in text
    assert 1 <= program.configuration["oracle_grid"] < program.grid_hi
    assert program.size.lo <= program.configuration["n"] < program.size.hi


def test_the_size_flag_leaves_the_other_batches_as_they_were():
    for i in range(3):
        assert program_text(program_seed(SEED, i)) == generate(program_seed(SEED, i)).text()
        assert "oracle_grid" not in program_text(program_seed(SEED, i))


def test_size_programs_pass_the_front_end(tmp_path):
    for path in sized(tmp_path, 30):
        assert not frontend_errors(Program(path.stem, str(path), "generated")), path.read_text()


@pytest.mark.slow
def test_size_programs_are_accepted_and_one_runs_right(tmp_path, compiled_core):
    """The size motifs write what the analyses accept across the declared ranges on both targets
    (a rejection would name a configuration: a generator bug, or a hole in the size reasoning to
    look at), and a program's host reference agrees with the simulator at its first configuration."""
    paths = sized(tmp_path, 4)
    for path in paths:
        for target in ("ptx", "fermi-sim"):
            r = syncc_cli("check", str(path), "--target", target)
            assert r.code == 0, (path.read_text(), r.err)
    r = syncc_cli("run", str(paths[0]), "--target", "fermi-sim", "--max-cycles", "4000000")
    assert r.code == 0, (paths[0].read_text(), r.err)
