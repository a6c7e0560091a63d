"""Robustness: `syncc check` answers every malformed program with a located error.

Never a traceback or an internal compiler error (exit 101), never a hang. The
programs come from seeded generators, so every run checks the same ones:

    token-delete, token-duplicate, token-swap   one token of an example or stdlib module
    truncation                                  the same files cut at many points
    unbalanced                                  a bracket of theirs removed, or one added
    random-bytes, random-printable, token-soup  garbage
    non-utf8                                    bad bytes inside a valid program
    deep-nesting                                10 000 levels of each kind of nesting
    huge-file                                   files over 5 MB (the limit is 1 MiB)
    many-errors                                 10 000 mistakes in one file

A token mutation can leave a valid program (deleting a unary minus), so for the
mutation categories a case may exit 0 or 1; exit 1 must come with a located
error. Cases that are malformed by construction (a truncation inside a block,
an unbalanced bracket, bad bytes, too deep, too big, too many mistakes) must
exit 1. Across all
categories at least MIN_REJECTED cases must exit 1.

Cases run in-process (tests/helpers.py); test_entry_point runs a few through
`python -m syncc` as well and expects the same answer. A failure names the
case (category, number, mutation), keeps the program on disk, and quotes the
first lines of stderr. `pytest -s tests/frontend/test_robustness.py` prints the counts.
"""
from __future__ import annotations

import os
import random
import re
import signal
import string
import subprocess
import sys
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest

from helpers import EXAMPLES, ROOT, STDLIB, syncc
from syncc.frontend.lexer import SynccLexer
from syncc.frontend.parser import parse_machine

SOURCES = EXAMPLES + STDLIB
MIN_REJECTED = 500          # cases that must exit 1 over all categories
CASE_LIMIT_S = 20           # one case taking longer than this is a hang
DEEP = 10_000
PER_FILE = 40               # token mutations of each kind per source file
TRUNCATIONS = 40            # cut points per source file
UNBALANCED = 16             # bracket mutations per source file
NON_UTF8 = 8                # bad-byte insertions per source file
GARBAGE = 40                # random-bytes, random-printable and token-soup cases each

LOCATED = re.compile(r"^(\S+):(\d+):(\d+): error\[(E\d{4})\]: ", re.M)
POSITIONED = re.compile(r"^(\S+):(\d+):(\d+): (?:error\[E\d{4}\]|warning\[W\d{4}\]|note): ", re.M)
BRACKETS = {"(": ")", "[": "]", "{": "}"}


# ---- cases ---------------------------------------------------------------------------

@dataclass
class Case:
    category: str
    index: int
    what: str                          # the mutation, in words
    data: bytes
    must_fail: bool = True
    valid: bool = False                # a well-formed program, however big: it must check clean
    code: str | None = None            # the code an error must have
    at: tuple[int, int] | None = None  # (line, column) that error must point at

    @property
    def name(self) -> str:
        return f"{self.category}#{self.index}"


@dataclass
class Outcome:
    case: Case
    path: Path
    code: int
    err: str
    problems: list[str]


@cache
def _lexer() -> SynccLexer:
    return parse_machine()[0]


def tokens(text: str) -> list:
    """The tokens of a program, without the statement breaks the lexer adds."""
    return [t for t in _lexer().lex(text) if t.type != "_SEMI"]


def _rel(path: Path) -> str:
    return str(path.relative_to(ROOT))


def _show(text: str) -> str:
    return repr(text if len(text) <= 20 else text[:20] + "…")


def _where(tok) -> str:
    return f"{tok.line}:{tok.column}"


def _balanced(toks) -> bool:
    for open_, close in BRACKETS.items():
        if sum(t.value == open_ for t in toks) != sum(t.value == close for t in toks):
            return False
    return True


def _sources():
    """(relative path, text, tokens) of every example and stdlib module."""
    out = []
    for path in SOURCES:
        text = path.read_text(encoding="utf-8")
        out.append((_rel(path), text, tokens(text)))
    assert out, "no examples/*.sync or stdlib/*.sync to mutate"
    return out


