"""Methods of syncc's dataclasses, written by `python -m syncc.core.prebuilt_gen` from their
definitions (syncc/core/prebuilt.py says why). Do not edit.

METHODS: "module.qualname" → (the definition's shape, the docstring dataclass would give a class
without one, a function of the defaults and default factories that makes the methods).
"""
_set = object.__setattr__


class _Factory:
    """The default of a field that has a default factory: the factory is called instead."""

    def __repr__(self):
        return "<factory>"


_FACTORY = _Factory()
METHODS = {}


# syncc.backend_table.BuildOptions
def syncc_backend_table_BuildOptions(dflt, fact):
    d_arch = dflt['arch']
    d_its = dflt['its']
    d_command = dflt['command']
    d_dump_after = dflt['dump_after']
    d_output = dflt['output']
    d_verify_each = dflt['verify_each']

    def __init__(self, arch=d_arch, its=d_its, command=d_command, dump_after=d_dump_after, output=d_output, verify_each=d_verify_each):
        _set(self, 'arch', arch)
        _set(self, 'its', its)
        _set(self, 'command', command)
        _set(self, 'dump_after', dump_after)
        _set(self, 'output', output)
        _set(self, 'verify_each', verify_each)

    def __repr__(self):
        return f"{self.__class__.__qualname__}(arch={self.arch!r}, its={self.its!r}, command={self.command!r}, dump_after={self.dump_after!r}, output={self.output!r}, verify_each={self.verify_each!r})"

    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.arch, self.its, self.command, self.dump_after, self.output, self.verify_each) == (other.arch, other.its, other.command, other.dump_after, other.output, other.verify_each)
        return NotImplemented

    def __hash__(self):
        return hash((self.arch, self.its, self.command, self.dump_after, self.output, self.verify_each))

    return {'__init__': __init__, '__repr__': __repr__, '__eq__': __eq__, '__hash__': __hash__}


METHODS['syncc.backend_table.BuildOptions'] = (
    ((('eq', True), ('frozen', True), ('init', True), ('repr', True), ('slots', False)),
     (('arch', 'str', True), ('its', 'bool', True), ('command', 'str', True),
      ('dump_after', 'str | None', True), ('output', 'str | None', True),
      ('verify_each', 'bool', True)),
     (), (), False),
    "BuildOptions(arch: str = 'sm_90', its: bool = False, command: str = '', dump_after: str | None = None, output: str | None = None, verify_each: bool = False)",
    syncc_backend_table_BuildOptions)


# syncc.backend_table.Backend
def syncc_backend_table_Backend(dflt, fact):
    d_build = dflt['build']
    d_launch = dflt['launch']
    d_cannot_run = dflt['cannot_run']
    d_simulator = dflt['simulator']
    d_its_model = dflt['its_model']

    def __init__(self, name, model, summary, build=d_build, launch=d_launch, cannot_run=d_cannot_run, simulator=d_simulator, its_model=d_its_model):
        _set(self, 'name', name)
        _set(self, 'model', model)
        _set(self, 'summary', summary)
        _set(self, 'build', build)
        _set(self, 'launch', launch)
        _set(self, 'cannot_run', cannot_run)
        _set(self, 'simulator', simulator)
        _set(self, 'its_model', its_model)

    def __repr__(self):
        return f"{self.__class__.__qualname__}(name={self.name!r}, model={self.model!r}, summary={self.summary!r}, build={self.build!r}, launch={self.launch!r}, cannot_run={self.cannot_run!r}, simulator={self.simulator!r}, its_model={self.its_model!r})"

    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.name, self.model, self.summary, self.build, self.launch, self.cannot_run, self.simulator, self.its_model) == (other.name, other.model, other.summary, other.build, other.launch, other.cannot_run, other.simulator, other.its_model)
        return NotImplemented

    def __hash__(self):
        return hash((self.name, self.model, self.summary, self.build, self.launch, self.cannot_run, self.simulator, self.its_model))

    return {'__init__': __init__, '__repr__': __repr__, '__eq__': __eq__, '__hash__': __hash__}


METHODS['syncc.backend_table.Backend'] = (
    ((('eq', True), ('frozen', True), ('init', True), ('repr', True), ('slots', False)),
     (('name', 'str', False), ('model', 'MachineModel', False), ('summary', 'str', False),
      ('build', 'Callable[..., str] | None', True), ('launch', 'Callable[..., Launcher] | None', True),
      ('cannot_run', 'Callable[..., list[Diagnostic]] | None', True), ('simulator', 'bool', True),
      ('its_model', 'MachineModel | None', True)),
     (), (), False),
    'Backend(name: str, model: MachineModel, summary: str, build: Callable[..., str] | None = None, launch: Callable[..., Launcher] | None = None, cannot_run: Callable[..., list[Diagnostic]] | None = None, simulator: bool = False, its_model: MachineModel | None = None)',
    syncc_backend_table_Backend)


# syncc.backends.sim.machine.FermiConfig
def syncc_backends_sim_machine_FermiConfig(dflt, fact):
    d_sms = dflt['sms']
    d_schedulers = dflt['schedulers']
    d_max_blocks_per_sm = dflt['max_blocks_per_sm']
    d_max_warps_per_sm = dflt['max_warps_per_sm']
    d_max_threads_per_sm = dflt['max_threads_per_sm']
    d_registers_per_sm = dflt['registers_per_sm']
    d_shared_bytes_per_sm = dflt['shared_bytes_per_sm']
    d_shared_banks = dflt['shared_banks']
    d_named_barriers = dflt['named_barriers']
    d_lock_bits = dflt['lock_bits']
    d_clock_mhz = dflt['clock_mhz']
    d_policy = dflt['policy']
    d_its = dflt['its']
    d_memory = dflt['memory']
    d_l1_lines = dflt['l1_lines']
    d_l1_latency = dflt['l1_latency']
    d_sm_store_jitter = dflt['sm_store_jitter']
    d_store_jitter = dflt['store_jitter']
    d_straggler_every = dflt['straggler_every']
    d_straggler_delay = dflt['straggler_delay']
    d_alu_latency = dflt['alu_latency']
    d_mul_latency = dflt['mul_latency']
    d_s2r_latency = dflt['s2r_latency']
    d_vote_latency = dflt['vote_latency']
    d_shared_latency = dflt['shared_latency']
    d_shared_replay = dflt['shared_replay']
    d_lock_replay = dflt['lock_replay']
    d_lsu_occupancy = dflt['lsu_occupancy']
    d_global_latency = dflt['global_latency']
    d_global_store_latency = dflt['global_store_latency']
    d_local_latency = dflt['local_latency']
    d_atomic_latency = dflt['atomic_latency']
    d_atomic_occupancy = dflt['atomic_occupancy']
    d_membar_cta_latency = dflt['membar_cta_latency']
    d_membar_gl_latency = dflt['membar_gl_latency']
    d_branch_latency = dflt['branch_latency']
    d_stack_latency = dflt['stack_latency']
    d_barrier_latency = dflt['barrier_latency']
    d_engine = dflt['engine']
    d_max_cycles = dflt['max_cycles']
    d_check_every = dflt['check_every']
    d_quiet_cycles = dflt['quiet_cycles']

    def __init__(self, sms=d_sms, schedulers=d_schedulers, max_blocks_per_sm=d_max_blocks_per_sm, max_warps_per_sm=d_max_warps_per_sm, max_threads_per_sm=d_max_threads_per_sm, registers_per_sm=d_registers_per_sm, shared_bytes_per_sm=d_shared_bytes_per_sm, shared_banks=d_shared_banks, named_barriers=d_named_barriers, lock_bits=d_lock_bits, clock_mhz=d_clock_mhz, policy=d_policy, its=d_its, memory=d_memory, l1_lines=d_l1_lines, l1_latency=d_l1_latency, sm_store_jitter=d_sm_store_jitter, store_jitter=d_store_jitter, straggler_every=d_straggler_every, straggler_delay=d_straggler_delay, alu_latency=d_alu_latency, mul_latency=d_mul_latency, s2r_latency=d_s2r_latency, vote_latency=d_vote_latency, shared_latency=d_shared_latency, shared_replay=d_shared_replay, lock_replay=d_lock_replay, lsu_occupancy=d_lsu_occupancy, global_latency=d_global_latency, global_store_latency=d_global_store_latency, local_latency=d_local_latency, atomic_latency=d_atomic_latency, atomic_occupancy=d_atomic_occupancy, membar_cta_latency=d_membar_cta_latency, membar_gl_latency=d_membar_gl_latency, branch_latency=d_branch_latency, stack_latency=d_stack_latency, barrier_latency=d_barrier_latency, engine=d_engine, max_cycles=d_max_cycles, check_every=d_check_every, quiet_cycles=d_quiet_cycles):
        _set(self, 'sms', sms)
        _set(self, 'schedulers', schedulers)
        _set(self, 'max_blocks_per_sm', max_blocks_per_sm)
        _set(self, 'max_warps_per_sm', max_warps_per_sm)
        _set(self, 'max_threads_per_sm', max_threads_per_sm)
        _set(self, 'registers_per_sm', registers_per_sm)
        _set(self, 'shared_bytes_per_sm', shared_bytes_per_sm)
        _set(self, 'shared_banks', shared_banks)
        _set(self, 'named_barriers', named_barriers)
        _set(self, 'lock_bits', lock_bits)
        _set(self, 'clock_mhz', clock_mhz)
        _set(self, 'policy', policy)
        _set(self, 'its', its)
        _set(self, 'memory', memory)
        _set(self, 'l1_lines', l1_lines)
        _set(self, 'l1_latency', l1_latency)
        _set(self, 'sm_store_jitter', sm_store_jitter)
        _set(self, 'store_jitter', store_jitter)
        _set(self, 'straggler_every', straggler_every)
        _set(self, 'straggler_delay', straggler_delay)
        _set(self, 'alu_latency', alu_latency)
        _set(self, 'mul_latency', mul_latency)
        _set(self, 's2r_latency', s2r_latency)
        _set(self, 'vote_latency', vote_latency)
        _set(self, 'shared_latency', shared_latency)
        _set(self, 'shared_replay', shared_replay)
        _set(self, 'lock_replay', lock_replay)
        _set(self, 'lsu_occupancy', lsu_occupancy)
        _set(self, 'global_latency', global_latency)
        _set(self, 'global_store_latency', global_store_latency)
        _set(self, 'local_latency', local_latency)
        _set(self, 'atomic_latency', atomic_latency)
        _set(self, 'atomic_occupancy', atomic_occupancy)
        _set(self, 'membar_cta_latency', membar_cta_latency)
        _set(self, 'membar_gl_latency', membar_gl_latency)
        _set(self, 'branch_latency', branch_latency)
        _set(self, 'stack_latency', stack_latency)
        _set(self, 'barrier_latency', barrier_latency)
        _set(self, 'engine', engine)
        _set(self, 'max_cycles', max_cycles)
        _set(self, 'check_every', check_every)
        _set(self, 'quiet_cycles', quiet_cycles)

    def __repr__(self):
        return f"{self.__class__.__qualname__}(sms={self.sms!r}, schedulers={self.schedulers!r}, max_blocks_per_sm={self.max_blocks_per_sm!r}, max_warps_per_sm={self.max_warps_per_sm!r}, max_threads_per_sm={self.max_threads_per_sm!r}, registers_per_sm={self.registers_per_sm!r}, shared_bytes_per_sm={self.shared_bytes_per_sm!r}, shared_banks={self.shared_banks!r}, named_barriers={self.named_barriers!r}, lock_bits={self.lock_bits!r}, clock_mhz={self.clock_mhz!r}, policy={self.policy!r}, its={self.its!r}, memory={self.memory!r}, l1_lines={self.l1_lines!r}, l1_latency={self.l1_latency!r}, sm_store_jitter={self.sm_store_jitter!r}, store_jitter={self.store_jitter!r}, straggler_every={self.straggler_every!r}, straggler_delay={self.straggler_delay!r}, alu_latency={self.alu_latency!r}, mul_latency={self.mul_latency!r}, s2r_latency={self.s2r_latency!r}, vote_latency={self.vote_latency!r}, shared_latency={self.shared_latency!r}, shared_replay={self.shared_replay!r}, lock_replay={self.lock_replay!r}, lsu_occupancy={self.lsu_occupancy!r}, global_latency={self.global_latency!r}, global_store_latency={self.global_store_latency!r}, local_latency={self.local_latency!r}, atomic_latency={self.atomic_latency!r}, atomic_occupancy={self.atomic_occupancy!r}, membar_cta_latency={self.membar_cta_latency!r}, membar_gl_latency={self.membar_gl_latency!r}, branch_latency={self.branch_latency!r}, stack_latency={self.stack_latency!r}, barrier_latency={self.barrier_latency!r}, engine={self.engine!r}, max_cycles={self.max_cycles!r}, check_every={self.check_every!r}, quiet_cycles={self.quiet_cycles!r})"

    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.sms, self.schedulers, self.max_blocks_per_sm, self.max_warps_per_sm, self.max_threads_per_sm, self.registers_per_sm, self.shared_bytes_per_sm, self.shared_banks, self.named_barriers, self.lock_bits, self.clock_mhz, self.policy, self.its, self.memory, self.l1_lines, self.l1_latency, self.sm_store_jitter, self.store_jitter, self.straggler_every, self.straggler_delay, self.alu_latency, self.mul_latency, self.s2r_latency, self.vote_latency, self.shared_latency, self.shared_replay, self.lock_replay, self.lsu_occupancy, self.global_latency, self.global_store_latency, self.local_latency, self.atomic_latency, self.atomic_occupancy, self.membar_cta_latency, self.membar_gl_latency, self.branch_latency, self.stack_latency, self.barrier_latency, self.engine, self.max_cycles, self.check_every, self.quiet_cycles) == (other.sms, other.schedulers, other.max_blocks_per_sm, other.max_warps_per_sm, other.max_threads_per_sm, other.registers_per_sm, other.shared_bytes_per_sm, other.shared_banks, other.named_barriers, other.lock_bits, other.clock_mhz, other.policy, other.its, other.memory, other.l1_lines, other.l1_latency, other.sm_store_jitter, other.store_jitter, other.straggler_every, other.straggler_delay, other.alu_latency, other.mul_latency, other.s2r_latency, other.vote_latency, other.shared_latency, other.shared_replay, other.lock_replay, other.lsu_occupancy, other.global_latency, other.global_store_latency, other.local_latency, other.atomic_latency, other.atomic_occupancy, other.membar_cta_latency, other.membar_gl_latency, other.branch_latency, other.stack_latency, other.barrier_latency, other.engine, other.max_cycles, other.check_every, other.quiet_cycles)
        return NotImplemented

    def __hash__(self):
        return hash((self.sms, self.schedulers, self.max_blocks_per_sm, self.max_warps_per_sm, self.max_threads_per_sm, self.registers_per_sm, self.shared_bytes_per_sm, self.shared_banks, self.named_barriers, self.lock_bits, self.clock_mhz, self.policy, self.its, self.memory, self.l1_lines, self.l1_latency, self.sm_store_jitter, self.store_jitter, self.straggler_every, self.straggler_delay, self.alu_latency, self.mul_latency, self.s2r_latency, self.vote_latency, self.shared_latency, self.shared_replay, self.lock_replay, self.lsu_occupancy, self.global_latency, self.global_store_latency, self.local_latency, self.atomic_latency, self.atomic_occupancy, self.membar_cta_latency, self.membar_gl_latency, self.branch_latency, self.stack_latency, self.barrier_latency, self.engine, self.max_cycles, self.check_every, self.quiet_cycles))

    return {'__init__': __init__, '__repr__': __repr__, '__eq__': __eq__, '__hash__': __hash__}


METHODS['syncc.backends.sim.machine.FermiConfig'] = (
    ((('eq', True), ('frozen', True), ('init', True), ('repr', True), ('slots', False)),
     (('sms', 'int', True), ('schedulers', 'int', True), ('max_blocks_per_sm', 'int', True),
      ('max_warps_per_sm', 'int', True), ('max_threads_per_sm', 'int', True),
      ('registers_per_sm', 'int', True), ('shared_bytes_per_sm', 'int', True),
      ('shared_banks', 'int', True), ('named_barriers', 'int', True), ('lock_bits', 'int', True),
      ('clock_mhz', 'int', True), ('policy', 'str', True), ('its', 'bool', True),
      ('memory', 'str', True), ('l1_lines', 'int', True), ('l1_latency', 'int', True),
      ('sm_store_jitter', 'int', True), ('store_jitter', 'int', True), ('straggler_every', 'int', True),
      ('straggler_delay', 'int', True), ('alu_latency', 'int', True), ('mul_latency', 'int', True),
      ('s2r_latency', 'int', True), ('vote_latency', 'int', True), ('shared_latency', 'int', True),
      ('shared_replay', 'int', True), ('lock_replay', 'int', True), ('lsu_occupancy', 'int', True),
      ('global_latency', 'int', True), ('global_store_latency', 'int', True),
      ('local_latency', 'int', True), ('atomic_latency', 'int', True),
      ('atomic_occupancy', 'int', True), ('membar_cta_latency', 'int', True),
      ('membar_gl_latency', 'int', True), ('branch_latency', 'int', True),
      ('stack_latency', 'int', True), ('barrier_latency', 'int', True), ('engine', 'str', True),
      ('max_cycles', 'int', True), ('check_every', 'int', True), ('quiet_cycles', 'int', True)),
     (), (), False),
    "FermiConfig(sms: int = 15, schedulers: int = 2, max_blocks_per_sm: int = 8, max_warps_per_sm: int = 48, max_threads_per_sm: int = 1536, registers_per_sm: int = 32768, shared_bytes_per_sm: int = 49152, shared_banks: int = 32, named_barriers: int = 16, lock_bits: int = 1024, clock_mhz: int = 1401, policy: str = 'lrr', its: bool = False, memory: str = 'weak', l1_lines: int = 128, l1_latency: int = 35, sm_store_jitter: int = 16, store_jitter: int = 300, straggler_every: int = 8, straggler_delay: int = 4000, alu_latency: int = 11, mul_latency: int = 11, s2r_latency: int = 20, vote_latency: int = 11, shared_latency: int = 26, shared_replay: int = 2, lock_replay: int = 0, lsu_occupancy: int = 1, global_latency: int = 300, global_store_latency: int = 300, local_latency: int = 35, atomic_latency: int = 300, atomic_occupancy: int = 8, membar_cta_latency: int = 24, membar_gl_latency: int = 40, branch_latency: int = 8, stack_latency: int = 2, barrier_latency: int = 70, engine: str = 'compiled', max_cycles: int = 50000000, check_every: int = 4096, quiet_cycles: int = 20000)",
    syncc_backends_sim_machine_FermiConfig)


# syncc.core.configs.ValueSet
def syncc_core_configs_ValueSet(dflt, fact):
    d_listed = dflt['listed']

    def __init__(self, lo, hi, listed=d_listed):
        _set(self, 'lo', lo)
        _set(self, 'hi', hi)
        _set(self, 'listed', listed)

    def __repr__(self):
        return f"{self.__class__.__qualname__}(lo={self.lo!r}, hi={self.hi!r}, listed={self.listed!r})"

    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.lo, self.hi, self.listed) == (other.lo, other.hi, other.listed)
        return NotImplemented

    def __hash__(self):
        return hash((self.lo, self.hi, self.listed))

    return {'__init__': __init__, '__repr__': __repr__, '__eq__': __eq__, '__hash__': __hash__}


METHODS['syncc.core.configs.ValueSet'] = (
    ((('eq', True), ('frozen', True), ('init', True), ('repr', True), ('slots', False)),
     (('lo', 'int', False), ('hi', 'int', False), ('listed', 'tuple[int, ...] | None', True)), (), (),
     False),
    'ValueSet(lo: int, hi: int, listed: tuple[int, ...] | None = None)',
    syncc_core_configs_ValueSet)


# syncc.core.configs.Supported
def syncc_core_configs_Supported(dflt, fact):
    d_params = dflt['params']

    def __init__(self, grid, params=d_params):
        _set(self, 'grid', grid)
        _set(self, 'params', params)

    def __repr__(self):
        return f"{self.__class__.__qualname__}(grid={self.grid!r}, params={self.params!r})"

    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.grid, self.params) == (other.grid, other.params)
        return NotImplemented

    def __hash__(self):
        return hash((self.grid, self.params))

    return {'__init__': __init__, '__repr__': __repr__, '__eq__': __eq__, '__hash__': __hash__}


METHODS['syncc.core.configs.Supported'] = (
    ((('eq', True), ('frozen', True), ('init', True), ('repr', True), ('slots', False)),
     (('grid', 'tuple[ValueSet, ValueSet, ValueSet] | None', False),
      ('params', 'tuple[tuple[int, ValueSet], ...]', True)),
     (), (), False),
    'Supported(grid: tuple[ValueSet, ValueSet, ValueSet] | None, params: tuple[tuple[int, ValueSet], ...] = ())',
    syncc_core_configs_Supported)


# syncc.core.diagnostics.Note
def syncc_core_diagnostics_Note(dflt, fact):
    d_span = dflt['span']

    def __init__(self, message, span=d_span):
        _set(self, 'message', message)
        _set(self, 'span', span)

    def __repr__(self):
        return f"{self.__class__.__qualname__}(message={self.message!r}, span={self.span!r})"

    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.message, self.span) == (other.message, other.span)
        return NotImplemented

    def __hash__(self):
        return hash((self.message, self.span))

    return {'__init__': __init__, '__repr__': __repr__, '__eq__': __eq__, '__hash__': __hash__}


METHODS['syncc.core.diagnostics.Note'] = (
    ((('eq', True), ('frozen', True), ('init', True), ('repr', True), ('slots', True)),
     (('message', 'str', False), ('span', 'Span | None', True)), (), (), False),
    'Note(message: str, span: Span | None = None)',
    syncc_core_diagnostics_Note)


# syncc.core.diagnostics.Diagnostic
def syncc_core_diagnostics_Diagnostic(dflt, fact):
    d_notes = dflt['notes']
    d_help = dflt['help']
    d_file = dflt['file']
    d_targets = dflt['targets']

    def __init__(self, severity, code, message, span, notes=d_notes, help=d_help, file=d_file, targets=d_targets):
        _set(self, 'severity', severity)
        _set(self, 'code', code)
        _set(self, 'message', message)
        _set(self, 'span', span)
        _set(self, 'notes', notes)
        _set(self, 'help', help)
        _set(self, 'file', file)
        _set(self, 'targets', targets)

    def __repr__(self):
        return f"{self.__class__.__qualname__}(severity={self.severity!r}, code={self.code!r}, message={self.message!r}, span={self.span!r}, notes={self.notes!r}, help={self.help!r}, file={self.file!r}, targets={self.targets!r})"

    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.severity, self.code, self.message, self.span, self.notes, self.help, self.file, self.targets) == (other.severity, other.code, other.message, other.span, other.notes, other.help, other.file, other.targets)
        return NotImplemented

    def __hash__(self):
        return hash((self.severity, self.code, self.message, self.span, self.notes, self.help, self.file, self.targets))

    return {'__init__': __init__, '__repr__': __repr__, '__eq__': __eq__, '__hash__': __hash__}


