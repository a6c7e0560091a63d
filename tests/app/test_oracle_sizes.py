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
def test_size_programs_are_judged_as_their_flaws_say_and_one_runs_right(tmp_path, compiled_core):
    """The size motifs write what the analyses accept across the declared ranges on both targets,
    except a count written short at some configurations (sizes.FLAWED), which they must reject
    there (E0705, naming a configuration); the same count where it is never short is accepted. A
    program's host reference agrees with the simulator at its first configuration. Programs 10
    (a shared queue's gets counted for one block), 12 (waits `n` times, n never past the threads)
    and 19 (waits `n` times, past the threads at one block) of the batch are the flawed ones."""
    for i in (0, 1, 10, 12, 19):
        program = generate_sized(program_seed(SEED, i))
        path = tmp_path / f"genn_{SEED}_{i:04d}.sync"
        path.write_text(program.text())
        bites = any(p.bites for p in program.pieces)
        for target in ("ptx", "fermi-sim"):
            r = syncc_cli("check", str(path), "--target", target)
            if bites:
                assert r.code != 0 and "E0705" in r.err and "for a configuration the kernel declares" in r.err, r.err
            else:
                assert r.code == 0, (path.read_text(), r.err)
    assert [i for i in (10, 12, 19) if any(p.bites for p in generate_sized(program_seed(SEED, i)).pieces)] == [10, 19]
    path = tmp_path / f"genn_{SEED}_0000.sync"
    r = syncc_cli("run", str(path), "--target", "fermi-sim", "--max-cycles", "4000000")
    assert r.code == 0, (path.read_text(), r.err)


def test_picks_take_both_ends_their_neighbours_and_points_between():
    import random
    from oracle.declared import dimension_picks, picks
    chosen = picks(1, 200, random.Random(3))
    assert {1, 2, 198, 199} <= set(chosen) and all(1 <= v < 200 for v in chosen) and len(chosen) <= 6
    assert picks(1, 3, random.Random(3)) == [1, 2]                   # a narrow range: every value
    assert picks(5, 6, random.Random(3)) == [5]
    dims = dimension_picks({"oracle_grid": range(1, 9), "r": (4, 1, 2)}, random.Random(1))
    assert dims["r"] == [1, 2, 4] and {1, 2, 7, 8} <= set(dims["oracle_grid"]) and max(dims["oracle_grid"]) == 8


def test_configurations_are_a_small_product_or_corners_and_every_pick():
    import itertools
    import random
    from oracle.declared import configurations
    small = configurations({"oracle_grid": [1, 2], "n": [1, 5]}, random.Random(1))
    assert sorted(map(lambda c: (c["oracle_grid"], c["n"]), small)) == [(1, 1), (1, 5), (2, 1), (2, 5)]
    chosen = {"oracle_grid": [1, 2, 4, 7, 8], "n": [1, 2, 50, 198, 199], "r": [1, 2, 4]}
    configs = configurations(chosen, random.Random(1), limit=12)
    keys = {tuple(c.values()) for c in configs}
    assert len(keys) == len(configs) <= 12 + 2 * 5 + 3                 # bounded
    for corner in itertools.product(*([min(v), max(v)] for v in chosen.values())):
        assert corner in keys                                          # every corner
    for name, values in chosen.items():
        assert {c[name] for c in configs} == set(values)               # every pick of every dimension


def test_declared_reads_a_size_programs_dimensions_and_rewrites_its_configuration():
    from oracle.declared import configuration_lines, declared_dimensions, with_configuration
    program = generate_sized(program_seed(SEED, 5))
    text = program.text()
    dims = declared_dimensions(text)
    assert dims["oracle_grid"] == range(1, program.grid_hi)
    assert dims["n"] == range(program.size.lo, program.size.hi)
    assert configuration_lines(text) == program.configuration
    other = {name: (min(v) if isinstance(v, range) else v[0]) for name, v in dims.items()}
    assert configuration_lines(with_configuration(text, other)) == other
    # a program of the other batches has no configuration: declared.py rewrites its grid instead
    assert declared_dimensions(program_text(program_seed(SEED, 5))) == {}


