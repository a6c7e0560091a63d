"""Small valid programs covering every implementation of every primitive kind,
at every placement and granularity it supports, in every statement form.

Used by test_pipeline_matrix.py: each program must compile through every pass,
on every target, at -O0 and -O2, with the verifier content after each pass.
"""
from __future__ import annotations

from syncc.ir.impls.registry import IMPLEMENTATIONS

# What a party does with each kind: statement bodies, by form. `{p}` is the primitive.
_BODIES = {
    "mutex": {
        "critical": "critical {p}[0] {{ out[0] += 1 }}",
        "critical-rmw": "critical {p}[1] {{ out[1] = out[1] + tid }}",
        "critical-two": "critical {p}[warp] {{\n        out[0] += 1\n        out[1] += tid\n    }}",
        "lock": "lock {p}[0]\n    out[2] += 1\n    unlock {p}[0]",
        "trylock": "if trylock {p}[1] {{\n        out[3] += 1\n        unlock {p}[1]\n    }}",
    },
    # (a semaphore of 2 lets two holders in at once: they count with atomics, E0730)
    "semaphore": {
        "acquire": "acquire {p}[0] {{ atomic_add(out[0], 1) }}",
        "wait": "wait {p}[1]\n    atomic_add(out[1], 1)\n    post {p}[1]",
        "trywait": "if trywait {p}[2] {{\n        atomic_add(out[2], 1)\n        post {p}[2]\n    }}\n"
                   "    if trywait {p}[3] for (out[4] + 3) {{\n        atomic_add(out[3], 1)\n        post {p}[3]\n    }}",
    },
    "rwlock": {
        "read": "read {p}[0] {{ atomic_add(out[2], 1) }}",
        "write": "write {p}[1] {{ out[1] = out[1] + 1 }}\n    if {sel} {{\n        write {p}[warp] {{ out[0] += 1 }}\n    }} else {{\n"
                "        read {p}[warp] {{ out[tid] = out[0] }}\n    }}",
    },
    "latch": {
        "sync": "out[tid] = tid\n    sync {p}[0]\n    out[64 + tid] = out[(tid + 1) % 64]",
        "count-down-wait": "count_down {p}[1]\n    wait {p}[1]",
    },
    "channel": {
        "when": "if tid == 0 {{ put {p}[0] = 7 }}\n    when x = {p}[0] {{ out[tid] = x }}",
        "get": "if tid == 0 {{ put {p}[1] = 5 }}\n    let y = get {p}[1]\n    out[tid] = y",
        "await": "if tid == 0 {{ signal {p}[2] }}\n    await {p}[2]",
        "read": "put {p}[64 + tid] = tid\n    out[tid] = {p}[64 + tid]",
    },
    "queue": {
        "put-get": "if tid < 32 {{ put {p}[bid] = tid }} else {{\n        let v = get {p}[bid]\n"
                   "        out[tid] = v\n    }}",
        "try": "if tryput {p}[bid] = tid {{ out[tid] = 1 }}\n    tryget v = {p}[bid] {{ out[64 + tid] = v }}",
    },
}

# Channel slots at @warp/@block are filled by the whole party: keep every form per party.
_PARTY_CHANNEL = {
    "get": "if {lead} {{ put {p}[tid] = 5 }}\n    let y = get {p}[tid % 32]\n    out[tid] = y",
    "when": "if {lead} {{ put {p}[tid] = tid }}\n    when x = {p}[tid % 32] {{ out[tid] = x }}",
}
_LEAD = {"warp": "warp == 0", "block": "bid == 0"}
# A @warp or @block queue is put into and taken from by whole parties: warp 0 or block 0 puts
_PARTY_QUEUE = {
    "put-get": "if {lead} {{ put {p}[0] = tid }} else {{\n        let v = get {p}[0]\n        out[tid] = v\n    }}",
    "try": "if tryput {p}[0] = tid {{ out[tid] = 1 }}\n    tryget v = {p}[0] {{ out[64 + tid] = v }}",
}
# An `spsc` or `tinylock` queue has one producer and one consumer thread: lane l of one warp (or
# block) puts into p[l], and lane l of the other takes from it
_PAIR_QUEUE = {
    "shared": "if warp == 0 && lane < 8 {{ put {p}[lane] = tid }} else if warp == 1 && lane < 8 {{\n"
              "        let v = get {p}[lane]\n        out[tid] = v\n    }}",
    "global": "if bid == 0 && tid < 8 {{ put {p}[tid] = tid }} else if bid == 1 && tid < 8 {{\n"
              "        let v = get {p}[tid]\n        out[32 + tid] = v\n    }}",
}
# A named-barrier group has one producer warp and one other consumer warp (E0718)
_NAMEDBAR_CHANNEL = {
    "get": "if warp == 0 {{ put {p}[tid] = 5 }}\n    if warp == 1 {{\n        let y = get {p}[lane]\n"
           "        out[tid] = y\n    }}",
    "when": "if warp == 0 {{ put {p}[tid] = tid }}\n    if warp == 1 {{\n        when x = {p}[lane] {{ out[tid] = x }}\n"
            "    }}",
}
# a latch counted down by every party: of the one 64-thread block (shared), or of both blocks (global)
_LATCH_COUNT = {("shared", "thread"): 64, ("shared", "warp"): 2,
                ("global", "thread"): 128, ("global", "warp"): 4, ("global", "block"): 2}


