"""Random well-formed kernels through every pass: never an internal error.

A seeded generator writes kernels that mix the language's control flow (if/else,
for, while, nesting) with every kind of primitive at the placements and
granularities the catalogue allows, used in every statement form, inside that
control flow. Each program goes through `syncc check` for both machine models
at -O0 and -O2, with the IR verifier after every pass (tests/conftest.py). The
checker or the hazard analyses may reject a program (many are racy or
deadlock-prone by construction): exit 1 with located diagnostics is fine; an
internal error (exit 101), or a verifier failure, is a bug.
"""
from __future__ import annotations

import json
import random

import pytest

from helpers import syncc
from syncc.ir.impls.registry import IMPLEMENTATIONS

SEEDS = range(120)
# the primitives it declares and uses (queues have a generator of their own: tests/oracle/motifs.py;
# a scan has its one shape, E0419: tests/matrix_programs.py and tests/frontend/test_scan_rules.py)
_KINDS = [impl for impl in IMPLEMENTATIONS if impl.kind not in ("queue", "scan")]


class Gen:
    def __init__(self, seed: int):
        self.r = random.Random(seed)
        self.block = self.r.choice([32, 64, 128])
        self.grid = self.r.choice([1, 1, 2])
        self.prims: list[tuple[str, object, str, str]] = []   # (name, implementation, placement, granularity)
        self.depth = 0
        self.vars = 0

    # ---- declarations
    def declare(self) -> list[str]:
        out = []
        for n in range(self.r.randint(1, 3)):
            impl = self.r.choice(_KINDS)
            placement = self.r.choice(impl.placements)
            grans = [g for g in impl.granularities if not (placement == "shared" and g in ("block", "grid"))
                     or impl.kind == "barrier" and g == "block"]
            if not grans:
                continue
            gran = self.r.choice(grans)
            if impl.kind == "barrier" and gran == "grid" and placement != "global":
                continue
            name = f"p{n}"
            arg = f"({self.r.randint(1, 3)})" if impl.kind == "semaphore" else ""
            if impl.kind == "barrier" and gran == "warp" and impl.name == "bar":
                arg = f"({self.block})"
            slot = ": i32" if impl.kind == "channel" else ""
            size = self.block * self.grid if impl.kind == "channel" else 4
            dims = "" if impl.kind == "barrier" else f"[{size}]"
            using = "" if self.r.random() < 0.3 else f" using {impl.name}"
            out.append(f"    {impl.kind} {name}{dims}{arg}{slot} in {placement} @{gran}{using}")
            self.prims.append((name, impl, placement, gran))
        return out

    # ---- expressions
    def index(self, size: int) -> str:
        return self.r.choice([f"tid % {size}", f"(tid + 1) % {size}", f"lane % {size}", f"warp % {size}", "0",
                              f"gtid % {size}", f"(tid ^ 1) % {size}"])

    def value(self) -> str:
        return self.r.choice(["tid", "lane", "1", "a[tid]", "b[lane]", "tid * 2 + 1", "warp", "bid", "a[0] + b[0]"])

    def cond(self) -> str:
        return self.r.choice(["tid < 16", "lane == 0", "warp == 0", "a[tid] > 3", "bid == 0", "tid % 2 == 0",
                              "true"])

    # ---- statements
    def stmts(self, n: int) -> list[str]:
        out = []
        for _ in range(n):
            out += self.stmt()
        return out

    def indent(self, lines: list[str]) -> list[str]:
        return ["    " + line for line in lines]

    def stmt(self) -> list[str]:
        r = self.r
        choices = ["assign", "atomic", "fence"]
        if self.depth < 3:
            choices += ["if", "for", "while"]
            choices += ["prim"] * (3 if self.prims else 0)
        what = r.choice(choices)
        if what == "assign":
            return [f"a[{self.index(self.block)}] = {self.value()}"]
        if what == "atomic":
            return [f"atomic_add(b[{self.index(self.block)}], {self.value()})"]
        if what == "fence":
            return [f"fence {r.choice(['cta', 'gpu'])}"]
        self.depth += 1
        try:
            if what == "if":
                body = self.indent(self.stmts(r.randint(1, 2)))
                other = self.indent(self.stmts(r.randint(0, 2)))
                return [f"if {self.cond()} {{", *body, "} else {", *other, "}"] if other else \
                    [f"if {self.cond()} {{", *body, "}"]
            if what == "for":
                return [f"for k{self.depth} in 0 .. {r.randint(1, 3)} {{", *self.indent(self.stmts(r.randint(1, 2))),
                        "}"]
            if what == "while":
                self.vars += 1
                v = f"n{self.vars}"
                return [f"var {v} = 0", f"while {v} < 2 {{", *self.indent(self.stmts(r.randint(1, 2))),
                        f"    {v} += 1", "}"]
            return self.use_prim()
        finally:
            self.depth -= 1

    def use_prim(self) -> list[str]:
        r = self.r
        name, impl, placement, gran = r.choice(self.prims)
        body = self.indent(self.stmts(r.randint(1, 2)))
        size = self.block * self.grid
        if impl.kind == "mutex":
            form = r.choice(["critical", "lock", "trylock"])
            i = self.index(4)
            if form == "critical":
                return [f"critical {name}[{i}] {{", *body, "}"]
            if form == "lock":
                return [f"lock {name}[{i}]", *self.stmts(1), f"unlock {name}[{i}]"]
            return [f"if trylock {name}[{i}] {{", *body, f"    unlock {name}[{i}]", "}"]
        if impl.kind == "semaphore":
            i = self.index(4)
            if r.random() < 0.5:
                return [f"acquire {name}[{i}] {{", *body, "}"]
            return [f"wait {name}[{i}]", *self.stmts(1), f"post {name}[{i}]"]
        if impl.kind == "barrier":
            if impl.name == "bar" and gran == "warp" and r.random() < 0.5:
                return [f"arrive {name}"]
            return [f"sync {name}"]
        form = r.choice(["put", "when", "get", "await", "signal", "read"])
        slot = r.choice(["gtid", f"gtid % {size}", f"(gtid + 1) % {size}", "0"])
        if form == "put":
            return [f"put {name}[{slot}] = {self.value()}"]
        if form == "signal":
            return [f"signal {name}[{slot}]"]
        if form == "when":
            return [f"when x = {name}[{slot}] {{", f"    a[{self.index(self.block)}] = x", *body, "}"]
        if form == "get":
            self.vars += 1
            return [f"let g{self.vars} = get {name}[{slot}]", f"a[{self.index(self.block)}] = g{self.vars}"]
        if form == "await":
            return [f"await {name}[{slot}]"]
        return [f"a[{self.index(self.block)}] = {name}[{slot}]"]

    def program(self) -> str:
        decls = self.declare()
        body = self.stmts(self.r.randint(2, 5))
        if self.r.random() < 0.3:
            body.append("barrier")
        n = self.block * self.grid
        lines = [f"kernel k(a: global i32[{n}], b: global i32[{n}]) launch grid({self.grid}) block({self.block}) {{",
                 *decls, *self.indent(body), "}"]
        return "\n".join(lines) + "\n"