def test_size_configurations_go_into_a_gpu_batch_from_the_ptx_check_alone(tmp_path):
    from oracle.declared import main
    batch = tmp_path / "batch"
    (batch / "programs").mkdir(parents=True)
    sized(batch / "programs", 1)
    assert main(["--batch", str(batch), "--out", str(tmp_path / "out"), "--gpu", str(tmp_path / "gpu"),
                 "--gpu-only", "--jobs", "1", "--configs", "4"]) == 0
    script = (tmp_path / "gpu" / "run_gpu.sh").read_text()
    runs = [line.split()[1] for line in script.splitlines() if line.startswith("run ") and "()" not in line]
    assert len(runs) >= 4 and all((tmp_path / "gpu" / f"{r}.sync").exists() for r in runs)
    configured = {tuple(configuration_values((tmp_path / "gpu" / f"{r}.sync").read_text())) for r in runs}
    assert len(configured) == len(runs)                    # one configuration a program


def configuration_values(text: str) -> list[int]:
    from oracle.declared import configuration_lines
    return list(configuration_lines(text).values())


# a reference that forgets the elements past the launch's threads: right at two blocks, wrong at one
# block with n past its 32 threads; declared.py must say `wrong` there and only there
SHORT_REFERENCE = """kernel fill(n: i32 in [1, 33, 39], x: global i32[n]) launch grid(1 .. 3) block(32) {
    if gtid < n { x[gtid] = gtid + 1 }
}
host main {
    let oracle_grid = 2
    let n = 39
    let x = zeros(i32, n)
    launch fill(n, x) grid(oracle_grid)
    let want = zeros(i32, n)
    for i in 0 .. n { want[i] = i + 1 }
    check x == want, "x differs"
}
"""


@pytest.mark.slow
def test_a_check_that_fails_at_one_configuration_is_a_wrong_verdict_there(tmp_path, compiled_core):
    import argparse
    from oracle.declared import is_finding, judge_sized
    (tmp_path / "programs").mkdir()
    args = argparse.Namespace(timeout=120, max_cycles=2_000_000, configs=12)
    rows = judge_sized("short", SHORT_REFERENCE, "fermi", tmp_path, args, 1)
    assert rows[0]["verdict"] == "accepted", rows
    verdicts = {(r["configuration"]["oracle_grid"], r["configuration"]["n"]): r["verdict"] for r in rows[1:]}
    assert verdicts == {(1, 1): "ok", (1, 33): "wrong", (1, 39): "wrong", (2, 1): "ok", (2, 33): "ok", (2, 39): "ok"}
    assert [is_finding(r) for r in rows[1:]] == [v == "wrong" for v in verdicts.values()]


@pytest.mark.slow
def test_accepted_size_programs_stay_right_across_their_declarations(tmp_path, compiled_core):
    """The promise on the fixed size batch's first program, at configurations across its declared
    grids and sizes on Fermi's SIMT stack: every one runs and its host's checks hold (no hang, no
    fault, no wrong result, no launch refused that the declaration's check accepted)."""
    import argparse
    from oracle.declared import is_finding, judge_sized
    (tmp_path / "programs").mkdir()
    args = argparse.Namespace(timeout=120, max_cycles=4_000_000, configs=4)
    program = generate_sized(program_seed(SEED, 0))
    rows = judge_sized("genn_0", program.text(), "fermi", tmp_path, args, 1)
    assert rows[0]["verdict"] == "accepted", rows[0]
    assert len(rows) > 4 and not [r for r in rows if is_finding(r)], rows
    grids = {r["configuration"]["oracle_grid"] for r in rows[1:]}
    assert {1, program.grid_hi - 1} <= grids                       # both ends of the grid
