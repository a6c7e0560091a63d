"""A seeded mutator: one small change at a time to the project's own working programs.

    mutants, stats = make_mutants(seed=1, count=50, folder=Path("/tmp/mutants"))

Seeds: every examples/*.sync (shrunk with -D so that a run is short), every
tests/hazards/clean/*.sync, every tests/properties/*.sync and the GPU stress programs of
tests/gpu (shrunk too); examples/hashtable.sync is the stdlib user (`import std.hash`). A seed
without a host block gets one (`with_host`): it fills each kernel's arrays with small values
(below the smallest array dimension, so data used as an index stays in bounds) and launches
every kernel, so a hang shows even where nothing is checked.

Mutations (one per mutant): delete a `put`, `post`, `count_down`, `fence`, `unlock`, `signal`
(or an `arrive`, `sync`, `barrier`); swap two nested acquisitions; move a barrier into a branch
or into a critical section; change a count (semaphore, latch, named barrier); change an index
(+1, swapped operands, `tid` for `lane` and the like, `min` for `max`); change a loop bound by
one; change the launch grid; change a granularity, a placement or an implementation. A mutant
the front end rejects is discarded and counted.

Everything is text surgery on the source, located by small scanners that skip comments and
match brackets, so the mutants stay readable next to their seed.
"""
from __future__ import annotations

import random
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from .judge import Program, frontend_errors

ROOT = Path(__file__).resolve().parents[2]

# -D values that make each seed small enough to simulate in a few seconds
SHRINK = {
    "examples/barrier.sync": {"BLOCKS": 4, "THREADS": 64, "ROUNDS": 3},
    "examples/chain.sync": {"N": 4},
    "examples/counter.sync": {"BLOCKS": 2, "THREADS": 32, "COUNTERS": 2, "PER_THREAD": 1},
    "examples/hashtable.sync": {"BLOCKS": 2, "THREADS": 32, "BUCKETS": 16},
    "examples/histogram.sync": {"BLOCKS": 2, "THREADS": 64, "PER_THREAD": 2, "BINS": 32},
    "examples/primitives.sync": {"BLOCKS": 4, "THREADS": 32, "ITERS": 2},
    "examples/sortedlist.sync": {"BLOCKS": 1, "THREADS": 32, "ENTRIES": 4},
    "examples/wavefront.sync": {"N": 7},
    "examples/wavefront_tiled.sync": {"TILE": 7, "TILES": 2},
    "tests/gpu/barrier_stress.sync": {"BLOCKS": 4, "THREADS": 64, "ROUNDS": 2, "NR": 2},
    "tests/gpu/channel_stress.sync": {"BLOCKS": 4, "THREADS": 64, "ROUNDS": 1},
    "tests/gpu/mutex_stress.sync": {"BLOCKS": 2, "THREADS": 32, "ITER": 2},
    "tests/gpu/semaphore_stress.sync": {"BLOCKS": 2, "THREADS": 32, "ITER": 2},
    "examples/queue.sync": {"THREADS": 32, "ITEMS": 256},
    "tests/gpu/queue_stress.sync": {"BLOCKS": 4, "THREADS": 32, "PER": 2, "CAP": 8},
    "tests/gpu/queue_payload_stress.sync": {"BLOCKS": 4, "THREADS": 32, "PER": 2, "CAP": 8},
    "tests/gpu/queue_party_stress.sync": {"BLOCKS": 2, "PER": 8},
    "tests/gpu/queue_pairs_stress.sync": {"BLOCKS": 2, "PER": 8},
}
SEED_GLOBS = ["examples/*.sync", "tests/hazards/clean/*.sync", "tests/properties/*.sync",
              "tests/gpu/*_stress.sync"]


@dataclass
class Seed:
    """A program mutants are made from: its text (with a host block), the -D that shrink it."""
    name: str
    source: str             # the file, relative to the repository root
    text: str
    defines: dict


