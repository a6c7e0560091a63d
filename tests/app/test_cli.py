"""The command line: exit statuses, output formats, options, and what is not built yet."""
import json
import re
import subprocess
import sys

import pytest

from helpers import ROOT, syncc
from syncc import driver

LOCATED = re.compile(r"^\S+:\d+:\d+: error\[E\d{4}\]: ", re.M)
GOOD = "examples/wavefront.sync"


@pytest.fixture
def bad_file(tmp_path):
    p = tmp_path / "bad.sync"
    p.write_text("kernel k(a: global i32[4]) launch grid(1) block(32) {\n    a[0] = nope\n}\n")
    return str(p)


def test_version():
    r = syncc("--version")
    assert r.code == 0 and re.fullmatch(r"syncc \d+\.\d+\.\d+\n", r.out)
    declared = re.search(r'^version = "(.+)"$', (ROOT / "pyproject.toml").read_text(), re.M).group(1)
    assert r.out == f"syncc {declared}\n"          # the package metadata says the same


def test_check_ok_is_quiet_but_for_a_summary():
    r = syncc("check", GOOD)
    assert r.code == 0, r.err
    assert r.out == ""
    assert r.err == "syncc: 1 file checked for ptx and fermi: no problems\n"


def test_check_errors_exit_1_with_located_diagnostic(bad_file):
    r = syncc("check", bad_file)
    assert r.code == 1
    assert LOCATED.search(r.err), r.err
    assert f"{bad_file}:2:12: error[E0101]: unknown name `nope`" in r.err
    assert "    a[0] = nope\n" in r.err and "           ^^^^" in r.err
    assert r.err.rstrip().endswith("syncc: 1 file checked for ptx and fermi: 1 error")


def test_check_several_files_reports_all(bad_file):
    r = syncc("check", GOOD, bad_file, bad_file)
    assert r.code == 1
    assert r.err.count("error[E0101]") == 2
    assert "3 files checked for ptx and fermi: 2 errors" in r.err


def test_json_format_is_one_object_per_line(bad_file):
    r = syncc("check", "--error-format=json", bad_file)
    assert r.code == 1
    lines = r.err.strip().splitlines()
    assert len(lines) == 1
    d = json.loads(lines[0])
    assert d["severity"] == "error" and d["code"] == "E0101"
    assert (d["file"], d["line"], d["column"], d["end_line"], d["end_column"]) == (bad_file, 2, 12, 2, 16)
    assert d["rendered"].startswith(f"{bad_file}:2:12: error[E0101]")


def test_unreadable_file_is_a_file_level_error(tmp_path):
    missing = str(tmp_path / "missing.sync")
    r = syncc("check", missing)
    assert r.code == 1
    assert r.err.startswith(f"{missing}: error[E0007]: cannot read")


@pytest.mark.parametrize("args", [
    ["check"],                                   # no file
    ["frobnicate", GOOD],                        # no such command
    ["check", "--nope", GOOD],                   # no such option
    ["check", "-D", "N", GOOD],                  # -D without a value
    ["check", "-D", "N=abc", GOOD],              # -D with a non-integer
    ["build", GOOD, "--arch", "sm_60"],          # too old for PTX targets
    ["build", GOOD, "--target", "x86"],
    ["run", GOOD, "--target", "cpu"],
])
def test_usage_errors_exit_2(args):
    r = syncc(*args)
    assert r.code == 2, (r.code, r.err)
    assert "Traceback" not in r.err


def test_build_fermi_sass_prints_the_kernel_with_its_source_lines():
    r = syncc("build", GOOD, "--target", "fermi-sass")
    assert r.code == 0, r.err
    assert ".kernel nw" in r.out and ".launch grid(1, 1, 1) block(32, 32, 1)" in r.out
    assert "LDSLK" not in r.out or "STSUL" in r.out
    assert re.search(r"^\s+\.loc \d+ \d+\s+// ", r.out, re.M), "source lines are quoted"
    assert re.search(r"/\*[0-9a-f]{4}\*/\s+EXIT;", r.out)