METHODS['syncc.core.diagnostics.Diagnostic'] = (
    ((('eq', True), ('frozen', True), ('init', True), ('repr', True), ('slots', True)),
     (('severity', 'Severity', False), ('code', 'str', False), ('message', 'str', False),
      ('span', 'Span | None', False), ('notes', 'tuple[Note, ...]', True), ('help', 'str | None', True),
      ('file', 'str | None', True), ('targets', 'tuple[str, ...]', True)),
     (), (), False),
    'Diagnostic(severity: Severity, code: str, message: str, span: Span | None, notes: tuple[Note, ...] = (), help: str | None = None, file: str | None = None, targets: tuple[str, ...] = ())',
    syncc_core_diagnostics_Diagnostic)


# syncc.core.diagnostics.DiagnosticSink
def syncc_core_diagnostics_DiagnosticSink(dflt, fact):
    f_items = fact['items']

    def __init__(self, items=_FACTORY):
        self.items = f_items() if items is _FACTORY else items

    def __repr__(self):
        return f"{self.__class__.__qualname__}(items={self.items!r})"

    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.items,) == (other.items,)
        return NotImplemented

    return {'__init__': __init__, '__repr__': __repr__, '__eq__': __eq__}


METHODS['syncc.core.diagnostics.DiagnosticSink'] = (
    ((('eq', True), ('frozen', False), ('init', True), ('repr', True), ('slots', False)),
     (('items', 'list[Diagnostic]', (False, True, True, True, None, True, False)),), (), (), False),
    'DiagnosticSink(items: list[Diagnostic] = <factory>)',
    syncc_core_diagnostics_DiagnosticSink)


# syncc.core.records.RecordField
def syncc_core_records_RecordField(dflt, fact):

    def __init__(self, name, type, offset):
        _set(self, 'name', name)
        _set(self, 'type', type)
        _set(self, 'offset', offset)

    def __repr__(self):
        return f"{self.__class__.__qualname__}(name={self.name!r}, type={self.type!r}, offset={self.offset!r})"

    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.name, self.type, self.offset) == (other.name, other.type, other.offset)
        return NotImplemented

    def __hash__(self):
        return hash((self.name, self.type, self.offset))

    return {'__init__': __init__, '__repr__': __repr__, '__eq__': __eq__, '__hash__': __hash__}


METHODS['syncc.core.records.RecordField'] = (
    ((('eq', True), ('frozen', True), ('init', True), ('repr', True), ('slots', True)),
     (('name', 'str', False), ('type', 'ScalarType', False), ('offset', 'int', False)), (), (), False),
    'RecordField(name: str, type: ScalarType, offset: int)',
    syncc_core_records_RecordField)


# syncc.core.records.RecordType
def syncc_core_records_RecordType(dflt, fact):

    def __init__(self, name, fields, size, align):
        _set(self, 'name', name)
        _set(self, 'fields', fields)
        _set(self, 'size', size)
        _set(self, 'align', align)

    def __repr__(self):
        return f"{self.__class__.__qualname__}(name={self.name!r}, fields={self.fields!r}, size={self.size!r}, align={self.align!r})"

    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.name, self.fields, self.size, self.align) == (other.name, other.fields, other.size, other.align)
        return NotImplemented

    def __hash__(self):
        return hash((self.name, self.fields, self.size, self.align))

    return {'__init__': __init__, '__repr__': __repr__, '__eq__': __eq__, '__hash__': __hash__}


METHODS['syncc.core.records.RecordType'] = (
    ((('eq', True), ('frozen', True), ('init', True), ('repr', True), ('slots', True)),
     (('name', 'str', False), ('fields', 'tuple[RecordField, ...]', False), ('size', 'int', False),
      ('align', 'int', False)),
     (), (), False),
    'RecordType(name: str, fields: tuple[RecordField, ...], size: int, align: int)',
    syncc_core_records_RecordType)


# syncc.core.source.Span
def syncc_core_source_Span(dflt, fact):

    def __init__(self, file, start, end, line, col, end_line, end_col):
        _set(self, 'file', file)
        _set(self, 'start', start)
        _set(self, 'end', end)
        _set(self, 'line', line)
        _set(self, 'col', col)
        _set(self, 'end_line', end_line)
        _set(self, 'end_col', end_col)

    def __repr__(self):
        return f"{self.__class__.__qualname__}(file={self.file!r}, start={self.start!r}, end={self.end!r}, line={self.line!r}, col={self.col!r}, end_line={self.end_line!r}, end_col={self.end_col!r})"

    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.file, self.start, self.end, self.line, self.col, self.end_line, self.end_col) == (other.file, other.start, other.end, other.line, other.col, other.end_line, other.end_col)
        return NotImplemented

    def __hash__(self):
        return hash((self.file, self.start, self.end, self.line, self.col, self.end_line, self.end_col))

    return {'__init__': __init__, '__repr__': __repr__, '__eq__': __eq__, '__hash__': __hash__}


METHODS['syncc.core.source.Span'] = (
    ((('eq', True), ('frozen', True), ('init', True), ('repr', True), ('slots', True)),
     (('file', 'str', False), ('start', 'int', False), ('end', 'int', False), ('line', 'int', False),
      ('col', 'int', False), ('end_line', 'int', False), ('end_col', 'int', False)),
     (), (), False),
    'Span(file: str, start: int, end: int, line: int, col: int, end_line: int, end_col: int)',
    syncc_core_source_Span)


# syncc.core.source.SourceFile
def syncc_core_source_SourceFile(dflt, fact):
    f__line_starts = fact['_line_starts']

    def __init__(self, path, text, _line_starts=_FACTORY):
        self.path = path
        self.text = text
        self._line_starts = f__line_starts() if _line_starts is _FACTORY else _line_starts
        self.__post_init__()

    def __repr__(self):
        return f"{self.__class__.__qualname__}(path={self.path!r}, text={self.text!r})"

    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.path, self.text, self._line_starts) == (other.path, other.text, other._line_starts)
        return NotImplemented

    return {'__init__': __init__, '__repr__': __repr__, '__eq__': __eq__}


METHODS['syncc.core.source.SourceFile'] = (
    ((('eq', True), ('frozen', False), ('init', True), ('repr', True), ('slots', False)),
     (('path', 'str', False), ('text', 'str', False),
      ('_line_starts', 'list[int]', (False, True, True, False, None, True, False))),
     (), (), True),
    'SourceFile(path: str, text: str, _line_starts: list[int] = <factory>)',
    syncc_core_source_SourceFile)


# syncc.core.types.ScalarType
def syncc_core_types_ScalarType(dflt, fact):
    d_kind = dflt['kind']

    def __init__(self, name, bits, signed, kind=d_kind):
        _set(self, 'name', name)
        _set(self, 'bits', bits)
        _set(self, 'signed', signed)
        _set(self, 'kind', kind)

    def __repr__(self):
        return f"{self.__class__.__qualname__}(name={self.name!r}, bits={self.bits!r}, signed={self.signed!r}, kind={self.kind!r})"

    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.name, self.bits, self.signed, self.kind) == (other.name, other.bits, other.signed, other.kind)
        return NotImplemented

    def __hash__(self):
        return hash((self.name, self.bits, self.signed, self.kind))

    return {'__init__': __init__, '__repr__': __repr__, '__eq__': __eq__, '__hash__': __hash__}


METHODS['syncc.core.types.ScalarType'] = (
    ((('eq', True), ('frozen', True), ('init', True), ('repr', True), ('slots', True)),
     (('name', 'str', False), ('bits', 'int', False), ('signed', 'bool', False), ('kind', 'str', True)),
     (), (), False),
    "ScalarType(name: str, bits: int, signed: bool, kind: str = 'int')",
    syncc_core_types_ScalarType)


# syncc.core.types.UntypedInt
def syncc_core_types_UntypedInt(dflt, fact):

    def __init__(self):
        pass

    def __repr__(self):
        return f"{self.__class__.__qualname__}()"

    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return () == ()
        return NotImplemented

    def __hash__(self):
        return hash(())

    return {'__init__': __init__, '__repr__': __repr__, '__eq__': __eq__, '__hash__': __hash__}


METHODS['syncc.core.types.UntypedInt'] = (
    ((('eq', True), ('frozen', True), ('init', True), ('repr', True), ('slots', True)), (), (), (),
     False),
    'UntypedInt()',
    syncc_core_types_UntypedInt)


# syncc.core.types.UntypedFloat
def syncc_core_types_UntypedFloat(dflt, fact):

    def __init__(self):
        pass

    def __repr__(self):
        return f"{self.__class__.__qualname__}()"

    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return () == ()
        return NotImplemented

    def __hash__(self):
        return hash(())

    return {'__init__': __init__, '__repr__': __repr__, '__eq__': __eq__, '__hash__': __hash__}


METHODS['syncc.core.types.UntypedFloat'] = (
    ((('eq', True), ('frozen', True), ('init', True), ('repr', True), ('slots', True)), (), (), (),
     False),
    'UntypedFloat()',
    syncc_core_types_UntypedFloat)


# syncc.core.types.Other
def syncc_core_types_Other(dflt, fact):

    def __init__(self, name):
        _set(self, 'name', name)

    def __repr__(self):
        return f"{self.__class__.__qualname__}(name={self.name!r})"

    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.name,) == (other.name,)
        return NotImplemented

    def __hash__(self):
        return hash((self.name,))

    return {'__init__': __init__, '__repr__': __repr__, '__eq__': __eq__, '__hash__': __hash__}


METHODS['syncc.core.types.Other'] = (
    ((('eq', True), ('frozen', True), ('init', True), ('repr', True), ('slots', True)),
     (('name', 'str', False),), (), (), False),
    'Other(name: str)',
    syncc_core_types_Other)


# syncc.core.types.ArrayType
def syncc_core_types_ArrayType(dflt, fact):

    def __init__(self, elem, dims, space):
        _set(self, 'elem', elem)
        _set(self, 'dims', dims)
        _set(self, 'space', space)

    def __repr__(self):
        return f"{self.__class__.__qualname__}(elem={self.elem!r}, dims={self.dims!r}, space={self.space!r})"

    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.elem, self.dims, self.space) == (other.elem, other.dims, other.space)
        return NotImplemented

    def __hash__(self):
        return hash((self.elem, self.dims, self.space))

    return {'__init__': __init__, '__repr__': __repr__, '__eq__': __eq__, '__hash__': __hash__}


METHODS['syncc.core.types.ArrayType'] = (
    ((('eq', True), ('frozen', True), ('init', True), ('repr', True), ('slots', True)),
     (('elem', 'ScalarType', False), ('dims', 'tuple[int | str | None, ...]', False),
      ('space', 'str', False)),
     (), (), False),
    'ArrayType(elem: ScalarType, dims: tuple[int | str | None, ...], space: str)',
    syncc_core_types_ArrayType)


# syncc.core.types.DType
def syncc_core_types_DType(dflt, fact):

    def __init__(self, scalar):
        _set(self, 'scalar', scalar)

    def __repr__(self):
        return f"{self.__class__.__qualname__}(scalar={self.scalar!r})"

    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.scalar,) == (other.scalar,)
        return NotImplemented

    def __hash__(self):
        return hash((self.scalar,))

    return {'__init__': __init__, '__repr__': __repr__, '__eq__': __eq__, '__hash__': __hash__}


METHODS['syncc.core.types.DType'] = (
    ((('eq', True), ('frozen', True), ('init', True), ('repr', True), ('slots', True)),
     (('scalar', 'ScalarType', False),), (), (), False),
    'DType(scalar: ScalarType)',
    syncc_core_types_DType)


# syncc.core.types.ListType
def syncc_core_types_ListType(dflt, fact):

    def __init__(self, items):
        _set(self, 'items', items)

    def __repr__(self):
        return f"{self.__class__.__qualname__}(items={self.items!r})"

    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.items,) == (other.items,)
        return NotImplemented

    def __hash__(self):
        return hash((self.items,))

    return {'__init__': __init__, '__repr__': __repr__, '__eq__': __eq__, '__hash__': __hash__}


METHODS['syncc.core.types.ListType'] = (
    ((('eq', True), ('frozen', True), ('init', True), ('repr', True), ('slots', True)),
     (('items', 'tuple', False),), (), (), False),
    'ListType(items: tuple)',
    syncc_core_types_ListType)


# syncc.core.types.PrimType
def syncc_core_types_PrimType(dflt, fact):
    d_elem = dflt['elem']

    def __init__(self, kind, dims, elem=d_elem):
        _set(self, 'kind', kind)
        _set(self, 'dims', dims)
        _set(self, 'elem', elem)

    def __repr__(self):
        return f"{self.__class__.__qualname__}(kind={self.kind!r}, dims={self.dims!r}, elem={self.elem!r})"

    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.kind, self.dims, self.elem) == (other.kind, other.dims, other.elem)
        return NotImplemented

    def __hash__(self):
        return hash((self.kind, self.dims, self.elem))

    return {'__init__': __init__, '__repr__': __repr__, '__eq__': __eq__, '__hash__': __hash__}


METHODS['syncc.core.types.PrimType'] = (
    ((('eq', True), ('frozen', True), ('init', True), ('repr', True), ('slots', True)),
     (('kind', 'str', False), ('dims', 'tuple[int, ...]', False), ('elem', 'ScalarType | None', True)),
     (), (), False),
    'PrimType(kind: str, dims: tuple[int, ...], elem: ScalarType | None = None)',
    syncc_core_types_PrimType)


# syncc.driver.Compilation
def syncc_driver_Compilation(dflt, fact):
    d_target = dflt['target']
    d_module = dflt['module']
    d_ir = dflt['ir']
    d_context = dflt['context']
    d_stdlib = dflt['stdlib']
    d__loader = dflt['_loader']
    f_defines = fact['defines']
    f_sources = fact['sources']
    f_sink = fact['sink']
    f_vended = fact['vended']

    def __init__(self, target=d_target, defines=_FACTORY, sources=_FACTORY, sink=_FACTORY, module=d_module, ir=d_ir, context=d_context, vended=_FACTORY, stdlib=d_stdlib, _loader=d__loader):
        self.target = target
        self.defines = f_defines() if defines is _FACTORY else defines
        self.sources = f_sources() if sources is _FACTORY else sources
        self.sink = f_sink() if sink is _FACTORY else sink
        self.module = module
        self.ir = ir
        self.context = context
        self.vended = f_vended() if vended is _FACTORY else vended
        self.stdlib = stdlib
        self._loader = _loader

    def __repr__(self):
        return f"{self.__class__.__qualname__}(target={self.target!r}, defines={self.defines!r}, sources={self.sources!r}, sink={self.sink!r}, module={self.module!r}, ir={self.ir!r}, context={self.context!r}, vended={self.vended!r}, stdlib={self.stdlib!r}, _loader={self._loader!r})"

    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.target, self.defines, self.sources, self.sink, self.module, self.ir, self.context, self.vended, self.stdlib, self._loader) == (other.target, other.defines, other.sources, other.sink, other.module, other.ir, other.context, other.vended, other.stdlib, other._loader)
        return NotImplemented

    return {'__init__': __init__, '__repr__': __repr__, '__eq__': __eq__}


METHODS['syncc.driver.Compilation'] = (
    ((('eq', True), ('frozen', False), ('init', True), ('repr', True), ('slots', False)),
     (('target', "'Backend | None'", True),
      ('defines', 'Defines', (False, True, True, True, None, True, False)),
      ('sources', 'SourceMap', (False, True, True, True, None, True, False)),
      ('sink', 'DiagnosticSink', (False, True, True, True, None, True, False)),
      ('module', 'CheckedModule | None', True), ('ir', "'Module | None'", True),
      ('context', "'PassContext | None'", True),
      ('vended', 'list', (False, True, True, True, None, True, False)),
      ('stdlib', 'tuple[str, ...]', True), ('_loader', 'ModuleLoader | None', True)),
     (), (), False),
    "Compilation(target: 'Backend | None' = None, defines: Defines = <factory>, sources: SourceMap = <factory>, sink: DiagnosticSink = <factory>, module: CheckedModule | None = None, ir: 'Module | None' = None, context: 'PassContext | None' = None, vended: list = <factory>, stdlib: tuple[str, ...] = (), _loader: ModuleLoader | None = None)",
    syncc_driver_Compilation)


# syncc.frontend.ast.Ident
def syncc_frontend_ast_Ident(dflt, fact):

    def __init__(self, text, span):
        _set(self, 'text', text)
        _set(self, 'span', span)

    def __repr__(self):
        return f"{self.__class__.__qualname__}(text={self.text!r}, span={self.span!r})"

    return {'__init__': __init__, '__repr__': __repr__}


METHODS['syncc.frontend.ast.Ident'] = (
    ((('eq', False), ('frozen', True), ('init', True), ('repr', True), ('slots', True)),
     (('text', 'str', False), ('span', 'Span', False)), (), (), False),
    'Ident(text: str, span: Span)',
    syncc_frontend_ast_Ident)


# syncc.frontend.ast.IntLit
def syncc_frontend_ast_IntLit(dflt, fact):

    def __init__(self, value, text, span):
        _set(self, 'value', value)
        _set(self, 'text', text)
        _set(self, 'span', span)

    def __repr__(self):
        return f"{self.__class__.__qualname__}(value={self.value!r}, text={self.text!r}, span={self.span!r})"

    return {'__init__': __init__, '__repr__': __repr__}


METHODS['syncc.frontend.ast.IntLit'] = (
    ((('eq', False), ('frozen', True), ('init', True), ('repr', True), ('slots', True)),
     (('value', 'int', False), ('text', 'str', False), ('span', 'Span', False)), (), (), False),
    'IntLit(value: int, text: str, span: Span)',
    syncc_frontend_ast_IntLit)


# syncc.frontend.ast.FloatLit
def syncc_frontend_ast_FloatLit(dflt, fact):

    def __init__(self, value, text, span):
        _set(self, 'value', value)
        _set(self, 'text', text)
        _set(self, 'span', span)

    def __repr__(self):
        return f"{self.__class__.__qualname__}(value={self.value!r}, text={self.text!r}, span={self.span!r})"

    return {'__init__': __init__, '__repr__': __repr__}


METHODS['syncc.frontend.ast.FloatLit'] = (
    ((('eq', False), ('frozen', True), ('init', True), ('repr', True), ('slots', True)),
     (('value', 'Fraction', False), ('text', 'str', False), ('span', 'Span', False)), (), (), False),
    'FloatLit(value: Fraction, text: str, span: Span)',
    syncc_frontend_ast_FloatLit)


# syncc.frontend.ast.BoolLit
def syncc_frontend_ast_BoolLit(dflt, fact):

    def __init__(self, value, span):
        _set(self, 'value', value)
        _set(self, 'span', span)

    def __repr__(self):
        return f"{self.__class__.__qualname__}(value={self.value!r}, span={self.span!r})"

    return {'__init__': __init__, '__repr__': __repr__}


METHODS['syncc.frontend.ast.BoolLit'] = (
    ((('eq', False), ('frozen', True), ('init', True), ('repr', True), ('slots', True)),
     (('value', 'bool', False), ('span', 'Span', False)), (), (), False),
    'BoolLit(value: bool, span: Span)',
    syncc_frontend_ast_BoolLit)


# syncc.frontend.ast.StrLit
def syncc_frontend_ast_StrLit(dflt, fact):

    def __init__(self, value, span):
        _set(self, 'value', value)
        _set(self, 'span', span)

    def __repr__(self):
        return f"{self.__class__.__qualname__}(value={self.value!r}, span={self.span!r})"

    return {'__init__': __init__, '__repr__': __repr__}


METHODS['syncc.frontend.ast.StrLit'] = (
    ((('eq', False), ('frozen', True), ('init', True), ('repr', True), ('slots', True)),
     (('value', 'str', False), ('span', 'Span', False)), (), (), False),
    'StrLit(value: str, span: Span)',
    syncc_frontend_ast_StrLit)


# syncc.frontend.ast.Name
def syncc_frontend_ast_Name(dflt, fact):

    def __init__(self, id, span):
        _set(self, 'id', id)
        _set(self, 'span', span)

    def __repr__(self):
        return f"{self.__class__.__qualname__}(id={self.id!r}, span={self.span!r})"

    return {'__init__': __init__, '__repr__': __repr__}


METHODS['syncc.frontend.ast.Name'] = (
    ((('eq', False), ('frozen', True), ('init', True), ('repr', True), ('slots', True)),
     (('id', 'str', False), ('span', 'Span', False)), (), (), False),
    'Name(id: str, span: Span)',
    syncc_frontend_ast_Name)


# syncc.frontend.ast.TypeRef
def syncc_frontend_ast_TypeRef(dflt, fact):

    def __init__(self, name, span):
        _set(self, 'name', name)
        _set(self, 'span', span)

    def __repr__(self):
        return f"{self.__class__.__qualname__}(name={self.name!r}, span={self.span!r})"

    return {'__init__': __init__, '__repr__': __repr__}


METHODS['syncc.frontend.ast.TypeRef'] = (
    ((('eq', False), ('frozen', True), ('init', True), ('repr', True), ('slots', True)),
     (('name', 'str', False), ('span', 'Span', False)), (), (), False),
    'TypeRef(name: str, span: Span)',
    syncc_frontend_ast_TypeRef)


# syncc.frontend.ast.Unary
def syncc_frontend_ast_Unary(dflt, fact):

    def __init__(self, op, operand, span):
        _set(self, 'op', op)
        _set(self, 'operand', operand)
        _set(self, 'span', span)

    def __repr__(self):
        return f"{self.__class__.__qualname__}(op={self.op!r}, operand={self.operand!r}, span={self.span!r})"

    return {'__init__': __init__, '__repr__': __repr__}


METHODS['syncc.frontend.ast.Unary'] = (
    ((('eq', False), ('frozen', True), ('init', True), ('repr', True), ('slots', True)),
     (('op', 'str', False), ('operand', 'Expr', False), ('span', 'Span', False)), (), (), False),
    'Unary(op: str, operand: Expr, span: Span)',
    syncc_frontend_ast_Unary)


# syncc.frontend.ast.Binary
def syncc_frontend_ast_Binary(dflt, fact):

    def __init__(self, op, left, right, span):
        _set(self, 'op', op)
        _set(self, 'left', left)
        _set(self, 'right', right)
        _set(self, 'span', span)

    def __repr__(self):
        return f"{self.__class__.__qualname__}(op={self.op!r}, left={self.left!r}, right={self.right!r}, span={self.span!r})"

    return {'__init__': __init__, '__repr__': __repr__}


