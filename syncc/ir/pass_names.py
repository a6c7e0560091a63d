"""The names of the compiler's passes, in the order they run (pipeline.py's PASSES, after `lower`).

A module of its own so that the command line can offer them (`--dump-after`, `syncc opt -p`)
without importing the passes; pipeline.py checks that its table follows this list.
"""

PASS_NAMES = ["lower", "unroll_lock_loops", "check_hazards", "insert_bounds_checks", "elide_locks", "combine_warps",
              "structure", "insert_fences",
              "prevent_livelock", "expand_primitives", "initialize_shared_state", "allocate_lock_bits",
              "simplify_cfg"]
