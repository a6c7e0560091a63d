"""The Fermi SASS target: the instruction table (isa.py), a kernel and its header
(program.py), the emitter (emit/: safe IR → SASS), the assembler (asm*.py,
sass.lark) and the printer. It runs on the simulator, backends/sim/, which
imports it; nothing here imports the simulator."""
