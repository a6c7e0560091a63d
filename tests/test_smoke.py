"""The CLI answers and a small program checks clean."""
from syncc.cli import run_cli


def test_version(capsys):
    assert run_cli(["--version"]) == 0
    assert capsys.readouterr().out.startswith("syncc ")


def test_check_counter_sketch(tmp_path):
    src = tmp_path / "c.sync"
    src.write_text("kernel k(a: global i32[4]) launch grid(1) block(32) {\n    a[0] = 1\n}\n")
    assert run_cli(["check", str(src)]) == 0
