"""The .sass assembler (syncc/backends/fermi/asm.py): round trips, the examples, and its diagnostics.

  * assemble(print_kernel(k)) == k for synthetic kernels that use every opcode of OPCODES with
    every operand kind of every position (optional operands left out and given), modifiers,
    guards, `.S`, locs (None included), nested regions and every header directive; and printing
    what was read gives the same text again;
  * every file of examples/sass/ assembles, round-trips, and keeps its listing's addresses;
  * each error code E1001-E1011 renders as `file:line:col: error[CODE]: message` with the caret
    under the offending word; several errors of one file are all reported; no input, however
    mangled, raises anything but DiagnosticsError;
  * the instruction-set table of docs/fermi.md is the one OPCODES generates, and the example of
    its ".sass format" section assembles.
"""
from __future__ import annotations

import random
import re
from itertools import cycle

import pytest

from helpers import ROOT, syncc
from syncc.backends.fermi.asm import assemble
from syncc.backends.fermi.isa import (OPCODES, PT, RZ, SPECIALS, BranchTarget, CondCode, ConstBankWord,
                                      ConvergenceBarrier, Instruction, Mem, Pred, SassImm, SassReg, Special)
from syncc.backends.fermi.isa_doc import opcode_table
from syncc.backends.fermi.printer import print_kernel, print_program
from syncc.backends.fermi.program import Init, Region, SassKernel, SassParam, SharedArray
from syncc.core.diagnostics import DiagnosticsError, Renderer
from syncc.core.source import SourceFile, SourceMap

SASS_EXAMPLES = sorted((ROOT / "examples" / "sass").glob("*.sass"))


def read(text: str, path: str = "t.sass"):
    return assemble(SourceFile(path, text))


def round_trip(k: SassKernel) -> None:
    text = print_kernel(k)
    [back] = read(text).kernels
    for field in SassKernel.__dataclass_fields__:
        assert getattr(back, field) == getattr(k, field), f"{k.name}: field {field} differs after the round trip"
    assert back == k
    assert print_kernel(back) == text


# ---- synthetic kernels: every opcode, every operand kind of every position --------------------

def _samples(letter: str, spec, index: int) -> list:
    """Operands of kind `letter` for position `index` of `spec` (negated/inverted where allowed)."""
    source = index >= spec.dests
    if letter == "R":
        regs = [SassReg(0), SassReg(62), SassReg(RZ)]
        if source and spec.negatable:
            regs.append(SassReg(5, neg=True))
        if source and spec.invertible:
            regs.append(SassReg(3, inv=True))
        return regs
    if letter == "P":
        return [Pred(0), Pred(PT)] + ([Pred(6, neg=True), Pred(PT, neg=True)] if source else [])
    return {
        "I": [SassImm(0), SassImm(-4), SassImm(0x7FFFFFFF), SassImm(0xFFFFFFFF), SassImm(-(1 << 31))],
        "C": [ConstBankWord(0, 0x20), ConstBankWord(1, 0x100)],
        "M": [Mem(SassReg(0)), Mem(SassReg(7), -4), Mem(SassReg(RZ), 0x10), Mem(SassReg(62), 0x80),
              Mem(SassReg(RZ), -8)],
        "S": [Special(s) for s in SPECIALS],
        "T": [BranchTarget(0), BranchTarget(8)],
        "B": [ConvergenceBarrier(0), ConvergenceBarrier(15)],
        "K": [CondCode()],
    }[letter]


def _modifier_sets(spec) -> list[tuple[str, ...]]:
    """No optional modifier, every value of every group (with the required groups' first), all groups."""
    required = [spec.mods[i][0] for i in spec.required]
    out = [tuple(required)]
    for i, group in enumerate(spec.mods):
        for value in group:
            mods = [value if j == i else spec.mods[j][0] for j in range(len(spec.mods)) if j == i or j in spec.required]
            out.append(tuple(mods))
    out.append(tuple(g[0] for g in spec.mods))
    return list(dict.fromkeys(out))


