"""The probe contract: take a payload's text, return an ``Observation``.

Like an httpx transport, a probe is one method (:meth:`Probe.observe`) plus
:meth:`Probe.close`. Probes that hold a connection are reused across payloads and are
context managers. :meth:`Probe.observe_many` is the batch entry point a survey uses;
probes that can overlap requests override it and still yield results in input order.
"""

from __future__ import annotations

import abc
import inspect
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from types import TracebackType
from typing import ParamSpec, Self, TypeVar

from fidelity._compare.api import compare
from fidelity._core.errors import UsageError
from fidelity._core.kinds import Status
from fidelity._core.payload import Payload
from fidelity._probe.observation import Observation
from fidelity._probe.setup import ProbeSetup

__all__ = [
    "ClientInfo",
    "FunctionProbe",
    "PayloadPlace",
    "Probe",
    "Wrapping",
    "callable_name",
    "factory",
    "observe_value",
    "stamp",
]

_P = ParamSpec("_P")
_T = TypeVar("_T")


@dataclass(frozen=True, slots=True, kw_only=True)
class ClientInfo:
    """Which client a probe spoke through: its name (``""`` when none was named), the
    library and its version, and the protocol version the session settled on."""

    client: str
    library: str
    protocol_version: str


@dataclass(frozen=True, slots=True, kw_only=True)
class PayloadPlace:
    """Where a probe puts the payload: ``label`` as the user writes it
    (``edits[0].oldText``), ``block_label`` as a card block name allows
    (``edits.0.oldText``), ``found``: taken from the schema rather than given."""

    label: str
    block_label: str
    found: bool


