"""What a read-back must equal after a payload's calls: the ``expect`` template.

By default the read-back must equal the payload (``{payload}``). An edit that must
apply says more: the edit's new text is ``"{payload}{mark}"``, so the read-back must be
``{payload}{mark}`` (``expect="{payload}{mark}"``). :meth:`Expectation.judge` turns a
value read back into the observation:

- with ``{mark}`` in the template, a read-back that does not hold the payload's mark
  means the calls did not do what was asked (the edit did not apply) although none of
  them answered with an error flag: ``rejected`` with ``silent`` set, the tool's answer
  quoted;
- otherwise the read-back is compared with the expected value, the mark taken out of
  both (it is plain ASCII, so nothing rewrites it): ``preserved`` when equal, else
  ``transformed`` with the kinds of the comparison. The observation's ``sent`` is the
  expected value without the mark, which for ``{payload}`` and ``{payload}{mark}`` is
  the payload itself.

Every probe that reads a value back uses it (MCP, HTTP), so a run that surveys many
tools (``--all-tools``) can give each its own ``expect``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from fidelity._core.errors import UsageError
from fidelity._core.kinds import Status
from fidelity._core.render import safe
from fidelity._probe.contract import observe_value
from fidelity._probe.observation import SILENT_ANSWER, Direction, Observation
from probes._payload.placeholders import Filled, TextTemplate

__all__ = ["DEFAULT_EXPECT", "NOT_APPLIED", "Expectation"]

#: The ``expect`` template when none is given: the read-back is the payload.
DEFAULT_EXPECT = "{payload}"
#: The ``error_type`` of a silent rejection: the calls answered, the effect is missing.
NOT_APPLIED = "not applied"
_NAMES = ("payload", "n", "run", "mark")
_ANSWER = 240


@dataclass(frozen=True, slots=True)
class Expectation:
    """A parsed ``expect`` template (``source`` as given)."""

    source: str
    template: TextTemplate

    @classmethod
    def parse(cls, source: str | None, *, where: str = "expect") -> Expectation:
        """Parse ``source`` (``None``: ``{payload}``); a template without ``{payload}``,
        an unknown placeholder or a stray brace is a ``UsageError``."""
        if source is None:
            source = DEFAULT_EXPECT
        if not isinstance(source, str):
            raise UsageError(f"{where}={source!r} must be a string template such as '{{payload}}'.")
        template = TextTemplate.parse(source, allowed=_NAMES, where=where)
        if "payload" not in template.names:
            raise UsageError(
                f"{where} {safe(source)!r} does not hold {{payload}}; it says what the "
                "read-back must equal, such as '{payload}' or, after an edit whose new text "
                "is \"{payload}{mark}\", '{payload}{mark}'."
            )
        return cls(source, template)

    @property
    def is_default(self) -> bool:
        """True for ``{payload}``: the read-back is the payload."""
        return self.template.parts == (("name", "payload"),)

    @property
    def uses_mark(self) -> bool:
        """True when the read-back must hold the payload's ``{mark}``."""
        return "mark" in self.template.names

    def value(self, values: Filled) -> str:
        """The read-back expected for one payload."""
        return self.template.fill(values)

    def judge(
        self,
        text: str,
        received: object,
        values: Filled,
        *,
        direction: Direction = Direction.ROUND_TRIP,
        answer: str = "",
        tool: str = "the tool",
        fields: Mapping[str, Any] | None = None,
    ) -> Observation:
        """The observation of ``received``, read back after the calls for payload
        ``text`` (``answer``: what the payload's call answered, terminal-safe;
        ``fields``: more fields of the observation, such as ``wire``)."""
        more = dict(fields or {})
        if self.is_default:
            return observe_value(text, received, direction=direction, **more)
        expected = self.value(values)
        if self.uses_mark:
            mark = values.mark
            if not isinstance(received, str) or mark not in received:
                said = answer[:_ANSWER] + ("..." if len(answer) > _ANSWER else "")
                return Observation(
                    sent=text,
                    status=Status.REJECTED,
                    error_type=NOT_APPLIED,
                    error=(
                        f"{tool} did not apply the change: the read-back does not hold the "
                        f"payload's mark; {SILENT_ANSWER}{said or '(no text)'}"
                    ),
                    direction=direction,
                    silent=True,
                    **more,
                )
            received = received.replace(mark, "")
            expected = expected.replace(mark, "")
        return observe_value(expected, received, direction=direction, **more)