def _instructions(spec) -> list[Instruction]:
    """Instructions of one opcode: every sample of every kind at every position, each operand count."""
    first = [_samples(s.rstrip("?")[0], spec, i)[0] for i, s in enumerate(spec.shapes)]
    out = []
    for count in range(spec.min_operands, len(spec.shapes) + 1):
        out.append(Instruction(spec.name, _modifier_sets(spec)[0], tuple(first[:count])))
    for i, shape in enumerate(spec.shapes):
        for letter in shape.rstrip("?"):
            for sample in _samples(letter, spec, i):
                ops = list(first[:max(i + 1, spec.min_operands)])
                ops[i] = sample
                out.append(Instruction(spec.name, _modifier_sets(spec)[0], tuple(ops)))
    for mods in _modifier_sets(spec):
        out.append(Instruction(spec.name, mods, tuple(first[:spec.min_operands])))
    base = out[0]
    out += [Instruction(base.op, base.mods, base.operands, Pred(1)),
            Instruction(base.op, base.mods, base.operands, Pred(2, neg=True)),
            Instruction(base.op, base.mods, base.operands, Pred(PT)),
            Instruction(base.op, base.mods, base.operands, Pred(0, neg=True), sync=True)]
    return out


def _kernel(name: str, instrs: list[Instruction], its: bool, **header) -> SassKernel:
    locs = cycle([(3, 5), (3, 5), None, (12, 1), (7, 40), None])
    placed = tuple(Instruction(i.op, i.mods, i.operands, i.guard, i.sync, 8 * n, next(locs))
                   for n, i in enumerate(instrs))
    return SassKernel(name, placed, its=its, **header)


def synthetic_kernels() -> list[SassKernel]:
    fermi = [i for spec in OPCODES.values() if not spec.its for i in _instructions(spec)]
    its = [i for spec in OPCODES.values() if spec.its for i in _instructions(spec)]
    n = len(fermi)
    header = dict(
        grid=(2, 3, 1), block=(32, 4, 2), source="prog/x.sync", local_bytes=0x40,
        params=(SassParam("a", "array", "i32", (4, 8), Init("range")),
                SassParam("n", "scalar", "u32", (), Init("fill", 16)),
                SassParam("flag", "scalar", "bool"),
                SassParam("out", "array", "u32", (3,), Init("values", values=(1, -2, 0x7FFFFFFF))),
                SassParam("plain", "array", "bool", (5,)),
                SassParam("tickets", "state", "u32", (2,), Init("zeros"), "block"),
                SassParam("nodes", "state", "i32", (1,), Init("fill", -1), "thread"),
                SassParam("flags", "state", "i32", (16,), Init("fill", 7))),
        shared=(SharedArray("s", "i32", (8, 32), 0x0, Init("zeros")),
                SharedArray("t", "bool", (4,), 0x400),
                SharedArray("u", "u32", (3,), 0x410, Init("values", values=(5, 6, 7)))),
        shared_bytes=0x800, prints=("a", "s", "tickets"),
        regions=(Region(0, 8 * n, "kernel", "every opcode", (1, 1)),
                 Region(8, 64, "critical", 'lock "m" \\ here', (3, 5)),
                 Region(16, 32, "wait", "score[i-1][j]"),
                 Region(32, 48, "put", "adjacent", (9, 2)),
                 Region(64, 72, "barrier", "last", None)),
    )
    return [_kernel("every_fermi_opcode", fermi, False, **header),
            _kernel("every_its_opcode", its, True, grid=(1, 1, 1), block=(32, 1, 1)),
            _kernel("minimal", [Instruction("EXIT")], False, block=(64, 1, 1)),
            _kernel("grid_only", [Instruction("NOP")], False, grid=(4, 1, 1))]


SYNTHETIC = synthetic_kernels()


def test_synthetic_kernels_cover_every_opcode_and_operand_kind():
    used = {(i.op, n, type(o)) for k in SYNTHETIC for i in k.instrs for n, o in enumerate(i.operands)}
    kind_class = {"R": SassReg, "P": Pred, "I": SassImm, "C": ConstBankWord, "M": Mem, "S": Special, "T": BranchTarget,
                  "B": ConvergenceBarrier, "K": CondCode}
    for spec in OPCODES.values():
        assert any(i.op == spec.name for k in SYNTHETIC for i in k.instrs), spec.name
        for n, shape in enumerate(spec.shapes):
            for letter in shape.rstrip("?"):
                assert (spec.name, n, kind_class[letter]) in used, (spec.name, n, letter)


