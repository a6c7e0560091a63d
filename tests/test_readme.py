"""README.md carries the two set-up commands, and .ci/run runs the README's test command."""
import re

from helpers import ROOT

README = (ROOT / "README.md").read_text()
CI = (ROOT / ".ci" / "run").read_text()


def test_readme_runs_the_main_job_on_the_simulator():
    assert "pip install -e . && syncc run examples/wavefront.sync --target fermi-sim" in README


def test_ci_runs_the_readme_test_command():
    (command,) = re.findall(r'^TEST_COMMAND="(.*)"$', CI, re.M)
    assert f"python3 -m venv .venv && . .venv/bin/activate && {command}\n" in README


def test_ci_does_not_take_no_tests_for_a_pass():
    assert re.search(r"^\s*5\)", CI, re.M)


def test_the_readme_hazard_example_is_what_syncc_prints():
    from helpers import syncc
    r = syncc("check", "tests/hazards/own_warp_flag.sync", "--target", "fermi-sim", "--color", "never")
    quoted = README[README.index("tests/hazards/own_warp_flag.sync:7:15"):]
    quoted = quoted[:quoted.index("```")]
    assert r.err.startswith(quoted.rstrip("\n")), r.err


# what a user's copy does not have: the development machine's paths and notes
OUTSIDE = re.compile(r"\.\./shared|/work/|\bdesign\.md\b")


def test_the_project_points_nowhere_outside_itself():
    import subprocess
    files = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True).stdout.split()
    if not files:                       # not a git checkout (an sdist): look at what is there
        files = [str(p.relative_to(ROOT)) for p in ROOT.rglob("*") if p.is_file() and ".venv" not in p.parts]
    here = __file__.rsplit("/", 1)[-1]
    found = []
    for name in files:
        path = ROOT / name
        if path.suffix not in (".md", ".py", ".sync", ".sass", ".txt", ".sh", ".toml", ".cu", ".tsv") \
                or path.name == here or not path.is_file():
            continue
        for n, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            if OUTSIDE.search(line):
                found.append(f"{name}:{n}: {line.strip()[:100]}")
    assert not found, "\n".join(found)