class Probe(abc.ABC):
    """A chain that payload texts are pushed through.

    Subclasses set ``name`` (a short description of the chain, used in cards) and
    implement :meth:`observe`. ``observe`` never raises for a payload-specific failure:
    it returns an observation with status ``rejected``, ``lost``, ``timeout`` or
    ``broken``.
    """

    name: str = "probe"

    # -- capabilities: what a front end may ask of any probe -----------------------

    @property
    def requests(self) -> int | None:
        """How many requests this probe has sent to its target so far.

        ``None`` for a probe that sends no requests it could count (an in-process
        chain); a budget then counts one request per observation.
        """
        return None

    @property
    def max_requests_per_observation(self) -> int:
        """The most requests one observation may send from now on (1 by default)."""
        return 1

    def requests_to_start(self, observations: int) -> int:
        """The most requests this probe may send from now on until ``observations``
        observations started at once have their answers: its calibration, while the
        read-back is still to be located, then those observations. A budget checked
        before anything is sent counts this, what the target really costs (the HTTP
        reference reflector locates itself with one request; another target is sent
        every calibration value). By default ``observations`` times
        :attr:`max_requests_per_observation`."""
        return observations * max(self.max_requests_per_observation, 1)

    @property
    def splits_directions(self) -> bool:
        """True when every observation also measures the request path and the response
        path apart, with requests of their own (the reference reflectors)."""
        return False

    @property
    def answers(self) -> int | None:
        """How many replies the target has given so far, failures it answered with
        included (``None`` for a probe that cannot tell)."""
        return None

    @property
    def connected(self) -> bool:
        """Whether the target still answers (after a timeout: its health check passed)."""
        return True

    @property
    def tolerates_timeouts(self) -> bool | None:
        """Whether a run may go on after a call timed out: ``True`` when every operation
        the probe calls is annotated read-only or idempotent, ``False`` when one may
        write; ``None`` for a probe that knows no such thing (the run's own rules hold)."""
        return None

    @property
    def environment(self) -> Mapping[str, str]:
        """What the probe learned of its target, for the card's record of where it was
        measured: ``library`` (the client library and its version), ``server`` (an MCP
        server's ``serverInfo`` name and version), ``protocol`` (the negotiated protocol
        version), ``http_server`` (an HTTP ``Server`` header). Empty by default."""
        return {}

    @property
    def client_info(self) -> ClientInfo | None:
        """The client library the probe speaks through and the protocol version its
        session settled on, when the probe has one to report."""
        return None

    # -- what the probe resolved: the operation and the payload's place ---------------

    @property
    def operation(self) -> str:
        """The operation each payload goes to (an MCP tool's name), ``""`` for a probe
        that has no named operation."""
        return ""

    @property
    def payload_place(self) -> PayloadPlace | None:
        """Where the payload goes in the operation's arguments, as resolved (given or
        found in its schema), or ``None`` for a probe with no such place."""
        return None

    @property
    def read_spec(self) -> str | None:
        """The read-back as given or located (``text``, ``json:PATH``...), or ``None``
        while it is still to be located or for a probe that reads no such place."""
        return None

    @property
    def switches_clients(self) -> bool:
        """True when :meth:`with_client` can run this probe's plan through another
        client library (an MCP probe)."""
        return False

    def with_client(self, client: str | None, **changes: object) -> Probe:
        """A new probe with this one's plan, through ``client`` (``changes``: options
        replaced, such as the ``read`` this one located); only when
        :attr:`switches_clients`."""
        raise UsageError(f"the probe {self.name!r} speaks through no client library.")

    @property
    def stdout_noise(self) -> tuple[int, str]:
        """How many lines a stdio server wrote to stdout that are not its protocol, and
        the first of them, raw (``(0, "")`` for a probe that reads no such stream)."""
        return 0, ""

    # -- reading the value back: where it is, and how the probe was set up ------------

    #: True once :meth:`calibrate` located the read-back (rather than being told it).
    read_found: bool = False

    @property
    def needs_calibration(self) -> bool:
        """True when the read-back is not given and :meth:`calibrate` must locate it
        before the first payload."""
        return False

    def calibrate(self, pace: Callable[[], None] | None = None) -> str:
        """Locate the read-back with calls carrying calibration values; return the read
        specification found (which the caller can print so the user can pin it).

        ``pace``: called before each calibration value is sent, so a paced run
        (``--rate``) spaces the calibration calls too (a probe that paces itself, such
        as the HTTP probe with ``rate=``, may ignore it)."""
        raise UsageError(f"the probe {self.name!r} reads its value back where it is told.")

    @property
    def setup(self) -> ProbeSetup | None:
        """How this probe sends each payload and reads it back (its plan, for the
        records), or ``None`` for a probe that has no such plan (an in-process chain)."""
        return None

    @abc.abstractmethod
    def observe(self, text: str) -> Observation:
        """Push ``text`` through the chain once and report what arrived."""

    def observe_many(self, texts: Iterable[str]) -> Iterator[Observation]:
        """Observe each text in turn; results come in the order of ``texts``."""
        for text in texts:
            yield self.observe(text)

    def observe_payloads(self, payloads: Sequence[Payload]) -> Iterator[Observation]:
        """Observe each payload in order, stamped with its id and families.

        This is what a survey calls. The default runs :meth:`observe_many` over the
        payloads' texts, so a probe that overlaps requests there overlaps them here too.
        """
        texts = [p.text for p in payloads]
        for payload, observation in zip(payloads, self.observe_many(texts), strict=False):
            # Anything that is not an Observation is passed on for the caller to report.
            yield (
                stamp(observation, payload) if isinstance(observation, Observation) else observation
            )

    def close(self) -> None:  # noqa: B027  (optional hook: most probes hold nothing)
        """Release connections, sessions and subprocesses held by the probe."""

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"


def observe_value(sent: str, received: object, **fields: object) -> Observation:
    """Build the observation for a value that arrived: ``preserved`` or ``transformed``."""
    comparison = compare(sent, received)
    return Observation(
        sent=sent,
        status=Status.PRESERVED if comparison.faithful else Status.TRANSFORMED,
        received=received,
        comparison=comparison,
        **fields,  # type: ignore[arg-type]
    )