def gen_token_mutations(op: str) -> list[Case]:
    cases = []
    for rel, text, toks in _sources():
        rng = random.Random(f"{op}:{rel}")
        if op == "swap":   # adjacent tokens that differ, or the swap changes nothing
            candidates = [k for k in range(len(toks) - 1) if toks[k].value != toks[k + 1].value]
        else:
            candidates = list(range(len(toks)))
        for k in sorted(rng.sample(candidates, min(PER_FILE, len(candidates)))):
            t = toks[k]
            if op == "delete":   # a space in its place, so its neighbours cannot merge
                new = text[:t.start_pos] + " " + text[t.end_pos:]
                what = f"delete token {k} {_show(t.value)} at {rel}:{_where(t)}"
            elif op == "duplicate":
                new = text[:t.end_pos] + " " + t.value + text[t.end_pos:]
                what = f"duplicate token {k} {_show(t.value)} at {rel}:{_where(t)}"
            else:
                u = toks[k + 1]
                new = text[:t.start_pos] + u.value + text[t.end_pos:u.start_pos] + t.value + text[u.end_pos:]
                what = f"swap tokens {k} {_show(t.value)} and {k + 1} {_show(u.value)} at {rel}:{_where(t)}"
            cases.append(Case(f"token-{op}", len(cases), what, new.encode("utf-8"), must_fail=False))
    return cases


def gen_truncation() -> list[Case]:
    cases = []
    for rel, text, toks in _sources():
        rng = random.Random(f"truncation:{rel}")
        cuts = set()
        for i in range(TRUNCATIONS):
            t = toks[rng.randrange(len(toks))]
            if i % 3 == 0:
                cuts.add(t.end_pos)                                    # after a token
            elif i % 3 == 1 and len(t.value) > 1:
                cuts.add(t.start_pos + rng.randrange(1, len(t.value)))  # inside a token
            else:
                cuts.add(rng.randrange(len(text)))                     # anywhere
        for cut in sorted(cuts):
            # Inside an unclosed bracket the program cannot be complete.
            depth = sum(1 if t.value in BRACKETS else -1 if t.value in BRACKETS.values() else 0
                        for t in toks if t.start_pos < cut)
            line = text.count("\n", 0, cut) + 1
            cases.append(Case("truncation", len(cases),
                              f"cut {rel} after {cut} characters (line {line}, {depth} brackets open)",
                              text[:cut].encode("utf-8"), must_fail=depth > 0))
    return cases


def gen_unbalanced() -> list[Case]:
    cases = []
    for rel, text, toks in _sources():
        assert _balanced(toks), f"{rel} has unbalanced brackets; the unbalanced cases assume it does not"
        rng = random.Random(f"unbalanced:{rel}")
        brackets = [k for k, t in enumerate(toks) if t.value in BRACKETS or t.value in BRACKETS.values()]
        if not brackets:        # a file of declarations only (stdlib/rwlock.sync)
            continue
        for i in range(UNBALANCED):
            if i % 2 == 0:    # missing: one bracket token becomes a space
                k = rng.choice(brackets)
                t = toks[k]
                new = text[:t.start_pos] + " " + text[t.end_pos:]
                what = f"remove {t.value!r} (token {k}) at {rel}:{_where(t)}"
            else:             # extra: a bracket before a token, or at the very end
                char = rng.choice("()[]{}")
                if i % 4 == 3:
                    new, what = text + char, f"append {char!r} to {rel}"
                else:
                    k = rng.randrange(len(toks))
                    t = toks[k]
                    new = text[:t.start_pos] + char + text[t.start_pos:]
                    what = f"insert {char!r} before token {k} {_show(t.value)} at {rel}:{_where(t)}"
            cases.append(Case("unbalanced", len(cases), what, new.encode("utf-8")))
    return cases


def _is_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def gen_random_bytes() -> list[Case]:
    rng = random.Random("random-bytes")
    cases = []
    for i in range(GARBAGE):
        data = rng.randbytes(rng.choice([1, 2, 3, 8, 64, 512, 4096]))
        # Valid UTF-8 by chance (a byte or two of ASCII) may even be a valid program.
        cases.append(Case("random-bytes", i, f"{len(data)} random bytes", data, must_fail=not _is_utf8(data)))
    return cases


