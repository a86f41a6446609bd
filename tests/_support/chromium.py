"""Headless Chromium driven through the DevTools protocol, as a person would use a page.

Chromium's ``--remote-debugging-pipe`` reads protocol commands from its file
descriptor 3 and writes answers and events to 4, each a JSON message ended by a NUL
byte: no websocket, no extra package. :class:`Chromium` starts the browser with the
flags the HTML report tests use, opens a page at a fixed viewport size, and lets a test
click at a point, evaluate a script, wait for the load event and take a screenshot.
Every wait is bounded.
"""

from __future__ import annotations

import base64
import contextlib
import fcntl
import json
import os
import select
import subprocess
import tempfile
import time
from typing import Any

from _needs import need_executable

__all__ = ["FLAGS", "Chromium", "Page"]

#: The flags every headless run here uses: no sandbox (root in CI), no GPU, no network
#: chatter of the browser's own.
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
)


class Chromium:
    """One headless browser; use as a context manager (``with Chromium() as browser``)."""

    def __init__(self, *, timeout: float = 60) -> None:
        self.timeout = timeout
        self._binary = need_executable("chromium")
        self._next = 0
        self._buffer = b""
        self.events: list[dict[str, Any]] = []

    def __enter__(self) -> Chromium:
        self._profile = tempfile.TemporaryDirectory()
        self._log = tempfile.TemporaryFile()
        to_browser, self._commands = os.pipe()
        self._answers, from_browser = os.pipe()
        # Above 9, so that moving them to 3 and 4 in the child never overwrites one.
        child_in = fcntl.fcntl(to_browser, fcntl.F_DUPFD, 10)
        child_out = fcntl.fcntl(from_browser, fcntl.F_DUPFD, 10)
        for fd in (to_browser, from_browser):
            os.close(fd)
        self._process = subprocess.Popen(
            [
                "/bin/bash",
                "-c",
                f'exec "$0" "$@" 3<&{child_in} 4>&{child_out} {child_in}<&- {child_out}>&-',
                self._binary,
                *FLAGS,
                f"--user-data-dir={self._profile.name}",
                "--remote-debugging-pipe",
                "about:blank",
            ],
            stdin=subprocess.DEVNULL,
            stdout=self._log,
            stderr=self._log,
            pass_fds=(child_in, child_out),
        )
        os.close(child_in)
        os.close(child_out)
        return self

    def __exit__(self, *exc: object) -> None:
        with contextlib.suppress(OSError):
            self._write({"id": -1, "method": "Browser.close"})
        try:
            self._process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait(timeout=10)
        for fd in (self._commands, self._answers):
            os.close(fd)
        self._log.close()
        self._profile.cleanup()

    def log(self) -> str:
        """What the browser printed (for a failing test's message)."""
        self._log.seek(0)
        return self._log.read().decode("utf-8", "replace")[-3000:]

    def _write(self, message: dict[str, Any]) -> None:
        os.write(self._commands, json.dumps(message).encode() + b"\0")

    def _read(self, deadline: float) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._answers], [], [], left)[0]:
                raise TimeoutError(f"Chromium did not answer in time; its log:\n{self.log()}")
            chunk = os.read(self._answers, 1 << 20)
            if not chunk:
                raise ConnectionError(f"Chromium closed the pipe; its log:\n{self.log()}")
            self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        parsed: dict[str, Any] = json.loads(message)
        return parsed

    def send(self, method: str, session: str | None = None, **params: Any) -> dict[str, Any]:
        """Send one command and return its result (events that arrive meanwhile are kept)."""
        self._next += 1
        message: dict[str, Any] = {"id": self._next, "method": method, "params": params}
        if session is not None:
            message["sessionId"] = session
        self._write(message)
        deadline = time.monotonic() + self.timeout
        while True:
            answer = self._read(deadline)
            if answer.get("id") == self._next:
                if "error" in answer:
                    raise RuntimeError(f"{method} failed: {answer['error']}")
                result: dict[str, Any] = answer.get("result", {})
                return result
            self.events.append(answer)

    def wait_for(self, method: str, session: str | None = None) -> dict[str, Any]:
        """The first event ``method`` (of ``session``) not yet consumed; waits for it."""
        deadline = time.monotonic() + self.timeout
        while True:
            for i, event in enumerate(self.events):
                if event.get("method") == method and event.get("sessionId") == session:
                    del self.events[i]
                    return event
            self.events.append(self._read(deadline))

    def open(self, url: str, *, width: int = 1280, height: int = 900) -> Page:
        """A new page of ``width`` x ``height`` CSS pixels, loaded from ``url``."""
        target = self.send("Target.createTarget", url="about:blank")["targetId"]
        session = self.send("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        page = Page(self, session, target)
        page.send("Page.enable")
        page.send("Runtime.enable")
        page.send(
            "Emulation.setDeviceMetricsOverride",
            width=width,
            height=height,
            deviceScaleFactor=1,
            mobile=False,
        )
        page.goto(url)
        return page


class Page:
    """One tab of :class:`Chromium`."""

    def __init__(self, browser: Chromium, session: str, target: str) -> None:
        self.browser = browser
        self.session = session
        self.target = target

    def close(self) -> None:
        """Close this tab."""
        self.browser.send("Target.closeTarget", targetId=self.target)

    def send(self, method: str, **params: Any) -> dict[str, Any]:
        """A command to this page."""
        return self.browser.send(method, self.session, **params)

    def goto(self, url: str) -> float:
        """Load ``url`` (a new document: not a change of fragment alone); return the seconds
        from navigation to the load event."""
        start = time.perf_counter()
        answer = self.send("Page.navigate", url=url)
        if answer.get("errorText"):
            raise RuntimeError(f"cannot load {url}: {answer['errorText']}")
        self.browser.wait_for("Page.loadEventFired", self.session)
        return time.perf_counter() - start

    def evaluate(self, expression: str) -> Any:
        """The value of a JavaScript expression in the page (exceptions raise)."""
        answer = self.send("Runtime.evaluate", expression=expression, returnByValue=True)
        if "exceptionDetails" in answer:
            raise RuntimeError(f"{expression!r} raised: {answer['exceptionDetails']}")
        return answer["result"].get("value")

    def click(self, x: float, y: float) -> None:
        """A left click at (``x``, ``y``) in CSS pixels of the viewport, as a mouse makes it."""
        for kind in ("mouseMoved", "mousePressed", "mouseReleased"):
            self.send("Input.dispatchMouseEvent", type=kind, x=x, y=y, button="left", clickCount=1)

    def click_element(self, selector: str, index: int = 0) -> None:
        """Scroll the ``index``-th element matching ``selector`` into view, then click its
        middle with the mouse."""
        box = self.evaluate(
            f"(function () {{ var el = document.querySelectorAll({json.dumps(selector)})[{index}];"
            " if (!el) { return null; } el.scrollIntoView({block: 'center'});"
            " var r = el.getBoundingClientRect();"
            " return [r.left + r.width / 2, r.top + r.height / 2]; })()"
        )
        if box is None:
            raise LookupError(f"no element {index} matches {selector}")
        self.click(*box)

    def exceptions(self) -> list[str]:
        """The uncaught script exceptions this page reported so far."""
        self.evaluate("0")  # lets events that are already on their way arrive
        return [
            str(e["params"]["exceptionDetails"])
            for e in self.browser.events
            if e.get("method") == "Runtime.exceptionThrown" and e.get("sessionId") == self.session
        ]

    def screenshot(self) -> bytes:
        """The viewport as PNG bytes."""
        data = self.send("Page.captureScreenshot", format="png")["data"]
        return base64.b64decode(data)