def programs():
    """(name, source) for every implementation × placement × granularity × form."""
    for impl in IMPLEMENTATIONS:
        for placement in impl.placements:
            for gran in impl.granularities:
                if placement == "shared" and gran == "block" and impl.kind != "barrier":
                    continue          # E0402: a shared primitive is not contended across blocks
                if impl.kind == "barrier":
                    yield from _barriers(impl, placement, gran)
                    continue
                if impl.kind == "scan":
                    yield from _scans(impl)
                    continue
                bodies = _BODIES[impl.kind]
                if impl.kind == "rwlock":      # (a warp or block reads or writes as one party)
                    sel = {"thread": "tid % 3 == 0", "warp": "warp == 0", "block": "bid == 0"}[gran]
                    bodies = {k: v.replace("{sel}", sel) for k, v in bodies.items()}
                if impl.kind == "channel" and gran != "thread":
                    bodies = {k: v.replace("{lead}", _LEAD[gran]) for k, v in _PARTY_CHANNEL.items()}
                if impl.kind == "queue" and gran != "thread":
                    bodies = {k: v.replace("{lead}", _LEAD[gran]) for k, v in _PARTY_QUEUE.items()}
                elif impl.kind == "queue" and impl.counted:     # one thread each side of each queue
                    bodies = {"put-get": _PAIR_QUEUE[placement]}
                if impl.name == "namedbar":
                    bodies = _NAMEDBAR_CHANNEL
                if impl.kind == "rwlock":       # readers store each to its own element, past the writers'
                    bodies = {k: v.replace("out[tid] = out[0]", "out[128 + gtid] = out[0]") for k, v in bodies.items()}
                if impl.kind in ("mutex", "rwlock") and gran != "thread":
                    bodies = {k: _own_elements(v) for k, v in bodies.items()}
                if gran == "block":            # a @block party takes one element: index it by block (E0719)
                    bodies = {k: v.replace("[warp]", "[bid]") for k, v in bodies.items()}
                for form, body in bodies.items():
                    if form == "trylock" and not impl.abandonable or form == "try" and impl.name == "mbarrier":
                        continue          # (an mbarrier queue has no single attempts: E0418)
                    yield _program(impl, placement, gran, form, body)


def _own_elements(body: str) -> str:
    """A @warp or @block party runs its section on every thread, which hold the lock together: an
    update of one word by all of them would lose all but one (E0731), so each updates its own."""
    for n in range(4):
        body = body.replace(f"out[{n}] = out[{n}] +", "out[gtid] = out[gtid] +").replace(f"out[{n}] +=", "out[gtid] +=")
    return body


def _decl(impl, placement, gran) -> str:
    arg = "(2)" if impl.kind in ("semaphore", "queue") else \
        f"({_LATCH_COUNT[placement, gran]})" if impl.kind == "latch" else ""
    slot = ": i32" if impl.kind in ("channel", "queue") else ""
    size = 128 if impl.kind == "channel" else 8
    return f"{impl.kind} p[{size}]{arg}{slot} in {placement} @{gran} using {impl.name}"


def _program(impl, placement, gran, form, body) -> tuple[str, str]:
    grid = 1 if placement == "shared" or impl.kind == "channel" else 2
    name = f"{impl.kind}-{impl.name}-{placement}-{gran}-{form}"
    src = (f"kernel k(out: global i32[256]) launch grid({grid}) block(64) {{\n"
           f"    {_decl(impl, placement, gran)}\n"
           f"    {body.format(p='p')}\n}}\n")
    return name, src


def _barriers(impl, placement, gran):
    name = f"barrier-{impl.name}-{placement}-{gran}"
    if gran == "warp" and impl.name == "bar":
        yield name + "-named", ("kernel k(out: global i32[256]) launch grid(1) block(128) {\n"
                                "    barrier b[2](128) in shared @warp using bar\n"
                                "    if warp < 2 { out[tid] = tid\n        arrive b[0] }"
                                " else { sync b[0]\n        out[tid] = out[tid - 64] }\n"
                                "    sync b[1]\n}\n")
        return
    grid = 4 if gran == "grid" else 1
    yield name, (f"kernel k(out: global i32[256]) launch grid({grid}) block(64) {{\n"
                 f"    barrier b in {placement} @{gran} using {impl.name}\n"
                 f"    out[gtid] = 1\n    sync b\n    let v = out[(gtid + 1) % {grid * 64}]\n    sync b\n"
                 f"    out[gtid] += v\n}}\n")     # (the second meeting orders the reads before the stores)


def _scans(impl):
    """A scan in its one shape (E0419), exclusive and inclusive, i32 and f32."""
    for side, slot, value in (("exclusive", "i32", "tid % 5"), ("inclusive", "f32", "0.5")):
        yield f"scan-{impl.name}-global-block-{side}", (
            f"kernel k(out: global i32[256]) launch grid(3) block(64) {{\n"
            f"    scan p: {slot} in global @block using {impl.name}\n"
            f"    let t = tile p\n    barrier\n"
            f"    let before = {side} p({value})\n"
            f"    out[t * 64 + tid] = i32(before)\n}}\n")