@pytest.mark.parametrize("kernel", SYNTHETIC, ids=[k.name for k in SYNTHETIC])
def test_round_trip_of_synthetic_kernels(kernel):
    round_trip(kernel)


def test_program_of_several_kernels_round_trips():
    from syncc.backends.fermi.program import SassProgram
    program = SassProgram(list(SYNTHETIC))
    text = print_program(program, banner="generated")
    back = read(text)
    assert back.kernels == program.kernels
    assert print_program(back, banner="generated") == text


def test_printed_loc_comments_quote_the_source():
    sources = SourceMap()
    sources.add("prog/x.sync", "line one\nline two\n  put x = 1\n")
    k = SYNTHETIC[0]
    text = print_kernel(k, sources)
    assert ".loc 3 5" in text and "// put x = 1" in text
    assert read(text).kernels == [k]


# ---- the examples --------------------------------------------------------------------------------

@pytest.mark.parametrize("path", SASS_EXAMPLES, ids=[p.stem for p in SASS_EXAMPLES])
def test_example_assembles_and_round_trips(path):
    program = read(path.read_text(encoding="utf-8"), str(path))
    assert program.kernels
    for k in program.kernels:
        assert k.grid is not None and k.block is not None, "an example runs on its own: it needs both shapes"
        round_trip(k)


# Examples whose listing is printed from 0x0000 in every routine (README.md says why) or is not SASS.
NO_ADDRESSES = {"listing04_tiny_lock", "alias_deadlock", "its_livelock_3_3", "its_syncwarp_3_6", "its_yield_3_3"}


@pytest.mark.parametrize("path", SASS_EXAMPLES, ids=[p.stem for p in SASS_EXAMPLES])
def test_example_keeps_its_listings_addresses(path):
    """Every `/*ADDR*/` line lands at ADDR with the instruction written there."""
    text = path.read_text(encoding="utf-8")
    [k] = read(text, str(path)).kernels
    placed = 0
    for line in text.splitlines():
        m = re.match(r"\s*/\*([0-9a-fA-F]+)\*/\s*(?:@!?\w+\s+)?([A-Z0-9.]+)", line)
        if m:
            ins = k.at(int(m.group(1), 16))
            assert ins.name == m.group(2), line
            placed += 1
    assert placed or path.stem in NO_ADDRESSES, "a seed listing keeps some of its addresses"


def test_examples_readme_lists_every_example():
    readme = (ROOT / "examples" / "sass" / "README.md").read_text(encoding="utf-8")
    listed = set(re.findall(r"`([\w]+\.sass)`", readme))
    assert listed == {p.name for p in SASS_EXAMPLES}


def test_example_header_says_what_a_run_does():
    for path in SASS_EXAMPLES:
        head = path.read_text(encoding="utf-8").split(".kernel")[0]
        assert "Source:" in head and "Expected outcome:" in head, path.name