METHODS['syncc.frontend.ast.Binary'] = (
    ((('eq', False), ('frozen', True), ('init', True), ('repr', True), ('slots', True)),
     (('op', 'str', False), ('left', 'Expr', False), ('right', 'Expr', False), ('span', 'Span', False)),
     (), (), False),
    'Binary(op: str, left: Expr, right: Expr, span: Span)',
    syncc_frontend_ast_Binary)


# syncc.frontend.ast.Index
def syncc_frontend_ast_Index(dflt, fact):

    def __init__(self, base, index, span):
        _set(self, 'base', base)
        _set(self, 'index', index)
        _set(self, 'span', span)

    def __repr__(self):
        return f"{self.__class__.__qualname__}(base={self.base!r}, index={self.index!r}, span={self.span!r})"

    return {'__init__': __init__, '__repr__': __repr__}


METHODS['syncc.frontend.ast.Index'] = (
    ((('eq', False), ('frozen', True), ('init', True), ('repr', True), ('slots', True)),
     (('base', 'Expr', False), ('index', 'Expr', False), ('span', 'Span', False)), (), (), False),
    'Index(base: Expr, index: Expr, span: Span)',
    syncc_frontend_ast_Index)


# syncc.frontend.ast.Field
def syncc_frontend_ast_Field(dflt, fact):

    def __init__(self, base, name, span):
        _set(self, 'base', base)
        _set(self, 'name', name)
        _set(self, 'span', span)

    def __repr__(self):
        return f"{self.__class__.__qualname__}(base={self.base!r}, name={self.name!r}, span={self.span!r})"

    return {'__init__': __init__, '__repr__': __repr__}


METHODS['syncc.frontend.ast.Field'] = (
    ((('eq', False), ('frozen', True), ('init', True), ('repr', True), ('slots', True)),
     (('base', 'Expr', False), ('name', 'Ident', False), ('span', 'Span', False)), (), (), False),
    'Field(base: Expr, name: Ident, span: Span)',
    syncc_frontend_ast_Field)


# syncc.frontend.ast.KwArg
def syncc_frontend_ast_KwArg(dflt, fact):

    def __init__(self, name, value, span):
        _set(self, 'name', name)
        _set(self, 'value', value)
        _set(self, 'span', span)

    def __repr__(self):
        return f"{self.__class__.__qualname__}(name={self.name!r}, value={self.value!r}, span={self.span!r})"

    return {'__init__': __init__, '__repr__': __repr__}


METHODS['syncc.frontend.ast.KwArg'] = (
    ((('eq', False), ('frozen', True), ('init', True), ('repr', True), ('slots', True)),
     (('name', 'Ident', False), ('value', 'Expr', False), ('span', 'Span', False)), (), (), False),
    'KwArg(name: Ident, value: Expr, span: Span)',
    syncc_frontend_ast_KwArg)


# syncc.frontend.ast.Call
def syncc_frontend_ast_Call(dflt, fact):

    def __init__(self, func, args, kwargs, span):
        _set(self, 'func', func)
        _set(self, 'args', args)
        _set(self, 'kwargs', kwargs)
        _set(self, 'span', span)

    def __repr__(self):
        return f"{self.__class__.__qualname__}(func={self.func!r}, args={self.args!r}, kwargs={self.kwargs!r}, span={self.span!r})"

    return {'__init__': __init__, '__repr__': __repr__}


METHODS['syncc.frontend.ast.Call'] = (
    ((('eq', False), ('frozen', True), ('init', True), ('repr', True), ('slots', True)),
     (('func', 'Expr', False), ('args', 'tuple[Expr, ...]', False),
      ('kwargs', 'tuple[KwArg, ...]', False), ('span', 'Span', False)),
     (), (), False),
    'Call(func: Expr, args: tuple[Expr, ...], kwargs: tuple[KwArg, ...], span: Span)',
    syncc_frontend_ast_Call)


# syncc.frontend.ast.ListLit
def syncc_frontend_ast_ListLit(dflt, fact):

    def __init__(self, items, span):
        _set(self, 'items', items)
        _set(self, 'span', span)

    def __repr__(self):
        return f"{self.__class__.__qualname__}(items={self.items!r}, span={self.span!r})"

    return {'__init__': __init__, '__repr__': __repr__}


METHODS['syncc.frontend.ast.ListLit'] = (
    ((('eq', False), ('frozen', True), ('init', True), ('repr', True), ('slots', True)),
     (('items', 'tuple[Expr, ...]', False), ('span', 'Span', False)), (), (), False),
    'ListLit(items: tuple[Expr, ...], span: Span)',
    syncc_frontend_ast_ListLit)


# syncc.frontend.ast.Between
def syncc_frontend_ast_Between(dflt, fact):

    def __init__(self, lo, hi, span):
        _set(self, 'lo', lo)
        _set(self, 'hi', hi)
        _set(self, 'span', span)

    def __repr__(self):
        return f"{self.__class__.__qualname__}(lo={self.lo!r}, hi={self.hi!r}, span={self.span!r})"

    return {'__init__': __init__, '__repr__': __repr__}


METHODS['syncc.frontend.ast.Between'] = (
    ((('eq', False), ('frozen', True), ('init', True), ('repr', True), ('slots', True)),
     (('lo', 'Expr', False), ('hi', 'Expr', False), ('span', 'Span', False)), (), (), False),
    'Between(lo: Expr, hi: Expr, span: Span)',
    syncc_frontend_ast_Between)


# syncc.frontend.ast.Place
def syncc_frontend_ast_Place(dflt, fact):

    def __init__(self, name, indices, span):
        _set(self, 'name', name)
        _set(self, 'indices', indices)
        _set(self, 'span', span)

    def __repr__(self):
        return f"{self.__class__.__qualname__}(name={self.name!r}, indices={self.indices!r}, span={self.span!r})"

    return {'__init__': __init__, '__repr__': __repr__}


METHODS['syncc.frontend.ast.Place'] = (
    ((('eq', False), ('frozen', True), ('init', True), ('repr', True), ('slots', True)),
     (('name', 'Ident', False), ('indices', 'tuple[Expr, ...]', False), ('span', 'Span', False)), (),
     (), False),
    'Place(name: Ident, indices: tuple[Expr, ...], span: Span)',
    syncc_frontend_ast_Place)


# syncc.frontend.ast.Get
def syncc_frontend_ast_Get(dflt, fact):

    def __init__(self, place, span):
        _set(self, 'place', place)
        _set(self, 'span', span)

    def __repr__(self):
        return f"{self.__class__.__qualname__}(place={self.place!r}, span={self.span!r})"

    return {'__init__': __init__, '__repr__': __repr__}


METHODS['syncc.frontend.ast.Get'] = (
    ((('eq', False), ('frozen', True), ('init', True), ('repr', True), ('slots', True)),
     (('place', 'Place', False), ('span', 'Span', False)), (), (), False),
    'Get(place: Place, span: Span)',
    syncc_frontend_ast_Get)


# syncc.frontend.ast.TryLock
def syncc_frontend_ast_TryLock(dflt, fact):

    def __init__(self, place, span):
        _set(self, 'place', place)
        _set(self, 'span', span)

    def __repr__(self):
        return f"{self.__class__.__qualname__}(place={self.place!r}, span={self.span!r})"

    return {'__init__': __init__, '__repr__': __repr__}


METHODS['syncc.frontend.ast.TryLock'] = (
    ((('eq', False), ('frozen', True), ('init', True), ('repr', True), ('slots', True)),
     (('place', 'Place', False), ('span', 'Span', False)), (), (), False),
    'TryLock(place: Place, span: Span)',
    syncc_frontend_ast_TryLock)


# syncc.frontend.ast.Tile
def syncc_frontend_ast_Tile(dflt, fact):

    def __init__(self, place, span):
        _set(self, 'place', place)
        _set(self, 'span', span)

    def __repr__(self):
        return f"{self.__class__.__qualname__}(place={self.place!r}, span={self.span!r})"

    return {'__init__': __init__, '__repr__': __repr__}


METHODS['syncc.frontend.ast.Tile'] = (
    ((('eq', False), ('frozen', True), ('init', True), ('repr', True), ('slots', True)),
     (('place', 'Place', False), ('span', 'Span', False)), (), (), False),
    'Tile(place: Place, span: Span)',
    syncc_frontend_ast_Tile)


# syncc.frontend.ast.Scan
def syncc_frontend_ast_Scan(dflt, fact):

    def __init__(self, place, value, inclusive, span):
        _set(self, 'place', place)
        _set(self, 'value', value)
        _set(self, 'inclusive', inclusive)
        _set(self, 'span', span)

    def __repr__(self):
        return f"{self.__class__.__qualname__}(place={self.place!r}, value={self.value!r}, inclusive={self.inclusive!r}, span={self.span!r})"

    return {'__init__': __init__, '__repr__': __repr__}


METHODS['syncc.frontend.ast.Scan'] = (
    ((('eq', False), ('frozen', True), ('init', True), ('repr', True), ('slots', True)),
     (('place', 'Place', False), ('value', 'Expr', False), ('inclusive', 'bool', False),
      ('span', 'Span', False)),
     (), (), False),
    'Scan(place: Place, value: Expr, inclusive: bool, span: Span)',
    syncc_frontend_ast_Scan)


# syncc.frontend.ast.TryPut
def syncc_frontend_ast_TryPut(dflt, fact):

    def __init__(self, place, value, span):
        _set(self, 'place', place)
        _set(self, 'value', value)
        _set(self, 'span', span)

    def __repr__(self):
        return f"{self.__class__.__qualname__}(place={self.place!r}, value={self.value!r}, span={self.span!r})"

    return {'__init__': __init__, '__repr__': __repr__}


METHODS['syncc.frontend.ast.TryPut'] = (
    ((('eq', False), ('frozen', True), ('init', True), ('repr', True), ('slots', True)),
     (('place', 'Place', False), ('value', 'Expr', False), ('span', 'Span', False)), (), (), False),
    'TryPut(place: Place, value: Expr, span: Span)',
    syncc_frontend_ast_TryPut)


# syncc.frontend.ast.TryWait
def syncc_frontend_ast_TryWait(dflt, fact):
    d_unit = dflt['unit']
    d_permits = dflt['permits']

    def __init__(self, place, attempts, span, unit=d_unit, permits=d_permits):
        _set(self, 'place', place)
        _set(self, 'attempts', attempts)
        _set(self, 'span', span)
        _set(self, 'unit', unit)
        _set(self, 'permits', permits)

    def __repr__(self):
        return f"{self.__class__.__qualname__}(place={self.place!r}, attempts={self.attempts!r}, span={self.span!r}, unit={self.unit!r}, permits={self.permits!r})"

    return {'__init__': __init__, '__repr__': __repr__}


METHODS['syncc.frontend.ast.TryWait'] = (
    ((('eq', False), ('frozen', True), ('init', True), ('repr', True), ('slots', True)),
     (('place', 'Place', False), ('attempts', 'Expr | None', False), ('span', 'Span', False),
      ('unit', 'Ident | None', True), ('permits', 'Expr | None', True)),
     (), (), False),
    'TryWait(place: Place, attempts: Expr | None, span: Span, unit: Ident | None = None, permits: Expr | None = None)',
    syncc_frontend_ast_TryWait)


# syncc.frontend.ast.ScalarTypeExpr
def syncc_frontend_ast_ScalarTypeExpr(dflt, fact):

    def __init__(self, name, span):
        _set(self, 'name', name)
        _set(self, 'span', span)

    def __repr__(self):
        return f"{self.__class__.__qualname__}(name={self.name!r}, span={self.span!r})"

    return {'__init__': __init__, '__repr__': __repr__}


METHODS['syncc.frontend.ast.ScalarTypeExpr'] = (
    ((('eq', False), ('frozen', True), ('init', True), ('repr', True), ('slots', True)),
     (('name', 'str', False), ('span', 'Span', False)), (), (), False),
    'ScalarTypeExpr(name: str, span: Span)',
    syncc_frontend_ast_ScalarTypeExpr)


# syncc.frontend.ast.RecordTypeExpr
def syncc_frontend_ast_RecordTypeExpr(dflt, fact):

    def __init__(self, name, span):
        _set(self, 'name', name)
        _set(self, 'span', span)

    def __repr__(self):
        return f"{self.__class__.__qualname__}(name={self.name!r}, span={self.span!r})"

    return {'__init__': __init__, '__repr__': __repr__}


METHODS['syncc.frontend.ast.RecordTypeExpr'] = (
    ((('eq', False), ('frozen', True), ('init', True), ('repr', True), ('slots', True)),
     (('name', 'str', False), ('span', 'Span', False)), (), (), False),
    'RecordTypeExpr(name: str, span: Span)',
    syncc_frontend_ast_RecordTypeExpr)


# syncc.frontend.ast.ArrayTypeExpr
def syncc_frontend_ast_ArrayTypeExpr(dflt, fact):

    def __init__(self, space, elem, dims, span):
        _set(self, 'space', space)
        _set(self, 'elem', elem)
        _set(self, 'dims', dims)
        _set(self, 'span', span)

    def __repr__(self):
        return f"{self.__class__.__qualname__}(space={self.space!r}, elem={self.elem!r}, dims={self.dims!r}, span={self.span!r})"

    return {'__init__': __init__, '__repr__': __repr__}


METHODS['syncc.frontend.ast.ArrayTypeExpr'] = (
    ((('eq', False), ('frozen', True), ('init', True), ('repr', True), ('slots', True)),
     (('space', 'str', False), ('elem', 'ScalarTypeExpr | RecordTypeExpr', False),
      ('dims', 'tuple[Expr, ...]', False), ('span', 'Span', False)),
     (), (), False),
    'ArrayTypeExpr(space: str, elem: ScalarTypeExpr | RecordTypeExpr, dims: tuple[Expr, ...], span: Span)',
    syncc_frontend_ast_ArrayTypeExpr)


# syncc.frontend.ast.Block
def syncc_frontend_ast_Block(dflt, fact):

    def __init__(self, stmts, span):
        _set(self, 'stmts', stmts)
        _set(self, 'span', span)

    def __repr__(self):
        return f"{self.__class__.__qualname__}(stmts={self.stmts!r}, span={self.span!r})"

    return {'__init__': __init__, '__repr__': __repr__}


METHODS['syncc.frontend.ast.Block'] = (
    ((('eq', False), ('frozen', True), ('init', True), ('repr', True), ('slots', True)),
     (('stmts', 'tuple[Stmt, ...]', False), ('span', 'Span', False)), (), (), False),
    'Block(stmts: tuple[Stmt, ...], span: Span)',
    syncc_frontend_ast_Block)


# syncc.frontend.ast.Let
def syncc_frontend_ast_Let(dflt, fact):

    def __init__(self, mutable, name, type, value, span):
        _set(self, 'mutable', mutable)
        _set(self, 'name', name)
        _set(self, 'type', type)
        _set(self, 'value', value)
        _set(self, 'span', span)

    def __repr__(self):
        return f"{self.__class__.__qualname__}(mutable={self.mutable!r}, name={self.name!r}, type={self.type!r}, value={self.value!r}, span={self.span!r})"

    return {'__init__': __init__, '__repr__': __repr__}


METHODS['syncc.frontend.ast.Let'] = (
    ((('eq', False), ('frozen', True), ('init', True), ('repr', True), ('slots', True)),
     (('mutable', 'bool', False), ('name', 'Ident', False), ('type', 'ScalarTypeExpr | None', False),
      ('value', 'Expr', False), ('span', 'Span', False)),
     (), (), False),
    'Let(mutable: bool, name: Ident, type: ScalarTypeExpr | None, value: Expr, span: Span)',
    syncc_frontend_ast_Let)


# syncc.frontend.ast.Assign
def syncc_frontend_ast_Assign(dflt, fact):

    def __init__(self, target, op, value, span):
        _set(self, 'target', target)
        _set(self, 'op', op)
        _set(self, 'value', value)
        _set(self, 'span', span)

    def __repr__(self):
        return f"{self.__class__.__qualname__}(target={self.target!r}, op={self.op!r}, value={self.value!r}, span={self.span!r})"

    return {'__init__': __init__, '__repr__': __repr__}


METHODS['syncc.frontend.ast.Assign'] = (
    ((('eq', False), ('frozen', True), ('init', True), ('repr', True), ('slots', True)),
     (('target', 'Expr', False), ('op', 'str', False), ('value', 'Expr', False),
      ('span', 'Span', False)),
     (), (), False),
    'Assign(target: Expr, op: str, value: Expr, span: Span)',
    syncc_frontend_ast_Assign)


# syncc.frontend.ast.ExprStmt
def syncc_frontend_ast_ExprStmt(dflt, fact):

    def __init__(self, expr, span):
        _set(self, 'expr', expr)
        _set(self, 'span', span)

    def __repr__(self):
        return f"{self.__class__.__qualname__}(expr={self.expr!r}, span={self.span!r})"

    return {'__init__': __init__, '__repr__': __repr__}


METHODS['syncc.frontend.ast.ExprStmt'] = (
    ((('eq', False), ('frozen', True), ('init', True), ('repr', True), ('slots', True)),
     (('expr', 'Expr', False), ('span', 'Span', False)), (), (), False),
    'ExprStmt(expr: Expr, span: Span)',
    syncc_frontend_ast_ExprStmt)


# syncc.frontend.ast.If
def syncc_frontend_ast_If(dflt, fact):

    def __init__(self, cond, then, orelse, span):
        _set(self, 'cond', cond)
        _set(self, 'then', then)
        _set(self, 'orelse', orelse)
        _set(self, 'span', span)

    def __repr__(self):
        return f"{self.__class__.__qualname__}(cond={self.cond!r}, then={self.then!r}, orelse={self.orelse!r}, span={self.span!r})"

    return {'__init__': __init__, '__repr__': __repr__}


METHODS['syncc.frontend.ast.If'] = (
    ((('eq', False), ('frozen', True), ('init', True), ('repr', True), ('slots', True)),
     (('cond', 'Expr', False), ('then', 'Block', False), ('orelse', 'Block | If | None', False),
      ('span', 'Span', False)),
     (), (), False),
    'If(cond: Expr, then: Block, orelse: Block | If | None, span: Span)',
    syncc_frontend_ast_If)


# syncc.frontend.ast.While
def syncc_frontend_ast_While(dflt, fact):

    def __init__(self, cond, body, span):
        _set(self, 'cond', cond)
        _set(self, 'body', body)
        _set(self, 'span', span)

    def __repr__(self):
        return f"{self.__class__.__qualname__}(cond={self.cond!r}, body={self.body!r}, span={self.span!r})"

    return {'__init__': __init__, '__repr__': __repr__}


METHODS['syncc.frontend.ast.While'] = (
    ((('eq', False), ('frozen', True), ('init', True), ('repr', True), ('slots', True)),
     (('cond', 'Expr', False), ('body', 'Block', False), ('span', 'Span', False)), (), (), False),
    'While(cond: Expr, body: Block, span: Span)',
    syncc_frontend_ast_While)


# syncc.frontend.ast.For
def syncc_frontend_ast_For(dflt, fact):

    def __init__(self, var, start, stop, step, body, span):
        _set(self, 'var', var)
        _set(self, 'start', start)
        _set(self, 'stop', stop)
        _set(self, 'step', step)
        _set(self, 'body', body)
        _set(self, 'span', span)

    def __repr__(self):
        return f"{self.__class__.__qualname__}(var={self.var!r}, start={self.start!r}, stop={self.stop!r}, step={self.step!r}, body={self.body!r}, span={self.span!r})"

    return {'__init__': __init__, '__repr__': __repr__}


METHODS['syncc.frontend.ast.For'] = (
    ((('eq', False), ('frozen', True), ('init', True), ('repr', True), ('slots', True)),
     (('var', 'Ident', False), ('start', 'Expr', False), ('stop', 'Expr', False),
      ('step', 'Expr | None', False), ('body', 'Block', False), ('span', 'Span', False)),
     (), (), False),
    'For(var: Ident, start: Expr, stop: Expr, step: Expr | None, body: Block, span: Span)',
    syncc_frontend_ast_For)


# syncc.frontend.ast.ForEach
def syncc_frontend_ast_ForEach(dflt, fact):

    def __init__(self, var, source, body, span):
        _set(self, 'var', var)
        _set(self, 'source', source)
        _set(self, 'body', body)
        _set(self, 'span', span)

    def __repr__(self):
        return f"{self.__class__.__qualname__}(var={self.var!r}, source={self.source!r}, body={self.body!r}, span={self.span!r})"

    return {'__init__': __init__, '__repr__': __repr__}


METHODS['syncc.frontend.ast.ForEach'] = (
    ((('eq', False), ('frozen', True), ('init', True), ('repr', True), ('slots', True)),
     (('var', 'Ident', False), ('source', "'Place | Expr'", False), ('body', 'Block', False),
      ('span', 'Span', False)),
     (), (), False),
    "ForEach(var: Ident, source: 'Place | Expr', body: Block, span: Span)",
    syncc_frontend_ast_ForEach)


# syncc.frontend.ast.Break
def syncc_frontend_ast_Break(dflt, fact):

    def __init__(self, span):
        _set(self, 'span', span)

    def __repr__(self):
        return f"{self.__class__.__qualname__}(span={self.span!r})"

    return {'__init__': __init__, '__repr__': __repr__}


METHODS['syncc.frontend.ast.Break'] = (
    ((('eq', False), ('frozen', True), ('init', True), ('repr', True), ('slots', True)),
     (('span', 'Span', False),), (), (), False),
    'Break(span: Span)',
    syncc_frontend_ast_Break)


# syncc.frontend.ast.Continue
def syncc_frontend_ast_Continue(dflt, fact):

    def __init__(self, span):
        _set(self, 'span', span)

    def __repr__(self):
        return f"{self.__class__.__qualname__}(span={self.span!r})"

    return {'__init__': __init__, '__repr__': __repr__}


METHODS['syncc.frontend.ast.Continue'] = (
    ((('eq', False), ('frozen', True), ('init', True), ('repr', True), ('slots', True)),
     (('span', 'Span', False),), (), (), False),
    'Continue(span: Span)',
    syncc_frontend_ast_Continue)


# syncc.frontend.ast.Return
def syncc_frontend_ast_Return(dflt, fact):

    def __init__(self, value, span):
        _set(self, 'value', value)
        _set(self, 'span', span)

    def __repr__(self):
        return f"{self.__class__.__qualname__}(value={self.value!r}, span={self.span!r})"

    return {'__init__': __init__, '__repr__': __repr__}


METHODS['syncc.frontend.ast.Return'] = (
    ((('eq', False), ('frozen', True), ('init', True), ('repr', True), ('slots', True)),
     (('value', 'Expr | None', False), ('span', 'Span', False)), (), (), False),
    'Return(value: Expr | None, span: Span)',
    syncc_frontend_ast_Return)


