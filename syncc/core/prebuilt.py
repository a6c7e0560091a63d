"""Dataclasses whose methods were written ahead of time, so that a process does not compile them.

    from ..core.prebuilt import dataclass     # in place of dataclasses.dataclass
    python -m syncc.core.prebuilt_gen          # rewrite prebuilt_methods.py after changing a class

`dataclasses.dataclass` writes each class's `__init__`, `__repr__`, `__eq__`, `__hash__` and
frozen `__setattr__`/`__delattr__` as source text and `exec`s it: about 55 µs a method, half of
it compiling, for the 118 classes a compile imports. prebuilt_methods.py holds those methods as
ordinary Python, compiled once into its `.pyc`.

What that buys (`python bench/prebuilt.py`: fresh processes with the prebuilt methods and
without them, alternating, median of 15 each, two rounds; 2026-11-28, the 2-core VM with other
jobs running; CPU time throughout): about a quarter of a compile, 34-35 ms a process. `syncc
check examples/wavefront.sync` takes 94-97 ms with them and 128-132 ms without; `syncc build
examples/wavefront.sync --target fermi-sass` 106-112 ms against 140-147 ms. It pays where the
`.pyc` files are, as they are for an installed syncc; a process that may neither read nor
write them compiles prebuilt_methods.py's 3,600 lines every time, which costs about what they
save (`--no-pyc`, the same check: 465 ms with them, 474 ms without).

prebuilt_methods.py is generated (its first line says so, as frontend/grammar_tables.py's does)
and stays here, beside the decorator that reads it and below every layer whose dataclasses use it.

This decorator lets `dataclasses.dataclass` do everything that needs no `exec` (the fields,
`__dataclass_fields__`, `__match_args__`, the slotted copy of the class) and adds the prebuilt
methods, with the dataclass's semantics: fields(), replace() and asdict() work, frozen instances
refuse assignment, eq/hash compare the fields that compare.

Each prebuilt entry records the shape of the definition it was written from (parameters, fields,
defaults' kinds, methods the class defines itself). Where the class no longer has that shape, or
has no entry, the decorator is plain `dataclasses.dataclass`: correct, only slower, and
tests/core/test_prebuilt.py fails until the methods are written again. Supported: init, repr, eq,
frozen and slots; anything else is for `dataclasses.dataclass` itself.
"""
from __future__ import annotations

import dataclasses
import reprlib
from dataclasses import MISSING, Field, FrozenInstanceError

from . import prebuilt_methods

# Every class this decorator made: "module.qualname" → (the class, its parameters, its shape).
# The generator writes methods for these; tests check that none of them fell back.
MADE: dict[str, tuple[type, dict, tuple]] = {}
FELL_BACK: list[str] = []
OWN_METHODS = ("__init__", "__repr__", "__eq__", "__hash__", "__setattr__", "__delattr__")


def dataclass(cls=None, /, *, init=True, repr=True, eq=True, frozen=False, slots=False):
    """`dataclasses.dataclass` with these parameters, its methods taken from prebuilt_methods.py."""
    params = {"init": init, "repr": repr, "eq": eq, "frozen": frozen, "slots": slots}

    def wrap(cls):
        key = f"{cls.__module__}.{cls.__qualname__}"
        shape = definition_shape(cls, params)
        entry = prebuilt_methods.METHODS.get(key)
        if entry is None or entry[0] != shape:
            FELL_BACK.append(key)
            made = dataclasses.dataclass(cls, **params)
        else:
            made = _with_prebuilt(cls, params, *entry[1:])
        MADE[key] = (made, params, shape)
        return made

    return wrap if cls is None else wrap(cls)