def stamp(observation: Observation, payload: Payload) -> Observation:
    """``observation`` (and its ``parts``) labelled with the payload's id and families.

    Spelled out rather than ``dataclasses.replace``, which costs several times more on
    the survey's hot path.
    """
    obs = observation
    return Observation(
        sent=obs.sent,
        status=obs.status,
        received=obs.received,
        comparison=obs.comparison,
        error_type=obs.error_type,
        error=obs.error,
        wire=obs.wire,
        hops=obs.hops,
        blame=obs.blame,
        direction=obs.direction,
        parts=tuple(stamp(p, payload) for p in obs.parts) if obs.parts else (),
        client_side=obs.client_side,
        payload_id=payload.id,
        families=payload.families,
        effect=obs.effect,
        silent=obs.silent,
    )


class FunctionProbe(Probe):
    """A probe over any callable ``str -> object``.

    An exception raised by the callable is the chain refusing that value: the
    observation is ``rejected`` with the exception's type and message kept.
    """

    def __init__(self, fn: Callable[[str], object], *, name: str | None = None) -> None:
        self.fn = fn
        self.name = name or callable_name(fn)

    def observe(self, text: str) -> Observation:
        return self._observe(text, "", ())

    def observe_payloads(self, payloads: Sequence[Payload]) -> Iterator[Observation]:
        # Stamped as they are built: one record per payload instead of two.
        for payload in payloads:
            yield self._observe(payload.text, payload.id, payload.families)

    def _observe(self, text: str, payload_id: str, families: tuple[str, ...]) -> Observation:
        try:
            received = self.fn(text)
        except (Exception, SystemExit) as exc:  # the chain's refusal of this payload
            return Observation(
                sent=text,
                status=Status.REJECTED,
                error_type=type(exc).__name__,
                error=str(exc),
                payload_id=payload_id,
                families=families,
            )
        return observe_value(text, received, payload_id=payload_id, families=families)


def callable_name(fn: object) -> str:
    """A stable, readable name for a callable: never a ``repr`` with a memory address.

    Functions and methods give their qualified name (without the enclosing function of
    a local one), ``functools.partial`` objects ``partial(name)``, other callables the
    name of their type.
    """
    func = getattr(fn, "func", None)
    if func is not None and callable(func) and type(fn).__name__ == "partial":
        return f"partial({callable_name(func)})"
    name = getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None)
    if not isinstance(name, str) or not name:
        name = type(fn).__qualname__
    return name.rsplit("<locals>.", 1)[-1]


def factory(cls: Callable[_P, _T], *, name: str, doc: str) -> Callable[_P, _T]:
    """The public function that builds ``cls`` (``probes.http`` for ``HttpProbe``).

    The class is the one place the options are defined: the function takes exactly the
    class's parameters (for type checkers through ``ParamSpec``, for ``help()`` and
    ``inspect`` through ``__signature__``) and adds the name users call and its
    docstring.
    """

    def make(*args: _P.args, **kwargs: _P.kwargs) -> _T:
        return cls(*args, **kwargs)

    make.__name__ = make.__qualname__ = name
    make.__doc__ = doc
    make.__module__ = cls.__module__
    make.__signature__ = inspect.signature(cls)  # type: ignore[attr-defined]
    return make


class Wrapping(Probe):
    """A probe around ``inner`` (a front that paces it, masks what it saw...): what it
    counts, splits and reports of its environment are ``inner``'s, and closing it closes
    ``inner``. A subclass gives ``observe`` and ``observe_many``."""

    inner: Probe

    @property
    def requests(self) -> int | None:
        return self.inner.requests

    @property
    def max_requests_per_observation(self) -> int:
        return self.inner.max_requests_per_observation

    @property
    def splits_directions(self) -> bool:
        return self.inner.splits_directions

    @property
    def environment(self) -> Mapping[str, str]:
        return self.inner.environment

    def close(self) -> None:
        self.inner.close()