# syncc.frontend.ast.SharedDecl
def syncc_frontend_ast_SharedDecl(dflt, fact):

    def __init__(self, name, elem, dims, span):
        _set(self, 'name', name)
        _set(self, 'elem', elem)
        _set(self, 'dims', dims)
        _set(self, 'span', span)

    def __repr__(self):
        return f"{self.__class__.__qualname__}(name={self.name!r}, elem={self.elem!r}, dims={self.dims!r}, span={self.span!r})"

    return {'__init__': __init__, '__repr__': __repr__}


METHODS['syncc.frontend.ast.SharedDecl'] = (
    ((('eq', False), ('frozen', True), ('init', True), ('repr', True), ('slots', True)),
     (('name', 'Ident', False), ('elem', 'ScalarTypeExpr', False), ('dims', 'tuple[Expr, ...]', False),
      ('span', 'Span', False)),
     (), (), False),
    'SharedDecl(name: Ident, elem: ScalarTypeExpr, dims: tuple[Expr, ...], span: Span)',
    syncc_frontend_ast_SharedDecl)


# syncc.frontend.ast.ImplRef
def syncc_frontend_ast_ImplRef(dflt, fact):

    def __init__(self, name, args, kwargs, span):
        _set(self, 'name', name)
        _set(self, 'args', args)
        _set(self, 'kwargs', kwargs)
        _set(self, 'span', span)

    def __repr__(self):
        return f"{self.__class__.__qualname__}(name={self.name!r}, args={self.args!r}, kwargs={self.kwargs!r}, span={self.span!r})"

    return {'__init__': __init__, '__repr__': __repr__}


METHODS['syncc.frontend.ast.ImplRef'] = (
    ((('eq', False), ('frozen', True), ('init', True), ('repr', True), ('slots', True)),
     (('name', 'Ident', False), ('args', 'tuple[Expr, ...]', False),
      ('kwargs', 'tuple[KwArg, ...]', False), ('span', 'Span', False)),
     (), (), False),
    'ImplRef(name: Ident, args: tuple[Expr, ...], kwargs: tuple[KwArg, ...], span: Span)',
    syncc_frontend_ast_ImplRef)


# syncc.frontend.ast.PrimDecl
def syncc_frontend_ast_PrimDecl(dflt, fact):

    def __init__(self, kind, name, dims, args, kwargs, elem, placement, granularity, impl, span):
        _set(self, 'kind', kind)
        _set(self, 'name', name)
        _set(self, 'dims', dims)
        _set(self, 'args', args)
        _set(self, 'kwargs', kwargs)
        _set(self, 'elem', elem)
        _set(self, 'placement', placement)
        _set(self, 'granularity', granularity)
        _set(self, 'impl', impl)
        _set(self, 'span', span)

    def __repr__(self):
        return f"{self.__class__.__qualname__}(kind={self.kind!r}, name={self.name!r}, dims={self.dims!r}, args={self.args!r}, kwargs={self.kwargs!r}, elem={self.elem!r}, placement={self.placement!r}, granularity={self.granularity!r}, impl={self.impl!r}, span={self.span!r})"

    return {'__init__': __init__, '__repr__': __repr__}


METHODS['syncc.frontend.ast.PrimDecl'] = (
    ((('eq', False), ('frozen', True), ('init', True), ('repr', True), ('slots', True)),
     (('kind', 'str', False), ('name', 'Ident', False), ('dims', 'tuple[Expr, ...]', False),
      ('args', 'tuple[Expr, ...]', False), ('kwargs', 'tuple[KwArg, ...]', False),
      ('elem', 'ScalarTypeExpr | None', False), ('placement', 'str', False),
      ('granularity', 'Ident', False), ('impl', 'ImplRef | None', False), ('span', 'Span', False)),
     (), (), False),
    'PrimDecl(kind: str, name: Ident, dims: tuple[Expr, ...], args: tuple[Expr, ...], kwargs: tuple[KwArg, ...], elem: ScalarTypeExpr | None, placement: str, granularity: Ident, impl: ImplRef | None, span: Span)',
    syncc_frontend_ast_PrimDecl)


# syncc.frontend.ast.Critical
def syncc_frontend_ast_Critical(dflt, fact):

    def __init__(self, target, body, span):
        _set(self, 'target', target)
        _set(self, 'body', body)
        _set(self, 'span', span)

    def __repr__(self):
        return f"{self.__class__.__qualname__}(target={self.target!r}, body={self.body!r}, span={self.span!r})"

    return {'__init__': __init__, '__repr__': __repr__}


METHODS['syncc.frontend.ast.Critical'] = (
    ((('eq', False), ('frozen', True), ('init', True), ('repr', True), ('slots', True)),
     (('target', 'Place', False), ('body', 'Block', False), ('span', 'Span', False)), (), (), False),
    'Critical(target: Place, body: Block, span: Span)',
    syncc_frontend_ast_Critical)


# syncc.frontend.ast.Acquire
def syncc_frontend_ast_Acquire(dflt, fact):
    d_permits = dflt['permits']

    def __init__(self, target, body, span, permits=d_permits):
        _set(self, 'target', target)
        _set(self, 'body', body)
        _set(self, 'span', span)
        _set(self, 'permits', permits)

    def __repr__(self):
        return f"{self.__class__.__qualname__}(target={self.target!r}, body={self.body!r}, span={self.span!r}, permits={self.permits!r})"

    return {'__init__': __init__, '__repr__': __repr__}


METHODS['syncc.frontend.ast.Acquire'] = (
    ((('eq', False), ('frozen', True), ('init', True), ('repr', True), ('slots', True)),
     (('target', 'Place', False), ('body', 'Block', False), ('span', 'Span', False),
      ('permits', 'Expr | None', True)),
     (), (), False),
    'Acquire(target: Place, body: Block, span: Span, permits: Expr | None = None)',
    syncc_frontend_ast_Acquire)


# syncc.frontend.ast.RwSection
def syncc_frontend_ast_RwSection(dflt, fact):

    def __init__(self, mode, target, body, span):
        _set(self, 'mode', mode)
        _set(self, 'target', target)
        _set(self, 'body', body)
        _set(self, 'span', span)

    def __repr__(self):
        return f"{self.__class__.__qualname__}(mode={self.mode!r}, target={self.target!r}, body={self.body!r}, span={self.span!r})"

    return {'__init__': __init__, '__repr__': __repr__}


METHODS['syncc.frontend.ast.RwSection'] = (
    ((('eq', False), ('frozen', True), ('init', True), ('repr', True), ('slots', True)),
     (('mode', 'str', False), ('target', 'Place', False), ('body', 'Block', False),
      ('span', 'Span', False)),
     (), (), False),
    'RwSection(mode: str, target: Place, body: Block, span: Span)',
    syncc_frontend_ast_RwSection)


# syncc.frontend.ast.WhenBinding
def syncc_frontend_ast_WhenBinding(dflt, fact):

    def __init__(self, name, source, span):
        _set(self, 'name', name)
        _set(self, 'source', source)
        _set(self, 'span', span)

    def __repr__(self):
        return f"{self.__class__.__qualname__}(name={self.name!r}, source={self.source!r}, span={self.span!r})"

    return {'__init__': __init__, '__repr__': __repr__}


METHODS['syncc.frontend.ast.WhenBinding'] = (
    ((('eq', False), ('frozen', True), ('init', True), ('repr', True), ('slots', True)),
     (('name', 'Ident', False), ('source', 'Place', False), ('span', 'Span', False)), (), (), False),
    'WhenBinding(name: Ident, source: Place, span: Span)',
    syncc_frontend_ast_WhenBinding)


# syncc.frontend.ast.When
def syncc_frontend_ast_When(dflt, fact):

    def __init__(self, bindings, body, span):
        _set(self, 'bindings', bindings)
        _set(self, 'body', body)
        _set(self, 'span', span)

    def __repr__(self):
        return f"{self.__class__.__qualname__}(bindings={self.bindings!r}, body={self.body!r}, span={self.span!r})"

    return {'__init__': __init__, '__repr__': __repr__}


METHODS['syncc.frontend.ast.When'] = (
    ((('eq', False), ('frozen', True), ('init', True), ('repr', True), ('slots', True)),
     (('bindings', 'tuple[WhenBinding, ...]', False), ('body', 'Block', False),
      ('span', 'Span', False)),
     (), (), False),
    'When(bindings: tuple[WhenBinding, ...], body: Block, span: Span)',
    syncc_frontend_ast_When)


# syncc.frontend.ast.TryGet
def syncc_frontend_ast_TryGet(dflt, fact):

    def __init__(self, name, place, body, orelse, span):
        _set(self, 'name', name)
        _set(self, 'place', place)
        _set(self, 'body', body)
        _set(self, 'orelse', orelse)
        _set(self, 'span', span)

    def __repr__(self):
        return f"{self.__class__.__qualname__}(name={self.name!r}, place={self.place!r}, body={self.body!r}, orelse={self.orelse!r}, span={self.span!r})"

    return {'__init__': __init__, '__repr__': __repr__}


METHODS['syncc.frontend.ast.TryGet'] = (
    ((('eq', False), ('frozen', True), ('init', True), ('repr', True), ('slots', True)),
     (('name', 'Ident', False), ('place', 'Place', False), ('body', 'Block', False),
      ('orelse', 'Block | None', False), ('span', 'Span', False)),
     (), (), False),
    'TryGet(name: Ident, place: Place, body: Block, orelse: Block | None, span: Span)',
    syncc_frontend_ast_TryGet)


# syncc.frontend.ast.BarrierStmt
def syncc_frontend_ast_BarrierStmt(dflt, fact):

    def __init__(self, span):
        _set(self, 'span', span)

    def __repr__(self):
        return f"{self.__class__.__qualname__}(span={self.span!r})"

    return {'__init__': __init__, '__repr__': __repr__}


METHODS['syncc.frontend.ast.BarrierStmt'] = (
    ((('eq', False), ('frozen', True), ('init', True), ('repr', True), ('slots', True)),
     (('span', 'Span', False),), (), (), False),
    'BarrierStmt(span: Span)',
    syncc_frontend_ast_BarrierStmt)


# syncc.frontend.ast.Fence
def syncc_frontend_ast_Fence(dflt, fact):

    def __init__(self, scope, span):
        _set(self, 'scope', scope)
        _set(self, 'span', span)

    def __repr__(self):
        return f"{self.__class__.__qualname__}(scope={self.scope!r}, span={self.span!r})"

    return {'__init__': __init__, '__repr__': __repr__}


METHODS['syncc.frontend.ast.Fence'] = (
    ((('eq', False), ('frozen', True), ('init', True), ('repr', True), ('slots', True)),
     (('scope', 'Ident', False), ('span', 'Span', False)), (), (), False),
    'Fence(scope: Ident, span: Span)',
    syncc_frontend_ast_Fence)


# syncc.frontend.ast.PrimOp
def syncc_frontend_ast_PrimOp(dflt, fact):
    d_permits = dflt['permits']

    def __init__(self, op, target, span, permits=d_permits):
        _set(self, 'op', op)
        _set(self, 'target', target)
        _set(self, 'span', span)
        _set(self, 'permits', permits)

    def __repr__(self):
        return f"{self.__class__.__qualname__}(op={self.op!r}, target={self.target!r}, span={self.span!r}, permits={self.permits!r})"

    return {'__init__': __init__, '__repr__': __repr__}


METHODS['syncc.frontend.ast.PrimOp'] = (
    ((('eq', False), ('frozen', True), ('init', True), ('repr', True), ('slots', True)),
     (('op', 'str', False), ('target', 'Place', False), ('span', 'Span', False),
      ('permits', 'Expr | None', True)),
     (), (), False),
    'PrimOp(op: str, target: Place, span: Span, permits: Expr | None = None)',
    syncc_frontend_ast_PrimOp)


# syncc.frontend.ast.Put
def syncc_frontend_ast_Put(dflt, fact):
    d_range = dflt['range']

    def __init__(self, target, value, span, range=d_range):
        _set(self, 'target', target)
        _set(self, 'value', value)
        _set(self, 'span', span)
        _set(self, 'range', range)

    def __repr__(self):
        return f"{self.__class__.__qualname__}(target={self.target!r}, value={self.value!r}, span={self.span!r}, range={self.range!r})"

    return {'__init__': __init__, '__repr__': __repr__}


METHODS['syncc.frontend.ast.Put'] = (
    ((('eq', False), ('frozen', True), ('init', True), ('repr', True), ('slots', True)),
     (('target', 'Place', False), ('value', 'Expr', False), ('span', 'Span', False),
      ('range', 'tuple[Expr, Expr] | None', True)),
     (), (), False),
    'Put(target: Place, value: Expr, span: Span, range: tuple[Expr, Expr] | None = None)',
    syncc_frontend_ast_Put)


# syncc.frontend.ast.ShapeDim
def syncc_frontend_ast_ShapeDim(dflt, fact):

    def __init__(self, name, args, span):
        _set(self, 'name', name)
        _set(self, 'args', args)
        _set(self, 'span', span)

    def __repr__(self):
        return f"{self.__class__.__qualname__}(name={self.name!r}, args={self.args!r}, span={self.span!r})"

    return {'__init__': __init__, '__repr__': __repr__}


METHODS['syncc.frontend.ast.ShapeDim'] = (
    ((('eq', False), ('frozen', True), ('init', True), ('repr', True), ('slots', True)),
     (('name', 'Ident', False), ('args', 'tuple[Expr, ...]', False), ('span', 'Span', False)), (), (),
     False),
    'ShapeDim(name: Ident, args: tuple[Expr, ...], span: Span)',
    syncc_frontend_ast_ShapeDim)


# syncc.frontend.ast.Launch
def syncc_frontend_ast_Launch(dflt, fact):

    def __init__(self, kernel, args, kwargs, shape, span):
        _set(self, 'kernel', kernel)
        _set(self, 'args', args)
        _set(self, 'kwargs', kwargs)
        _set(self, 'shape', shape)
        _set(self, 'span', span)

    def __repr__(self):
        return f"{self.__class__.__qualname__}(kernel={self.kernel!r}, args={self.args!r}, kwargs={self.kwargs!r}, shape={self.shape!r}, span={self.span!r})"

    return {'__init__': __init__, '__repr__': __repr__}


METHODS['syncc.frontend.ast.Launch'] = (
    ((('eq', False), ('frozen', True), ('init', True), ('repr', True), ('slots', True)),
     (('kernel', 'Ident', False), ('args', 'tuple[Expr, ...]', False),
      ('kwargs', 'tuple[KwArg, ...]', False), ('shape', 'tuple[ShapeDim, ...]', False),
      ('span', 'Span', False)),
     (), (), False),
    'Launch(kernel: Ident, args: tuple[Expr, ...], kwargs: tuple[KwArg, ...], shape: tuple[ShapeDim, ...], span: Span)',
    syncc_frontend_ast_Launch)


# syncc.frontend.ast.Check
def syncc_frontend_ast_Check(dflt, fact):

    def __init__(self, cond, message, span):
        _set(self, 'cond', cond)
        _set(self, 'message', message)
        _set(self, 'span', span)

    def __repr__(self):
        return f"{self.__class__.__qualname__}(cond={self.cond!r}, message={self.message!r}, span={self.span!r})"

    return {'__init__': __init__, '__repr__': __repr__}


METHODS['syncc.frontend.ast.Check'] = (
    ((('eq', False), ('frozen', True), ('init', True), ('repr', True), ('slots', True)),
     (('cond', 'Expr', False), ('message', 'StrLit | None', False), ('span', 'Span', False)), (), (),
     False),
    'Check(cond: Expr, message: StrLit | None, span: Span)',
    syncc_frontend_ast_Check)


# syncc.frontend.ast.Print
def syncc_frontend_ast_Print(dflt, fact):

    def __init__(self, items, span):
        _set(self, 'items', items)
        _set(self, 'span', span)

    def __repr__(self):
        return f"{self.__class__.__qualname__}(items={self.items!r}, span={self.span!r})"

    return {'__init__': __init__, '__repr__': __repr__}


METHODS['syncc.frontend.ast.Print'] = (
    ((('eq', False), ('frozen', True), ('init', True), ('repr', True), ('slots', True)),
     (('items', 'tuple[Expr, ...]', False), ('span', 'Span', False)), (), (), False),
    'Print(items: tuple[Expr, ...], span: Span)',
    syncc_frontend_ast_Print)


# syncc.frontend.ast.Save
def syncc_frontend_ast_Save(dflt, fact):

    def __init__(self, value, path, span):
        _set(self, 'value', value)
        _set(self, 'path', path)
        _set(self, 'span', span)

    def __repr__(self):
        return f"{self.__class__.__qualname__}(value={self.value!r}, path={self.path!r}, span={self.span!r})"

    return {'__init__': __init__, '__repr__': __repr__}


METHODS['syncc.frontend.ast.Save'] = (
    ((('eq', False), ('frozen', True), ('init', True), ('repr', True), ('slots', True)),
     (('value', 'Expr', False), ('path', 'StrLit', False), ('span', 'Span', False)), (), (), False),
    'Save(value: Expr, path: StrLit, span: Span)',
    syncc_frontend_ast_Save)


# syncc.frontend.ast.Import
def syncc_frontend_ast_Import(dflt, fact):

    def __init__(self, path, alias, span):
        _set(self, 'path', path)
        _set(self, 'alias', alias)
        _set(self, 'span', span)

    def __repr__(self):
        return f"{self.__class__.__qualname__}(path={self.path!r}, alias={self.alias!r}, span={self.span!r})"

    return {'__init__': __init__, '__repr__': __repr__}


METHODS['syncc.frontend.ast.Import'] = (
    ((('eq', False), ('frozen', True), ('init', True), ('repr', True), ('slots', True)),
     (('path', 'tuple[Ident, ...]', False), ('alias', 'Ident | None', False), ('span', 'Span', False)),
     (), (), False),
    'Import(path: tuple[Ident, ...], alias: Ident | None, span: Span)',
    syncc_frontend_ast_Import)


# syncc.frontend.ast.Const
def syncc_frontend_ast_Const(dflt, fact):

    def __init__(self, name, type, value, span):
        _set(self, 'name', name)
        _set(self, 'type', type)
        _set(self, 'value', value)
        _set(self, 'span', span)

    def __repr__(self):
        return f"{self.__class__.__qualname__}(name={self.name!r}, type={self.type!r}, value={self.value!r}, span={self.span!r})"

    return {'__init__': __init__, '__repr__': __repr__}


METHODS['syncc.frontend.ast.Const'] = (
    ((('eq', False), ('frozen', True), ('init', True), ('repr', True), ('slots', True)),
     (('name', 'Ident', False), ('type', 'ScalarTypeExpr | None', False), ('value', 'Expr', False),
      ('span', 'Span', False)),
     (), (), False),
    'Const(name: Ident, type: ScalarTypeExpr | None, value: Expr, span: Span)',
    syncc_frontend_ast_Const)


# syncc.frontend.ast.StructField
def syncc_frontend_ast_StructField(dflt, fact):

    def __init__(self, name, type, span):
        _set(self, 'name', name)
        _set(self, 'type', type)
        _set(self, 'span', span)

    def __repr__(self):
        return f"{self.__class__.__qualname__}(name={self.name!r}, type={self.type!r}, span={self.span!r})"

    return {'__init__': __init__, '__repr__': __repr__}


METHODS['syncc.frontend.ast.StructField'] = (
    ((('eq', False), ('frozen', True), ('init', True), ('repr', True), ('slots', True)),
     (('name', 'Ident', False), ('type', 'ScalarTypeExpr', False), ('span', 'Span', False)), (), (),
     False),
    'StructField(name: Ident, type: ScalarTypeExpr, span: Span)',
    syncc_frontend_ast_StructField)


# syncc.frontend.ast.StructDecl
def syncc_frontend_ast_StructDecl(dflt, fact):

    def __init__(self, name, fields, span):
        _set(self, 'name', name)
        _set(self, 'fields', fields)
        _set(self, 'span', span)

    def __repr__(self):
        return f"{self.__class__.__qualname__}(name={self.name!r}, fields={self.fields!r}, span={self.span!r})"

    return {'__init__': __init__, '__repr__': __repr__}


METHODS['syncc.frontend.ast.StructDecl'] = (
    ((('eq', False), ('frozen', True), ('init', True), ('repr', True), ('slots', True)),
     (('name', 'Ident', False), ('fields', 'tuple[StructField, ...]', False), ('span', 'Span', False)),
     (), (), False),
    'StructDecl(name: Ident, fields: tuple[StructField, ...], span: Span)',
    syncc_frontend_ast_StructDecl)


# syncc.frontend.ast.Param
def syncc_frontend_ast_Param(dflt, fact):
    d_values = dflt['values']

    def __init__(self, name, type, span, values=d_values):
        _set(self, 'name', name)
        _set(self, 'type', type)
        _set(self, 'span', span)
        _set(self, 'values', values)

    def __repr__(self):
        return f"{self.__class__.__qualname__}(name={self.name!r}, type={self.type!r}, span={self.span!r}, values={self.values!r})"

    return {'__init__': __init__, '__repr__': __repr__}


METHODS['syncc.frontend.ast.Param'] = (
    ((('eq', False), ('frozen', True), ('init', True), ('repr', True), ('slots', True)),
     (('name', 'Ident', False), ('type', 'TypeExpr', False), ('span', 'Span', False),
      ('values', 'Between | ListLit | None', True)),
     (), (), False),
    'Param(name: Ident, type: TypeExpr, span: Span, values: Between | ListLit | None = None)',
    syncc_frontend_ast_Param)


# syncc.frontend.ast.Fn
def syncc_frontend_ast_Fn(dflt, fact):

    def __init__(self, name, params, ret, body, span):
        _set(self, 'name', name)
        _set(self, 'params', params)
        _set(self, 'ret', ret)
        _set(self, 'body', body)
        _set(self, 'span', span)

    def __repr__(self):
        return f"{self.__class__.__qualname__}(name={self.name!r}, params={self.params!r}, ret={self.ret!r}, body={self.body!r}, span={self.span!r})"

    return {'__init__': __init__, '__repr__': __repr__}


METHODS['syncc.frontend.ast.Fn'] = (
    ((('eq', False), ('frozen', True), ('init', True), ('repr', True), ('slots', True)),
     (('name', 'Ident', False), ('params', 'tuple[Param, ...]', False),
      ('ret', 'ScalarTypeExpr | None', False), ('body', 'Block', False), ('span', 'Span', False)),
     (), (), False),
    'Fn(name: Ident, params: tuple[Param, ...], ret: ScalarTypeExpr | None, body: Block, span: Span)',
    syncc_frontend_ast_Fn)