def load_seeds() -> list[Seed]:
    seeds = []
    for pattern in SEED_GLOBS:
        for path in sorted(ROOT.glob(pattern)):
            rel = str(path.relative_to(ROOT))
            defines = SHRINK.get(rel, {})
            text = with_host(path.read_text(), str(path), defines)
            name = rel.replace("/", "_").removesuffix(".sync")
            seeds.append(Seed(name, rel, text, defines))
    return seeds


# ---- host blocks for seeds that have none ----------------------------------------------------------

def with_host(text: str, path: str, defines: dict) -> str:
    """The program, with a host block that launches each kernel once if it has none."""
    from syncc.driver import check_file

    from .judge import driver_defines
    module = check_file(path, driver_defines(Program("", path, "seed", defines))).module
    if module is None or module.host is not None or not module.kernels:
        return text
    lines = ["", "// Added by tests/oracle/mutate.py: launch every kernel once on small inputs.", "host main {"]
    for n, (name, k) in enumerate(module.kernels.items()):
        arrays = [t for _, t in k.params if hasattr(t, "dims")]
        high = max(1, min((min(t.dims) for t in arrays), default=1))
        args = []
        for p, t in k.params:
            var = f"a{n}_{p}"
            if hasattr(t, "dims"):
                shape = str(t.dims[0]) if len(t.dims) == 1 else "[" + ", ".join(map(str, t.dims)) + "]"
                elem = t.elem.name
                if elem == "bool" or high == 1:
                    lines.append(f"    let {var} = zeros({elem}, {shape})")
                else:
                    lines.append(f"    let {var} = random({elem}, {shape}, seed={n + 1}, low=0, high={high})")
                args.append(var)
            else:
                args.append("true" if t.name == "bool" else "2")
        grid = "" if k.grid is not None else " grid(2)"
        lines.append(f"    launch {name}({', '.join(args)}){grid}")
    lines.append("}")
    return text.rstrip("\n") + "\n" + "\n".join(lines) + "\n"


# ---- scanning the source ---------------------------------------------------------------------------

def code_mask(text: str) -> list[bool]:
    """True for each character that is code (not inside a comment or a string)."""
    mask = [True] * len(text)
    i = 0
    while i < len(text):
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = len(text) if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = len(text) if j < 0 else j + 2
        elif text[i] == '"':
            j = i + 1
            while j < len(text) and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            j += 1
        else:
            i += 1
            continue
        for k in range(i, min(j, len(text))):
            mask[k] = False
        i = j
    return mask


def find_code(pattern: str, text: str, mask: list[bool]):
    """Matches of a regular expression that start in code."""
    return [m for m in re.finditer(pattern, text) if mask[m.start()]]


def statement_start(text: str, pos: int) -> bool:
    """Whether a statement may start at pos: after `{`, `;`, `}` or at the start of a line."""
    j = pos - 1
    while j >= 0 and text[j] in " \t":
        j -= 1
    return j < 0 or text[j] in "{;}\n"


def statement_end(text: str, pos: int) -> int:
    """Where the simple statement starting at pos ends: a line break, `;` or an unmatched `}`
    outside brackets."""
    depth = 0
    i = pos
    while i < len(text):
        ch = text[i]
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            if depth == 0:
                return i
            depth -= 1
        elif depth == 0 and ch in ";\n":
            return i
        i += 1
    return i


def matching(text: str, pos: int) -> int:
    """The index of the bracket closing the one at pos."""
    pairs = {"(": ")", "[": "]", "{": "}"}
    opening, closing = text[pos], pairs[text[pos]]
    depth = 0
    for i in range(pos, len(text)):
        if text[i] == opening:
            depth += 1
        elif text[i] == closing:
            depth -= 1
            if depth == 0:
                return i
    raise ValueError("unbalanced brackets")


def place_end(text: str, pos: int) -> int:
    """The end of a place (`name[i][j]`) starting at pos."""
    m = re.compile(r"[A-Za-z_][A-Za-z0-9_]*").match(text, pos)
    i = m.end()
    while i < len(text) and text[i] == "[":
        i = matching(text, i) + 1
    return i