def test_listing_13_chain_matches_its_serial_loop():
    """The expected A of listing13_chain.sass (its header and README) is Listing 10's serial loop."""
    a0, a = list(range(32)), [0] * 512
    for t in range(512):
        a[t] = (a0[t] if t < 32 else a[t - 32]) + t
    assert a[:4] == [0, 2, 4, 6] and a[32:36] == [32, 35, 38, 41] and a[511] == 4367 and sum(a) == 771712
    assert all(a[t] == (t % 32) * (t // 32 + 2) + 16 * (t // 32) * (t // 32 + 1) for t in range(512))


def test_listing_15_wavefront_matches_needleman_wunsch():
    path = ROOT / "examples" / "sass" / "listing15_wavefront.sass"
    text = path.read_text(encoding="utf-8")
    [k] = read(text, str(path)).kernels
    ref = k.param("ref").init.values
    gap = k.param("k").init.value
    s = [[0] * 8 for _ in range(8)]
    for i in range(8):
        for j in range(8):
            s[i][j] = (-(i + j) * gap if i == 0 or j == 0 else
                       max(s[i - 1][j - 1] + ref[8 * i + j], max(s[i - 1][j], s[i][j - 1]) - gap))
    for row in s:
        assert "//     [" + ", ".join(f"{v:2d}" for v in row) + "]" in text
    assert s[7][7] == 0


# ---- diagnostics ------------------------------------------------------------------------------

HEAD = ".kernel k\n.launch grid(1) block(32)\n"


def errors(text: str) -> list[tuple[str, int, int]]:
    """(first rendered line, caret column, caret width) of each diagnostic of assembling `text`."""
    sources = SourceMap()
    source = sources.add("t.sass", text)
    with pytest.raises(DiagnosticsError) as info:
        assemble(source)
    out = []
    for d in info.value.diagnostics:
        lines = Renderer(sources).render(d).splitlines()
        caret = next((ln for ln in lines[1:4] if ln.strip().startswith("|") and "^" in ln), None)
        if caret is None:
            out.append((lines[0], 0, 0))
            continue
        code = lines[2]
        column = caret.index("^") - code.index("|") - 1
        out.append((lines[0], column, caret.count("^")))
    return out


SNAPSHOTS = [
    ("bad opcode", HEAD + "        LDSKL P0, R1, [R0];\n        EXIT;\n",
     "t.sass:3:9: error[E1001]: unknown opcode `LDSKL`", 9, 5),
    ("lower-case opcode", HEAD + "  exit;\n", "t.sass:3:3: error[E1001]: unknown opcode `exit`", 3, 4),
    ("bad modifier", HEAD + "  ISETP.EQQ.AND P0, pt, R1, RZ, pt;\n",
     "t.sass:3:9: error[E1002]: `ISETP` has no modifier `.EQQ`", 9, 3),
    ("modifiers out of order", HEAD + "  ISETP.AND.EQ P0, pt, R1, RZ, pt;\n",
     "t.sass:3:13: error[E1002]: modifier `.EQ` of `ISETP` is repeated or out of order", 13, 2),
    ("repeated modifier", HEAD + "  LD.E.E R1, [R2];\n",
     "t.sass:3:8: error[E1002]: modifier `.E` of `LD` is repeated or out of order", 8, 1),
    ("required modifier missing", HEAD + "  LOP R1, R2, R3;\n", "t.sass:3:3: error[E1002]: `LOP` needs one of "
     ".AND, .OR, .XOR, .PASS_B", 3, 3),
    (".S not last", HEAD + "  ISETP.EQ.S.AND P0, pt, R1, RZ, pt;\n",
     "t.sass:3:12: error[E1002]: `.S` (the reconvergence mark) must come last", 12, 1),
    ("too few operands", HEAD + "  IADD R4, R1;\n", "t.sass:3:8: error[E1003]: `IADD` takes 3 operands, found 2", 8, 6),
    ("too many operands", HEAD + "  EXIT R1;\n", "t.sass:3:8: error[E1003]: `EXIT` takes 0 operands, found 1", 8, 2),
    ("wrong operand kind", HEAD + "  IADD R4, P1, 0x1;\n",
     "t.sass:3:12: error[E1003]: operand 2 of `IADD` must be a register; this is a predicate", 12, 2),
    ("bad register number", HEAD + "  MOV R63, RZ;\n", "t.sass:3:7: error[E1004]: there is no register R63", 7, 3),
    ("bad predicate", HEAD + "  @P7 EXIT;\n", "t.sass:3:3: error[E1004]: a guard is a predicate, not `P7`", 3, 3),
    ("bad barrier", HEAD.replace("\n", "\n.its\n", 1) + "  BSYNC B16;\n",
     "t.sass:4:9: error[E1004]: there is no convergence barrier B16", 9, 3),
    ("negation not allowed", HEAD + "  SHL R1, -R2, 0x2;\n",
     "t.sass:3:11: error[E1004]: `SHL` cannot negate a register", 11, 3),
    ("unknown special register", HEAD + "  S2R R1, SR_LaneID;\n",
     "t.sass:3:11: error[E1004]: unknown special register `SR_LaneID`", 11, 9),
    ("immediate too wide", HEAD + "  MOV32I R1, 0x100000000;\n",
     "t.sass:3:14: error[E1004]: immediate 0x100000000 does not fit in 32 bits", 14, 11),
    ("branch target not an instruction", HEAD + "  BRA 0x4;\n  EXIT;\n",
     "t.sass:3:7: error[E1004]: branch target 0x4 is not the address of an instruction of `k`", 7, 3),
    ("unknown label", HEAD + "wait:\n  BRA wiat;\n", "t.sass:4:7: error[E1005]: unknown label `wiat`", 7, 4),
    ("address out of order", HEAD + "/*0008*/ MOV R0, RZ;\n/*0000*/ EXIT;\n",
     "t.sass:4:1: error[E1006]: address 0x0000 is behind the current position 0x0010", 1, 8),
    ("address misaligned", HEAD + "/*0004*/ EXIT;\n",
     "t.sass:3:1: error[E1006]: address 0x0004 is not a multiple of 8", 1, 8),
    ("unknown directive", HEAD + ".sharde a: i32[1] at 0x0\n  EXIT;\n",
     "t.sass:3:1: error[E1007]: unknown directive `.sharde`", 1, 7),
    ("bad launch shape", ".kernel k\n.launch grid(1) threads(32)\n  EXIT;\n",
     "t.sass:2:17: error[E1007]: `.launch` takes `grid(...)` and `block(...)`, not `threads(...)`", 17, 7),
    ("bad type", HEAD + ".shared a: i64[4] at 0x0\n  EXIT;\n", "t.sass:3:12: error[E1007]: unknown type `i64`", 12, 3),
    ("init of the wrong length", HEAD + ".shared a: i32[4] at 0x0 = [1, 2]\n  EXIT;\n",
     "t.sass:3:28: error[E1007]: 2 initial values for an array of 4", 28, 6),
    ("launch twice", HEAD + ".launch grid(2) block(32)\n  EXIT;\n",
     "t.sass:3:1: error[E1007]: `.launch` is given twice in kernel `k`", 1, 7),
    ("endregion without region", HEAD + "  EXIT;\n.endregion\n",
     "t.sass:4:1: error[E1007]: `.endregion` without a `.region`", 1, 10),
    ("print of nothing", HEAD + ".print nope\n  EXIT;\n",
     "t.sass:3:8: error[E1007]: `.print nope`: no array is named `nope`", 8, 4),
    ("shared_bytes too small", HEAD + ".shared a: i32[4] at 0x0\n.shared_bytes 8\n  EXIT;\n",
     "t.sass:4:1: error[E1007]: `.shared_bytes 0x8` is less than the end of `a` (0x10)", 1, 15),
    ("missing comma", HEAD + "  LDSLK P0 R1, [R0];\n", "t.sass:3:12: error[E1008]: expected `,` or `;`, found `R1`",
     12, 2),
    ("missing semicolon", HEAD + "  EXIT   // done\n",
     "t.sass:3:7: error[E1008]: expected an operand, `:` or `;`, found end of line", 7, 1),
    ("malformed directive", HEAD + ".shared a: i32[4] 0x0\n  EXIT;\n",
     "t.sass:3:19: error[E1008]: expected `[` or `at`, found `0x0`", 19, 3),
    ("hash comment", HEAD + "# comment\n  EXIT;\n", "t.sass:3:1: error[E1008]: unexpected character `#`", 1, 1),
    ("ITS opcode without .its", HEAD + "  WARPSYNC 0xffffffff;\n  EXIT;\n",
     "t.sass:3:3: error[E1009]: this opcode needs independent thread scheduling, and kernel `k` has no `.its`", 3, 8),
    ("missing .launch", ".kernel k\n  EXIT;\n", "t.sass:1:9: error[E1010]: kernel `k` has no `.launch`", 9, 1),
    ("no instructions", HEAD, "t.sass:1:9: error[E1010]: kernel `k` has no instructions", 9, 1),
    ("before the first kernel", "  EXIT;\n" + HEAD + "  EXIT;\n",
     "t.sass:1:3: error[E1010]: this comes before the first `.kernel`", 3, 5),
    ("no kernel", "// nothing\n", "t.sass:1:1: error[E1010]: this file has no kernel", 1, 1),
    ("label twice", HEAD + "a:\n  NOP;\na:\n  EXIT;\n", "t.sass:5:1: error[E1011]: label `a` is defined twice", 1, 1),
    ("kernel twice", HEAD + "  EXIT;\n" + HEAD + "  EXIT;\n",
     "t.sass:4:9: error[E1011]: kernel `k` is defined twice", 9, 1),
]


@pytest.mark.parametrize("text,first,column,width", [s[1:] for s in SNAPSHOTS], ids=[s[0] for s in SNAPSHOTS])
def test_error_snapshot(text, first, column, width):
    got = errors(text)[0]
    assert got == (first, column, width), "\n".join(map(str, errors(text)))


def test_every_new_code_has_a_snapshot():
    codes = {re.search(r"\[(E\d{4})\]", s[2]).group(1) for s in SNAPSHOTS}
    assert codes == {f"E10{n:02d}" for n in range(1, 12)}


def test_errors_come_with_help():
    sources = SourceMap()
    source = sources.add("t.sass", HEAD + "  LDSKL P0, R1, [R0];\n  IADD R1, R2;\n  WARPSYNC 0x1;\n  BSYNC B0;\n")
    with pytest.raises(DiagnosticsError) as info:
        assemble(source)
    helps = [d.help for d in info.value.diagnostics]
    assert helps[0] == "did you mean `LDSLK`?"
    assert helps[1] == "usage: `IADD R, R, R|imm|c[b][o];`"
    assert "add `.its`" in helps[2] and "(the kernel has 1 more ITS instruction)" in helps[2]


def test_several_errors_of_one_file_are_all_reported():
    text = (HEAD + "  LDSKL P0, R1, [R0];\n  IADD R1;\n  MOV R99, RZ;\n  BRA nowhere;\n"
            ".kernel j\n.launch blok(1)\n  EXIT;\n")
    codes = [line.split("error[")[1][:5] for line, _, _ in errors(text)]
    assert codes == ["E1001", "E1003", "E1004", "E1005", "E1007"]


def test_a_bad_instruction_keeps_the_addresses_after_it():
    """An instruction that does not decode still takes its 8 bytes: no E1006 cascade after it."""
    text = HEAD + "/*0000*/ LDSKL P0, R1, [R0];\n/*0008*/ EXIT;\n"
    assert [e[0].split("error[")[1][:5] for e in errors(text)] == ["E1001"]


def test_gaps_are_nops_and_labels_bind_after_them():
    [k] = read(HEAD + "  MOV R0, RZ;\nspin:\n/*0020*/ LDSLK P0, RZ, [R0];\n@!P0 BRA spin;\n"
                      ".region critical \"c\"\n/*0040*/ STSUL [R0], RZ;\n.endregion\n  EXIT;\n").kernels
    assert [i.op for i in k.instrs] == ["MOV", "NOP", "NOP", "NOP", "LDSLK", "BRA", "NOP", "NOP", "STSUL", "EXIT"]
    assert [i.addr for i in k.instrs] == [8 * n for n in range(10)]
    assert k.instrs[5].operands == (BranchTarget(0x20),)
    assert k.regions == (Region(0x40, 0x48, "critical", "c"),)


def test_header_defaults():
    [k] = read(HEAD + ".shared a: i32[4] at 0x10\n.shared b: bool[3] at 0x0\n  EXIT;\n").kernels
    assert k.shared_bytes == 0x20 and k.local_bytes == 0 and k.grid == (1, 1, 1) and k.block == (32, 1, 1)
    assert k.source is None and not k.its and k.instrs[0].loc is None


def test_loc_applies_to_the_following_instructions():
    [k] = read(HEAD + ".loc 4 2\n  NOP;\n  NOP;\n.loc none\n  NOP;\n.loc 9 1 // text\n  EXIT;\n").kernels
    assert [i.loc for i in k.instrs] == [(4, 2), (4, 2), None, (9, 1)]


@pytest.mark.parametrize("path", SASS_EXAMPLES[:4], ids=[p.stem for p in SASS_EXAMPLES[:4]])
def test_mangled_input_never_raises_anything_but_compile_error(path):
    text = path.read_text(encoding="utf-8")
    rng = random.Random(path.stem)
    pieces = ["", " ", ";", ",", "[", "]", "-", "~", "!", "@", ":", "/*", "*/", ".", "R", "P9", "0x", "c", "\"", "\\",
              ".S", "BRA", ".region", "\t", "é", "\x00"]
    for _ in range(300):
        chars = list(text)
        for _ in range(rng.randint(1, 4)):
            i = rng.randrange(len(chars))
            if rng.random() < 0.5:
                del chars[i]
            else:
                chars.insert(i, rng.choice(pieces))
        try:
            read("".join(chars))
        except DiagnosticsError as e:
            assert e.diagnostics and all(d.code.startswith("E10") for d in e.diagnostics)


# ---- the command line ---------------------------------------------------------------------------

def test_syncc_check_assembles_sass_files():
    run = syncc("check", *(str(p) for p in SASS_EXAMPLES))
    assert run.code == 0, run.err
    assert f"{len(SASS_EXAMPLES)} files checked for fermi: no problems" in run.err


def test_syncc_check_reports_sass_errors(tmp_path):
    path = tmp_path / "bad.sass"
    path.write_text(HEAD + "  MOV R63, RZ;\n", encoding="utf-8")
    run = syncc("check", str(path), "--color=never")
    assert run.code == 1
    assert run.err.startswith(f"{path}:3:7: error[E1004]: there is no register R63\n  |\n3 |   MOV R63, RZ;\n"
                              "  |       ^^^\n")


def test_syncc_check_of_an_unreadable_sass_file(tmp_path):
    run = syncc("check", str(tmp_path / "missing.sass"), "--error-format=json")
    assert run.code == 1 and '"code": "E0007"' in run.err


# ---- docs/fermi.md --------------------------------------------------------------------------------

FERMI_DOC = (ROOT / "docs" / "fermi.md").read_text(encoding="utf-8")


def test_doc_instruction_table_is_the_opcode_table():
    marker = "<!-- opcode table: generated by"
    assert marker in FERMI_DOC
    after = FERMI_DOC.split(marker, 1)[1].split("\n", 1)[1]
    table = "".join(line + "\n" for line in after.splitlines() if line.startswith("|") or not line)
    table = table.split("\n\n", 1)[0].strip() + "\n"
    assert table == opcode_table(), "regenerate it: python -m syncc.backends.fermi.isa_doc"


def test_doc_sass_format_example_assembles():
    section = FERMI_DOC.split("## The .sass format", 1)[1]
    example = section.split("```\n", 2)[1]
    [k] = read(example).kernels
    assert k.name == "atomic_add" and k.instrs[4].operands == (BranchTarget(8),)


def test_doc_lists_every_directive():
    from syncc.backends.fermi.asm_parse import DIRECTIVES
    section = FERMI_DOC.split("## The .sass format", 1)[1]
    for directive in DIRECTIVES:
        assert f"`{directive}" in section, directive


def test_operand_forms():
    [k] = read(HEAD + "  MOV R1, c[0x0][0x24];\n  MOV R2, c [0x1] [0x100];\n  LDS R3, [R7-0x4];\n"
                      "  LDS R3, [R7+-4];\n  LDS R3, [R7+16];\n  LDS R4, [-0x8];\n  IADD R5, -R6, -12;\n"
                      "  @pt LOP.AND R1, ~R2, 0x0f;\n  @!P6 SEL R1, R2, R3, !pt;\n  NOP.S CC.T;\n  NOP;\n").kernels
    ops = [i.operands for i in k.instrs]
    assert ops[0][1] == ConstBankWord(0, 0x24) and ops[1][1] == ConstBankWord(1, 0x100)
    assert ops[2][1] == ops[3][1] == Mem(SassReg(7), -4) and ops[4][1] == Mem(SassReg(7), 16)
    assert ops[5][1] == Mem(SassReg(RZ), -8)
    assert ops[6] == (SassReg(5), SassReg(6, neg=True), SassImm(-12))
    assert k.instrs[7].guard == Pred(PT) and ops[7][1] == SassReg(2, inv=True) and ops[7][2] == SassImm(15)
    assert k.instrs[8].guard == Pred(6, neg=True) and ops[8][3] == Pred(PT, neg=True)
    assert k.instrs[9].sync and ops[9] == (CondCode(),) and ops[10] == ()