# syncc.frontend.ast.Kernel
def syncc_frontend_ast_Kernel(dflt, fact):

    def __init__(self, name, params, launch, body, span):
        _set(self, 'name', name)
        _set(self, 'params', params)
        _set(self, 'launch', launch)
        _set(self, 'body', body)
        _set(self, 'span', span)

    def __repr__(self):
        return f"{self.__class__.__qualname__}(name={self.name!r}, params={self.params!r}, launch={self.launch!r}, body={self.body!r}, span={self.span!r})"

    return {'__init__': __init__, '__repr__': __repr__}


METHODS['syncc.frontend.ast.Kernel'] = (
    ((('eq', False), ('frozen', True), ('init', True), ('repr', True), ('slots', True)),
     (('name', 'Ident', False), ('params', 'tuple[Param, ...]', False),
      ('launch', 'tuple[ShapeDim, ...]', False), ('body', 'Block', False), ('span', 'Span', False)),
     (), (), False),
    'Kernel(name: Ident, params: tuple[Param, ...], launch: tuple[ShapeDim, ...], body: Block, span: Span)',
    syncc_frontend_ast_Kernel)


# syncc.frontend.ast.Host
def syncc_frontend_ast_Host(dflt, fact):

    def __init__(self, name, body, span):
        _set(self, 'name', name)
        _set(self, 'body', body)
        _set(self, 'span', span)

    def __repr__(self):
        return f"{self.__class__.__qualname__}(name={self.name!r}, body={self.body!r}, span={self.span!r})"

    return {'__init__': __init__, '__repr__': __repr__}


METHODS['syncc.frontend.ast.Host'] = (
    ((('eq', False), ('frozen', True), ('init', True), ('repr', True), ('slots', True)),
     (('name', 'Ident | None', False), ('body', 'Block', False), ('span', 'Span', False)), (), (),
     False),
    'Host(name: Ident | None, body: Block, span: Span)',
    syncc_frontend_ast_Host)


# syncc.frontend.ast.Program
def syncc_frontend_ast_Program(dflt, fact):

    def __init__(self, items, span):
        _set(self, 'items', items)
        _set(self, 'span', span)

    def __repr__(self):
        return f"{self.__class__.__qualname__}(items={self.items!r}, span={self.span!r})"

    return {'__init__': __init__, '__repr__': __repr__}


METHODS['syncc.frontend.ast.Program'] = (
    ((('eq', False), ('frozen', True), ('init', True), ('repr', True), ('slots', True)),
     (('items', 'tuple[Item, ...]', False), ('span', 'Span', False)), (), (), False),
    'Program(items: tuple[Item, ...], span: Span)',
    syncc_frontend_ast_Program)


# syncc.frontend.builtins.BuiltinFn
def syncc_frontend_builtins_BuiltinFn(dflt, fact):
    d_variadic = dflt['variadic']
    d_kwargs = dflt['kwargs']
    d_summary = dflt['summary']

    def __init__(self, name, where, params, result, variadic=d_variadic, kwargs=d_kwargs, summary=d_summary):
        _set(self, 'name', name)
        _set(self, 'where', where)
        _set(self, 'params', params)
        _set(self, 'result', result)
        _set(self, 'variadic', variadic)
        _set(self, 'kwargs', kwargs)
        _set(self, 'summary', summary)

    def __repr__(self):
        return f"{self.__class__.__qualname__}(name={self.name!r}, where={self.where!r}, params={self.params!r}, result={self.result!r}, variadic={self.variadic!r}, kwargs={self.kwargs!r}, summary={self.summary!r})"

    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.name, self.where, self.params, self.result, self.variadic, self.kwargs, self.summary) == (other.name, other.where, other.params, other.result, other.variadic, other.kwargs, other.summary)
        return NotImplemented

    def __hash__(self):
        return hash((self.name, self.where, self.params, self.result, self.variadic, self.kwargs, self.summary))

    return {'__init__': __init__, '__repr__': __repr__, '__eq__': __eq__, '__hash__': __hash__}


METHODS['syncc.frontend.builtins.BuiltinFn'] = (
    ((('eq', True), ('frozen', True), ('init', True), ('repr', True), ('slots', False)),
     (('name', 'str', False), ('where', 'str', False), ('params', 'tuple[str, ...]', False),
      ('result', 'str', False), ('variadic', 'bool', True), ('kwargs', 'tuple[str, ...]', True),
      ('summary', 'str', True)),
     (), (), False),
    "BuiltinFn(name: str, where: str, params: tuple[str, ...], result: str, variadic: bool = False, kwargs: tuple[str, ...] = (), summary: str = '')",
    syncc_frontend_builtins_BuiltinFn)


# syncc.frontend.builtins.BuiltinValue
def syncc_frontend_builtins_BuiltinValue(dflt, fact):
    d_has_xyz = dflt['has_xyz']

    def __init__(self, name, summary, has_xyz=d_has_xyz):
        _set(self, 'name', name)
        _set(self, 'summary', summary)
        _set(self, 'has_xyz', has_xyz)

    def __repr__(self):
        return f"{self.__class__.__qualname__}(name={self.name!r}, summary={self.summary!r}, has_xyz={self.has_xyz!r})"

    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.name, self.summary, self.has_xyz) == (other.name, other.summary, other.has_xyz)
        return NotImplemented

    def __hash__(self):
        return hash((self.name, self.summary, self.has_xyz))

    return {'__init__': __init__, '__repr__': __repr__, '__eq__': __eq__, '__hash__': __hash__}


METHODS['syncc.frontend.builtins.BuiltinValue'] = (
    ((('eq', True), ('frozen', True), ('init', True), ('repr', True), ('slots', False)),
     (('name', 'str', False), ('summary', 'str', False), ('has_xyz', 'bool', True)), (), (), False),
    'BuiltinValue(name: str, summary: str, has_xyz: bool = False)',
    syncc_frontend_builtins_BuiltinValue)


# syncc.frontend.catalogue.KindRule
def syncc_frontend_catalogue_KindRule(dflt, fact):

    def __init__(self, granularities, arg, arg_required, carries_values, summary):
        _set(self, 'granularities', granularities)
        _set(self, 'arg', arg)
        _set(self, 'arg_required', arg_required)
        _set(self, 'carries_values', carries_values)
        _set(self, 'summary', summary)

    def __repr__(self):
        return f"{self.__class__.__qualname__}(granularities={self.granularities!r}, arg={self.arg!r}, arg_required={self.arg_required!r}, carries_values={self.carries_values!r}, summary={self.summary!r})"

    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.granularities, self.arg, self.arg_required, self.carries_values, self.summary) == (other.granularities, other.arg, other.arg_required, other.carries_values, other.summary)
        return NotImplemented

    def __hash__(self):
        return hash((self.granularities, self.arg, self.arg_required, self.carries_values, self.summary))

    return {'__init__': __init__, '__repr__': __repr__, '__eq__': __eq__, '__hash__': __hash__}


METHODS['syncc.frontend.catalogue.KindRule'] = (
    ((('eq', True), ('frozen', True), ('init', True), ('repr', True), ('slots', False)),
     (('granularities', 'tuple[str, ...]', False), ('arg', 'str | None', False),
      ('arg_required', 'bool', False), ('carries_values', 'bool', False), ('summary', 'str', False)),
     (), (), False),
    'KindRule(granularities: tuple[str, ...], arg: str | None, arg_required: bool, carries_values: bool, summary: str)',
    syncc_frontend_catalogue_KindRule)


# syncc.frontend.catalogue.ImplParam
def syncc_frontend_catalogue_ImplParam(dflt, fact):

    def __init__(self, name, default):
        _set(self, 'name', name)
        _set(self, 'default', default)

    def __repr__(self):
        return f"{self.__class__.__qualname__}(name={self.name!r}, default={self.default!r})"

    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.name, self.default) == (other.name, other.default)
        return NotImplemented

    def __hash__(self):
        return hash((self.name, self.default))

    return {'__init__': __init__, '__repr__': __repr__, '__eq__': __eq__, '__hash__': __hash__}


METHODS['syncc.frontend.catalogue.ImplParam'] = (
    ((('eq', True), ('frozen', True), ('init', True), ('repr', True), ('slots', False)),
     (('name', 'str', False), ('default', 'int', False)), (), (), False),
    'ImplParam(name: str, default: int)',
    syncc_frontend_catalogue_ImplParam)


# syncc.frontend.catalogue.Implementation
def syncc_frontend_catalogue_Implementation(dflt, fact):
    d_abandonable = dflt['abandonable']
    d_permits = dflt['permits']
    d_lock_bits = dflt['lock_bits']
    d_warp_count = dflt['warp_count']
    d_counted = dflt['counted']
    d_closable = dflt['closable']
    d_ranges = dflt['ranges']
    d_constant_index = dflt['constant_index']
    d_whole_warps = dflt['whole_warps']
    d_vendable = dflt['vendable']

    def __init__(self, kind, name, placements, granularities, params, summary, source, abandonable=d_abandonable, permits=d_permits, lock_bits=d_lock_bits, warp_count=d_warp_count, counted=d_counted, closable=d_closable, ranges=d_ranges, constant_index=d_constant_index, whole_warps=d_whole_warps, vendable=d_vendable):
        _set(self, 'kind', kind)
        _set(self, 'name', name)
        _set(self, 'placements', placements)
        _set(self, 'granularities', granularities)
        _set(self, 'params', params)
        _set(self, 'summary', summary)
        _set(self, 'source', source)
        _set(self, 'abandonable', abandonable)
        _set(self, 'permits', permits)
        _set(self, 'lock_bits', lock_bits)
        _set(self, 'warp_count', warp_count)
        _set(self, 'counted', counted)
        _set(self, 'closable', closable)
        _set(self, 'ranges', ranges)
        _set(self, 'constant_index', constant_index)
        _set(self, 'whole_warps', whole_warps)
        _set(self, 'vendable', vendable)

    def __repr__(self):
        return f"{self.__class__.__qualname__}(kind={self.kind!r}, name={self.name!r}, placements={self.placements!r}, granularities={self.granularities!r}, params={self.params!r}, summary={self.summary!r}, source={self.source!r}, abandonable={self.abandonable!r}, permits={self.permits!r}, lock_bits={self.lock_bits!r}, warp_count={self.warp_count!r}, counted={self.counted!r}, closable={self.closable!r}, ranges={self.ranges!r}, constant_index={self.constant_index!r}, whole_warps={self.whole_warps!r}, vendable={self.vendable!r})"

    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.kind, self.name, self.placements, self.granularities, self.params, self.summary, self.source, self.abandonable, self.permits, self.lock_bits, self.warp_count, self.counted, self.closable, self.ranges, self.constant_index, self.whole_warps, self.vendable) == (other.kind, other.name, other.placements, other.granularities, other.params, other.summary, other.source, other.abandonable, other.permits, other.lock_bits, other.warp_count, other.counted, other.closable, other.ranges, other.constant_index, other.whole_warps, other.vendable)
        return NotImplemented

    def __hash__(self):
        return hash((self.kind, self.name, self.placements, self.granularities, self.params, self.summary, self.source, self.abandonable, self.permits, self.lock_bits, self.warp_count, self.counted, self.closable, self.ranges, self.constant_index, self.whole_warps, self.vendable))

    return {'__init__': __init__, '__repr__': __repr__, '__eq__': __eq__, '__hash__': __hash__}


METHODS['syncc.frontend.catalogue.Implementation'] = (
    ((('eq', True), ('frozen', True), ('init', True), ('repr', True), ('slots', False)),
     (('kind', 'str', False), ('name', 'str', False), ('placements', 'tuple[str, ...]', False),
      ('granularities', 'tuple[str, ...]', False), ('params', 'tuple[ImplParam, ...]', False),
      ('summary', 'str', False), ('source', 'str', False), ('abandonable', 'bool', True),
      ('permits', 'bool', True), ('lock_bits', 'bool', True), ('warp_count', 'bool | None', True),
      ('counted', 'bool', True), ('closable', 'bool', True), ('ranges', 'bool', True),
      ('constant_index', 'bool', True), ('whole_warps', 'bool', True), ('vendable', 'bool', True)),
     (), (), False),
    'Implementation(kind: str, name: str, placements: tuple[str, ...], granularities: tuple[str, ...], params: tuple[ImplParam, ...], summary: str, source: str, abandonable: bool = False, permits: bool = False, lock_bits: bool = False, warp_count: bool | None = None, counted: bool = False, closable: bool = False, ranges: bool = False, constant_index: bool = False, whole_warps: bool = False, vendable: bool = False)',
    syncc_frontend_catalogue_Implementation)


# syncc.frontend.symbols.Symbol
def syncc_frontend_symbols_Symbol(dflt, fact):
    d_decl = dflt['decl']
    d_mutable = dflt['mutable']
    d_info = dflt['info']

    def __init__(self, name, kind, type, decl=d_decl, mutable=d_mutable, info=d_info):
        self.name = name
        self.kind = kind
        self.type = type
        self.decl = decl
        self.mutable = mutable
        self.info = info

    def __repr__(self):
        return f"{self.__class__.__qualname__}(name={self.name!r}, kind={self.kind!r}, type={self.type!r}, decl={self.decl!r}, mutable={self.mutable!r}, info={self.info!r})"

    return {'__init__': __init__, '__repr__': __repr__}


METHODS['syncc.frontend.symbols.Symbol'] = (
    ((('eq', False), ('frozen', False), ('init', True), ('repr', True), ('slots', False)),
     (('name', 'str', False), ('kind', 'str', False), ('type', 'Any', False), ('decl', 'Any', True),
      ('mutable', 'bool', True), ('info', 'Any', True)),
     (), (), False),
    'Symbol(name: str, kind: str, type: Any, decl: Any = None, mutable: bool = False, info: Any = None)',
    syncc_frontend_symbols_Symbol)


# syncc.frontend.symbols.Position
def syncc_frontend_symbols_Position(dflt, fact):
    d_kernel = dflt['kernel']
    d_fn = dflt['fn']
    d_loops = dflt['loops']
    d_top_level = dflt['top_level']
    d_region = dflt['region']
    d_params = dflt['params']

    def __init__(self, where, scope, kernel=d_kernel, fn=d_fn, loops=d_loops, top_level=d_top_level, region=d_region, params=d_params):
        self.where = where
        self.scope = scope
        self.kernel = kernel
        self.fn = fn
        self.loops = loops
        self.top_level = top_level
        self.region = region
        self.params = params

    def __repr__(self):
        return f"{self.__class__.__qualname__}(where={self.where!r}, scope={self.scope!r}, kernel={self.kernel!r}, fn={self.fn!r}, loops={self.loops!r}, top_level={self.top_level!r}, region={self.region!r}, params={self.params!r})"

    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.where, self.scope, self.kernel, self.fn, self.loops, self.top_level, self.region, self.params) == (other.where, other.scope, other.kernel, other.fn, other.loops, other.top_level, other.region, other.params)
        return NotImplemented

    return {'__init__': __init__, '__repr__': __repr__, '__eq__': __eq__}


METHODS['syncc.frontend.symbols.Position'] = (
    ((('eq', True), ('frozen', False), ('init', True), ('repr', True), ('slots', False)),
     (('where', 'str', False), ('scope', 'Scope', False), ('kernel', "'KernelInfo | None'", True),
      ('fn', "'FnInfo | None'", True), ('loops', 'int', True), ('top_level', 'bool', True),
      ('region', 'str | None', True), ('params', 'tuple[str, ...]', True)),
     (), (), False),
    "Position(where: str, scope: Scope, kernel: 'KernelInfo | None' = None, fn: 'FnInfo | None' = None, loops: int = 0, top_level: bool = False, region: str | None = None, params: tuple[str, ...] = ())",
    syncc_frontend_symbols_Position)


# syncc.frontend.symbols.ConstInfo
def syncc_frontend_symbols_ConstInfo(dflt, fact):
    d_type = dflt['type']
    d_value = dflt['value']
    d_state = dflt['state']
    d_defined_by = dflt['defined_by']

    def __init__(self, decl, type=d_type, value=d_value, state=d_state, defined_by=d_defined_by):
        self.decl = decl
        self.type = type
        self.value = value
        self.state = state
        self.defined_by = defined_by

    def __repr__(self):
        return f"{self.__class__.__qualname__}(decl={self.decl!r}, type={self.type!r}, value={self.value!r}, state={self.state!r}, defined_by={self.defined_by!r})"

    return {'__init__': __init__, '__repr__': __repr__}


METHODS['syncc.frontend.symbols.ConstInfo'] = (
    ((('eq', False), ('frozen', False), ('init', True), ('repr', True), ('slots', False)),
     (('decl', 'A.Const', False), ('type', 'Any', True), ('value', 'int | bool | None', True),
      ('state', 'str', True), ('defined_by', 'str | None', True)),
     (), (), False),
    "ConstInfo(decl: A.Const, type: Any = None, value: int | bool | None = None, state: str = 'todo', defined_by: str | None = None)",
    syncc_frontend_symbols_ConstInfo)


# syncc.frontend.symbols.FnInfo
def syncc_frontend_symbols_FnInfo(dflt, fact):
    d_ret = dflt['ret']
    d_scope = dflt['scope']
    d_device_use = dflt['device_use']
    d_device_why = dflt['device_why']
    f_params = fact['params']
    f_calls = fact['calls']

    def __init__(self, decl, params=_FACTORY, ret=d_ret, scope=d_scope, calls=_FACTORY, device_use=d_device_use, device_why=d_device_why):
        self.decl = decl
        self.params = f_params() if params is _FACTORY else params
        self.ret = ret
        self.scope = scope
        self.calls = f_calls() if calls is _FACTORY else calls
        self.device_use = device_use
        self.device_why = device_why

    def __repr__(self):
        return f"{self.__class__.__qualname__}(decl={self.decl!r}, params={self.params!r}, ret={self.ret!r}, scope={self.scope!r}, calls={self.calls!r}, device_use={self.device_use!r}, device_why={self.device_why!r})"

    return {'__init__': __init__, '__repr__': __repr__}


METHODS['syncc.frontend.symbols.FnInfo'] = (
    ((('eq', False), ('frozen', False), ('init', True), ('repr', True), ('slots', False)),
     (('decl', 'A.Fn', False), ('params', 'list[Any]', (False, True, True, True, None, True, False)),
      ('ret', 'Any', True), ('scope', 'Scope | None', True),
      ('calls', "list[tuple['FnInfo', Span]]", (False, True, True, True, None, True, False)),
      ('device_use', 'Span | None', True), ('device_why', 'str', True)),
     (), (), False),
    "FnInfo(decl: A.Fn, params: list[Any] = <factory>, ret: Any = None, scope: Scope | None = None, calls: list[tuple['FnInfo', Span]] = <factory>, device_use: Span | None = None, device_why: str = '')",
    syncc_frontend_symbols_FnInfo)


# syncc.frontend.symbols.PrimInfo
def syncc_frontend_symbols_PrimInfo(dflt, fact):
    d_elem = dflt['elem']
    d_count = dflt['count']
    d_impl = dflt['impl']
    d_named = dflt['named']
    d_writers = dflt['writers']
    d_top_level = dflt['top_level']
    d_permits = dflt['permits']
    f_impl_params = fact['impl_params']

    def __init__(self, decl, kind, dims, placement, granularity, elem=d_elem, count=d_count, impl=d_impl, impl_params=_FACTORY, named=d_named, writers=d_writers, top_level=d_top_level, permits=d_permits):
        self.decl = decl
        self.kind = kind
        self.dims = dims
        self.placement = placement
        self.granularity = granularity
        self.elem = elem
        self.count = count
        self.impl = impl
        self.impl_params = f_impl_params() if impl_params is _FACTORY else impl_params
        self.named = named
        self.writers = writers
        self.top_level = top_level
        self.permits = permits

    def __repr__(self):
        return f"{self.__class__.__qualname__}(decl={self.decl!r}, kind={self.kind!r}, dims={self.dims!r}, placement={self.placement!r}, granularity={self.granularity!r}, elem={self.elem!r}, count={self.count!r}, impl={self.impl!r}, impl_params={self.impl_params!r}, named={self.named!r}, writers={self.writers!r}, top_level={self.top_level!r}, permits={self.permits!r})"

    return {'__init__': __init__, '__repr__': __repr__}


METHODS['syncc.frontend.symbols.PrimInfo'] = (
    ((('eq', False), ('frozen', False), ('init', True), ('repr', True), ('slots', False)),
     (('decl', 'A.PrimDecl', False), ('kind', 'str', False), ('dims', 'tuple[int, ...]', False),
      ('placement', 'str', False), ('granularity', 'str', False), ('elem', 'Any', True),
      ('count', 'int | None', True), ('impl', 'Implementation | None', True),
      ('impl_params', 'dict[str, int]', (False, True, True, True, None, True, False)),
      ('named', 'bool', True), ('writers', 'int', True), ('top_level', 'bool', True),
      ('permits', 'bool', True)),
     (), (), False),
    'PrimInfo(decl: A.PrimDecl, kind: str, dims: tuple[int, ...], placement: str, granularity: str, elem: Any = None, count: int | None = None, impl: Implementation | None = None, impl_params: dict[str, int] = <factory>, named: bool = False, writers: int = 1, top_level: bool = False, permits: bool = False)',
    syncc_frontend_symbols_PrimInfo)


# syncc.frontend.symbols.SharedInfo
def syncc_frontend_symbols_SharedInfo(dflt, fact):

    def __init__(self, decl, type):
        self.decl = decl
        self.type = type

    def __repr__(self):
        return f"{self.__class__.__qualname__}(decl={self.decl!r}, type={self.type!r})"

    return {'__init__': __init__, '__repr__': __repr__}


METHODS['syncc.frontend.symbols.SharedInfo'] = (
    ((('eq', False), ('frozen', False), ('init', True), ('repr', True), ('slots', False)),
     (('decl', 'A.SharedDecl', False), ('type', 'Any', False)), (), (), False),
    'SharedInfo(decl: A.SharedDecl, type: Any)',
    syncc_frontend_symbols_SharedInfo)


# syncc.frontend.symbols.KernelInfo
def syncc_frontend_symbols_KernelInfo(dflt, fact):
    d_grid = dflt['grid']
    d_block = dflt['block']
    d_supports = dflt['supports']
    f_params = fact['params']
    f_prims = fact['prims']
    f_shared = fact['shared']

    def __init__(self, decl, params=_FACTORY, grid=d_grid, block=d_block, prims=_FACTORY, supports=d_supports, shared=_FACTORY):
        self.decl = decl
        self.params = f_params() if params is _FACTORY else params
        self.grid = grid
        self.block = block
        self.prims = f_prims() if prims is _FACTORY else prims
        self.supports = supports
        self.shared = f_shared() if shared is _FACTORY else shared

    def __repr__(self):
        return f"{self.__class__.__qualname__}(decl={self.decl!r}, params={self.params!r}, grid={self.grid!r}, block={self.block!r}, prims={self.prims!r}, supports={self.supports!r}, shared={self.shared!r})"

    return {'__init__': __init__, '__repr__': __repr__}


