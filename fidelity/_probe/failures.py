"""The kinds of failure a probe records on an observation, by name.

An observation's ``error_type`` is the name of what failed; the kinds a run's rules
weigh are named here, so the layers above read them without importing the probe
that raises them (``tests/probes`` pins that the probes' exceptions bear these names).
"""

from __future__ import annotations

import enum

__all__ = ["FailureKind"]


class FailureKind(enum.StrEnum):
    """A failure a run's rules tell apart, as ``Observation.error_type`` holds it."""

    #: The reply arrived but the client library could not parse it (a protocol failure).
    UNPARSABLE = "UnparsableReply"
    #: The reply was longer than the reply limit (``--max-reply``); it was not read further.
    REPLY_TOO_LARGE = "ReplyTooLarge"
