"""When an HTTP probe sends a request again: answers that mean "not now" and
connections that failed before a byte of the answer came back.

A ``429 Too Many Requests`` or ``503 Service Unavailable``, or a connection reset or
refused before the response began, is sent again, at most ``retries`` times, for the
methods HTTP defines as idempotent (``GET``, ``HEAD``, ``PUT``, ``DELETE``,
``OPTIONS``), where a second copy cannot do what the first did not. A ``POST`` (or
``PATCH``) is sent once unless the user allows it (``retry_writes``): its answer
stands, and says that the server refused it for now. Each wait honours
``Retry-After`` (seconds, or an HTTP date) and is bounded by the exchange's timeout: a
server that asks for longer gets its answer reported instead of a wait. Without
``Retry-After`` the waits are 0.25 s, 0.5 s, 1 s... A timeout is never retried: the
request may have taken effect.
"""

from __future__ import annotations

import dataclasses
import email.utils
import time
from collections.abc import Callable

from probes._http.exchange import ExchangeFailure, Reply

__all__ = ["IDEMPOTENT", "NOT_NOW", "RetryPolicy", "retry_after"]

#: The statuses that mean "not now": the same request may succeed later.
NOT_NOW = frozenset({429, 503})
#: The methods a second copy of which does no more than the first (RFC 9110 9.2.2).
IDEMPOTENT = frozenset({"GET", "HEAD", "PUT", "DELETE", "OPTIONS"})
_FIRST_WAIT = 0.25


def retry_after(reply: Reply, now: float | None = None) -> float | None:
    """The seconds ``Retry-After`` asks for (0 for a date in the past), or ``None``
    when the answer has none, or one that is neither seconds nor an HTTP date."""
    value = reply.response.headers.get("retry-after", "").strip()
    if not value:
        return None
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


@dataclasses.dataclass(frozen=True, slots=True)
class RetryPolicy:
    """How often and how long a probe retries: ``retries`` more sends at most,
    ``writes`` for every method (not only the idempotent ones), each wait at most
    ``bound`` seconds."""

    retries: int = 2
    writes: bool = False
    bound: float = 10.0

    def allows(self, method: str) -> bool:
        """Whether a request with ``method`` may be sent again at all."""
        return self.retries > 0 and (self.writes or method.upper() in IDEMPOTENT)

    def wait_after_reply(self, method: str, attempt: int, reply: Reply) -> float | None:
        """Seconds to wait before sending again after ``reply`` (attempt ``attempt``,
        from 0), or ``None`` when it stands; ``reply.note`` then says why, for a "not
        now" answer."""
        if reply.status not in NOT_NOW:
            return None
        asked = retry_after(reply)
        if not self.allows(method):
            reply.note = (
                f"the server refused it for now; a {method.upper()} is not sent twice "
                "(--retry-writes allows it)"
            )
            return None
        if attempt >= self.retries:
            reply.note = (
                f"the server refused it for now, {attempt + 1} times "
                f"({attempt} {'retry' if attempt == 1 else 'retries'})"
            )
            return None
        if asked is not None and asked > self.bound:
            reply.note = (
                f"the server refused it for now and asked to wait {asked:g}s "
                f"(Retry-After), longer than the timeout of {self.bound:g}s"
            )
            return None
        return asked if asked is not None else self._backoff(attempt)

    def wait_after_failure(
        self, method: str, attempt: int, failure: ExchangeFailure
    ) -> float | None:
        """Seconds to wait before sending again after ``failure``, or ``None``."""
        if not failure.unanswered or attempt >= self.retries or not self.allows(method):
            return None
        return self._backoff(attempt)

    def _backoff(self, attempt: int) -> float:
        return float(min(_FIRST_WAIT * 2.0**attempt, self.bound))

    def send(
        self,
        method: str,
        send_once: Callable[[], Reply],
        may_send_again: Callable[[], bool],
        retried: Callable[[], None],
    ) -> Reply:
        """The answer of ``send_once()``, called again as this policy allows (and while
        ``may_send_again()``, ``retried()`` told of each); an ``ExchangeFailure`` that
        is not retried is raised."""
        attempt = 0
        while True:
            try:
                reply = send_once()
            except ExchangeFailure as failure:
                wait = self.wait_after_failure(method, attempt, failure)
                if wait is None or not may_send_again():
                    raise
            else:
                wait = self.wait_after_reply(method, attempt, reply)
                if wait is None:
                    return reply
                if not may_send_again():
                    reply.note = "the server refused it for now; --max-requests leaves no retry"
                    return reply
            time.sleep(wait)
            attempt += 1
            retried()