def _with_prebuilt(cls, params: dict, doc: str, make) -> type:
    own = set(own_methods(cls))
    if not cls.__doc__:
        cls.__doc__ = doc                  # (dataclass would work it out with inspect.signature)
    # dataclass without the methods it would exec; a frozen class with a dataclass base still says
    # frozen, as dataclass checks that frozen and thawed classes do not inherit from each other
    has_base = any(hasattr(b, "__dataclass_fields__") for b in cls.__mro__[1:])
    new = dataclasses.dataclass(cls, init=False, repr=False, eq=False, slots=params["slots"],
                                frozen=params["frozen"] and has_base)
    p = new.__dataclass_params__           # say what the class is
    p.init, p.repr, p.eq, p.frozen = params["init"], params["repr"], params["eq"], params["frozen"]
    fields = dataclasses.fields(new)
    methods = make({f.name: f.default for f in fields}, {f.name: f.default_factory for f in fields})
    if "__repr__" in methods:
        methods["__repr__"] = reprlib.recursive_repr()(methods["__repr__"])
    for name, fn in methods.items():
        if name not in own:
            fn.__qualname__ = f"{new.__qualname__}.{name}"
            setattr(new, name, fn)
    if params["eq"] and "__hash__" not in own and "__hash__" not in methods:
        new.__hash__ = None                # as dataclass: equal by value and mutable, so unhashable
    if params["frozen"]:
        _freeze(new, own, tuple(f.name for f in fields))
    return new


def _freeze(cls, own: set, names: tuple) -> None:
    """dataclass's frozen `__setattr__`/`__delattr__`, and pickling for a frozen slotted class."""
    if own & {"__setattr__", "__delattr__"}:
        raise TypeError(f"cannot overwrite attribute __setattr__ or __delattr__ in class {cls.__name__}")

    def __setattr__(self, name, value):
        if type(self) is cls or name in names:
            raise FrozenInstanceError(f"cannot assign to field {name!r}")
        super(cls, self).__setattr__(name, value)

    def __delattr__(self, name):
        if type(self) is cls or name in names:
            raise FrozenInstanceError(f"cannot delete field {name!r}")
        super(cls, self).__delattr__(name)

    for fn in (__setattr__, __delattr__):
        fn.__qualname__ = f"{cls.__qualname__}.{fn.__name__}"
        setattr(cls, fn.__name__, fn)
    if "__slots__" in cls.__dict__:        # (the default would assign, which a frozen class refuses)
        cls.__getstate__ = _getstate
        cls.__setstate__ = _setstate


def _getstate(self):
    return [getattr(self, f.name) for f in dataclasses.fields(self)]


def _setstate(self, state):
    for f, value in zip(dataclasses.fields(self), state):
        object.__setattr__(self, f.name, value)


def field_shape(f: Field) -> tuple:
    return (f.default is not MISSING, f.default_factory is not MISSING, f.init, f.repr, f.hash, f.compare,
            f.kw_only is True)


def definition_shape(cls, params: dict) -> tuple:
    """What the prebuilt methods depend on, as a literal: the parameters, each annotated name of the
    class body with its annotation and the kind of its default, the fields of dataclass bases, and
    the methods the class defines itself."""
    body = []
    for name, annotation in cls.__dict__.get("__annotations__", {}).items():
        value = cls.__dict__.get(name, MISSING)
        kind = field_shape(value) if isinstance(value, Field) else value is not MISSING
        body.append((name, annotation if isinstance(annotation, str) else getattr(annotation, "__name__", "?"), kind))
    base = next((b for b in cls.__mro__[1:] if hasattr(b, "__dataclass_fields__")), None)
    inherited = tuple((f.name, field_shape(f)) for f in dataclasses.fields(base)) if base else ()
    return (tuple(sorted(params.items())), tuple(body), inherited, own_methods(cls), hasattr(cls, "__post_init__"))


def own_methods(cls) -> tuple[str, ...]:
    """The methods the class body defines, which dataclass keeps; a `__hash__` of None that Python
    put there for an `__eq__` does not count (dataclass's rule)."""
    d = cls.__dict__
    return tuple(name for name in OWN_METHODS
                 if name in d and not (name == "__hash__" and d[name] is None and "__eq__" in d))