def gen_random_printable() -> list[Case]:
    rng = random.Random("random-printable")
    cases = []
    for i in range(GARBAGE):
        n = rng.choice([1, 5, 40, 300, 2000])
        text = "".join(rng.choice(string.printable) for _ in range(n))
        cases.append(Case("random-printable", i, f"{n} random printable characters", text.encode(),
                          must_fail=False))
    return cases


def gen_token_soup() -> list[Case]:
    """Random sequences of real tokens: past the lexer, deep into the parser."""
    lexer = _lexer()
    words = sorted(set(lexer.keywords) | set(lexer.punct)) + [
        "x", "N", "a", "k", "std", "0", "1", "32", "0xff", '"s"', "@thread", "@warp", "@block", "@grid", "\n"]
    rng = random.Random("token-soup")
    cases = []
    for i in range(GARBAGE):
        n = rng.choice([1, 3, 10, 50, 200])
        text = " ".join(rng.choice(words) for _ in range(n))
        cases.append(Case("token-soup", i, f"{n} random tokens", text.encode(), must_fail=False))
    return cases


_BAD_UTF8 = [
    (b"\xff", "byte ff"),
    (b"\xfe\xfe", "bytes fe fe"),
    (b"\x80", "a lone continuation byte"),
    (b"\xc3", "a 2-byte sequence cut short"),
    (b"\xe2\x82", "a 3-byte sequence cut short"),
    (b"\xc0\xaf", "an overlong `/`"),
    (b"\xed\xa0\x80", "a UTF-16 surrogate"),
    (b"\xf5\x80\x80\x80", "a code point past U+10FFFF"),
]


def gen_non_utf8() -> list[Case]:
    cases = []
    for rel, text, _ in _sources():
        rng = random.Random(f"non-utf8:{rel}")
        for i in range(NON_UTF8):
            bad, words = _BAD_UTF8[(i + len(cases)) % len(_BAD_UTF8)]
            pos = rng.randrange(len(text) + 1)
            before = text[:pos]
            line = before.count("\n") + 1
            col = pos - (before.rfind("\n") + 1) + 1
            data = before.encode("utf-8") + bad + text[pos:].encode("utf-8")
            if i == NON_UTF8 - 1:
                data, words = b"\xef\xbb\xbf" + data, words + " after a UTF-8 byte-order mark"
            cases.append(Case("non-utf8", len(cases), f"{words} inserted at {rel}:{line}:{col}", data,
                              code="E0004", at=(line, col)))
    rel, text, _ = _sources()[0]
    cases.append(Case("non-utf8", len(cases), f"{rel} saved as UTF-16", text.encode("utf-16"),
                      code="E0004", at=(1, 1)))
    return cases


_KERNEL = "kernel k(a: global i32[4]) launch grid(1) block(32) {\n"


