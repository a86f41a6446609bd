"""In-process probes: any callable, and chains of hops that blame the first rewrite.

A hop writes a value into some format and reads it back (an encode/decode pair, or one
callable). :func:`chain` composes hops into a :class:`ChainProbe`, which records the
value after every hop so the first hop that changed it is named (``blame``): "the CSV
writer is fine, the text-mode reopen turns CRLF into LF".

A hop signals how it failed by what it raises: :class:`ValueLost` when the value is
missing from what it read back (``lost``), :class:`ChainBroken` when the chain itself
cannot run (``broken``), :class:`subprocess.TimeoutExpired` or :class:`TimeoutError`
(``timeout``); any other exception is the chain refusing this payload (``rejected``).
"""

from __future__ import annotations

import os
import subprocess
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from operator import attrgetter
from typing import Any

from fidelity._compare.api import Comparison
from fidelity._core.errors import UsageError
from fidelity._core.kinds import Status
from fidelity._core.payload import Payload
from fidelity._probe.contract import FunctionProbe, Probe, callable_name, observe_value
from fidelity._probe.observation import Hop, Observation

__all__ = ["ChainBroken", "ChainHop", "ChainProbe", "ValueLost", "chain", "function", "hop"]


class ValueLost(Exception):
    """Raised by a hop when the value is missing from what it read back."""


