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
