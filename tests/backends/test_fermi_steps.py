"""The SASS emitter as a list of steps (syncc/backends/fermi/emit/steps.py, docs/fermi.md "From IR
to SASS"): the list is what the docs say, the machine-code verifier between the steps rejects
broken code with an internal error naming the step, and `--dump-after STEP` shows a step's code."""
from __future__ import annotations

import re
from dataclasses import replace

import pytest

from helpers import ROOT, syncc as cli
from syncc.backends.fermi.emit import build_fermi_sass, steps as emit_steps
from syncc.backends.fermi.emit.mcode import CondBr, Goto, Sync
from syncc.backends.fermi.emit.emission import Emission
from syncc.backends.fermi.emit.steps import STEP_NAMES, STEPS, run_steps
from syncc.backends.fermi.emit.verify import MachineVerifyError, Stage, verify_function, verify_instructions
from syncc.backends.fermi.isa import BranchTarget, SassReg
from syncc.driver import compile_file
from syncc.ir.pipeline import PASS_NAMES
from syncc.ir.verify import IRVerifyError

DIVERGENT_IF = ROOT / "tests" / "golden" / "fermi" / "divergent_if.sync"


def kernel_ir(its: bool = False):
    comp = compile_file(str(DIVERGENT_IF), None, "fermi-sim", its=its)
    assert comp.ok
    return comp.ir.kernels[0]


def emitted_until(last: str, its: bool = False) -> Emission:
    e = Emission(kernel_ir(its), its)
    for step in STEPS[:STEP_NAMES.index(last) + 1]:
        step.run(e)
    return e


def stage(after: str, its: bool = False) -> Stage:
    return Stage("k", after, its, frozenset(STEP_NAMES[:STEP_NAMES.index(after) + 1]))


# ---- the list

def test_the_steps_are_the_table_in_the_docs():
    text = (ROOT / "docs" / "fermi.md").read_text()
    section = text[text.index("## From IR to SASS"):]
    rows = re.findall(r"^\| `(\w+)` \| [^|]+ \| (.+) \|$", section, re.M)
    assert [name for name, _ in rows] == list(STEP_NAMES)
    assert [guarantee for _, guarantee in rows] == [s.guarantee for s in STEPS]


def test_every_step_says_what_it_guarantees_and_no_name_is_an_ir_pass():
    assert all(s.guarantee for s in STEPS)
    assert not set(STEP_NAMES) & set(PASS_NAMES)      # --dump-after takes both


# ---- the verifier

def test_the_emitted_code_passes_the_verifier_after_every_step():
    for its in (False, True):
        e = Emission(kernel_ir(its), its)
        run_steps(e)
        assert e.instrs and any(i.op == ("BSSY" if its else "SSY") for i in e.instrs)


def test_a_branch_to_a_missing_block_is_an_internal_error_naming_the_step():
    e = emitted_until("merge_blocks")
    next(b for b in e.mf.blocks if isinstance(b.term, CondBr)).term.if_true = "nowhere"
    with pytest.raises(MachineVerifyError, match=r"kernel @k after emitter step merge_blocks: .*"
                                                 r"branches to missing block nowhere"):
        verify_function(e.mf, stage("merge_blocks"))


def test_a_sync_point_without_its_ssy_is_rejected_once_reconvergence_is_placed():
    e = emitted_until("place_reconvergence")
    for b in e.mf.blocks:
        b.instrs = [i for i in b.instrs if i.op != "SSY"]
    with pytest.raises(MachineVerifyError, match=r"\.S continues at \S+, which no SSY pushed"):
        verify_function(e.mf, stage("place_reconvergence"))


def test_the_fermi_flavour_rejects_a_bssy_and_the_its_flavour_a_sync():
    fermi = emitted_until("place_reconvergence", its=True)      # BSSY / BSYNC code, called Fermi
    with pytest.raises(MachineVerifyError, match="an ITS-only opcode in the Fermi flavour"):
        verify_function(fermi.mf, stage("place_reconvergence", its=False))
    its = emitted_until("place_reconvergence")                  # SSY / .S code, called ITS
    with pytest.raises(MachineVerifyError, match=r"SSY in the ITS flavour.*a \.S \(Sync\) in the ITS flavour"):
        verify_function(its.mf, stage("place_reconvergence", its=True))
    assert any(isinstance(b.term, Sync) for b in its.mf.blocks)


def test_a_register_out_of_range_and_a_virtual_one_after_allocation_are_rejected():
    e = emitted_until("select")
    verify_function(e.mf, stage("select"))                      # virtual registers are fine before allocate
    with pytest.raises(MachineVerifyError, match="virtual register .* left after allocation"):
        verify_function(e.mf, stage("allocate"))
    e = emitted_until("allocate")
    ins = next(i for b in e.mf.blocks for i in b.instrs if i.ops and isinstance(i.ops[0], SassReg))
    ins.ops[0] = SassReg(70)
    with pytest.raises(MachineVerifyError, match=r"register R70 out of range"):
        verify_function(e.mf, stage("allocate"))


