"""The plugin's mutable state for one pytest process, kept in ``config.stash``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pytest

    from fidelity._pytest.session import MarkContext, SessionLog
    from fidelity._pytest.settings import PluginSettings

__all__ = ["SEED_KEY", "PluginState"]

#: The key of the controller's seed in an xdist worker's ``workerinput``.
SEED_KEY = "fidelity_seed"


class PluginState:
    """The plugin's mutable state for one pytest process, kept in ``config.stash``.

    Everything beyond a few attributes is built on first use, so a session that never
    touches the plugin pays for nothing: ``settings`` (from the options; an xdist
    worker takes the controller's seed), ``log`` (findings and cards), and the running
    test's marker context.
    """

    __slots__ = ("_context", "_log", "_settings", "config", "deselected", "item", "summary")

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.item: pytest.Item | None = None
        self.summary: list[str] = []
        self.deselected = 0
        self._context: MarkContext | None = None
        self._settings: PluginSettings | None = None
        self._log: SessionLog | None = None

    @property
    def settings(self) -> PluginSettings:
        """The session's settings from the ``--fidelity-*`` options."""
        if self._settings is None:
            from fidelity._pytest.settings import PluginSettings

            workerinput: dict[str, Any] | None = getattr(self.config, "workerinput", None)
            seed = workerinput.get(SEED_KEY) if workerinput is not None else None
            self._settings = PluginSettings.from_config(self.config, seed=seed)
        return self._settings

    @property
    def log(self) -> SessionLog:
        """The findings and cards gathered in this process."""
        if self._log is None:
            from fidelity._pytest.session import SessionLog

            self._log = SessionLog()
        return self._log

    @property
    def used(self) -> bool:
        """Whether anything was recorded in this process."""
        return self._log is not None

    def enter(self, item: pytest.Item) -> None:
        """A test starts: forget the previous test's marker context."""
        self.item = item
        self._context = None

    def current(self) -> MarkContext:
        """The running test's node id and marker (``UsageError`` for a bad marker)."""
        if self._context is None:
            from fidelity._pytest.session import MarkContext, marker_context

            if self.item is None:
                return MarkContext(nodeid="(outside a test)")
            self._context = marker_context(self.item)
        return self._context