class ChainBroken(Exception):
    """Raised by a hop when the chain cannot run at all (not a refusal of this payload)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ChainHop:
    """One hop: ``encode`` writes the value into a format, ``decode`` reads it back.

    With ``decode=None``, ``encode`` alone maps the value to what came out. ``unavailable``
    is a one-sentence reason when the hop cannot run here (a missing optional library);
    calling such a hop raises ``UsageError`` with that reason. ``concurrent`` marks hops
    that mostly wait (subprocesses), so a chain may run several payloads at once.
    """

    name: str
    encode: Callable[[Any], object]
    decode: Callable[[Any], object] | None = None
    description: str = ""
    unavailable: str = ""
    concurrent: bool = False

    @property
    def available(self) -> bool:
        """True when the hop can run in this environment."""
        return not self.unavailable

    def __call__(self, value: object) -> object:
        """Push ``value`` through this hop and return what came out."""
        if self.unavailable:
            raise UsageError(f"hop {self.name!r} is unavailable: {self.unavailable}")
        encoded = self.encode(value)
        return encoded if self.decode is None else self.decode(encoded)

    def __repr__(self) -> str:
        state = f" unavailable: {self.unavailable}" if self.unavailable else ""
        return f"<ChainHop {self.name}{state}>"


def hop(
    name: str,
    encode: Callable[[Any], object],
    decode: Callable[[Any], object] | None = None,
) -> ChainHop:
    """Make a hop named ``name`` from an encode/decode pair, or from one callable.

    ``encode`` takes the value and returns the encoded form; ``decode`` turns that back
    into a value. With ``decode=None``, ``encode`` is a callable ``str -> object`` that
    does the whole round trip.
    """
    if not isinstance(name, str) or not name:
        raise UsageError(f"name={name!r} must be a non-empty string naming the hop.")
    if not callable(encode):
        raise UsageError(f"encode={encode!r} must be callable (value -> encoded form).")
    if decode is not None and not callable(decode):
        raise UsageError(f"decode={decode!r} must be callable (encoded form -> value) or None.")
    return ChainHop(name=name, encode=encode, decode=decode)


def function(fn: Callable[[str], object], *, name: str | None = None) -> Probe:
    """A probe over any callable ``str -> object``; an exception it raises is ``rejected``."""
    if not callable(fn):
        raise UsageError(f"fn={fn!r} must be callable (str -> object).")
    return FunctionProbe(fn, name=name)


def _as_hop(index: int, item: object) -> ChainHop:
    if isinstance(item, ChainHop):
        return item
    if callable(item):
        short = getattr(item, "__name__", None)
        label = short if isinstance(short, str) and short else callable_name(item)
        if "<lambda>" in label:
            label = f"hop{index + 1}"
        return ChainHop(name=label, encode=item)
    raise UsageError(f"hop #{index + 1} ({item!r}) is neither a ChainHop nor a callable.")


def _unique_names(hops: tuple[ChainHop, ...]) -> tuple[str, ...]:
    seen: dict[str, int] = {}
    names = []
    for h in hops:
        seen[h.name] = seen.get(h.name, 0) + 1
        names.append(h.name if seen[h.name] == 1 else f"{h.name}#{seen[h.name]}")
    return tuple(names)


def _message(exc: BaseException) -> str:
    text = str(exc)
    if isinstance(exc, subprocess.TimeoutExpired):
        text = f"no answer within {exc.timeout:.2g} s"
    return text or type(exc).__name__


def _failed(
    text: str,
    exc: BaseException,
    *,
    hops: tuple[Hop, ...],
    name: str,
    payload_id: str,
    families: tuple[str, ...],
) -> Observation:
    """The observation of a hop that raised: how it failed depends on what it raised."""
    status = Status.REJECTED
    if isinstance(exc, ValueLost):
        status = Status.LOST
    elif isinstance(exc, ChainBroken):
        status = Status.BROKEN
    elif isinstance(exc, (subprocess.TimeoutExpired, TimeoutError)):
        status = Status.TIMEOUT
    return Observation(
        sent=text,
        status=status,
        error_type=type(exc).__name__,
        error=hops[-1].error,
        hops=hops,
        blame=name,
        payload_id=payload_id,
        families=families,
    )


def _unchanged(
    text: str, value: str, hops: tuple[Hop, ...], payload_id: str, families: tuple[str, ...]
) -> Observation:
    # Unchanged text: equal code points are equal UTF-8 bytes, nothing to classify.
    return Observation(
        sent=text,
        status=_PRESERVED,
        received=value,
        comparison=Comparison(
            sent=text, received=value, faithful=True, transformations=(), explained=True
        ),
        hops=hops,
        payload_id=payload_id,
        families=families,
    )


_PRESERVED = Status.PRESERVED
_TEXT = attrgetter("text")
_ID = attrgetter("id")
_FAMILIES = attrgetter("families")


class ChainProbe(Probe):
    """A probe that pushes each payload through ``hops`` in order.

    The observation lists the value after each hop (``hops``) and names the first hop
    that changed the value (``blame``); a hop that raises ends the chain there, with
    that hop named.
    """

    def __init__(self, hops: Iterable[ChainHop], *, name: str | None = None) -> None:
        self.hops = tuple(hops)
        if not self.hops:
            raise UsageError("a chain needs at least one hop, e.g. chain(probes.json()).")
        for h in self.hops:
            if h.unavailable:
                raise UsageError(f"hop {h.name!r} is unavailable: {h.unavailable}")
        self.hop_names = _unique_names(self.hops)
        self._steps = tuple(
            (h.encode, h.decode, n) for h, n in zip(self.hops, self.hop_names, strict=True)
        )
        self.name = name or " -> ".join(self.hop_names)
        self.concurrent = any(h.concurrent for h in self.hops)
        self.workers = min(8, max(2, os.cpu_count() or 1))

    def observe(self, text: str) -> Observation:
        """Push ``text`` through every hop and report what came out of the last."""
        return self._observe_one(text) if len(self._steps) == 1 else self._observe(text)

    def observe_payloads(self, payloads: Sequence[Payload]) -> Iterator[Observation]:
        """Observe each payload in order, stamped as it is built when hops run in turn."""
        if self.concurrent:
            return super().observe_payloads(payloads)
        observe = self._observe_one if len(self._steps) == 1 else self._observe
        # A lazy map: one observation per payload as the caller asks, no generator frame.
        return map(observe, map(_TEXT, payloads), map(_ID, payloads), map(_FAMILIES, payloads))

    def _observe(
        self, text: str, payload_id: str = "", families: tuple[str, ...] = ()
    ) -> Observation:
        value: object = text
        records: list[Hop] = []
        blame: str | None = None
        for encode, decode, name in self._steps:
            try:
                out = encode(value)
                if decode is not None:
                    out = decode(out)
            except (Exception, SystemExit) as exc:  # a tool's sys.exit refuses the value
                records.append(Hop(name=name, value=None, error=_message(exc)))
                return _failed(
                    text,
                    exc,
                    hops=tuple(records),
                    name=name,
                    payload_id=payload_id,
                    families=families,
                )
            records.append(Hop(name=name, value=out))
            if blame is None and not (type(out) is type(value) and out == value):
                blame = name
            value = out
        if blame is None and type(value) is str:
            return _unchanged(text, value, tuple(records), payload_id, families)
        return observe_value(
            text, value, hops=tuple(records), blame=blame, payload_id=payload_id, families=families
        )

    def _observe_one(
        self, text: str, payload_id: str = "", families: tuple[str, ...] = ()
    ) -> Observation:
        """``_observe`` for a chain of one hop: the same record, built with less work."""
        encode, decode, name = self._steps[0]
        try:
            out = encode(text)
            if decode is not None:
                out = decode(out)
        except (Exception, SystemExit) as exc:  # a tool's sys.exit refuses the value
            hops = (Hop(name=name, value=None, error=_message(exc)),)
            return _failed(
                text, exc, hops=hops, name=name, payload_id=payload_id, families=families
            )
        if type(out) is str and out == text:
            return _unchanged(text, out, (Hop(name=name, value=out),), payload_id, families)
        return observe_value(
            text,
            out,
            hops=(Hop(name=name, value=out),),
            blame=name,
            payload_id=payload_id,
            families=families,
        )

    def observe_many(self, texts: Iterable[str]) -> Iterator[Observation]:
        """Observe each text; chains of waiting hops run a few payloads at once.

        Results always come in the order of ``texts``.
        """
        if not self.concurrent:
            yield from super().observe_many(texts)
            return
        pool = ThreadPoolExecutor(max_workers=self.workers, thread_name_prefix="fidelity-chain")
        pending: deque[Future[Observation]] = deque()
        try:
            for text in texts:
                pending.append(pool.submit(self.observe, text))
                if len(pending) >= 2 * self.workers:
                    yield pending.popleft().result()
            while pending:
                yield pending.popleft().result()
        finally:
            pool.shutdown(wait=True, cancel_futures=True)


def chain(*hops: ChainHop | Callable[[Any], object], name: str | None = None) -> ChainProbe:
    """Compose hops (``ChainHop`` or callables) into a probe that blames the first rewrite."""
    return ChainProbe((_as_hop(i, h) for i, h in enumerate(hops)), name=name)
