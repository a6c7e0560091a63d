"""syncc's version: in generated files' headers, `syncc --version` and `syncc.__version__`
(pyproject.toml's `version` must say the same: tests/app/test_cli.py checks it)."""
VERSION = "0.1.0"