def test_laid_out_code_must_branch_to_an_instruction():
    e = emitted_until("lay_out")
    verify_instructions(e.instrs, stage("lay_out"))
    i = next(n for n, ins in enumerate(e.instrs) if ins.op == "BRA")
    e.instrs[i] = replace(e.instrs[i], operands=(BranchTarget(8 * len(e.instrs)),))
    with pytest.raises(MachineVerifyError, match=r"target 0x\w+ is not an instruction of the kernel"):
        verify_instructions(e.instrs, stage("lay_out"))


def test_a_step_that_breaks_the_code_stops_the_build(monkeypatch):
    def broken(e: Emission) -> None:
        e.mf.blocks[0].term = Goto("nowhere")
    table = tuple(replace(s, run=broken) if s.name == "order_blocks" else s for s in STEPS)
    monkeypatch.setattr(emit_steps, "STEPS", table)
    comp = compile_file(str(DIVERGENT_IF), None, "fermi-sim")
    with pytest.raises(MachineVerifyError, match="after emitter step order_blocks"):
        build_fermi_sass(comp.ir)


def test_an_ir_step_that_breaks_the_ir_stops_the_build(monkeypatch):
    """legalize and if_convert rewrite the IR: the IR's verifier checks what they leave."""
    if_convert = next(s for s in STEPS if s.name == "if_convert").run

    def broken(e: Emission) -> None:
        if_convert(e)
        e.ir = replace(e.ir, blocks=e.ir.blocks[:1])     # the entry block's branch now goes nowhere
    table = tuple(replace(s, run=broken) if s.name == "if_convert" else s for s in STEPS)
    monkeypatch.setattr(emit_steps, "STEPS", table)
    comp = compile_file(str(DIVERGENT_IF), None, "fermi-sim")
    with pytest.raises(IRVerifyError, match="kernel @k after if_convert: .*"):
        build_fermi_sass(comp.ir)


# ---- --dump-after STEP

def test_dump_after_lay_out_prints_the_sass_that_build_prints():
    dump = cli("build", str(DIVERGENT_IF), "--target", "fermi-sass", "--dump-after", "lay_out")
    full = cli("build", str(DIVERGENT_IF), "--target", "fermi-sass")
    assert dump.code == 0 and full.code == 0
    instructions = [line for line in full.out.splitlines() if re.match(r"\s+/\*[0-9a-f]{4}\*/", line)]
    assert dump.out.splitlines() == ["// @k after lay_out: SASS"] + instructions


def test_dump_after_a_machine_step_prints_machine_code_virtual_until_allocate():
    select = cli("build", str(DIVERGENT_IF), "--target", "fermi-sass", "--dump-after", "select")
    allocated = cli("build", str(DIVERGENT_IF), "--target", "fermi-sass", "--dump-after", "allocate")
    assert select.out.startswith("// @k after select: machine code\n")
    assert re.search(r"ISETP\.GT\.AND %p\d+\S*, pt, %r\d+", select.out)
    assert "SSY" not in select.out                                # reconvergence is placed later
    assert "SSY endif" in allocated.out and "%r" not in allocated.out and "%p" not in allocated.out


def test_dump_after_takes_ir_passes_for_every_target_and_steps_for_fermi_sass_only():
    assert cli("build", str(DIVERGENT_IF), "--dump-after", "structure").out.startswith("; the IR after structure")
    wrong_target = cli("build", str(DIVERGENT_IF), "--dump-after", "select")
    assert wrong_target.code == 2 and "a step of the SASS emitter: use it with --target fermi-sass" in wrong_target.err
    unknown = cli("build", str(DIVERGENT_IF), "--target", "fermi-sass", "--dump-after", "nope")
    assert unknown.code == 2
    assert "`nope` is not an IR pass (lower, unroll_lock_loops, check_hazards" in unknown.err
    assert ", ".join(STEP_NAMES) in unknown.err


def test_if_convert_folds_a_branch_on_a_constant():
    """`br true, yes, no` is a jump to `yes`, which then merges into the entry block; `no` is
    left for the later steps to drop (nothing jumps to it)."""
    from syncc.backends.fermi.emit.ifconvert import if_convert
    from syncc.ir.nodes import Jump
    from syncc.ir.parser import parse_ir
    long_arm = "\n".join(f"  st @out[{i % 4}:i32], 1:i32" for i in range(12))
    (k,) = parse_ir(f"""module "t"
kernel @k(@out: global i32[4]) grid(1, 1, 1) block(32, 1, 1) {{
entry:
  br true, yes, no
yes:
{long_arm}
  jmp done
no:
  st @out[1:i32], 2:i32
  jmp done
done:
  ret
}}
""").kernels
    entry, *rest = if_convert(k).blocks
    assert [b.label for b in rest] == ["no", "done"]
    assert len(entry.instrs) == 12 and entry.term == Jump("done")
