"""A faster ``__init__`` for the frozen records built on every payload's hot path.

A frozen dataclass sets each field through ``object.__setattr__`` looked up on every
assignment; for the 14 fields of an ``Observation`` that is most of the cost of a
survey of a fast in-process chain. :func:`fast_init` replaces the generated
``__init__`` with one of the same signature that stores through the slots'
descriptors directly. Everything else (frozenness, ``repr``, ``eq``, ``hash``,
``dataclasses.replace``) stays the dataclass's own.
"""

from __future__ import annotations

import dataclasses
from typing import Any, TypeVar

__all__ = ["fast_init"]

T = TypeVar("T")


def fast_init(cls: type[T]) -> type[T]:
    """Give a ``frozen=True, slots=True, kw_only=True`` dataclass a faster ``__init__``."""
    params: dict[str, Any] = {"MISSING": dataclasses.MISSING}
    signature: list[str] = []
    body: list[str] = []
    for f in dataclasses.fields(cls):  # type: ignore[arg-type]
        if f.default_factory is not dataclasses.MISSING or not f.init:
            raise TypeError(f"fast_init does not support field {f.name!r} of {cls.__name__}")
        if f.default is dataclasses.MISSING:
            signature.append(f.name)
        else:
            params[f"_d_{f.name}"] = f.default
            signature.append(f"{f.name}=_d_{f.name}")
        params[f"_s_{f.name}"] = getattr(cls, f.name).__set__
        body.append(f"    _s_{f.name}(self, {f.name})")
    source = f"def __init__(self, *, {', '.join(signature)}):\n" + "\n".join(body) + "\n"
    namespace: dict[str, Any] = {}
    exec(source, params, namespace)  # the same technique dataclasses itself uses
    init = namespace["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__doc__ = cls.__init__.__doc__
    cls.__init__ = init  # type: ignore[method-assign]
    return cls
