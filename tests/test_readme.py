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