def kernel_spans(text: str, mask: list[bool]) -> list[tuple[int, int]]:
    """(start of the body's `{`, its closing `}`) of each kernel."""
    spans = []
    for m in find_code(r"(?m)^kernel\s+\w+", text, mask):
        params = text.index("(", m.end())
        brace = text.index("{", matching(text, params))
        spans.append((brace, matching(text, brace)))
    return spans


def line_of(text: str, pos: int) -> int:
    return text.count("\n", 0, pos) + 1


# ---- mutation operators -----------------------------------------------------------------------------
# Each finds its sites in a text and returns (description, function making the mutant) per site.

Site = tuple[str, Callable[[], str]]

DELETABLE = ("put", "post", "count_down", "fence", "unlock", "signal")
MEETINGS = ("arrive", "sync", "barrier")


def _replace(text: str, start: int, end: int, new: str) -> Callable[[], str]:
    return lambda: text[:start] + new + text[end:]


def delete_statement(text: str, mask: list[bool], keywords=DELETABLE) -> list[Site]:
    sites = []
    for m in find_code(r"\b(" + "|".join(keywords) + r")\b", text, mask):
        if not statement_start(text, m.start()):
            continue
        if m.group(1) == "barrier" and re.match(r"barrier\s+[A-Za-z_]", text[m.start():]):
            continue                                  # a declaration, not the statement
        end = statement_end(text, m.start())
        stmt = text[m.start():end].strip()
        sites.append((f"delete `{stmt}` (line {line_of(text, m.start())})", _replace(text, m.start(), end, "")))
    return sites


def delete_meeting(text: str, mask: list[bool]) -> list[Site]:
    return delete_statement(text, mask, MEETINGS)


def swap_nested(text: str, mask: list[bool]) -> list[Site]:
    """Two acquisitions, one directly inside the other: `critical A { critical B {` or
    `if trylock A { if trylock B {`; the mutant takes them in the other order."""
    sites = []
    for form in (r"\bcritical\s+", r"\bif\s+trylock\s+", r"\bacquire\s+", r"\bread\s+", r"\bwrite\s+"):
        for m in find_code(form, text, mask):
            a_start = m.end()
            if not re.match(r"[A-Za-z_]", text[a_start:a_start + 1]):
                continue                  # (`read` before something that is no place: not a section)
            a_end = place_end(text, a_start)
            brace = text.find("{", a_end)
            inner = re.compile(r"\s*(critical|if\s+trylock|acquire|read|write)\s+").match(text, brace + 1)
            if inner is None:
                continue
            b_start = inner.end()
            b_end = place_end(text, b_start)
            a, b = text[a_start:a_end], text[b_start:b_end]
            if a == b:
                continue
            new = text[:a_start] + b + text[a_end:b_start] + a + text[b_end:]
            sites.append((f"swap nested `{a}` and `{b}` (line {line_of(text, a_start)})", lambda new=new: new))
    return sites


def move_barrier(text: str, mask: list[bool]) -> list[Site]:
    """A meeting (`barrier`, `sync b`, `syncwarp()`) moved under a branch on the lane or the
    block, or into the first critical section (or other section) of its kernel."""
    sites = []
    sections = [m for m in find_code(r"\b(critical|acquire|read|write)\s+[A-Za-z_]", text, mask)
                if statement_start(text, m.start())]
    for m in find_code(r"\b(barrier|sync|syncwarp)\b", text, mask):
        if not statement_start(text, m.start()):
            continue
        if m.group(1) == "barrier" and re.match(r"barrier\s+[A-Za-z_]", text[m.start():]):
            continue
        end = statement_end(text, m.start())
        stmt = text[m.start():end].strip()
        where = line_of(text, m.start())
        for cond in ("lane < 16", "tid < 32", "warp == 0", "bid == 0"):
            sites.append((f"put `{stmt}` (line {where}) under `if {cond}`",
                          _replace(text, m.start(), end, f"if {cond} {{ {stmt} }}")))
        for s in sections:
            brace = text.find("{", place_end(text, text.index(" ", s.start()) + 1))
            if brace < 0 or abs(brace - m.start()) > 4000:
                continue
            if s.start() < m.start():
                new = text[:brace + 1] + f" {stmt};" + text[brace + 1:m.start()] + text[end:]
            else:
                new = text[:m.start()] + text[end:brace + 1] + f" {stmt};" + text[brace + 1:]
            sites.append((f"move `{stmt}` (line {where}) into the section at line {line_of(text, s.start())}",
                          lambda new=new: new))
            break
    return sites