METHODS['syncc.frontend.symbols.KernelInfo'] = (
    ((('eq', False), ('frozen', False), ('init', True), ('repr', True), ('slots', False)),
     (('decl', 'A.Kernel', False),
      ('params', 'list[tuple[str, Any]]', (False, True, True, True, None, True, False)),
      ('grid', 'tuple[int, int, int] | None', True), ('block', 'tuple[int, int, int] | None', True),
      ('prims', 'list[PrimInfo]', (False, True, True, True, None, True, False)),
      ('supports', 'Supported | None', True),
      ('shared', 'list[SharedInfo]', (False, True, True, True, None, True, False))),
     (), (), False),
    'KernelInfo(decl: A.Kernel, params: list[tuple[str, Any]] = <factory>, grid: tuple[int, int, int] | None = None, block: tuple[int, int, int] | None = None, prims: list[PrimInfo] = <factory>, supports: Supported | None = None, shared: list[SharedInfo] = <factory>)',
    syncc_frontend_symbols_KernelInfo)


# syncc.frontend.symbols.CheckedModule
def syncc_frontend_symbols_CheckedModule(dflt, fact):
    d_host = dflt['host']
    d_scope = dflt['scope']
    f_consts = fact['consts']
    f_fns = fact['fns']
    f_kernels = fact['kernels']
    f_prims = fact['prims']
    f_records = fact['records']
    f_imports = fact['imports']
    f_types = fact['types']
    f_refs = fact['refs']

    def __init__(self, path, program, is_module, consts=_FACTORY, fns=_FACTORY, kernels=_FACTORY, prims=_FACTORY, records=_FACTORY, host=d_host, imports=_FACTORY, scope=d_scope, types=_FACTORY, refs=_FACTORY):
        self.path = path
        self.program = program
        self.is_module = is_module
        self.consts = f_consts() if consts is _FACTORY else consts
        self.fns = f_fns() if fns is _FACTORY else fns
        self.kernels = f_kernels() if kernels is _FACTORY else kernels
        self.prims = f_prims() if prims is _FACTORY else prims
        self.records = f_records() if records is _FACTORY else records
        self.host = host
        self.imports = f_imports() if imports is _FACTORY else imports
        self.scope = scope
        self.types = f_types() if types is _FACTORY else types
        self.refs = f_refs() if refs is _FACTORY else refs

    def __repr__(self):
        return f"{self.__class__.__qualname__}(path={self.path!r}, program={self.program!r}, is_module={self.is_module!r}, consts={self.consts!r}, fns={self.fns!r}, kernels={self.kernels!r}, prims={self.prims!r}, records={self.records!r}, host={self.host!r}, imports={self.imports!r}, scope={self.scope!r}, types={self.types!r}, refs={self.refs!r})"

    return {'__init__': __init__, '__repr__': __repr__}


METHODS['syncc.frontend.symbols.CheckedModule'] = (
    ((('eq', False), ('frozen', False), ('init', True), ('repr', True), ('slots', False)),
     (('path', 'str', False), ('program', 'A.Program', False), ('is_module', 'bool', False),
      ('consts', 'dict[str, ConstInfo]', (False, True, True, True, None, True, False)),
      ('fns', 'dict[str, FnInfo]', (False, True, True, True, None, True, False)),
      ('kernels', 'dict[str, KernelInfo]', (False, True, True, True, None, True, False)),
      ('prims', 'dict[str, PrimInfo]', (False, True, True, True, None, True, False)),
      ('records', 'dict[str, Any]', (False, True, True, True, None, True, False)),
      ('host', 'A.Host | None', True),
      ('imports', "dict[str, 'CheckedModule']", (False, True, True, True, None, True, False)),
      ('scope', 'Scope | None', True),
      ('types', 'dict[Any, Any]', (False, True, True, True, None, True, False)),
      ('refs', 'dict[Any, Symbol]', (False, True, True, True, None, True, False))),
     (), (), False),
    "CheckedModule(path: str, program: A.Program, is_module: bool, consts: dict[str, ConstInfo] = <factory>, fns: dict[str, FnInfo] = <factory>, kernels: dict[str, KernelInfo] = <factory>, prims: dict[str, PrimInfo] = <factory>, records: dict[str, Any] = <factory>, host: A.Host | None = None, imports: dict[str, 'CheckedModule'] = <factory>, scope: Scope | None = None, types: dict[Any, Any] = <factory>, refs: dict[Any, Symbol] = <factory>)",
    syncc_frontend_symbols_CheckedModule)


# syncc.frontend.vending.Operation
def syncc_frontend_vending_Operation(dflt, fact):
    d_returns = dflt['returns']
    d_doc = dflt['doc']
    d_has_body = dflt['has_body']
    d_takes_value = dflt['takes_value']
    d_takes_count = dflt['takes_count']
    d_takes_permits = dflt['takes_permits']
    d_gives_value = dflt['gives_value']
    d_takes_values = dflt['takes_values']

    def __init__(self, name, statements, returns=d_returns, doc=d_doc, has_body=d_has_body, takes_value=d_takes_value, takes_count=d_takes_count, takes_permits=d_takes_permits, gives_value=d_gives_value, takes_values=d_takes_values):
        _set(self, 'name', name)
        _set(self, 'statements', statements)
        _set(self, 'returns', returns)
        _set(self, 'doc', doc)
        _set(self, 'has_body', has_body)
        _set(self, 'takes_value', takes_value)
        _set(self, 'takes_count', takes_count)
        _set(self, 'takes_permits', takes_permits)
        _set(self, 'gives_value', gives_value)
        _set(self, 'takes_values', takes_values)

    def __repr__(self):
        return f"{self.__class__.__qualname__}(name={self.name!r}, statements={self.statements!r}, returns={self.returns!r}, doc={self.doc!r}, has_body={self.has_body!r}, takes_value={self.takes_value!r}, takes_count={self.takes_count!r}, takes_permits={self.takes_permits!r}, gives_value={self.gives_value!r}, takes_values={self.takes_values!r})"

    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.name, self.statements, self.returns, self.doc, self.has_body, self.takes_value, self.takes_count, self.takes_permits, self.gives_value, self.takes_values) == (other.name, other.statements, other.returns, other.doc, other.has_body, other.takes_value, other.takes_count, other.takes_permits, other.gives_value, other.takes_values)
        return NotImplemented

    def __hash__(self):
        return hash((self.name, self.statements, self.returns, self.doc, self.has_body, self.takes_value, self.takes_count, self.takes_permits, self.gives_value, self.takes_values))

    return {'__init__': __init__, '__repr__': __repr__, '__eq__': __eq__, '__hash__': __hash__}


METHODS['syncc.frontend.vending.Operation'] = (
    ((('eq', True), ('frozen', True), ('init', True), ('repr', True), ('slots', False)),
     (('name', 'str', False), ('statements', 'Callable[[OperationBuilder], tuple]', False),
      ('returns', 'str | None', True), ('doc', 'str', True), ('has_body', 'bool', True),
      ('takes_value', 'bool', True), ('takes_count', 'bool', True), ('takes_permits', 'bool', True),
      ('gives_value', 'bool', True), ('takes_values', 'bool', True)),
     (), (), False),
    "Operation(name: str, statements: Callable[[OperationBuilder], tuple], returns: str | None = None, doc: str = '', has_body: bool = False, takes_value: bool = False, takes_count: bool = False, takes_permits: bool = False, gives_value: bool = False, takes_values: bool = False)",
    syncc_frontend_vending_Operation)


# syncc.frontend.vending.VendedOp
def syncc_frontend_vending_VendedOp(dflt, fact):

    def __init__(self, prim, op, kernel, written):
        _set(self, 'prim', prim)
        _set(self, 'op', op)
        _set(self, 'kernel', kernel)
        _set(self, 'written', written)

    def __repr__(self):
        return f"{self.__class__.__qualname__}(prim={self.prim!r}, op={self.op!r}, kernel={self.kernel!r}, written={self.written!r})"

    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.prim, self.op, self.kernel, self.written) == (other.prim, other.op, other.kernel, other.written)
        return NotImplemented

    def __hash__(self):
        return hash((self.prim, self.op, self.kernel, self.written))

    return {'__init__': __init__, '__repr__': __repr__, '__eq__': __eq__, '__hash__': __hash__}


METHODS['syncc.frontend.vending.VendedOp'] = (
    ((('eq', True), ('frozen', True), ('init', True), ('repr', True), ('slots', False)),
     (('prim', 'PrimInfo', False), ('op', 'Operation', False), ('kernel', 'str', False),
      ('written', 'str', False)),
     (), (), False),
    'VendedOp(prim: PrimInfo, op: Operation, kernel: str, written: str)',
    syncc_frontend_vending_VendedOp)


# syncc.ir.abi.Param
def syncc_ir_abi_Param(dflt, fact):
    d_dims = dflt['dims']
    d_init = dflt['init']
    d_per = dflt['per']

    def __init__(self, name, kind, elem, dims=d_dims, init=d_init, per=d_per):
        _set(self, 'name', name)
        _set(self, 'kind', kind)
        _set(self, 'elem', elem)
        _set(self, 'dims', dims)
        _set(self, 'init', init)
        _set(self, 'per', per)

    def __repr__(self):
        return f"{self.__class__.__qualname__}(name={self.name!r}, kind={self.kind!r}, elem={self.elem!r}, dims={self.dims!r}, init={self.init!r}, per={self.per!r})"

    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.name, self.kind, self.elem, self.dims, self.init, self.per) == (other.name, other.kind, other.elem, other.dims, other.init, other.per)
        return NotImplemented

    def __hash__(self):
        return hash((self.name, self.kind, self.elem, self.dims, self.init, self.per))

    return {'__init__': __init__, '__repr__': __repr__, '__eq__': __eq__, '__hash__': __hash__}


METHODS['syncc.ir.abi.Param'] = (
    ((('eq', True), ('frozen', True), ('init', True), ('repr', True), ('slots', False)),
     (('name', 'str', False), ('kind', 'str', False), ('elem', 'ScalarType', False),
      ('dims', 'tuple[int, ...]', True), ('init', 'int | None', True), ('per', 'str | None', True)),
     (), (), False),
    'Param(name: str, kind: str, elem: ScalarType, dims: tuple[int, ...] = (), init: int | None = None, per: str | None = None)',
    syncc_ir_abi_Param)


# syncc.ir.abi.KernelABI
def syncc_ir_abi_KernelABI(dflt, fact):
    d_dynamic_shared = dflt['dynamic_shared']

    def __init__(self, name, params, grid, block, dynamic_shared=d_dynamic_shared):
        _set(self, 'name', name)
        _set(self, 'params', params)
        _set(self, 'grid', grid)
        _set(self, 'block', block)
        _set(self, 'dynamic_shared', dynamic_shared)

    def __repr__(self):
        return f"{self.__class__.__qualname__}(name={self.name!r}, params={self.params!r}, grid={self.grid!r}, block={self.block!r}, dynamic_shared={self.dynamic_shared!r})"

    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.name, self.params, self.grid, self.block, self.dynamic_shared) == (other.name, other.params, other.grid, other.block, other.dynamic_shared)
        return NotImplemented

    def __hash__(self):
        return hash((self.name, self.params, self.grid, self.block, self.dynamic_shared))

    return {'__init__': __init__, '__repr__': __repr__, '__eq__': __eq__, '__hash__': __hash__}


METHODS['syncc.ir.abi.KernelABI'] = (
    ((('eq', True), ('frozen', True), ('init', True), ('repr', True), ('slots', False)),
     (('name', 'str', False), ('params', 'tuple[Param, ...]', False),
      ('grid', 'tuple[int, int, int] | None', False), ('block', 'tuple[int, int, int] | None', False),
      ('dynamic_shared', 'int', True)),
     (), (), False),
    'KernelABI(name: str, params: tuple[Param, ...], grid: tuple[int, int, int] | None, block: tuple[int, int, int] | None, dynamic_shared: int = 0)',
    syncc_ir_abi_KernelABI)


# syncc.ir.analysis.hand_locks.HandLock
def syncc_ir_analysis_hand_locks_HandLock(dflt, fact):

    def __init__(self, acquire, loop, release, release_at):
        _set(self, 'acquire', acquire)
        _set(self, 'loop', loop)
        _set(self, 'release', release)
        _set(self, 'release_at', release_at)

    def __repr__(self):
        return f"{self.__class__.__qualname__}(acquire={self.acquire!r}, loop={self.loop!r}, release={self.release!r}, release_at={self.release_at!r})"

    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.acquire, self.loop, self.release, self.release_at) == (other.acquire, other.loop, other.release, other.release_at)
        return NotImplemented

    def __hash__(self):
        return hash((self.acquire, self.loop, self.release, self.release_at))

    return {'__init__': __init__, '__repr__': __repr__, '__eq__': __eq__, '__hash__': __hash__}


METHODS['syncc.ir.analysis.hand_locks.HandLock'] = (
    ((('eq', True), ('frozen', True), ('init', True), ('repr', True), ('slots', False)),
     (('acquire', 'Instr', False), ('loop', 'Loop', False), ('release', 'Instr', False),
      ('release_at', 'tuple[str, int]', False)),
     (), (), False),
    'HandLock(acquire: Instr, loop: Loop, release: Instr, release_at: tuple[str, int])',
    syncc_ir_analysis_hand_locks_HandLock)


# syncc.ir.analysis.space.Shape
def syncc_ir_analysis_space_Shape(dflt, fact):
    d_args = dflt['args']
    d_where = dflt['where']

    def __init__(self, grid, block, args=d_args, where=d_where):
        _set(self, 'grid', grid)
        _set(self, 'block', block)
        _set(self, 'args', args)
        _set(self, 'where', where)

    def __repr__(self):
        return f"{self.__class__.__qualname__}(grid={self.grid!r}, block={self.block!r}, args={self.args!r}, where={self.where!r})"

    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.grid, self.block, self.args) == (other.grid, other.block, other.args)
        return NotImplemented

    def __hash__(self):
        return hash((self.grid, self.block, self.args))

    return {'__init__': __init__, '__repr__': __repr__, '__eq__': __eq__, '__hash__': __hash__}


METHODS['syncc.ir.analysis.space.Shape'] = (
    ((('eq', True), ('frozen', True), ('init', True), ('repr', True), ('slots', False)),
     (('grid', 'tuple[int, int, int]', False), ('block', 'tuple[int, int, int]', False),
      ('args', 'tuple[tuple[int, int], ...]', True),
      ('where', 'object', (True, False, True, True, None, False, False))),
     (), (), False),
    'Shape(grid: tuple[int, int, int], block: tuple[int, int, int], args: tuple[tuple[int, int], ...] = (), where: object = None)',
    syncc_ir_analysis_space_Shape)


# syncc.ir.analysis.space.Loop
def syncc_ir_analysis_space_Loop(dflt, fact):

    def __init__(self, head, blocks, exits):
        _set(self, 'head', head)
        _set(self, 'blocks', blocks)
        _set(self, 'exits', exits)

    def __repr__(self):
        return f"{self.__class__.__qualname__}(head={self.head!r}, blocks={self.blocks!r}, exits={self.exits!r})"

    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.head, self.blocks, self.exits) == (other.head, other.blocks, other.exits)
        return NotImplemented

    def __hash__(self):
        return hash((self.head, self.blocks, self.exits))

    return {'__init__': __init__, '__repr__': __repr__, '__eq__': __eq__, '__hash__': __hash__}


METHODS['syncc.ir.analysis.space.Loop'] = (
    ((('eq', True), ('frozen', True), ('init', True), ('repr', True), ('slots', False)),
     (('head', 'str', False), ('blocks', 'frozenset[str]', False),
      ('exits', 'tuple[tuple[str, str], ...]', False)),
     (), (), False),
    'Loop(head: str, blocks: frozenset[str], exits: tuple[tuple[str, str], ...])',
    syncc_ir_analysis_space_Loop)


# syncc.ir.analysis.space.Counted
def syncc_ir_analysis_space_Counted(dflt, fact):

    def __init__(self, loop, var, init, step, op, bound, var_first, early):
        _set(self, 'loop', loop)
        _set(self, 'var', var)
        _set(self, 'init', init)
        _set(self, 'step', step)
        _set(self, 'op', op)
        _set(self, 'bound', bound)
        _set(self, 'var_first', var_first)
        _set(self, 'early', early)

    def __repr__(self):
        return f"{self.__class__.__qualname__}(loop={self.loop!r}, var={self.var!r}, init={self.init!r}, step={self.step!r}, op={self.op!r}, bound={self.bound!r}, var_first={self.var_first!r}, early={self.early!r})"

    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.loop, self.var, self.init, self.step, self.op, self.bound, self.var_first, self.early) == (other.loop, other.var, other.init, other.step, other.op, other.bound, other.var_first, other.early)
        return NotImplemented

    def __hash__(self):
        return hash((self.loop, self.var, self.init, self.step, self.op, self.bound, self.var_first, self.early))

    return {'__init__': __init__, '__repr__': __repr__, '__eq__': __eq__, '__hash__': __hash__}


METHODS['syncc.ir.analysis.space.Counted'] = (
    ((('eq', True), ('frozen', True), ('init', True), ('repr', True), ('slots', False)),
     (('loop', 'Loop', False), ('var', 'str', False), ('init', 'object', False), ('step', 'int', False),
      ('op', 'str', False), ('bound', 'object', False), ('var_first', 'bool', False),
      ('early', 'bool', False)),
     (), (), False),
    'Counted(loop: Loop, var: str, init: object, step: int, op: str, bound: object, var_first: bool, early: bool)',
    syncc_ir_analysis_space_Counted)


# syncc.ir.analysis.space.Instances
def syncc_ir_analysis_space_Instances(dflt, fact):
    d_loops = dflt['loops']
    f_values = fact['values']

    def __init__(self, thread, iters, exact, counted, loops=d_loops, values=_FACTORY):
        self.thread = thread
        self.iters = iters
        self.exact = exact
        self.counted = counted
        self.loops = loops
        self.values = f_values() if values is _FACTORY else values

    def __repr__(self):
        return f"{self.__class__.__qualname__}(thread={self.thread!r}, iters={self.iters!r}, exact={self.exact!r}, counted={self.counted!r}, loops={self.loops!r})"

    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.thread, self.iters, self.exact, self.counted, self.loops, self.values) == (other.thread, other.iters, other.exact, other.counted, other.loops, other.values)
        return NotImplemented

    return {'__init__': __init__, '__repr__': __repr__, '__eq__': __eq__}


METHODS['syncc.ir.analysis.space.Instances'] = (
    ((('eq', True), ('frozen', False), ('init', True), ('repr', True), ('slots', False)),
     (('thread', 'list[int]', False), ('iters', 'dict[str, list[int]]', False),
      ('exact', 'bool', False), ('counted', 'bool', False), ('loops', 'tuple[str, ...]', True),
      ('values', 'dict', (False, True, True, False, None, True, False))),
     (), (), False),
    'Instances(thread: list[int], iters: dict[str, list[int]], exact: bool, counted: bool, loops: tuple[str, ...] = (), values: dict = <factory>)',
    syncc_ir_analysis_space_Instances)


# syncc.ir.analysis.uniformity.Form
def syncc_ir_analysis_uniformity_Form(dflt, fact):

    def __init__(self, terms, const):
        _set(self, 'terms', terms)
        _set(self, 'const', const)

    def __repr__(self):
        return f"{self.__class__.__qualname__}(terms={self.terms!r}, const={self.const!r})"

    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.terms, self.const) == (other.terms, other.const)
        return NotImplemented

    def __hash__(self):
        return hash((self.terms, self.const))

    return {'__init__': __init__, '__repr__': __repr__, '__eq__': __eq__, '__hash__': __hash__}


METHODS['syncc.ir.analysis.uniformity.Form'] = (
    ((('eq', True), ('frozen', True), ('init', True), ('repr', True), ('slots', False)),
     (('terms', 'tuple[tuple[str, int], ...]', False), ('const', 'int', False)), (), (), False),
    'Form(terms: tuple[tuple[str, int], ...], const: int)',
    syncc_ir_analysis_uniformity_Form)


# syncc.ir.checks.held.Held
def syncc_ir_checks_held_Held(dflt, fact):

    def __init__(self, prim, index, value, site):
        _set(self, 'prim', prim)
        _set(self, 'index', index)
        _set(self, 'value', value)
        _set(self, 'site', site)

    def __repr__(self):
        return f"{self.__class__.__qualname__}(prim={self.prim!r}, index={self.index!r}, value={self.value!r}, site={self.site!r})"

    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.prim, self.index, self.value, self.site) == (other.prim, other.index, other.value, other.site)
        return NotImplemented

    def __hash__(self):
        return hash((self.prim, self.index, self.value, self.site))

    return {'__init__': __init__, '__repr__': __repr__, '__eq__': __eq__, '__hash__': __hash__}


METHODS['syncc.ir.checks.held.Held'] = (
    ((('eq', True), ('frozen', True), ('init', True), ('repr', True), ('slots', False)),
     (('prim', 'str', False), ('index', 'object', False), ('value', 'object', False),
      ('site', 'Instr', False)),
     (), (), False),
    'Held(prim: str, index: object, value: object, site: Instr)',
    syncc_ir_checks_held_Held)


# syncc.ir.checks.locks.Replay
def syncc_ir_checks_locks_Replay(dflt, fact):

    def __init__(self, names, relocks, nests, unpaired, left):
        _set(self, 'names', names)
        _set(self, 'relocks', relocks)
        _set(self, 'nests', nests)
        _set(self, 'unpaired', unpaired)
        _set(self, 'left', left)

    def __repr__(self):
        return f"{self.__class__.__qualname__}(names={self.names!r}, relocks={self.relocks!r}, nests={self.nests!r}, unpaired={self.unpaired!r}, left={self.left!r})"

    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.names, self.relocks, self.nests, self.unpaired, self.left) == (other.names, other.relocks, other.nests, other.unpaired, other.left)
        return NotImplemented

    def __hash__(self):
        return hash((self.names, self.relocks, self.nests, self.unpaired, self.left))

    return {'__init__': __init__, '__repr__': __repr__, '__eq__': __eq__, '__hash__': __hash__}


METHODS['syncc.ir.checks.locks.Replay'] = (
    ((('eq', True), ('frozen', True), ('init', True), ('repr', True), ('slots', False)),
     (('names', 'frozenset[str]', False), ('relocks', 'dict', False), ('nests', 'dict', False),
      ('unpaired', 'frozenset[int]', False), ('left', 'dict', False)),
     (), (), False),
    'Replay(names: frozenset[str], relocks: dict, nests: dict, unpaired: frozenset[int], left: dict)',
    syncc_ir_checks_locks_Replay)


