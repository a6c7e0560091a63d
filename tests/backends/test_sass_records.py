"""Records in the `.sass` form: `.record NAME field: type, ...` declares a record type a kernel's
arrays (`.param`, `.state`, `.shared`) hold, so printed SASS of a record kernel reads back as the
same kernel and runs from its `.sass` file (docs/fermi.md, "The .sass format")."""
from __future__ import annotations

import pytest

import syncc
from helpers import syncc as cli
from syncc.backends.fermi.asm import assemble
from syncc.backends.fermi.printer import print_program
from syncc.core.diagnostics import DiagnosticsError
from syncc.core.records import RecordType
from syncc.core.source import SourceFile

# an array parameter, a shared array and a channel's state of records, and a queue's slots
PROGRAM = """
struct Entry { key: u32, value: f32, next: i32 }
kernel k(out: global Entry[8], t: global Entry[n], n: i32) launch grid(1) block(64) {
    channel c[32]: Entry in shared @thread
    channel g[32]: Entry in global @thread using atomlock
    queue q(16): Entry in global @thread
    shared loc: Entry[32]
    if tid < 32 {
        loc[tid] = Entry(key = u32(tid) * 3, value = f32(tid) * 0.5, next = tid - 1)
        put c[tid] = loc[tid]
        put g[tid] = loc[tid]
        put q = loc[tid]
    } else {
        let e = get c[tid - 32]
        let f = get g[tid - 32]
        let h = get q
        if tid < 40 { out[tid - 32] = e }
        if tid - 32 < n { t[tid - 32] = Entry(key = f.key + h.key - h.key, value = f.value, next = f.next) }
    }
}
"""


def test_a_record_kernel_reads_back_as_itself(tmp_path):
    p = tmp_path / "r.sync"
    p.write_text(PROGRAM)
    program = syncc.compile(str(p), target="fermi-sim")._fermi_program()
    text = print_program(program)
    assert text.count(".record Entry key: u32, value: f32, next: i32") == 1
    again = assemble(SourceFile("r.sass", text))
    (k,), (k2,) = program.kernels, again.kernels
    assert k2 == k
    held = [p.elem for p in k2.params] + [a.elem for a in k2.shared]
    assert sum(isinstance(e, RecordType) for e in held) >= 4, held      # out, t, c.data, g.data, q's slots, loc
    assert print_program(again) == text


def test_a_record_kernel_runs_from_its_sass(tmp_path):
    """`syncc run FILE.sass`: an array of records starts as its INIT, word by word, and `.print`
    shows it as records."""
    p = tmp_path / "r.sync"
    p.write_text(PROGRAM.replace("t: global Entry[n], n: i32", "t: global Entry[4]").replace("< n", "< 4"))
    r = cli("build", str(p), "--target", "fermi-sass")
    assert r.code == 0, r.err
    sass = tmp_path / "r.sass"
    sass.write_text(r.out + "\n.print out, t\n")
    r = cli("run", str(sass))
    assert r.code == 0, r.err + r.out
    assert "out = [( 0, 0. , -1) ( 3, 0.5,  0)" in r.out.replace("\n", " "), r.out
    assert "t = [( 0, 0. , -1)" in r.out


HEADER = ".kernel k\n.launch grid(1) block(32)\n"


@pytest.mark.parametrize("lines, words", [
    (".record E a: u32, b: f64\n.param t: global E[4]", "a record's field on Fermi is one word, not `f64`"),
    (".record E a: u32, a: i32", "names field `a` twice"),
    (".record E a: u32\n.record E b: u32", "record `E` is defined twice"),
    (".param t: global E[4]", "unknown type `E`"),
    (".record E a: u32\n.param x: E", "unknown type `E`"),
    (".record u32 a: u32", "is a scalar type"),
])
def test_bad_record_directives(lines, words):
    with pytest.raises(DiagnosticsError) as e:
        assemble(SourceFile("bad.sass", HEADER + lines + "\nEXIT;\n"))
    assert any(words in d.message for d in e.value.diagnostics), [d.message for d in e.value.diagnostics]
    assert all(d.code == "E1007" or d.code == "E1011" for d in e.value.diagnostics)


def test_a_record_array_starts_as_its_words(tmp_path):
    """A `[v, ...]` INIT of an array of records gives one value per field word, in order."""
    text = HEADER + ".record E a: u32, b: i32\n.param t: global E[2] = [1, 2, 3, 4]\n.print t\nEXIT;\n"
    (k,) = assemble(SourceFile("init.sass", text)).kernels
    assert k.params[0].init.values == (1, 2, 3, 4)
    (tmp_path / "init.sass").write_text(text)
    r = cli("run", str(tmp_path / "init.sass"))
    assert r.code == 0 and "t = [(1, 2) (3, 4)]" in r.out, r.err + r.out
    with pytest.raises(DiagnosticsError) as e:
        assemble(SourceFile("init.sass", text.replace("[1, 2, 3, 4]", "[1, 2]")))
    assert "2 initial values for an array of 4" in e.value.diagnostics[0].message


def test_a_record_is_declared_per_kernel():
    """Each kernel declares the records its arrays hold: a second kernel cannot use the first's."""
    text = HEADER + ".record E a: u32\n.param t: global E[4]\nEXIT;\n.kernel j\n.launch grid(1) block(32)\n" \
        ".param t: global E[4]\nEXIT;\n"
    with pytest.raises(DiagnosticsError) as e:
        assemble(SourceFile("two.sass", text))
    (d,) = e.value.diagnostics
    assert "unknown type `E`" in d.message and d.span.line == 8