def gen_deep_nesting() -> list[Case]:
    n = DEEP
    programs = {
        "(((…1)))": _KERNEL + "    let x = " + "(" * n + "1" + ")" * n + "\n}\n",
        "(((… never closed": _KERNEL + "    let x = " + "(" * n + "1\n}\n",
        "{{{…}}} in a kernel": _KERNEL + "{" * n + "}" * n + "\n}\n",
        "{{{… at the top": "{" * n,
        "if true { if true { …": _KERNEL + "if true { " * n + "}" * n + "\n}\n",
        "if true {⏎ … in a host block": "host main {\n" + "if true {\n" * n + "}\n" * n + "}\n",
        "while true {⏎ …": _KERNEL + "while true {\n" * n + "}\n" * n + "}\n",
        "if … else if … else if …": _KERNEL + "if true {\n}" + " else if true {\n}" * n + "\n}\n",
        "- - - … x": _KERNEL + "    let x = 1\n    let y = " + "- " * n + "x\n}\n",
        "!!!…true": _KERNEL + "    let y = " + "!" * n + "true\n}\n",
        "~~~…1": "const A = " + "~" * n + "1\n",
        "a + a + … (10 000 terms)": _KERNEL + "    let a = 1\n    let y = " + " + ".join(["a"] * n) + "\n}\n",
        "a && a && …": _KERNEL + "    let a = true\n    let y = " + " && ".join(["a"] * n) + "\n}\n",
        "1 * 1 * … in a constant": "const A = " + " * ".join(["1"] * n) + "\n",
        "a[0][0]…": _KERNEL + "    let y = a" + "[0]" * n + "\n}\n",
        "a[a[a[…0]]]": _KERNEL + "    let y = " + "a[" * n + "0" + "]" * n + "\n}\n",
        "f()()()…": _KERNEL + "    let y = f" + "()" * n + "\n}\n",
        "i32(i32(…1))": _KERNEL + "    let y = " + "i32(" * n + "1" + ")" * n + "\n}\n",
        "[[[…]]]": "host main {\n    let y = " + "[" * n + "1" + "]" * n + "\n}\n",
        "a.b.b.b…": _KERNEL + "    let y = a" + ".b" * n + "\n}\n",
        "const A0 = A1 + 1, A1 = A2 + 1, … back to A0": "".join(f"const A{i} = A{i + 1} + 1\n" for i in range(n))
                                                      + f"const A{n} = A0\n",
    }
    # Definitions that each use the next are no nesting at all: however long the
    # chain, a valid one must check clean (the checker resolves them without recursion).
    chains = {
        "const A0 = A1 + 1, A1 = A2 + 1, …": "".join(f"const A{i} = A{i + 1} + 1\n" for i in range(n))
                                            + f"const A{n} = 1\n",
        "fn g0 calls g1 calls g2 …": "".join(f"fn g{i}() -> i32 {{ return g{i + 1}() }}\n" for i in range(n))
                                     + f"fn g{n}() -> i32 {{ return 1 }}\n",
    }
    cases = [Case("deep-nesting", i, f"{n} levels of {what}", text.encode())
             for i, (what, text) in enumerate(programs.items())]
    return cases + [Case("deep-nesting", len(cases) + i, f"{n} levels of {what}", text.encode(),
                         must_fail=False, valid=True) for i, (what, text) in enumerate(chains.items())]


def gen_huge_file() -> list[Case]:
    size = 5 * 1000 * 1000 + 1
    consts = []
    total = i = 0
    while total < size:
        line = f"const C{i} = {i}\n"
        consts.append(line)
        total += len(line)
        i += 1
    programs = {
        "constant declarations": "".join(consts),
        "one line comment": "// " + "x" * size + "\n",
        "comment lines of multi-byte characters": "// é → ü ✓\n" * (size // 12 + 1) + "const A = 1\n",
        "string literal": 'host main {\n    print "' + "s" * size + '"\n}\n',
    }
    return [Case("huge-file", i, f"{len(text.encode()) / 1e6:.1f} MB of {what}", text.encode(), code="E0008")
            for i, (what, text) in enumerate(programs.items())]


def gen_many_errors() -> list[Case]:
    """Thousands of mistakes in one file: each is reported, in time linear in their number."""
    n = 10_000
    programs = {
        f"{n} unknown names among {n} locals": _KERNEL + "".join(f"    let x{i} = 1\n" for i in range(n))
                                               + "".join(f"    let y{i} = q{i}\n" for i in range(n)) + "}\n",
        f"{n} unknown names among {n} constants": "".join(f"const X{i} = 1\n" for i in range(n))
                                                  + "".join(f"const Y{i} = Q{i}\n" for i in range(n)),
        f"{n} definitions of `x`": _KERNEL + "    let x = 1\n" * n + "}\n",
        f"{n} unknown mutex implementations": _KERNEL + "".join(
            f"    mutex m{i} in global @thread using tiket\n" for i in range(n)) + "}\n",
    }
    return [Case("many-errors", i, what, text.encode()) for i, (what, text) in enumerate(programs.items())]


GENERATORS = {
    "token-delete": lambda: gen_token_mutations("delete"),
    "token-duplicate": lambda: gen_token_mutations("duplicate"),
    "token-swap": lambda: gen_token_mutations("swap"),
    "truncation": gen_truncation,
    "unbalanced": gen_unbalanced,
    "random-bytes": gen_random_bytes,
    "random-printable": gen_random_printable,
    "token-soup": gen_token_soup,
    "non-utf8": gen_non_utf8,
    "deep-nesting": gen_deep_nesting,
    "huge-file": gen_huge_file,
    "many-errors": gen_many_errors,
}


@cache
def cases_of(category: str) -> tuple[Case, ...]:
    return tuple(GENERATORS[category]())


# ---- running and judging one case ------------------------------------------------------

class CaseTimeout(BaseException):
    """Not an Exception, so the CLI's last line of defence cannot turn it into exit 101."""


@contextmanager
def time_limit(seconds: float, what: str):
    """Interrupt a case that hangs. Uses SIGALRM on POSIX (saving and restoring the timer
    pytest-timeout may have set); elsewhere, measures the time taken afterwards."""
    start = time.monotonic()
    if not hasattr(signal, "setitimer") or threading.current_thread() is not threading.main_thread():
        yield
        elapsed = time.monotonic() - start
        assert elapsed < seconds, f"{what}: took {elapsed:.0f} s (limit {seconds} s): a hang"
        return

    def on_alarm(signum, frame):
        raise CaseTimeout(f"{what}: no answer after {seconds} s: a hang")

    old_handler = signal.signal(signal.SIGALRM, on_alarm)
    old_delay, _ = signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old_handler)
        if old_delay:
            signal.setitimer(signal.ITIMER_REAL, max(old_delay - (time.monotonic() - start), 0.001))