# syncc.ir.checks.retries.Retry
def syncc_ir_checks_retries_Retry(dflt, fact):

    def __init__(self, loop, attempt, label, entry, after, once):
        _set(self, 'loop', loop)
        _set(self, 'attempt', attempt)
        _set(self, 'label', label)
        _set(self, 'entry', entry)
        _set(self, 'after', after)
        _set(self, 'once', once)

    def __repr__(self):
        return f"{self.__class__.__qualname__}(loop={self.loop!r}, attempt={self.attempt!r}, label={self.label!r}, entry={self.entry!r}, after={self.after!r}, once={self.once!r})"

    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.loop, self.attempt, self.label, self.entry, self.after, self.once) == (other.loop, other.attempt, other.label, other.entry, other.after, other.once)
        return NotImplemented

    def __hash__(self):
        return hash((self.loop, self.attempt, self.label, self.entry, self.after, self.once))

    return {'__init__': __init__, '__repr__': __repr__, '__eq__': __eq__, '__hash__': __hash__}


METHODS['syncc.ir.checks.retries.Retry'] = (
    ((('eq', True), ('frozen', True), ('init', True), ('repr', True), ('slots', False)),
     (('loop', 'Loop', False), ('attempt', 'Instr', False), ('label', 'str', False),
      ('entry', 'str', False), ('after', 'frozenset[str]', False), ('once', 'bool', False)),
     (), (), False),
    'Retry(loop: Loop, attempt: Instr, label: str, entry: str, after: frozenset[str], once: bool)',
    syncc_ir_checks_retries_Retry)


# syncc.ir.checks.waitfor.Blocking
def syncc_ir_checks_waitfor_Blocking(dflt, fact):

    def __init__(self, site, label, kind, what, providers, verb):
        _set(self, 'site', site)
        _set(self, 'label', label)
        _set(self, 'kind', kind)
        _set(self, 'what', what)
        _set(self, 'providers', providers)
        _set(self, 'verb', verb)

    def __repr__(self):
        return f"{self.__class__.__qualname__}(site={self.site!r}, label={self.label!r}, kind={self.kind!r}, what={self.what!r}, providers={self.providers!r}, verb={self.verb!r})"

    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.site, self.label, self.kind, self.what, self.providers, self.verb) == (other.site, other.label, other.kind, other.what, other.providers, other.verb)
        return NotImplemented

    def __hash__(self):
        return hash((self.site, self.label, self.kind, self.what, self.providers, self.verb))

    return {'__init__': __init__, '__repr__': __repr__, '__eq__': __eq__, '__hash__': __hash__}


METHODS['syncc.ir.checks.waitfor.Blocking'] = (
    ((('eq', True), ('frozen', True), ('init', True), ('repr', True), ('slots', False)),
     (('site', 'Instr', False), ('label', 'str', False), ('kind', 'str', False), ('what', 'str', False),
      ('providers', 'tuple', False), ('verb', 'str', False)),
     (), (), False),
    'Blocking(site: Instr, label: str, kind: str, what: str, providers: tuple, verb: str)',
    syncc_ir_checks_waitfor_Blocking)


# syncc.ir.checks.waits.Wait
def syncc_ir_checks_waits_Wait(dflt, fact):

    def __init__(self, site, label, inside, releases, hand_written, syncwarp):
        _set(self, 'site', site)
        _set(self, 'label', label)
        _set(self, 'inside', inside)
        _set(self, 'releases', releases)
        _set(self, 'hand_written', hand_written)
        _set(self, 'syncwarp', syncwarp)

    def __repr__(self):
        return f"{self.__class__.__qualname__}(site={self.site!r}, label={self.label!r}, inside={self.inside!r}, releases={self.releases!r}, hand_written={self.hand_written!r}, syncwarp={self.syncwarp!r})"

    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.site, self.label, self.inside, self.releases, self.hand_written, self.syncwarp) == (other.site, other.label, other.inside, other.releases, other.hand_written, other.syncwarp)
        return NotImplemented

    def __hash__(self):
        return hash((self.site, self.label, self.inside, self.releases, self.hand_written, self.syncwarp))

    return {'__init__': __init__, '__repr__': __repr__, '__eq__': __eq__, '__hash__': __hash__}


METHODS['syncc.ir.checks.waits.Wait'] = (
    ((('eq', True), ('frozen', True), ('init', True), ('repr', True), ('slots', False)),
     (('site', 'Instr', False), ('label', 'str', False), ('inside', 'frozenset[str]', False),
      ('releases', 'tuple[str, ...]', False), ('hand_written', 'bool', False),
      ('syncwarp', 'bool', False)),
     (), (), False),
    'Wait(site: Instr, label: str, inside: frozenset[str], releases: tuple[str, ...], hand_written: bool, syncwarp: bool)',
    syncc_ir_checks_waits_Wait)


# syncc.ir.context.Remark
def syncc_ir_context_Remark(dflt, fact):
    d_span = dflt['span']
    d_key = dflt['key']

    def __init__(self, kernel, topic, message, span=d_span, key=d_key):
        _set(self, 'kernel', kernel)
        _set(self, 'topic', topic)
        _set(self, 'message', message)
        _set(self, 'span', span)
        _set(self, 'key', key)

    def __repr__(self):
        return f"{self.__class__.__qualname__}(kernel={self.kernel!r}, topic={self.topic!r}, message={self.message!r}, span={self.span!r}, key={self.key!r})"

    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.kernel, self.topic, self.message, self.span, self.key) == (other.kernel, other.topic, other.message, other.span, other.key)
        return NotImplemented

    def __hash__(self):
        return hash((self.kernel, self.topic, self.message, self.span, self.key))

    return {'__init__': __init__, '__repr__': __repr__, '__eq__': __eq__, '__hash__': __hash__}


METHODS['syncc.ir.context.Remark'] = (
    ((('eq', True), ('frozen', True), ('init', True), ('repr', True), ('slots', False)),
     (('kernel', 'str', False), ('topic', 'str', False), ('message', 'str', False),
      ('span', 'Span | None', True), ('key', 'tuple | None', True)),
     (), (), False),
    'Remark(kernel: str, topic: str, message: str, span: Span | None = None, key: tuple | None = None)',
    syncc_ir_context_Remark)


# syncc.ir.context.PassContext
def syncc_ir_context_PassContext(dflt, fact):
    d_target = dflt['target']
    d_opt = dflt['opt']
    d_minimize_fences = dflt['minimize_fences']
    d_fences = dflt['fences']
    d_syncwarp = dflt['syncwarp']
    d_hazards = dflt['hazards']
    d_bounds_checks = dflt['bounds_checks']
    d_omit = dflt['omit']
    d_vending = dflt['vending']
    f_sink = fact['sink']
    f_remarks = fact['remarks']
    f_launches = fact['launches']
    f_supports = fact['supports']
    f_checked = fact['checked']
    f_verify_each = fact['verify_each']

    def __init__(self, target=d_target, opt=d_opt, sink=_FACTORY, remarks=_FACTORY, minimize_fences=d_minimize_fences, fences=d_fences, syncwarp=d_syncwarp, hazards=d_hazards, bounds_checks=d_bounds_checks, omit=d_omit, launches=_FACTORY, supports=_FACTORY, checked=_FACTORY, verify_each=_FACTORY, vending=d_vending):
        self.target = target
        self.opt = opt
        self.sink = f_sink() if sink is _FACTORY else sink
        self.remarks = f_remarks() if remarks is _FACTORY else remarks
        self.minimize_fences = minimize_fences
        self.fences = fences
        self.syncwarp = syncwarp
        self.hazards = hazards
        self.bounds_checks = bounds_checks
        self.omit = omit
        self.launches = f_launches() if launches is _FACTORY else launches
        self.supports = f_supports() if supports is _FACTORY else supports
        self.checked = f_checked() if checked is _FACTORY else checked
        self.verify_each = f_verify_each() if verify_each is _FACTORY else verify_each
        self.vending = vending

    def __repr__(self):
        return f"{self.__class__.__qualname__}(target={self.target!r}, opt={self.opt!r}, sink={self.sink!r}, remarks={self.remarks!r}, minimize_fences={self.minimize_fences!r}, fences={self.fences!r}, syncwarp={self.syncwarp!r}, hazards={self.hazards!r}, bounds_checks={self.bounds_checks!r}, omit={self.omit!r}, launches={self.launches!r}, supports={self.supports!r}, checked={self.checked!r}, verify_each={self.verify_each!r}, vending={self.vending!r})"

    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.target, self.opt, self.sink, self.remarks, self.minimize_fences, self.fences, self.syncwarp, self.hazards, self.bounds_checks, self.omit, self.launches, self.supports, self.checked, self.verify_each, self.vending) == (other.target, other.opt, other.sink, other.remarks, other.minimize_fences, other.fences, other.syncwarp, other.hazards, other.bounds_checks, other.omit, other.launches, other.supports, other.checked, other.verify_each, other.vending)
        return NotImplemented

    return {'__init__': __init__, '__repr__': __repr__, '__eq__': __eq__}


METHODS['syncc.ir.context.PassContext'] = (
    ((('eq', True), ('frozen', False), ('init', True), ('repr', True), ('slots', False)),
     (('target', 'MachineModel', True), ('opt', 'int', True),
      ('sink', 'DiagnosticSink', (False, True, True, True, None, True, False)),
      ('remarks', 'list[Remark]', (False, True, True, True, None, True, False)),
      ('minimize_fences', 'bool', True), ('fences', 'bool', True), ('syncwarp', 'bool', True),
      ('hazards', 'bool', True), ('bounds_checks', 'bool', True), ('omit', 'frozenset', True),
      ('launches', 'dict', (False, True, True, True, None, True, False)),
      ('supports', 'dict', (False, True, True, True, None, True, False)),
      ('checked', 'dict', (False, True, True, True, None, True, False)),
      ('verify_each', 'bool', (False, True, True, True, None, True, False)),
      ('vending', 'bool', True)),
     (), (), False),
    "PassContext(target: MachineModel = MachineModel(name='ptx', title='PTX for sm_70 to sm_90, independent thread scheduling', its=True, lock_bits=None, lock_word_stride=1024, named_barriers=16, sms=132, max_blocks_per_sm=32, max_threads_per_sm=2048, ordered_atomics=True, mbarrier=True, wide_slots=True, unroll_counted_loops=True, defaults_of=None, brief='sm_70+, independent thread scheduling'), opt: int = 2, sink: DiagnosticSink = <factory>, remarks: list[Remark] = <factory>, minimize_fences: bool = True, fences: bool = True, syncwarp: bool = True, hazards: bool = True, bounds_checks: bool = True, omit: frozenset = frozenset(), launches: dict = <factory>, supports: dict = <factory>, checked: dict = <factory>, verify_each: bool = <factory>, vending: bool = False)",
    syncc_ir_context_PassContext)


# syncc.ir.faults.CheckSite
def syncc_ir_faults_CheckSite(dflt, fact):
    d_permits = dflt['permits']
    d_queue = dflt['queue']
    d_capacity = dflt['capacity']

    def __init__(self, site, array, length, span, permits=d_permits, queue=d_queue, capacity=d_capacity):
        _set(self, 'site', site)
        _set(self, 'array', array)
        _set(self, 'length', length)
        _set(self, 'span', span)
        _set(self, 'permits', permits)
        _set(self, 'queue', queue)
        _set(self, 'capacity', capacity)

    def __repr__(self):
        return f"{self.__class__.__qualname__}(site={self.site!r}, array={self.array!r}, length={self.length!r}, span={self.span!r}, permits={self.permits!r}, queue={self.queue!r}, capacity={self.capacity!r})"

    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.site, self.array, self.length, self.span, self.permits, self.queue, self.capacity) == (other.site, other.array, other.length, other.span, other.permits, other.queue, other.capacity)
        return NotImplemented

    def __hash__(self):
        return hash((self.site, self.array, self.length, self.span, self.permits, self.queue, self.capacity))

    return {'__init__': __init__, '__repr__': __repr__, '__eq__': __eq__, '__hash__': __hash__}


METHODS['syncc.ir.faults.CheckSite'] = (
    ((('eq', True), ('frozen', True), ('init', True), ('repr', True), ('slots', False)),
     (('site', 'int', False), ('array', 'str', False), ('length', 'int | None', False),
      ('span', 'Span | None', False), ('permits', 'bool', True), ('queue', 'str | None', True),
      ('capacity', 'int | None', True)),
     (), (), False),
    'CheckSite(site: int, array: str, length: int | None, span: Span | None, permits: bool = False, queue: str | None = None, capacity: int | None = None)',
    syncc_ir_faults_CheckSite)


# syncc.ir.impls.queue.base.QueueParts
def syncc_ir_impls_queue_base_QueueParts(dflt, fact):
    d_granularity = dflt['granularity']
    d_members = dflt['members']
    d_wide = dflt['wide']
    d_pool = dflt['pool']

    def __init__(self, name, capacity, elem, dims, impl, placement, writers, span, granularity=d_granularity, members=d_members, wide=d_wide, pool=d_pool):
        _set(self, 'name', name)
        _set(self, 'capacity', capacity)
        _set(self, 'elem', elem)
        _set(self, 'dims', dims)
        _set(self, 'impl', impl)
        _set(self, 'placement', placement)
        _set(self, 'writers', writers)
        _set(self, 'span', span)
        _set(self, 'granularity', granularity)
        _set(self, 'members', members)
        _set(self, 'wide', wide)
        _set(self, 'pool', pool)

    def __repr__(self):
        return f"{self.__class__.__qualname__}(name={self.name!r}, capacity={self.capacity!r}, elem={self.elem!r}, dims={self.dims!r}, impl={self.impl!r}, placement={self.placement!r}, writers={self.writers!r}, span={self.span!r}, granularity={self.granularity!r}, members={self.members!r}, wide={self.wide!r}, pool={self.pool!r})"

    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.name, self.capacity, self.elem, self.dims, self.impl, self.placement, self.writers, self.span, self.granularity, self.members, self.wide, self.pool) == (other.name, other.capacity, other.elem, other.dims, other.impl, other.placement, other.writers, other.span, other.granularity, other.members, other.wide, other.pool)
        return NotImplemented

    def __hash__(self):
        return hash((self.name, self.capacity, self.elem, self.dims, self.impl, self.placement, self.writers, self.span, self.granularity, self.members, self.wide, self.pool))

    return {'__init__': __init__, '__repr__': __repr__, '__eq__': __eq__, '__hash__': __hash__}


METHODS['syncc.ir.impls.queue.base.QueueParts'] = (
    ((('eq', True), ('frozen', True), ('init', True), ('repr', True), ('slots', False)),
     (('name', 'str', False), ('capacity', 'int', False), ('elem', 'ScalarType', False),
      ('dims', 'tuple[int, ...]', False), ('impl', 'str', False), ('placement', 'str', False),
      ('writers', 'int', False), ('span', 'object', False), ('granularity', 'str', True),
      ('members', 'int', True), ('wide', 'bool', True), ('pool', 'bool', True)),
     (), (), False),
    "QueueParts(name: str, capacity: int, elem: ScalarType, dims: tuple[int, ...], impl: str, placement: str, writers: int, span: object, granularity: str = 'thread', members: int = 1, wide: bool = False, pool: bool = False)",
    syncc_ir_impls_queue_base_QueueParts)


# syncc.ir.inlined.InlinedSpan
def syncc_ir_inlined_InlinedSpan(dflt, fact):
    d_calls = dflt['calls']

    def __init__(self, file, start, end, line, col, end_line, end_col, calls=d_calls):
        _set(self, 'file', file)
        _set(self, 'start', start)
        _set(self, 'end', end)
        _set(self, 'line', line)
        _set(self, 'col', col)
        _set(self, 'end_line', end_line)
        _set(self, 'end_col', end_col)
        _set(self, 'calls', calls)

    def __repr__(self):
        return f"{self.__class__.__qualname__}(file={self.file!r}, start={self.start!r}, end={self.end!r}, line={self.line!r}, col={self.col!r}, end_line={self.end_line!r}, end_col={self.end_col!r}, calls={self.calls!r})"

    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.file, self.start, self.end, self.line, self.col, self.end_line, self.end_col, self.calls) == (other.file, other.start, other.end, other.line, other.col, other.end_line, other.end_col, other.calls)
        return NotImplemented

    def __hash__(self):
        return hash((self.file, self.start, self.end, self.line, self.col, self.end_line, self.end_col, self.calls))

    return {'__init__': __init__, '__repr__': __repr__, '__eq__': __eq__, '__hash__': __hash__}


METHODS['syncc.ir.inlined.InlinedSpan'] = (
    ((('eq', True), ('frozen', True), ('init', True), ('repr', True), ('slots', True)),
     (('calls', 'tuple[tuple[Span, str], ...]', True),),
     (('file', (False, False, True, True, None, True, False)),
      ('start', (False, False, True, True, None, True, False)),
      ('end', (False, False, True, True, None, True, False)),
      ('line', (False, False, True, True, None, True, False)),
      ('col', (False, False, True, True, None, True, False)),
      ('end_line', (False, False, True, True, None, True, False)),
      ('end_col', (False, False, True, True, None, True, False))),
     (), False),
    'InlinedSpan(file: str, start: int, end: int, line: int, col: int, end_line: int, end_col: int, calls: tuple[tuple[Span, str], ...] = ())',
    syncc_ir_inlined_InlinedSpan)


# syncc.ir.machine_model.MachineModel
def syncc_ir_machine_model_MachineModel(dflt, fact):
    d_lock_word_stride = dflt['lock_word_stride']
    d_named_barriers = dflt['named_barriers']
    d_sms = dflt['sms']
    d_max_blocks_per_sm = dflt['max_blocks_per_sm']
    d_max_threads_per_sm = dflt['max_threads_per_sm']
    d_ordered_atomics = dflt['ordered_atomics']
    d_mbarrier = dflt['mbarrier']
    d_wide_slots = dflt['wide_slots']
    d_unroll_counted_loops = dflt['unroll_counted_loops']
    d_defaults_of = dflt['defaults_of']
    d_brief = dflt['brief']

    def __init__(self, name, title, its, lock_bits, lock_word_stride=d_lock_word_stride, named_barriers=d_named_barriers, sms=d_sms, max_blocks_per_sm=d_max_blocks_per_sm, max_threads_per_sm=d_max_threads_per_sm, ordered_atomics=d_ordered_atomics, mbarrier=d_mbarrier, wide_slots=d_wide_slots, unroll_counted_loops=d_unroll_counted_loops, defaults_of=d_defaults_of, brief=d_brief):
        _set(self, 'name', name)
        _set(self, 'title', title)
        _set(self, 'its', its)
        _set(self, 'lock_bits', lock_bits)
        _set(self, 'lock_word_stride', lock_word_stride)
        _set(self, 'named_barriers', named_barriers)
        _set(self, 'sms', sms)
        _set(self, 'max_blocks_per_sm', max_blocks_per_sm)
        _set(self, 'max_threads_per_sm', max_threads_per_sm)
        _set(self, 'ordered_atomics', ordered_atomics)
        _set(self, 'mbarrier', mbarrier)
        _set(self, 'wide_slots', wide_slots)
        _set(self, 'unroll_counted_loops', unroll_counted_loops)
        _set(self, 'defaults_of', defaults_of)
        _set(self, 'brief', brief)

    def __repr__(self):
        return f"{self.__class__.__qualname__}(name={self.name!r}, title={self.title!r}, its={self.its!r}, lock_bits={self.lock_bits!r}, lock_word_stride={self.lock_word_stride!r}, named_barriers={self.named_barriers!r}, sms={self.sms!r}, max_blocks_per_sm={self.max_blocks_per_sm!r}, max_threads_per_sm={self.max_threads_per_sm!r}, ordered_atomics={self.ordered_atomics!r}, mbarrier={self.mbarrier!r}, wide_slots={self.wide_slots!r}, unroll_counted_loops={self.unroll_counted_loops!r}, defaults_of={self.defaults_of!r}, brief={self.brief!r})"

    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.name, self.title, self.its, self.lock_bits, self.lock_word_stride, self.named_barriers, self.sms, self.max_blocks_per_sm, self.max_threads_per_sm, self.ordered_atomics, self.mbarrier, self.wide_slots, self.unroll_counted_loops, self.defaults_of, self.brief) == (other.name, other.title, other.its, other.lock_bits, other.lock_word_stride, other.named_barriers, other.sms, other.max_blocks_per_sm, other.max_threads_per_sm, other.ordered_atomics, other.mbarrier, other.wide_slots, other.unroll_counted_loops, other.defaults_of, other.brief)
        return NotImplemented

    def __hash__(self):
        return hash((self.name, self.title, self.its, self.lock_bits, self.lock_word_stride, self.named_barriers, self.sms, self.max_blocks_per_sm, self.max_threads_per_sm, self.ordered_atomics, self.mbarrier, self.wide_slots, self.unroll_counted_loops, self.defaults_of, self.brief))

    return {'__init__': __init__, '__repr__': __repr__, '__eq__': __eq__, '__hash__': __hash__}


METHODS['syncc.ir.machine_model.MachineModel'] = (
    ((('eq', True), ('frozen', True), ('init', True), ('repr', True), ('slots', False)),
     (('name', 'str', False), ('title', 'str', False), ('its', 'bool', False),
      ('lock_bits', 'int | None', False), ('lock_word_stride', 'int', True),
      ('named_barriers', 'int', True), ('sms', 'int', True), ('max_blocks_per_sm', 'int', True),
      ('max_threads_per_sm', 'int', True), ('ordered_atomics', 'bool', True),
      ('mbarrier', 'bool', True), ('wide_slots', 'bool', True), ('unroll_counted_loops', 'bool', True),
      ('defaults_of', 'str | None', True), ('brief', 'str', True)),
     (), (), False),
    "MachineModel(name: str, title: str, its: bool, lock_bits: int | None, lock_word_stride: int = 1024, named_barriers: int = 16, sms: int = 1, max_blocks_per_sm: int = 8, max_threads_per_sm: int = 1536, ordered_atomics: bool = False, mbarrier: bool = False, wide_slots: bool = False, unroll_counted_loops: bool = False, defaults_of: str | None = None, brief: str = '')",
    syncc_ir_machine_model_MachineModel)


# syncc.ir.nodes.Reg
def syncc_ir_nodes_Reg(dflt, fact):

    def __init__(self, name, type):
        _set(self, 'name', name)
        _set(self, 'type', type)

    def __repr__(self):
        return f"{self.__class__.__qualname__}(name={self.name!r}, type={self.type!r})"

    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.name, self.type) == (other.name, other.type)
        return NotImplemented

    def __hash__(self):
        return hash((self.name, self.type))

    return {'__init__': __init__, '__repr__': __repr__, '__eq__': __eq__, '__hash__': __hash__}