def test_run_on_the_simulator_is_the_default_target():
    r = syncc("run", GOOD)
    assert r.code == 0, r.err
    assert "alignment score" in r.out


def test_not_built_yet_still_reports_compile_errors_first(bad_file):
    r = syncc("run", bad_file, "--target", "fermi-sim")
    assert r.code == 1 and "error[E0101]" in r.err and "not built yet" not in r.err


def test_emit_ast_to_a_file(tmp_path):
    out = tmp_path / "nw.ast"
    r = syncc("build", GOOD, "--emit", "ast", "-o", str(out))
    assert r.code == 0 and r.out == ""
    assert out.read_text().startswith("Program @")
    assert "Kernel name=nw" in out.read_text()


def test_defines_override_constants():
    assert syncc("check", GOOD, "-D", "N=15").code == 0
    r = syncc("check", GOOD, "-D", "N=32")            # a 33 x 33 block has 1089 threads
    assert r.code == 1 and "error[E0604]" in r.err
    r = syncc("check", GOOD, "-D", "N=true")
    assert r.code == 1 and "error[E0201]" in r.err and "-D N=true" in r.err
    r = syncc("check", GOOD, "-D", "NOPE=1")
    assert r.code == 0 and "warning[W0101]" in r.err


def test_internal_error_exits_101_with_a_short_report(monkeypatch):
    def broken(*args, **kwargs):
        raise RuntimeError("simulated bug")
    monkeypatch.setattr(driver, "check_file", broken)
    r = syncc("check", GOOD)
    assert r.code == 101
    assert "internal compiler error: RuntimeError: simulated bug" in r.err
    assert "Traceback" not in r.err and "--debug" in r.err
    r = syncc("check", "--debug", GOOD)
    assert r.code == 101 and "Traceback" in r.err


def test_no_color_unless_a_terminal_and_never_with_no_color(bad_file, monkeypatch):
    assert "\x1b[" not in syncc("check", bad_file).err
    assert "\x1b[" in syncc("check", "--color=always", bad_file).err
    monkeypatch.setenv("NO_COLOR", "1")
    assert "\x1b[" not in syncc("check", "--color=always", bad_file).err


def test_entry_point_runs_as_a_module():
    p = subprocess.run([sys.executable, "-m", "syncc", "check", GOOD], cwd=ROOT, capture_output=True, text=True,
                       timeout=120)
    assert p.returncode == 0, p.stderr


def test_check_imports_nothing_heavy():
    """`syncc check` loads neither the code generator nor the GPU runtime."""
    code = ("import sys; from syncc.cli import run_cli; rc = run_cli(['check', 'examples/wavefront.sync']); "
            "print(rc, sorted({m.split('.')[0] for m in sys.modules} & {'llvmlite', 'cupy', 'numpy', 'jinja2'}))")
    p = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert p.stdout.strip() == "0 []", p.stdout + p.stderr


def test_build_for_ptx_imports_only_what_it_needs():
    """`syncc build --target ptx` loads neither the simulator, numpy, jinja2, the GPU runtime nor the
    benchmarks (compile time: bench/ptx.py)."""
    code = ("import sys; from syncc.cli import run_cli; "
            "rc = run_cli(['build', 'examples/wavefront.sync', '--target', 'ptx', '-o', '-']); "
            "heavy = {'numpy', 'jinja2', 'cupy', 'numba', 'lark', 'syncc.backends.sim.simulator', "
            "'syncc.runtime', 'syncc.bench', 'syncc.backends.fermi.emit'}; "
            "print(rc, sorted(m for m in sys.modules if m in heavy or m.split('.')[0] in heavy), file=sys.stderr)")
    p = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert p.stderr.strip() == "0 []", p.stderr