def judge(case: Case, path: Path, code: int, out: str, err: str) -> list[str]:
    """What is wrong with how syncc answered this case (nothing, for a good answer)."""
    problems = []
    if code == 101 or "internal compiler error" in err or "Traceback" in err + out:
        problems.append(f"crashed (exit {code})")
    elif code not in (0, 1):
        problems.append(f"exit {code}, expected 0 or 1")
    elif case.must_fail and code != 1:
        problems.append(f"exit {code}, but the program is malformed by construction")
    elif case.valid and code != 0:
        problems.append(f"exit {code}, but the program is valid")
    if code != 1:
        return problems
    data = case.data[3:] if case.data.startswith(b"\xef\xbb\xbf") else case.data
    lines = data.decode("utf-8", errors="replace").split("\n")
    mine = [(int(m[2]), int(m[3]), m[4]) for m in LOCATED.finditer(err) if m[1] == str(path)]
    if not mine:
        problems.append("exit 1 without a located error (file:line:col: error[Ennnn]: ...) in this file")
    for m in POSITIONED.finditer(err):
        line, col = int(m[2]), int(m[3])
        if m[1] == str(path) and not (1 <= line <= len(lines) and 1 <= col <= len(lines[line - 1]) + 1):
            problems.append(f"position {line}:{col} is outside the file ({len(lines)} lines)")
    if case.code and not any(c == case.code for _, _, c in mine):
        problems.append(f"no error[{case.code}]")
    if case.at and not any((line, col) == case.at and (case.code is None or c == case.code)
                           for line, col, c in mine):
        problems.append(f"no error{f'[{case.code}]' if case.code else ''} at {case.at[0]}:{case.at[1]}")
    return problems


def run_case(case: Case, directory: Path, *args: str) -> Outcome:
    path = directory / f"{case.category}-{case.index:04d}.sync"
    path.write_bytes(case.data)
    with time_limit(CASE_LIMIT_S, f"{case.name} ({case.what})"):
        r = syncc("check", str(path), *args)
    return Outcome(case, path, r.code, r.err, judge(case, path, r.code, r.out, r.err))


def report(o: Outcome, stderr_lines: int = 6) -> str:
    err = [line if len(line) <= 160 else line[:160] + "…" for line in o.err.splitlines()[:stderr_lines]]
    return "\n".join([f"{o.case.name}: {o.case.what}", f"  program: {o.path}", f"  exit {o.code}: "
                      + "; ".join(o.problems), *("  | " + line for line in err)])


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory):
    """category → its outcomes, each category run once per module and only when asked for."""
    directory = tmp_path_factory.mktemp("robustness")
    done: dict[str, list[Outcome]] = {}

    def of(category: str) -> list[Outcome]:
        if category not in done:
            done[category] = [run_case(c, directory) for c in cases_of(category)]
        return done[category]

    return of


def _counts(results: list[Outcome]) -> str:
    ones = sum(o.code == 1 for o in results)
    zeros = sum(o.code == 0 for o in results)
    return f"{len(results)} cases: {ones} exit 1, {zeros} exit 0"