METHODS['syncc.ir.nodes.Reg'] = (
    ((('eq', True), ('frozen', True), ('init', True), ('repr', True), ('slots', True)),
     (('name', 'str', False), ('type', 'ScalarType', False)), (), (), False),
    'Reg(name: str, type: ScalarType)',
    syncc_ir_nodes_Reg)


# syncc.ir.nodes.Imm
def syncc_ir_nodes_Imm(dflt, fact):

    def __init__(self, value, type):
        _set(self, 'value', value)
        _set(self, 'type', type)

    def __repr__(self):
        return f"{self.__class__.__qualname__}(value={self.value!r}, type={self.type!r})"

    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.value, self.type) == (other.value, other.type)
        return NotImplemented

    def __hash__(self):
        return hash((self.value, self.type))

    return {'__init__': __init__, '__repr__': __repr__, '__eq__': __eq__, '__hash__': __hash__}


METHODS['syncc.ir.nodes.Imm'] = (
    ((('eq', True), ('frozen', True), ('init', True), ('repr', True), ('slots', True)),
     (('value', 'int | bool | float', False), ('type', 'ScalarType', False)), (), (), False),
    'Imm(value: int | bool | float, type: ScalarType)',
    syncc_ir_nodes_Imm)


# syncc.ir.nodes.Ref
def syncc_ir_nodes_Ref(dflt, fact):
    d_field = dflt['field']

    def __init__(self, name, index, field=d_field):
        _set(self, 'name', name)
        _set(self, 'index', index)
        _set(self, 'field', field)

    def __repr__(self):
        return f"{self.__class__.__qualname__}(name={self.name!r}, index={self.index!r}, field={self.field!r})"

    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.name, self.index, self.field) == (other.name, other.index, other.field)
        return NotImplemented

    def __hash__(self):
        return hash((self.name, self.index, self.field))

    return {'__init__': __init__, '__repr__': __repr__, '__eq__': __eq__, '__hash__': __hash__}


METHODS['syncc.ir.nodes.Ref'] = (
    ((('eq', True), ('frozen', True), ('init', True), ('repr', True), ('slots', True)),
     (('name', 'str', False), ('index', 'Union[Reg, Imm]', False), ('field', 'str | None', True)), (),
     (), False),
    'Ref(name: str, index: Union[Reg, Imm], field: str | None = None)',
    syncc_ir_nodes_Ref)


# syncc.ir.nodes.Instr
def syncc_ir_nodes_Instr(dflt, fact):
    d_attrs = dflt['attrs']
    d_span = dflt['span']

    def __init__(self, op, dests, args, attrs=d_attrs, span=d_span):
        _set(self, 'op', op)
        _set(self, 'dests', dests)
        _set(self, 'args', args)
        _set(self, 'attrs', attrs)
        _set(self, 'span', span)

    def __repr__(self):
        return f"{self.__class__.__qualname__}(op={self.op!r}, dests={self.dests!r}, args={self.args!r}, attrs={self.attrs!r}, span={self.span!r})"

    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.op, self.dests, self.args, self.attrs) == (other.op, other.dests, other.args, other.attrs)
        return NotImplemented

    def __hash__(self):
        return hash((self.op, self.dests, self.args, self.attrs))

    return {'__init__': __init__, '__repr__': __repr__, '__eq__': __eq__, '__hash__': __hash__}


METHODS['syncc.ir.nodes.Instr'] = (
    ((('eq', True), ('frozen', True), ('init', True), ('repr', True), ('slots', True)),
     (('op', 'str', False), ('dests', 'tuple[Reg, ...]', False), ('args', 'tuple[Operand, ...]', False),
      ('attrs', 'tuple[tuple[str, object], ...]', True),
      ('span', 'Span | None', (True, False, True, True, None, False, False))),
     (), (), False),
    'Instr(op: str, dests: tuple[Reg, ...], args: tuple[Operand, ...], attrs: tuple[tuple[str, object], ...] = (), span: Span | None = None)',
    syncc_ir_nodes_Instr)


# syncc.ir.nodes.Jump
def syncc_ir_nodes_Jump(dflt, fact):
    d_span = dflt['span']

    def __init__(self, target, span=d_span):
        _set(self, 'target', target)
        _set(self, 'span', span)

    def __repr__(self):
        return f"{self.__class__.__qualname__}(target={self.target!r}, span={self.span!r})"

    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.target,) == (other.target,)
        return NotImplemented

    def __hash__(self):
        return hash((self.target,))

    return {'__init__': __init__, '__repr__': __repr__, '__eq__': __eq__, '__hash__': __hash__}


METHODS['syncc.ir.nodes.Jump'] = (
    ((('eq', True), ('frozen', True), ('init', True), ('repr', True), ('slots', True)),
     (('target', 'str', False), ('span', 'Span | None', (True, False, True, True, None, False, False))),
     (), (), False),
    'Jump(target: str, span: Span | None = None)',
    syncc_ir_nodes_Jump)


# syncc.ir.nodes.Branch
def syncc_ir_nodes_Branch(dflt, fact):
    d_span = dflt['span']

    def __init__(self, cond, if_true, if_false, span=d_span):
        _set(self, 'cond', cond)
        _set(self, 'if_true', if_true)
        _set(self, 'if_false', if_false)
        _set(self, 'span', span)

    def __repr__(self):
        return f"{self.__class__.__qualname__}(cond={self.cond!r}, if_true={self.if_true!r}, if_false={self.if_false!r}, span={self.span!r})"

    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.cond, self.if_true, self.if_false) == (other.cond, other.if_true, other.if_false)
        return NotImplemented

    def __hash__(self):
        return hash((self.cond, self.if_true, self.if_false))

    return {'__init__': __init__, '__repr__': __repr__, '__eq__': __eq__, '__hash__': __hash__}


METHODS['syncc.ir.nodes.Branch'] = (
    ((('eq', True), ('frozen', True), ('init', True), ('repr', True), ('slots', True)),
     (('cond', 'Union[Reg, Imm]', False), ('if_true', 'str', False), ('if_false', 'str', False),
      ('span', 'Span | None', (True, False, True, True, None, False, False))),
     (), (), False),
    'Branch(cond: Union[Reg, Imm], if_true: str, if_false: str, span: Span | None = None)',
    syncc_ir_nodes_Branch)


# syncc.ir.nodes.Return
def syncc_ir_nodes_Return(dflt, fact):
    d_span = dflt['span']

    def __init__(self, span=d_span):
        _set(self, 'span', span)

    def __repr__(self):
        return f"{self.__class__.__qualname__}(span={self.span!r})"

    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return () == ()
        return NotImplemented

    def __hash__(self):
        return hash(())

    return {'__init__': __init__, '__repr__': __repr__, '__eq__': __eq__, '__hash__': __hash__}


METHODS['syncc.ir.nodes.Return'] = (
    ((('eq', True), ('frozen', True), ('init', True), ('repr', True), ('slots', True)),
     (('span', 'Span | None', (True, False, True, True, None, False, False)),), (), (), False),
    'Return(span: Span | None = None)',
    syncc_ir_nodes_Return)


# syncc.ir.nodes.Block
def syncc_ir_nodes_Block(dflt, fact):

    def __init__(self, label, instrs, term):
        _set(self, 'label', label)
        _set(self, 'instrs', instrs)
        _set(self, 'term', term)

    def __repr__(self):
        return f"{self.__class__.__qualname__}(label={self.label!r}, instrs={self.instrs!r}, term={self.term!r})"

    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.label, self.instrs, self.term) == (other.label, other.instrs, other.term)
        return NotImplemented

    def __hash__(self):
        return hash((self.label, self.instrs, self.term))

    return {'__init__': __init__, '__repr__': __repr__, '__eq__': __eq__, '__hash__': __hash__}


METHODS['syncc.ir.nodes.Block'] = (
    ((('eq', True), ('frozen', True), ('init', True), ('repr', True), ('slots', True)),
     (('label', 'str', False), ('instrs', 'tuple[Instr, ...]', False), ('term', 'Terminator', False)),
     (), (), False),
    'Block(label: str, instrs: tuple[Instr, ...], term: Terminator)',
    syncc_ir_nodes_Block)


# syncc.ir.nodes.Array
def syncc_ir_nodes_Array(dflt, fact):
    d_kind = dflt['kind']
    d_init = dflt['init']
    d_per = dflt['per']
    d_offset = dflt['offset']
    d_span = dflt['span']

    def __init__(self, name, space, elem, dims, kind=d_kind, init=d_init, per=d_per, offset=d_offset, span=d_span):
        _set(self, 'name', name)
        _set(self, 'space', space)
        _set(self, 'elem', elem)
        _set(self, 'dims', dims)
        _set(self, 'kind', kind)
        _set(self, 'init', init)
        _set(self, 'per', per)
        _set(self, 'offset', offset)
        _set(self, 'span', span)

    def __repr__(self):
        return f"{self.__class__.__qualname__}(name={self.name!r}, space={self.space!r}, elem={self.elem!r}, dims={self.dims!r}, kind={self.kind!r}, init={self.init!r}, per={self.per!r}, offset={self.offset!r}, span={self.span!r})"

    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.name, self.space, self.elem, self.dims, self.kind, self.init, self.per, self.offset) == (other.name, other.space, other.elem, other.dims, other.kind, other.init, other.per, other.offset)
        return NotImplemented

    def __hash__(self):
        return hash((self.name, self.space, self.elem, self.dims, self.kind, self.init, self.per, self.offset))

    return {'__init__': __init__, '__repr__': __repr__, '__eq__': __eq__, '__hash__': __hash__}


METHODS['syncc.ir.nodes.Array'] = (
    ((('eq', True), ('frozen', True), ('init', True), ('repr', True), ('slots', True)),
     (('name', 'str', False), ('space', 'str', False), ('elem', 'ScalarType', False),
      ('dims', 'tuple[int | str, ...]', False), ('kind', 'str', True),
      ('init', 'int | str | None', True), ('per', 'str | None', True), ('offset', 'int | None', True),
      ('span', 'Span | None', (True, False, True, True, None, False, False))),
     (), (), False),
    "Array(name: str, space: str, elem: ScalarType, dims: tuple[int | str, ...], kind: str = 'data', init: int | str | None = None, per: str | None = None, offset: int | None = None, span: Span | None = None)",
    syncc_ir_nodes_Array)


# syncc.ir.nodes.Prim
def syncc_ir_nodes_Prim(dflt, fact):
    d_params = dflt['params']
    d_elem = dflt['elem']
    d_count = dflt['count']
    d_attrs = dflt['attrs']
    d_span = dflt['span']

    def __init__(self, name, kind, dims, placement, granularity, impl, params=d_params, elem=d_elem, count=d_count, attrs=d_attrs, span=d_span):
        _set(self, 'name', name)
        _set(self, 'kind', kind)
        _set(self, 'dims', dims)
        _set(self, 'placement', placement)
        _set(self, 'granularity', granularity)
        _set(self, 'impl', impl)
        _set(self, 'params', params)
        _set(self, 'elem', elem)
        _set(self, 'count', count)
        _set(self, 'attrs', attrs)
        _set(self, 'span', span)

    def __repr__(self):
        return f"{self.__class__.__qualname__}(name={self.name!r}, kind={self.kind!r}, dims={self.dims!r}, placement={self.placement!r}, granularity={self.granularity!r}, impl={self.impl!r}, params={self.params!r}, elem={self.elem!r}, count={self.count!r}, attrs={self.attrs!r}, span={self.span!r})"

    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.name, self.kind, self.dims, self.placement, self.granularity, self.impl, self.params, self.elem, self.count, self.attrs) == (other.name, other.kind, other.dims, other.placement, other.granularity, other.impl, other.params, other.elem, other.count, other.attrs)
        return NotImplemented

    def __hash__(self):
        return hash((self.name, self.kind, self.dims, self.placement, self.granularity, self.impl, self.params, self.elem, self.count, self.attrs))

    return {'__init__': __init__, '__repr__': __repr__, '__eq__': __eq__, '__hash__': __hash__}


METHODS['syncc.ir.nodes.Prim'] = (
    ((('eq', True), ('frozen', True), ('init', True), ('repr', True), ('slots', True)),
     (('name', 'str', False), ('kind', 'str', False), ('dims', 'tuple[int, ...]', False),
      ('placement', 'str', False), ('granularity', 'str', False), ('impl', 'str', False),
      ('params', 'tuple[tuple[str, int], ...]', True), ('elem', 'ScalarType | None', True),
      ('count', 'int | None', True), ('attrs', 'tuple[tuple[str, object], ...]', True),
      ('span', 'Span | None', (True, False, True, True, None, False, False))),
     (), (), False),
    'Prim(name: str, kind: str, dims: tuple[int, ...], placement: str, granularity: str, impl: str, params: tuple[tuple[str, int], ...] = (), elem: ScalarType | None = None, count: int | None = None, attrs: tuple[tuple[str, object], ...] = (), span: Span | None = None)',
    syncc_ir_nodes_Prim)


# syncc.ir.nodes.Kernel
def syncc_ir_nodes_Kernel(dflt, fact):
    d_span = dflt['span']
    d_coresident = dflt['coresident']

    def __init__(self, name, params, arrays, prims, grid, block, blocks, span=d_span, coresident=d_coresident):
        _set(self, 'name', name)
        _set(self, 'params', params)
        _set(self, 'arrays', arrays)
        _set(self, 'prims', prims)
        _set(self, 'grid', grid)
        _set(self, 'block', block)
        _set(self, 'blocks', blocks)
        _set(self, 'span', span)
        _set(self, 'coresident', coresident)

    def __repr__(self):
        return f"{self.__class__.__qualname__}(name={self.name!r}, params={self.params!r}, arrays={self.arrays!r}, prims={self.prims!r}, grid={self.grid!r}, block={self.block!r}, blocks={self.blocks!r}, span={self.span!r}, coresident={self.coresident!r})"

    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.name, self.params, self.arrays, self.prims, self.grid, self.block, self.blocks, self.coresident) == (other.name, other.params, other.arrays, other.prims, other.grid, other.block, other.blocks, other.coresident)
        return NotImplemented

    def __hash__(self):
        return hash((self.name, self.params, self.arrays, self.prims, self.grid, self.block, self.blocks, self.coresident))

    return {'__init__': __init__, '__repr__': __repr__, '__eq__': __eq__, '__hash__': __hash__}


METHODS['syncc.ir.nodes.Kernel'] = (
    ((('eq', True), ('frozen', True), ('init', True), ('repr', True), ('slots', True)),
     (('name', 'str', False), ('params', 'tuple[Union[Reg, Array], ...]', False),
      ('arrays', 'tuple[Array, ...]', False), ('prims', 'tuple[Prim, ...]', False),
      ('grid', 'tuple[int, int, int] | None', False), ('block', 'tuple[int, int, int] | None', False),
      ('blocks', 'tuple[Block, ...]', False),
      ('span', 'Span | None', (True, False, True, True, None, False, False)),
      ('coresident', 'bool', True)),
     (), (), False),
    'Kernel(name: str, params: tuple[Union[Reg, Array], ...], arrays: tuple[Array, ...], prims: tuple[Prim, ...], grid: tuple[int, int, int] | None, block: tuple[int, int, int] | None, blocks: tuple[Block, ...], span: Span | None = None, coresident: bool = False)',
    syncc_ir_nodes_Kernel)


# syncc.ir.nodes.Module
def syncc_ir_nodes_Module(dflt, fact):
    d_source = dflt['source']

    def __init__(self, kernels, source=d_source):
        _set(self, 'kernels', kernels)
        _set(self, 'source', source)

    def __repr__(self):
        return f"{self.__class__.__qualname__}(kernels={self.kernels!r}, source={self.source!r})"

    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.kernels, self.source) == (other.kernels, other.source)
        return NotImplemented

    def __hash__(self):
        return hash((self.kernels, self.source))

    return {'__init__': __init__, '__repr__': __repr__, '__eq__': __eq__, '__hash__': __hash__}


METHODS['syncc.ir.nodes.Module'] = (
    ((('eq', True), ('frozen', True), ('init', True), ('repr', True), ('slots', True)),
     (('kernels', 'tuple[Kernel, ...]', False), ('source', 'str | None', True)), (), (), False),
    'Module(kernels: tuple[Kernel, ...], source: str | None = None)',
    syncc_ir_nodes_Module)


# syncc.ir.ops.OpInfo
def syncc_ir_ops_OpInfo(dflt, fact):
    d_memory = dflt['memory']
    d_blocking = dflt['blocking']
    d_ref = dflt['ref']
    d_bare = dflt['bare']
    d_judged_as = dflt['judged_as']
    d_permits = dflt['permits']
    d_fields = dflt['fields']

    def __init__(self, name, group, results, operands, memory=d_memory, blocking=d_blocking, ref=d_ref, bare=d_bare, judged_as=d_judged_as, permits=d_permits, fields=d_fields):
        _set(self, 'name', name)
        _set(self, 'group', group)
        _set(self, 'results', results)
        _set(self, 'operands', operands)
        _set(self, 'memory', memory)
        _set(self, 'blocking', blocking)
        _set(self, 'ref', ref)
        _set(self, 'bare', bare)
        _set(self, 'judged_as', judged_as)
        _set(self, 'permits', permits)
        _set(self, 'fields', fields)

    def __repr__(self):
        return f"{self.__class__.__qualname__}(name={self.name!r}, group={self.group!r}, results={self.results!r}, operands={self.operands!r}, memory={self.memory!r}, blocking={self.blocking!r}, ref={self.ref!r}, bare={self.bare!r}, judged_as={self.judged_as!r}, permits={self.permits!r}, fields={self.fields!r})"

    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.name, self.group, self.results, self.operands, self.memory, self.blocking, self.ref, self.bare, self.judged_as, self.permits, self.fields) == (other.name, other.group, other.results, other.operands, other.memory, other.blocking, other.ref, other.bare, other.judged_as, other.permits, other.fields)
        return NotImplemented

    def __hash__(self):
        return hash((self.name, self.group, self.results, self.operands, self.memory, self.blocking, self.ref, self.bare, self.judged_as, self.permits, self.fields))

    return {'__init__': __init__, '__repr__': __repr__, '__eq__': __eq__, '__hash__': __hash__}


METHODS['syncc.ir.ops.OpInfo'] = (
    ((('eq', True), ('frozen', True), ('init', True), ('repr', True), ('slots', False)),
     (('name', 'str', False), ('group', 'str', False), ('results', 'int', False),
      ('operands', 'int | None', False), ('memory', 'bool', True), ('blocking', 'bool', True),
      ('ref', 'bool', True), ('bare', 'str | None', True), ('judged_as', 'str | None', True),
      ('permits', 'bool', True), ('fields', 'bool', True)),
     (), (), False),
    'OpInfo(name: str, group: str, results: int, operands: int | None, memory: bool = False, blocking: bool = False, ref: bool = False, bare: str | None = None, judged_as: str | None = None, permits: bool = False, fields: bool = False)',
    syncc_ir_ops_OpInfo)


# syncc.ir.passes.structure._PollingLoop
def syncc_ir_passes_structure__PollingLoop(dflt, fact):
    d_done = dflt['done']
    d_head = dflt['head']
    d_body = dflt['body']
    d_latch = dflt['latch']
    d_after = dflt['after']
    f_tokens = fact['tokens']
    f_flags = fact['flags']

    def __init__(self, b, first, pre, waits, done=d_done, tokens=_FACTORY, flags=_FACTORY, head=d_head, body=d_body, latch=d_latch, after=d_after):
        self.b = b
        self.first = first
        self.pre = pre
        self.waits = waits
        self.done = done
        self.tokens = f_tokens() if tokens is _FACTORY else tokens
        self.flags = f_flags() if flags is _FACTORY else flags
        self.head = head
        self.body = body
        self.latch = latch
        self.after = after

    def __repr__(self):
        return f"{self.__class__.__qualname__}(b={self.b!r}, first={self.first!r}, pre={self.pre!r}, waits={self.waits!r}, done={self.done!r}, tokens={self.tokens!r}, flags={self.flags!r}, head={self.head!r}, body={self.body!r}, latch={self.latch!r}, after={self.after!r})"

    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.b, self.first, self.pre, self.waits, self.done, self.tokens, self.flags, self.head, self.body, self.latch, self.after) == (other.b, other.first, other.pre, other.waits, other.done, other.tokens, other.flags, other.head, other.body, other.latch, other.after)
        return NotImplemented

    return {'__init__': __init__, '__repr__': __repr__, '__eq__': __eq__}


METHODS['syncc.ir.passes.structure._PollingLoop'] = (
    ((('eq', True), ('frozen', False), ('init', True), ('repr', True), ('slots', False)),
     (('b', 'KernelBuilder', False), ('first', 'Instr', False), ('pre', 'str', False),
      ('waits', 'list[Instr]', False), ('done', 'Reg | None', True),
      ('tokens', 'list[Reg | None]', (False, True, True, True, None, True, False)),
      ('flags', 'list[Reg]', (False, True, True, True, None, True, False)), ('head', 'str', True),
      ('body', 'str', True), ('latch', 'str', True), ('after', 'str', True)),
     (), (), False),
    "_PollingLoop(b: KernelBuilder, first: Instr, pre: str, waits: list[Instr], done: Reg | None = None, tokens: list[Reg | None] = <factory>, flags: list[Reg] = <factory>, head: str = '', body: str = '', latch: str = '', after: str = '')",
    syncc_ir_passes_structure__PollingLoop)


# syncc.ir.passes.unroll.Counter
def syncc_ir_passes_unroll_Counter(dflt, fact):

    def __init__(self, var, first, by, step, rounds):
        _set(self, 'var', var)
        _set(self, 'first', first)
        _set(self, 'by', by)
        _set(self, 'step', step)
        _set(self, 'rounds', rounds)

    def __repr__(self):
        return f"{self.__class__.__qualname__}(var={self.var!r}, first={self.first!r}, by={self.by!r}, step={self.step!r}, rounds={self.rounds!r})"

    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.var, self.first, self.by, self.step, self.rounds) == (other.var, other.first, other.by, other.step, other.rounds)
        return NotImplemented

    def __hash__(self):
        return hash((self.var, self.first, self.by, self.step, self.rounds))

    return {'__init__': __init__, '__repr__': __repr__, '__eq__': __eq__, '__hash__': __hash__}


METHODS['syncc.ir.passes.unroll.Counter'] = (
    ((('eq', True), ('frozen', True), ('init', True), ('repr', True), ('slots', False)),
     (('var', 'Reg', False), ('first', 'int', False), ('by', 'int', False), ('step', 'Instr', False),
      ('rounds', 'int', False)),
     (), (), False),
    'Counter(var: Reg, first: int, by: int, step: Instr, rounds: int)',
    syncc_ir_passes_unroll_Counter)