def change_count(text: str, mask: list[bool]) -> list[Site]:
    sites = []
    for m in find_code(r"\b(semaphore|latch|barrier)\s+[A-Za-z_]\w*", text, mask):
        i = m.end()
        while i < len(text) and text[i] == "[":
            i = matching(text, i) + 1
        if i >= len(text) or text[i] != "(":
            continue
        close = matching(text, i)
        arg = text[i + 1:close]
        kind = m.group(1)
        changes = ["+ 32", "- 32"] if kind == "barrier" else ["+ 1", "- 1", "* 2"]
        for change in changes:
            sites.append((f"{kind} count `{arg}` → `{arg} {change}` (line {line_of(text, i)})",
                          _replace(text, i + 1, close, f"({arg}) {change}")))
    return sites


SYNC_PLACES = r"\b(put|get|await|signal|wait|post|lock|unlock|trylock|critical|acquire|count_down|read|write)\s+[A-Za-z_]\w*\["


def change_index(text: str, mask: list[bool]) -> list[Site]:
    """A subscript of a synchronizing statement's place changed."""
    sites = []
    matches = find_code(SYNC_PLACES, text, mask) + find_code(r"\bwhen\s+\w+\s*=\s*[A-Za-z_]\w*\[", text, mask)
    for m in matches:
        bracket = m.end() - 1
        close = matching(text, bracket)
        expr = text[bracket + 1:close]
        where = line_of(text, bracket)
        options = [f"{expr} + 1"]
        for old, new in (("tid", "lane"), ("lane", "tid"), ("warp", "lane"), ("gtid", "tid"), ("min", "max"),
                         ("max", "min")):
            if re.search(rf"\b{old}\b", expr):
                options.append(re.sub(rf"\b{old}\b", new, expr, count=1))
        swapped = _swap_operands(expr)
        if swapped:
            options.append(swapped)
        for new in options:
            sites.append((f"index `{expr}` → `{new}` (line {where})", _replace(text, bracket + 1, close, new)))
    return sites


def _swap_operands(expr: str) -> str | None:
    """`a - b` → `b - a` (and `%`, `/`) for the first such operator at the top level."""
    depth = 0
    for i, ch in enumerate(expr):
        depth += ch in "([" and 1 or ch in ")]" and -1 or 0
        if depth == 0 and ch in "-%/" and 0 < i < len(expr) - 1 and expr[i - 1] == " ":
            left, right = expr[:i].strip(), expr[i + 1:].strip()
            if left and right:
                return f"{right} {ch} {left}"
    return None


def change_loop_bound(text: str, mask: list[bool]) -> list[Site]:
    sites = []
    for m in find_code(r"\bfor\s+\w+\s+in\s+", text, mask):
        dots = text.find("..", m.end())
        brace = text.find("{", dots)
        if dots < 0 or brace < 0:
            continue
        bound_end = brace
        step = text.find(" step ", dots, brace)
        if step >= 0:
            bound_end = step
        bound = text[dots + 2:bound_end].strip()
        start = text.index(bound, dots + 2)
        for change in ("+ 1", "- 1"):
            sites.append((f"loop bound `{bound}` → `{bound} {change}` (line {line_of(text, m.start())})",
                          _replace(text, start, start + len(bound), f"({bound}) {change}")))
    return sites


