"""The assembler: .sass text → SassProgram (docs/fermi.md, "The .sass format", is the reference).

    program = assemble(SourceFile(path, text))     # raises DiagnosticsError with every problem found

What it guarantees:

  * every instruction's `addr` is 8 × its index; an instruction written with a `/*ADDR*/`
    comment is placed at ADDR, and the gap before it is filled with NOPs, so the seed
    listings keep their printed addresses and hex branch targets;
  * labels and hex addresses are both branch targets, and every target is the address of an
    instruction of the kernel;
  * each instruction is checked against isa.OPCODES (asm_operands.py); opcodes marked ITS
    only appear in a kernel with `.its`;
  * `.loc` gives the following instructions their `loc`, `.region`/`.endregion` (nested)
    become `Region`s, `.shared_bytes` defaults to the end of the last shared array;
  * the printer's text reads back as the kernel it printed: assemble(print_kernel(k)) == k,
    field by field, for every kernel with instructions, a launch shape and properly nested
    regions (tests/backends/test_sass_asm.py checks this on every opcode and every example).

Bad input never raises anything but DiagnosticsError; its diagnostics (E1001-E1011) are located
and sorted, several per file where the lines allow it.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace

from ...core.diagnostics import DiagnosticSink, DiagnosticsError, Note, did_you_mean
from ...core.records import RecordType, layout
from ...core.source import SourceFile, Span
from ...core.types import SCALARS
from .asm_operands import IMM_MAX, IMM_MIN, decode_instruction
from .asm_parse import Directive, InitSpec, InstrLine, LabelLine, Unparsed, Word, parse_lines
from .isa import INSTR_BYTES, BranchTarget, Instruction
from .program import Init, Region, SassKernel, SassParam, SassProgram, SharedArray

ELEM_TYPES = ("i32", "u32", "f32", "bool")
FIELD_TYPES = ("i32", "u32", "f32")     # a record's fields on Fermi: one word each
WORD_BYTES = 4                      # every element of a shared array takes a word (the simulator's layout)
MAX_KERNEL_BYTES = 1 << 20          # /*ADDR*/ gaps stop here: 131072 instructions
INIT_WORDS = {"zeros": Init("zeros"), "range": Init("range")}


def assemble(source: SourceFile) -> SassProgram:
    sink = DiagnosticSink()
    program = SassProgram(source=source.path)
    kernel: _KernelBuilder | None = None
    outside: Span | None = None               # something before the first .kernel
    names: dict[str, Span] = {}
    for record in parse_lines(source, sink):
        if isinstance(record, Directive) and record.kind == "kernel":
            if kernel is not None:
                program.kernels.append(kernel.finish(sink))
            name = record.args[0]
            if name.text in names:
                _twice(sink, f"kernel `{name.text}`", name.span, names[name.text])
            names.setdefault(name.text, name.span)
            kernel = _KernelBuilder(name, record.span)
        elif kernel is not None:
            kernel.add(record, sink)
        elif outside is None and not isinstance(record, Unparsed):
            outside = record.span if isinstance(record, (Directive, InstrLine)) else record.name.span
            sink.error("E1010", "this comes before the first `.kernel`", outside,
                       help="every kernel starts with `.kernel NAME`, then its header directives and instructions")
    if kernel is not None:
        program.kernels.append(kernel.finish(sink))
    elif outside is None and not sink.has_errors:
        sink.error("E1010", "this file has no kernel", source.span(0, 0),
                   help="a .sass file holds kernels, each starting with `.kernel NAME`")
    if sink.has_errors:
        raise DiagnosticsError(sink.sorted())
    return program


def _twice(sink: DiagnosticSink, what: str, span: Span, first: Span) -> None:
    sink.error("E1011", f"{what} is defined twice", span, notes=[Note("first defined here", first)])


@dataclass
class _OpenRegion:
    kind: str
    label: str
    loc: tuple[int, int] | None
    span: Span
    slot: int                       # its place in `regions`: regions are listed in the order they open
    start: int | None = None        # the address of the first instruction written inside


@dataclass
class _KernelBuilder:
    """One kernel while its lines are read."""
    name: Word
    span: Span
    instrs: list[Instruction] = field(default_factory=list)
    loc: tuple[int, int] | None = None
    labels: dict[str, tuple[int, Span]] = field(default_factory=dict)      # name → (address, where)
    label_spans: dict[str, Span] = field(default_factory=dict)               # every label defined so far
    pending_labels: list[Word] = field(default_factory=list)
    label_uses: list[tuple[int, int, Word]] = field(default_factory=list)     # (instr, operand, label)
    hex_targets: list[tuple[int, int, Span]] = field(default_factory=list)   # (instr, operand, where)
    its_uses: list[Span] = field(default_factory=list)
    open_regions: list[_OpenRegion] = field(default_factory=list)
    regions: list[Region | None] = field(default_factory=list)     # None: still open
    header: dict[str, Span] = field(default_factory=dict)     # directives given once: where
    unparsed: set[str] = field(default_factory=set)           # `.launch`, "instruction": lines with syntax errors
    names: dict[str, tuple[Span, bool]] = field(default_factory=dict)   # params, states, shared: (where, array?)
    records: dict[str, tuple[RecordType, Span]] = field(default_factory=dict)   # `.record` types: (type, where)
    grid: tuple[int, int, int] | None = None
    block: tuple[int, int, int] | None = None
    its: bool = False
    source: str | None = None
    params: list[SassParam] = field(default_factory=list)
    shared: list[SharedArray] = field(default_factory=list)
    shared_bytes: tuple[int, Span] | None = None
    local_bytes: int = 0
    prints: list[Word] = field(default_factory=list)

    # ---- lines
    def add(self, record, sink: DiagnosticSink) -> None:
        if isinstance(record, LabelLine):
            self.label(record.name, sink)
        elif isinstance(record, InstrLine):
            self.instruction(record, sink)
        elif isinstance(record, Unparsed):       # reported; only keep it from causing E1010 as well
            self.unparsed.add(record.head if record.head.startswith(".") else "instruction")
        else:
            _DIRECTIVES[record.kind](self, record, sink)

    def label(self, name: Word, sink: DiagnosticSink) -> None:
        if name.text in self.label_spans:
            _twice(sink, f"label `{name.text}`", name.span, self.label_spans[name.text])
            return
        self.label_spans[name.text] = name.span
        self.pending_labels.append(name)

    @property
    def position(self) -> int:
        return INSTR_BYTES * len(self.instrs)

    def instruction(self, line: InstrLine, sink: DiagnosticSink) -> None:
        if line.addr is not None:
            self._move_to(line.addr, line.addr_span, sink)
        addr = self.position
        for name in self.pending_labels:
            self.labels[name.text] = (addr, name.span)
        self.pending_labels.clear()
        for r in self.open_regions:
            if r.start is None:
                r.start = addr
        decoded = decode_instruction(line, sink)
        if decoded is None:
            self.instrs.append(Instruction("NOP", addr=addr))      # keeps the addresses after it right
            return
        ins, labels = decoded
        index = len(self.instrs)
        self.instrs.append(replace(ins, addr=addr, loc=self.loc, at=(line.span.line, line.span.col)))
        self.label_uses.extend((index, i, word) for i, word in labels)
        named = {i for i, _ in labels}
        self.hex_targets.extend((index, i, line.operands[i].span) for i, o in enumerate(ins.operands)
                                if isinstance(o, BranchTarget) and i not in named)
        if ins.spec.its:
            self.its_uses.append(line.opcode.span)

    def _move_to(self, addr: int, span: Span, sink: DiagnosticSink) -> None:
        here = self.position
        if addr % INSTR_BYTES:
            sink.error("E1006", f"address 0x{addr:04x} is not a multiple of {INSTR_BYTES}", span,
                       help=f"every instruction takes {INSTR_BYTES} bytes; this one goes at 0x{here:04x}")
        elif addr < here:
            sink.error("E1006", f"address 0x{addr:04x} is behind the current position 0x{here:04x}", span,
                       help="instructions are written in address order; an address comment may only skip ahead "
                            "(the gap is filled with NOPs)")
        elif addr >= MAX_KERNEL_BYTES:
            sink.error("E1006", f"address 0x{addr:04x} is past the largest kernel (0x{MAX_KERNEL_BYTES:x} bytes)",
                       span)
        else:
            while self.position < addr:
                self.instrs.append(Instruction("NOP", addr=self.position))

    # ---- the end of the kernel
    def finish(self, sink: DiagnosticSink) -> SassKernel:
        end = self.position
        for name in self.pending_labels:
            self.labels[name.text] = (end, name.span)
        for r in self.open_regions:
            sink.error("E1007", f"`.region {r.kind}` is never closed", r.span,
                       help="close it with `.endregion` before the end of the kernel")
        if not self.instrs and "instruction" not in self.unparsed:
            sink.error("E1010", f"kernel `{self.name.text}` has no instructions", self.name.span,
                       help="a kernel needs at least one instruction, usually ending with `EXIT;`")
        if "launch" not in self.header and ".launch" not in self.unparsed:
            sink.error("E1010", f"kernel `{self.name.text}` has no `.launch`", self.name.span,
                       help="give its shape after `.kernel`, e.g. `.launch grid(1) block(32)`")
        if self.its_uses and not self.its:
            more = len(self.its_uses) - 1
            others = f" (the kernel has {more} more ITS instruction{'s' if more > 1 else ''})" if more else ""
            sink.error("E1009", f"this opcode needs independent thread scheduling, and kernel `{self.name.text}` "
                       "has no `.its`", self.its_uses[0],
                       help="add `.its` to the kernel's header to compile it for ITS mode" + others)
        self._resolve_targets(end, sink)
        prints = self._check_prints(sink)
        return SassKernel(self.name.text, tuple(self.instrs), self.grid, self.block, tuple(self.params),
                          tuple(self.shared), self._shared_bytes(sink), self.local_bytes, prints,
                          tuple(r for r in self.regions if r is not None), self.source, self.its)

    def _resolve_targets(self, end: int, sink: DiagnosticSink) -> None:
        for index, i, word in self.label_uses:
            found = self.labels.get(word.text)
            if found is None:
                sink.error("E1005", f"unknown label `{word.text}`", word.span,
                           help=did_you_mean(word.text, self.labels) or "define it with `NAME:` before an instruction")
                continue
            if found[0] >= end:
                sink.error("E1004", f"label `{word.text}` marks no instruction: it comes after the last one",
                           word.span, notes=[Note("the label is here", found[1])])
                continue
            ins = self.instrs[index]
            operands = list(ins.operands)
            operands[i] = BranchTarget(found[0])
            self.instrs[index] = replace(ins, operands=tuple(operands))
        for index, i, span in self.hex_targets:
            t = self.instrs[index].operands[i].addr
            if t < 0 or t >= end or t % INSTR_BYTES:
                last = max(0, end - INSTR_BYTES)
                sink.error("E1004", f"branch target {'-' if t < 0 else ''}0x{abs(t):x} is not the address of an "
                           f"instruction of `{self.name.text}`", span,
                           help=f"targets are multiples of {INSTR_BYTES} from 0x0 to 0x{last:x}, or labels")

    def _check_prints(self, sink: DiagnosticSink) -> tuple[str, ...]:
        arrays = [name for name, (_, array) in self.names.items() if array]
        seen: set[str] = set()
        for w in self.prints:
            if w.text in self.names and w.text not in arrays:
                sink.error("E1007", f"`.print {w.text}`: `{w.text}` is a scalar parameter, not an array", w.span)
            elif w.text not in arrays:
                sink.error("E1007", f"`.print {w.text}`: no array is named `{w.text}`", w.span,
                           help=did_you_mean(w.text, arrays) or "declare it with `.param`, `.state` or `.shared`")
            elif w.text in seen:
                sink.error("E1007", f"`.print` names `{w.text}` twice", w.span)
            seen.add(w.text)
        return tuple(w.text for w in self.prints)

    def _shared_bytes(self, sink: DiagnosticSink) -> int:
        used = max((a.offset + _bytes(a) for a in self.shared), default=0)
        if self.shared_bytes is None:
            return used
        value, span = self.shared_bytes
        if value < used:
            last = max(self.shared, key=lambda a: a.offset + _bytes(a))
            sink.error("E1007", f"`.shared_bytes 0x{value:x}` is less than the end of `{last.name}` (0x{used:x})",
                       span, help="leave `.shared_bytes` out to take the end of the last shared array")
        return value

    # ---- directives (one method per kind; the table _DIRECTIVES dispatches)
    def _once(self, d: Directive, sink: DiagnosticSink) -> bool:
        """False (after E1007) when a header directive is given a second time."""
        name = d.kind
        if name in self.header:
            sink.error("E1007", f"`.{name}` is given twice in kernel `{self.name.text}`", d.head,
                       notes=[Note("first given here", self.header[name])])
            return False
        self.header[name] = d.span
        return True

    def _new_name(self, word: Word, sink: DiagnosticSink, array: bool) -> bool:
        """Declare a parameter, state or shared array; False (after E1011) when the name is taken."""
        if word.text in self.names:
            _twice(sink, f"`{word.text}`", word.span, self.names[word.text][0])
            return False
        self.names[word.text] = (word.span, array)
        return True

    def d_source(self, d: Directive, sink: DiagnosticSink) -> None:
        if self._once(d, sink):
            self.source = d.args[0]

    def d_launch(self, d: Directive, sink: DiagnosticSink) -> None:
        if not self._once(d, sink):
            return
        shapes: dict[str, tuple[int, int, int]] = {}
        for shape in d.args:
            name = shape.name.text
            if name not in ("grid", "block"):
                sink.error("E1007", f"`.launch` takes `grid(...)` and `block(...)`, not `{name}(...)`",
                           shape.name.span, help=did_you_mean(name, ("grid", "block")))
            elif name in shapes:
                sink.error("E1007", f"`{name}` is given twice", shape.span)
            elif len(shape.values) > 3 or min(shape.values) < 1:
                sink.error("E1007", f"`{name}` takes one to three sizes, each at least 1", shape.span)
            else:
                shapes[name] = tuple(shape.values) + (1,) * (3 - len(shape.values))
        self.grid, self.block = shapes.get("grid"), shapes.get("block")

    def d_its(self, d: Directive, sink: DiagnosticSink) -> None:
        if self._once(d, sink):
            self.its = True

    def d_record(self, d: Directive, sink: DiagnosticSink) -> None:
        """`.record Entry key: u32, value: f32, next: i32`: a record type the kernel's arrays may
        hold, laid out as core/records.py lays out every record (each field a word on Fermi)."""
        name, fields = d.args
        if name.text in self.records:
            _twice(sink, f"record `{name.text}`", name.span, self.records[name.text][1])
            return
        if name.text in ELEM_TYPES:
            sink.error("E1007", f"`{name.text}` is a scalar type; a record needs a name of its own", name.span)
            return
        ok, seen = True, set()
        for fname, ftype in fields:
            if fname.text in seen:
                sink.error("E1007", f"record `{name.text}` names field `{fname.text}` twice", fname.span)
                ok = False
            seen.add(fname.text)
            if ftype.text not in FIELD_TYPES:
                sink.error("E1007", f"field `{fname.text}`: a record's field on Fermi is one word, not "
                           f"`{ftype.text}`", ftype.span, help="the field types are " + ", ".join(FIELD_TYPES))
                ok = False
        if ok:
            self.records[name.text] = (layout(name.text, [(f.text, SCALARS[t.text]) for f, t in fields]), name.span)

    def _elem(self, elem: Word):
        """An element type as the emitter gives it: a scalar's name, or a declared record's type."""
        found = self.records.get(elem.text)
        return found[0] if found is not None else elem.text

    def _words(self, elem: Word, dims) -> int:
        """The words an array's INIT gives (a `[v, ...]` list: one value each): an element a word,
        a record a word per field."""
        found = self.records.get(elem.text)
        return _length(dims) * (found[0].size // WORD_BYTES if found is not None else 1)

    def d_param(self, d: Directive, sink: DiagnosticSink) -> None:
        name, is_global, elem, dims, init = d.args
        if not self._new_name(name, sink, array=is_global) or \
                not _valid_type_and_dims(elem, dims, d, sink, self.records if is_global else None):
            return
        if is_global:
            value = self._init(init, self._words(elem, dims), sink, scalar=False)
            if value is not False:
                self.params.append(SassParam(name.text, "array", self._elem(elem), dims, value))
            return
        if dims:
            sink.error("E1007", f"scalar parameter `{name.text}` has dimensions", d.span,
                       help=f"an array parameter is `.param {name.text}: global {elem.text}{_dims(dims)}`")
            return
        value = self._init(init, 1, sink, scalar=True)
        if value is not False:
            self.params.append(SassParam(name.text, "scalar", elem.text, (), value))

    def d_state(self, d: Directive, sink: DiagnosticSink) -> None:
        name, elem, dims, *rest = d.args
        per = next((r for r in rest if isinstance(r, Word)), None)
        init = next((r for r in rest if isinstance(r, InitSpec)), None)
        if not self._new_name(name, sink, array=True) or not _valid_type_and_dims(elem, dims, d, sink, self.records):
            return
        if per is not None and per.text not in ("block", "thread"):
            sink.error("E1007", f"`per {per.text}`: a state array is per block or per thread", per.span,
                       help="leave `per` out for one array for the whole launch")
            return
        value = self._init(init, self._words(elem, dims), sink, scalar=False)
        if value is not False:
            self.params.append(SassParam(name.text, "state", self._elem(elem), dims, value, per.text if per else None))

    def d_shared(self, d: Directive, sink: DiagnosticSink) -> None:
        name, elem, dims, offset, *rest = d.args
        if not self._new_name(name, sink, array=True) or not _valid_type_and_dims(elem, dims, d, sink, self.records):
            return
        if offset % WORD_BYTES:
            sink.error("E1007", f"shared array `{name.text}` at 0x{offset:x} is not word-aligned", d.span,
                       help=f"offsets are multiples of {WORD_BYTES}")
            return
        value = self._init(rest[0] if rest else None, self._words(elem, dims), sink, scalar=False)
        if value is not False:
            self.shared.append(SharedArray(name.text, self._elem(elem), dims, offset, value))

    def d_shared_bytes(self, d: Directive, sink: DiagnosticSink) -> None:
        if self._once(d, sink):
            self.shared_bytes = (d.args[0], d.span)

    def d_local_bytes(self, d: Directive, sink: DiagnosticSink) -> None:
        if self._once(d, sink):
            self.local_bytes = d.args[0]

    def d_print(self, d: Directive, sink: DiagnosticSink) -> None:
        self.prints.extend(d.args)

    def d_loc(self, d: Directive, sink: DiagnosticSink) -> None:
        self.loc = d.args if d.kind == "loc" else None

    def d_region(self, d: Directive, sink: DiagnosticSink) -> None:
        kind, label, *loc = d.args
        self.open_regions.append(_OpenRegion(kind.text, label, tuple(loc) if loc else None, d.span,
                                             len(self.regions)))
        self.regions.append(None)

    def d_endregion(self, d: Directive, sink: DiagnosticSink) -> None:
        if not self.open_regions:
            sink.error("E1007", "`.endregion` without a `.region`", d.span)
            return
        r = self.open_regions.pop()
        end = self.position
        self.regions[r.slot] = Region(end if r.start is None else r.start, end, r.kind, r.label, r.loc)

    # ---- the parts of directives
    @staticmethod
    def _init(spec: InitSpec | None, length: int, sink: DiagnosticSink, scalar: bool):
        """The Init an INIT stands for; None when absent; False after reporting what is wrong."""
        if spec is None:
            return None
        bad = [v for v in spec.values if not IMM_MIN <= v <= IMM_MAX]
        if bad:
            sink.error("E1007", f"{bad[0]} does not fit in 32 bits", spec.span)
            return False
        if scalar:
            if spec.form == "number":
                return Init("fill", spec.values[0])
            sink.error("E1007", "a scalar parameter's value is a number", spec.span, help="write e.g. `= 16`")
            return False
        if spec.form == "word" and spec.name.text in INIT_WORDS:
            return INIT_WORDS[spec.name.text]
        if spec.form == "call" and spec.name.text == "fill":
            return Init("fill", spec.values[0])
        if spec.form == "list":
            if len(spec.values) != length:
                sink.error("E1007", f"{len(spec.values)} initial values for an array of {length}", spec.span)
                return False
            return Init("values", values=spec.values)
        sink.error("E1007", "an array starts as `zeros`, `fill(V)`, `range` or `[v, v, ...]`", spec.span,
                   help=did_you_mean(spec.name.text, ("zeros", "fill", "range")) if spec.name else None)
        return False


_DIRECTIVES = {
    "source": _KernelBuilder.d_source, "launch": _KernelBuilder.d_launch, "its": _KernelBuilder.d_its,
    "record": _KernelBuilder.d_record,
    "param": _KernelBuilder.d_param, "state": _KernelBuilder.d_state, "shared": _KernelBuilder.d_shared,
    "shared_bytes": _KernelBuilder.d_shared_bytes, "local_bytes": _KernelBuilder.d_local_bytes,
    "print": _KernelBuilder.d_print, "loc": _KernelBuilder.d_loc, "loc_none": _KernelBuilder.d_loc,
    "region": _KernelBuilder.d_region, "endregion": _KernelBuilder.d_endregion,
}


def _valid_type_and_dims(elem: Word, dims: tuple[int, ...], d: Directive, sink: DiagnosticSink,
                         records: dict | None = None) -> bool:
    """`records`: the `.record` types an array may hold here (a scalar .param holds none)."""
    ok = True
    if elem.text not in ELEM_TYPES and elem.text not in (records or {}):
        sink.error("E1007", f"unknown type `{elem.text}`", elem.span,
                   help="the element types are " + ", ".join(ELEM_TYPES) +
                        (", or a record declared above it with `.record`" if records is not None else ""))
        ok = False
    sized = [n for n in dims if isinstance(n, str)]
    if sized and d.kind != "param":
        sink.error("E1007", f"only a .param's size may be given at launch (`{sized[0]}`)", d.span)
        ok = False
    if not all(isinstance(n, str) or n >= 1 for n in dims):
        sink.error("E1007", f"the dimensions {_dims(dims)} must each be at least 1", d.span)
        ok = False
    return ok


def _length(dims: tuple[int, ...]) -> int:
    n = 1
    for d in dims:
        n *= d
    return n


def _dims(dims: tuple[int, ...]) -> str:
    return "".join(f"[{d}]" for d in dims)


def _bytes(a: SharedArray) -> int:
    """The bytes a shared array takes: a word an element, a record's size a record."""
    return a.length * (a.elem.size if isinstance(a.elem, RecordType) else WORD_BYTES)
