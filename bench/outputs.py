"""Every form syncc generates, for every example, stdlib module, GPU stress program, clean hazard
neighbour and matrix program, written to one folder: so that a refactoring can show that its
output is byte-identical to the output before it.

    python bench/outputs.py write OUT            # in the tree to compare (run from its root)
    python bench/outputs.py compare OLD NEW      # which files differ (exit 1 if any)

Forms: ptx at -O2 and -O0, Fermi SASS, SASS for independent thread scheduling, CUDA C++, the IR
after the last pass, and `syncc explain`. What a command writes to stderr (diagnostics) and its
exit status are kept too. The matrix programs (tests/matrix_programs.py) are written to
`--src` (the same folder for both trees, because a file's path appears in its output).
"""
from __future__ import annotations

import argparse
import contextlib
import io
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# this tree's syncc, not the one an editable install points at (which may be another worktree:
# a baseline written from it would compare the new code with itself)
sys.path.insert(0, str(ROOT))
FOLDERS = ("examples", "stdlib", "tests/gpu", "tests/hazards/clean")
FORMS = {
    "ptx": ("build", "--target", "ptx"),
    "ptx-O0": ("build", "--target", "ptx", "-O", "0"),
    "sass": ("build", "--target", "fermi-sass"),
    "its": ("build", "--target", "fermi-sass", "--its"),
    "cuda": ("build", "--target", "cuda"),
    "ir": ("build", "--emit", "ir"),
    "explain": ("explain",),
}


def sources(src: Path) -> list[Path]:
    files = [p.relative_to(ROOT) for folder in FOLDERS for p in sorted((ROOT / folder).glob("*.sync"))]
    sys.path.insert(0, str(ROOT / "tests"))
    from matrix_programs import programs
    src.mkdir(parents=True, exist_ok=True)
    for name, text in programs():
        path = src / f"{name}.sync"
        if not path.exists() or path.read_text() != text:     # (another tree may be reading it)
            path.write_text(text)
        files.append(path)
    return files


def run(args: list[str]) -> tuple[int, str, str]:
    from syncc.cli import run_cli
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = run_cli(args)
    return code, out.getvalue(), err.getvalue()


def write(out: Path, src: Path, match: str = "") -> int:
    out.mkdir(parents=True, exist_ok=True)
    n = 0
    for path in sources(src):
        if match not in str(path):
            continue
        stem = str(path).replace("/", "__").removesuffix(".sync")
        for form, args in FORMS.items():
            code, stdout, stderr = run([*args, str(path), "--color", "never"])
            (out / f"{stem}.{form}").write_text(f"exit {code}\n--- stdout\n{stdout}--- stderr\n{stderr}")
            n += 1
    import syncc
    print(f"{n} outputs in {out} (syncc from {Path(syncc.__file__).parent})")
    return 0


def compare(old: Path, new: Path) -> int:
    a = {p.name for p in old.iterdir()}
    b = {p.name for p in new.iterdir()}
    differ = sorted(n for n in a & b if (old / n).read_bytes() != (new / n).read_bytes())
    for name in sorted(a - b):
        print(f"only in {old}: {name}")
    for name in sorted(b - a):
        print(f"only in {new}: {name}")
    for name in differ:
        print(f"differs: {name}")
    print(f"{len(a & b)} compared, {len(differ)} differ, {len(a ^ b)} in one only")
    return 1 if differ or a ^ b else 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    w = sub.add_parser("write")
    w.add_argument("out", type=Path)
    w.add_argument("--src", type=Path, default=Path("/tmp/syncc-matrix"))
    w.add_argument("--match", default="", help="only the programs whose path contains this")
    c = sub.add_parser("compare")
    c.add_argument("old", type=Path)
    c.add_argument("new", type=Path)
    args = ap.parse_args(argv)
    if args.cmd == "write":
        return write(args.out, args.src, args.match)
    return compare(args.old, args.new)


if __name__ == "__main__":
    sys.exit(main())