@pytest.mark.parametrize("seed", SEEDS)
def test_random_kernel_never_breaks_the_compiler(seed, tmp_path):
    source = Gen(seed).program()
    path = tmp_path / f"fuzz{seed}.sync"
    path.write_text(source)
    for target in ("ptx", "fermi-sim"):
        for opt in ("-O0", "-O2"):
            r = syncc("check", str(path), "--target", target, opt, "--error-format=json")
            assert r.code in (0, 1), f"seed {seed}, {target} {opt}: exit {r.code}\n{source}\n{r.err}"
            records = [json.loads(line) for line in r.err.splitlines() if line.startswith("{")]
            assert (r.code == 1) == any(x["severity"] == "error" for x in records), r.err
            assert all(x["line"] for x in records), f"an unlocated diagnostic:\n{r.err}"


def test_the_generator_writes_programs_that_compile():
    """Enough of the random kernels pass every check, so the passes, not just the checks, run
    (a fifth: the generator orders nothing around its plain reads of `a` and `b`, which the race
    check, E0732, refuses where another thread stores to them)."""
    clean = sum(_compiles(Gen(seed).program(), seed) for seed in SEEDS)
    assert clean >= len(SEEDS) // 5, f"only {clean} of {len(SEEDS)} random kernels compiled clean"


def _compiles(source: str, seed: int) -> bool:
    import tempfile
    from pathlib import Path

    from syncc.driver import compile_file
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / f"fuzz{seed}.sync"
        path.write_text(source)
        comp = compile_file(str(path))
        return comp.ir is not None
