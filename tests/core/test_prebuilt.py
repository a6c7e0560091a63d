"""The dataclasses with prebuilt methods (syncc/core/prebuilt.py): the stored methods are the
definitions' own, and every class behaves as `dataclasses.dataclass` would make it."""
import dataclasses
import importlib.util
import inspect
import pickle
import re

import pytest

from syncc.core import prebuilt, prebuilt_gen, prebuilt_methods

MODULES = prebuilt_gen.modules()


def test_the_stored_methods_are_the_definitions():
    assert prebuilt_gen.METHODS_PATH.read_text(encoding="utf-8") == prebuilt_gen.generate(), \
        "a dataclass changed: rewrite the methods with `python -m syncc.core.prebuilt_gen`"


def test_no_class_of_syncc_falls_back_to_dataclass():
    prebuilt_gen.generate()                      # (imports every module that uses the decorator)
    assert [k for k in prebuilt.FELL_BACK if k.startswith("syncc.")] == []
    assert len(prebuilt.MADE) >= 100


def _as_dataclass_makes_them(module_name: str) -> dict[str, type]:
    """The module's classes made again by plain `dataclasses.dataclass` (no prebuilt methods), in a
    fresh copy of the module that is not registered."""
    spec = importlib.util.find_spec(module_name)
    copy = importlib.util.module_from_spec(spec)
    made, fell_back, methods = dict(prebuilt.MADE), list(prebuilt.FELL_BACK), dict(prebuilt_methods.METHODS)
    prebuilt_methods.METHODS.clear()
    try:
        spec.loader.exec_module(copy)
        real = importlib.import_module(module_name)      # (settings the tests changed, as conftest's)
        vars(copy).update({k: v for k, v in vars(real).items() if isinstance(v, (bool, int, str))})
        return {k: prebuilt.MADE[k][0] for k in prebuilt.MADE if k.rpartition(".")[0] == module_name}
    finally:
        prebuilt.MADE.clear(), prebuilt.MADE.update(made)
        prebuilt.FELL_BACK[:] = fell_back
        prebuilt_methods.METHODS.update(methods)


def _sample(cls, tag: str) -> dict:
    return {f.name: f"{tag}{i}" for i, f in enumerate(dataclasses.fields(cls))
            if f.init and f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING}


@pytest.mark.parametrize("module_name", MODULES)
def test_every_class_behaves_as_dataclass_makes_it(module_name):
    importlib.import_module(module_name)
    reference = _as_dataclass_makes_them(module_name)
    assert reference
    for key, theirs in reference.items():
        ours = prebuilt.MADE[key][0]
        assert ours is not theirs and key not in prebuilt.FELL_BACK
        assert _fields(ours) == _fields(theirs), key
        assert ours.__dataclass_params__.__repr__() == theirs.__dataclass_params__.__repr__(), key
        assert ours.__match_args__ == theirs.__match_args__, key
        assert ("__slots__" in ours.__dict__) == ("__slots__" in theirs.__dict__), key
        assert (ours.__hash__ is None) == (theirs.__hash__ is None), key
        assert _signature(ours) == _signature(theirs), key
        a, b, c = ours(**_sample(ours, "a")), ours(**_sample(ours, "a")), ours(**_sample(ours, "c"))
        x, z = theirs(**_sample(theirs, "a")), theirs(**_sample(theirs, "c"))
        assert _repr(a) == _repr(x) and _repr(c) == _repr(z), key
        assert (a == b) == (x == theirs(**_sample(theirs, "a"))), key
        assert (a == c) == (x == z), key
        if ours.__dataclass_params__.eq and ours.__hash__ is not None:
            assert hash(a) == hash(x), key
        if ours.__dataclass_params__.frozen:
            name = dataclasses.fields(ours)[0].name if dataclasses.fields(ours) else "anything"
            with pytest.raises(dataclasses.FrozenInstanceError):
                setattr(a, name, 1)
            with pytest.raises(dataclasses.FrozenInstanceError):
                delattr(a, name)
            assert pickle.loads(pickle.dumps(a)) == a or not ours.__dataclass_params__.eq, key
        if dataclasses.fields(ours):
            first = dataclasses.fields(ours)[0]
            if first.init:
                assert _repr(dataclasses.replace(a, **{first.name: "r"})) == \
                       _repr(dataclasses.replace(x, **{first.name: "r"})), key


def _repr(obj) -> str:
    """repr without the addresses of objects a default factory made."""
    return re.sub(r" at 0x[0-9a-f]+", "", repr(obj))


def _fields(cls) -> str:
    return _repr([(f.name, f.type, f.default, f.default_factory, f.init, f.repr, f.hash, f.compare, f.kw_only)
                  for f in dataclasses.fields(cls)])


def _signature(cls) -> list:
    """`__init__`'s parameters (a default factory's field shows `<factory>` in both)."""
    return [(p.name, p.kind, repr(p.default)) for p in inspect.signature(cls).parameters.values()]


def test_a_class_without_prebuilt_methods_is_a_plain_dataclass():
    @prebuilt.dataclass(frozen=True)
    class Local:
        x: int
        y: int = 2

    assert Local(1) == Local(1, 2) and repr(Local(1)) == "test_a_class_without_prebuilt_methods_is_a_plain_dataclass.<locals>.Local(x=1, y=2)"
    assert prebuilt.FELL_BACK[-1].endswith("<locals>.Local")
    with pytest.raises(dataclasses.FrozenInstanceError):
        Local(1).x = 3
