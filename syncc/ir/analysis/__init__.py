"""What the IR is known to do, shared by lowering, the passes and the hazard checks, which import
these modules and never one another: the control-flow graph and dominators (cfg.py), single-entry
regions (regions.py) and the regions a wait's polling loop must enclose (wait_regions.py), which
values are the same across a warp, block or grid (uniformity.py), definitions and constants
(values.py), value ranges for every launch (ranges.py), the launch's shape and its threads, loops
and instances (space.py), the facts the checks read (facts.py) and the parties of a queue's sides
(parties.py). A module here imports the IR core (nodes, ops, builder) and nothing of lowering,
the passes or the checks."""