# ---- the tests -------------------------------------------------------------------------------

@pytest.mark.parametrize("category", list(GENERATORS))
def test_category(category, outcomes):
    results = outcomes(category)
    print(f"{category}: {_counts(results)}")
    assert results, f"{category}: no cases generated"
    bad = [o for o in results if o.problems]
    shown = "\n".join(report(o) for o in bad[:8])
    more = f"\n... and {len(bad) - 8} more" if len(bad) > 8 else ""
    assert not bad, f"{category}: {len(bad)} of {len(results)} cases answered badly:\n{shown}{more}"


def test_enough_programs_rejected(outcomes):
    """The mutations really produce malformed programs: at least MIN_REJECTED exit 1."""
    counts = {category: outcomes(category) for category in GENERATORS}
    table = "\n".join(f"  {category:18} {_counts(results)}" for category, results in counts.items())
    rejected = sum(o.code == 1 for results in counts.values() for o in results)
    print(f"\nrobustness cases per category:\n{table}\n  total exit 1: {rejected}")
    assert rejected >= MIN_REJECTED, f"only {rejected} cases exited 1 (need {MIN_REJECTED}):\n{table}"


ENTRY_POINT = {   # test id → (category, the case's index or the end of its description)
    "huge-constants": ("huge-file", 0),
    "huge-multibyte": ("huge-file", 2),
    "random-bytes-a": ("random-bytes", GARBAGE - 3),
    "random-bytes-b": ("random-bytes", GARBAGE - 2),
    "random-bytes-c": ("random-bytes", GARBAGE - 1),
    "deep-parens": ("deep-nesting", "(((…1)))"),
    "deep-minus": ("deep-nesting", "- - - … x"),
    "deep-const-chain": ("deep-nesting", "const A0 = A1 + 1, A1 = A2 + 1, …"),
}


def _pick(category: str, key: int | str) -> Case:
    cases = cases_of(category)
    if isinstance(key, int):
        return cases[key]
    (case,) = [c for c in cases if c.what.endswith(key)]
    return case


@pytest.mark.parametrize("which", list(ENTRY_POINT))
def test_entry_point(which, tmp_path):
    """`python -m syncc check` gives the same answer as the in-process runs above."""
    case = _pick(*ENTRY_POINT[which])
    inproc = run_case(case, tmp_path)
    env = dict(os.environ, NO_COLOR="1", PYTHONIOENCODING="utf-8")
    try:
        p = subprocess.run([sys.executable, "-m", "syncc", "check", str(inproc.path)], cwd=ROOT, env=env,
                           capture_output=True, timeout=60)
    except subprocess.TimeoutExpired:
        pytest.fail(f"{case.name} ({case.what}): `python -m syncc check` gave no answer in 60 s: a hang")
    err = p.stderr.decode("utf-8", errors="replace")
    sub = Outcome(case, inproc.path, p.returncode, err,
                  judge(case, inproc.path, p.returncode, p.stdout.decode("utf-8", errors="replace"), err))
    assert not sub.problems, "python -m syncc check:\n" + report(sub)
    assert not inproc.problems, "in-process:\n" + report(inproc)
    assert (sub.code, sub.err) == (inproc.code, inproc.err), (
        f"{case.name}: python -m syncc and the in-process run differ\n{report(sub)}\n{report(inproc)}")


def test_import_chain_too_deep(tmp_path, monkeypatch):
    """A stdlib (`--stdlib DIR`) whose modules import each other 300 deep."""
    std = tmp_path / "std"
    std.mkdir()
    n = 300
    for i in range(n):
        (std / f"m{i}.sync").write_text(f"import std.m{i + 1}\nconst X = m{i + 1}.X + 1\n")
    (std / f"m{n}.sync").write_text("const X = 1\n")
    case = Case("import-chain", 0, f"modules importing each other {n} deep", b"import std.m0\nconst Y = m0.X\n")
    o = run_case(case, tmp_path, "--stdlib", str(std))
    assert not o.problems, report(o)
    assert re.search(r"^\S+m\d+\.sync:1:1: error\[E0005\]: imports nested more than", o.err, re.M), report(o, 20)