def change_grid(text: str, mask: list[bool]) -> list[Site]:
    """The grid a kernel is declared with or launched with, one more or one less; or a grid
    given at a launch that had none."""
    sites = []
    for m in find_code(r"\bgrid\(", text, mask):
        close = matching(text, m.end() - 1)
        arg = text[m.end():close]
        if "," in arg:
            continue
        for change in ("+ 1", "- 1", "* 2"):
            sites.append((f"grid `{arg}` → `{arg} {change}` (line {line_of(text, m.start())})",
                          _replace(text, m.end(), close, f"({arg}) {change}")))
    for m in find_code(r"\blaunch\s+\w+\(", text, mask):
        close = matching(text, m.end() - 1)
        rest = text[close + 1:statement_end(text, close + 1)]
        if "grid(" not in rest:
            for grid in (1, 3):
                sites.append((f"launch at line {line_of(text, m.start())} with grid({grid})",
                              _replace(text, close + 1, close + 1, f" grid({grid})")))
    return sites


GRANULARITY_CHANGES = {"@thread": ["@warp", "@block"], "@warp": ["@thread", "@block"], "@block": ["@warp", "@thread"],
                       "@grid": ["@block"]}
IMPLS = {"mutex": ["tas", "ttas", "ticket", "mcs", "mcs2", "backoff", "tinylock"],
         "semaphore": ["spin", "backoff", "sleeping"], "channel": ["tinylock", "atomlock", "flag", "namedbar"],
         "rwlock": ["counter", "ticket"], "barrier": ["atomic", "xf", "flip", "hierarchical", "bar", "syncwarp"]}


def change_declaration(text: str, mask: list[bool]) -> list[Site]:
    """A primitive's granularity, placement or implementation changed."""
    sites = []
    for m in find_code(r"\b(mutex|semaphore|channel|rwlock|latch|barrier)\s+[A-Za-z_][^\n]*?\bin\s+(shared|global)\s+(@\w+)"
                       r"(\s+using\s+\w+(\([^)]*\))?)?", text, mask):
        kind, place, gran = m.group(1), m.group(2), m.group(3)
        where = line_of(text, m.start())
        for new in GRANULARITY_CHANGES.get(gran, []):
            sites.append((f"{kind} at line {where}: {gran} → {new}", _replace(text, m.start(3), m.end(3), new)))
        other = "global" if place == "shared" else "shared"
        sites.append((f"{kind} at line {where}: in {place} → in {other}", _replace(text, m.start(2), m.end(2), other)))
        if m.group(4):
            current = m.group(4).split()[1].split("(")[0]
            for impl in IMPLS.get(kind, []):
                if impl != current:
                    sites.append((f"{kind} at line {where}: using {current} → using {impl}",
                                  _replace(text, m.start(4), m.end(4), f" using {impl}")))
            sites.append((f"{kind} at line {where}: `using {current}` dropped", _replace(text, m.start(4), m.end(4), "")))
    return sites


OPERATORS = {
    "delete": delete_statement,
    "delete-meeting": delete_meeting,
    "swap-nested": swap_nested,
    "move-barrier": move_barrier,
    "count": change_count,
    "index": change_index,
    "loop-bound": change_loop_bound,
    "grid": change_grid,
    "declaration": change_declaration,
}


