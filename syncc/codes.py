"""Every diagnostic code syncc can emit, with a one-line title.

docs/diagnostics.md explains each with a wrong and a right example; the test
suite checks that the code, this table and that page agree.
"""

CODES: dict[str, str] = {
    # syntax and files
    "E0001": "unexpected character",
    "E0002": "unexpected token",
    "E0003": "invalid literal",
    "E0004": "file is not valid UTF-8",
    "E0005": "nesting too deep",
    "E0006": "unterminated string or comment",
    "E0007": "cannot read file",
    "E0008": "file too large",
    # names and modules
    "E0101": "unknown name",
    "E0102": "defined twice",
    "E0103": "unknown stdlib module",
    "E0104": "import outside the standard library",
    "E0105": "built-in name redefined",
    "E0106": "not exported by the module",
    "E0107": "import cycle",
    "E0108": "kernel or host block in a stdlib module",
    "E0109": "more than one host block",
    "E0110": "imported module has errors",
    # types
    "E0201": "mismatched types",
    "E0202": "wrong number of subscripts",
    "E0203": "not indexable",
    "E0204": "cannot assign",
    "E0205": "wrong arguments",
    "E0206": "not callable",
    "E0207": "condition is not bool",
    "E0208": "no such field",
    "E0209": "expression does nothing",
    "E0210": "not a value here",
    "E0211": "`get` in the wrong place",
    # constants
    "E0301": "not a constant",
    "E0302": "division by zero in a constant",
    "E0303": "constant depends on itself",
    "E0304": "constant index out of bounds",
    "E0305": "value out of range for its type",
    "E0306": "invalid size",
    "E0307": "shift amount out of range",
    # primitives
    "E0401": "granularity not allowed for this primitive",
    "E0402": "shared-memory primitive contended across blocks",
    "E0403": "unknown granularity",
    "E0404": "wrong kind of primitive for this statement",
    "E0405": "invalid named-barrier count",
    "E0406": "wrong arguments for this primitive",
    "E0407": "too many named barriers",
    "E0408": "unknown implementation",
    "E0409": "implementation does not support this placement or granularity",
    "E0410": "wrong implementation parameters",
    "E0411": "primitive assigned with `=`",
    "E0412": "declaration not at the top level of the kernel",
    "E0413": "`arrive` on a barrier that is not named",
    "E0414": "warp or block barrier in global memory",
    "E0415": "unknown fence scope",
    # where constructs may appear
    "E0501": "`break` or `continue` outside a loop",
    "E0502": "wrong `return`",
    "E0503": "function can end without returning a value",
    "E0504": "kernel-only construct outside a kernel",
    "E0505": "host-only construct outside the host block",
    "E0506": "GPU-only construct in the host block",
    "E0507": "recursive function",
    "E0508": "leaving a synchronization block early",
    "E0509": "array parameter of a function",
    # kernels and launches
    "E0601": "`launch` of something that is not a kernel",
    "E0602": "launch arguments do not match the kernel",
    "E0603": "invalid launch shape",
    "E0604": "launch shape out of range",
    "E0605": "kernel array parameter not in global memory",
    # warnings
    "W0101": "`-D` matches no constant",
    "W0601": "`save` path does not end in .npy",
}