def test_the_command_line_imports_no_pass():
    """The command line reads the passes' names (ir/pipeline.py) only when a command needs them."""
    code = ("import sys; import syncc.cli; "
            "print(sorted(m for m in sys.modules if m.startswith(('syncc.ir.pipeline', 'syncc.ir.passes', "
            "'syncc.ir.lower'))))")
    p = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert p.stdout.strip() == "[]", p.stdout + p.stderr


def test_the_passes_names_are_offered_when_asked():
    from syncc.ir.pipeline import PASS_NAMES
    r = syncc("build", "--help")
    assert r.code == 0 and ", ".join(PASS_NAMES) in " ".join(r.out.split())
    r = syncc("opt", "--help")
    assert r.code == 0 and ", ".join(PASS_NAMES[1:]) in " ".join(r.out.split())
    r = syncc("opt", GOOD, "-p", "nope")
    assert r.code == 2 and "'nope' is not one of" in r.err and "'insert_fences'" in r.err
    r = syncc("build", GOOD, "--dump-after", "nope")
    assert r.code == 2 and "insert_fences" in r.err


@pytest.mark.parametrize("args, code", [(["build", GOOD, "--target", "ptx", "-o", "-"], 0),
                                        (["check", "tests/diagnostics/assign_to_let.sync"], 1)])
def test_the_process_ends_with_its_output_and_status(args, code):
    """main() ends the process without the interpreter's teardown: the output is all there, and the status."""
    p = subprocess.run([sys.executable, "-m", "syncc", *args], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert p.returncode == code, p.stderr
    if code == 0:
        assert p.stdout.startswith("// syncc") and p.stdout.rstrip().endswith("}"), p.stdout[-200:]
    else:
        assert "error" in p.stderr


def test_run_on_a_machine_without_a_gpu_says_so():
    import importlib.util
    if importlib.util.find_spec("cupy") is not None:
        pytest.skip("cupy is installed here")
    r = syncc("run", GOOD, "--target", "gpu")
    assert r.code == 2 and "cannot run on the GPU" in r.err and "cupy" in r.err


def test_the_targets_come_from_one_table():
    from syncc.backend_table import BACKENDS, build_targets, run_targets
    BUILDS, RUNS = build_targets(), run_targets()
    assert set(BUILDS) | set(RUNS) == set(BACKENDS) and not set(BUILDS) & set(RUNS)
    r = syncc("build", GOOD, "--target", "gpu")            # gpu runs programs; it builds nothing
    assert r.code == 2 and all(name in r.err for name in BUILDS)
    r = syncc("run", GOOD, "--target", "ptx")
    assert r.code == 2 and all(name in r.err for name in RUNS)
    r = syncc("check", GOOD, "--target", "nope")
    assert r.code == 2 and all(name in r.err for name in BACKENDS)


def test_the_api_refuses_an_unknown_target():
    import syncc as api
    with pytest.raises(ValueError, match="fermi-sim"):
        api.compile(GOOD, target="fermi")
    assert api.compile(GOOD, target="fermi-sass").default_target == "fermi-sim"


def test_gpu_unavailable_is_part_of_the_api():
    import syncc as api
    from syncc.runtime.gpu import GpuUnavailable
    assert api.GpuUnavailable is GpuUnavailable and "GpuUnavailable" in (ROOT / "docs" / "python.md").read_text()


def test_an_output_that_cannot_be_written_is_a_usage_error(tmp_path):
    r = syncc("build", GOOD, "-o", str(tmp_path / "no" / "such" / "dir.ptx"))
    assert r.code == 2 and r.err.startswith("syncc: cannot write `") and "internal" not in r.err


def test_a_vended_header_names_the_file_it_was_written_to(tmp_path):
    out = tmp_path / "my_mutex.cuh"
    assert syncc("build", "stdlib/mutex.sync", "--target", "cuda", "-o", str(out)).code == 0
    assert f"--target cuda -o {out}\n" in out.read_text()
    assert "--target cuda -o mutex.cuh\n" in syncc("build", "stdlib/mutex.sync", "--target", "cuda").out