def skip_lock(text: str, mask: list[bool]) -> list[Site]:
    """A hand-written spin lock whose taking always succeeds at once: its compare-and-swap or
    exchange (`atomic_cas(lk[c], 0, 1)`, `atomic_exch(lk[c], 1)`) replaced by 0, a ticket lock's
    turn test (`load_cg(lk[c]) == my`) by `my == my`. The section then runs unguarded: the race
    check must refuse it (E0731, E0730). Only for programs whose such atomics are locks (the hand
    batch's, HAND_OPERATORS): elsewhere a compare-and-swap of 0 to 1 may elect a thread, and
    skipping it would change what a correct program computes."""
    sites = []
    for pattern, new in ((r"atomic_cas\((\w+\[[^\]]*\]), 0, 1\)", "0"), (r"atomic_exch\((\w+\[[^\]]*\]), 1\)", "0"),
                         (r"load_cg\((\w+\[[^\]]*\])\) == my\b", "my == my")):
        for m in find_code(pattern, text, mask):
            sites.append((f"skip the lock `{m.group(0)}` (line {line_of(text, m.start())})",
                          _replace(text, m.start(), m.end(), new)))
    return sites


# the hand batch's (tests/oracle/hand.py): every compare-and-swap of 0 to 1 there takes a lock
HAND_OPERATORS = {**OPERATORS, "skip-lock": skip_lock}


# operators that change what the program computes, not only how it synchronizes (a @warp
# section runs once per warp, a @thread one once per thread: a count kept inside changes)
CHANGES_RESULT = {"index", "loop-bound", "grid", "declaration"}


def mutation_sites(text: str, operators=OPERATORS) -> dict[str, list[Site]]:
    mask = code_mask(text)
    return {name: op(text, mask) for name, op in operators.items()}


def mutate(rng: random.Random, seed: Seed, operators=OPERATORS) -> tuple[str, str, str] | None:
    """(operator, description, mutant text) for one seeded mutation of a seed, or None."""
    sites = {k: v for k, v in mutation_sites(seed.text, operators).items() if v}
    if not sites:
        return None
    operator = rng.choice(sorted(sites))
    description, make = rng.choice(sites[operator])
    return operator, description, make()


def make_mutants(seed: int, count: int, folder: Path, include_seeds: bool = True,
                 sources: list[str] | None = None, seeds: list[Seed] | None = None,
                 operators=OPERATORS) -> tuple[list[Program], dict]:
    """`count` mutants that pass the front end (and, with include_seeds, each seed once), written
    into folder; the stats count what was discarded, per operator. `sources`: draw only from
    these seed files, in this order (a pinned pool: tests/oracle/fixed_seeds.txt); `seeds`: draw
    from these programs instead of the repository's (the hand batch's generated ones, with
    HAND_OPERATORS)."""
    rng = random.Random(seed * 7919 + 17)
    seeds = load_seeds() if seeds is None else seeds
    if sources is not None:
        by_source = {s.source: s for s in seeds}
        seeds = [by_source[src] for src in sources]
    programs: list[Program] = []
    if include_seeds:
        for s in seeds:
            path = folder / f"seed_{s.name}.sync"
            path.write_text(s.text)
            programs.append(Program(path.stem, str(path), "seed", dict(s.defines), origin=s.source))
    made, attempts = 0, 0
    stats = {"attempts": 0, "discarded_frontend": 0, "unchanged": 0, "by_operator": {}, "discarded_by_operator": {}}
    while made < count and attempts < count * 20:
        attempts += 1
        s = rng.choice(seeds)
        result = mutate(rng, s, operators)
        if result is None or result[2] == s.text:
            stats["unchanged"] += 1
            continue
        operator, description, text = result
        path = folder / f"mut_{seed}_{made:04d}.sync"
        path.write_text(f"// Mutant of {s.source} by tests/oracle/mutate.py: {description}\n" + text)
        program = Program(path.stem, str(path), "mutant", dict(s.defines), origin=s.source,
                          mutation=f"{operator}: {description}", changes_result=operator in CHANGES_RESULT)
        if frontend_errors(program):
            stats["discarded_frontend"] += 1
            stats["discarded_by_operator"][operator] = stats["discarded_by_operator"].get(operator, 0) + 1
            path.unlink()
            continue
        stats["by_operator"][operator] = stats["by_operator"].get(operator, 0) + 1
        programs.append(program)
        made += 1
    stats["attempts"] = attempts
    return programs, stats
