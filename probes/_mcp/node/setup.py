"""What the TypeScript client needs to run: ``node``, the driver, and the SDK installed.

The driver (``probes/_mcp/node/driver.mjs``) ships in the package with a
``package.json`` and ``package-lock.json`` that pin ``@modelcontextprotocol/sdk``.
On first use the SDK is installed with ``npm ci`` into a cache directory named after
the lock file's hash, ``$XDG_CACHE_HOME/param-fidelity/typescript-client-HASH`` (by
default under ``~/.cache``): in a temporary directory first, renamed into place once
complete, so a run that is interrupted, or two runs at once, never leave a half
installed copy behind. The install is bounded in time; older copies (another lock)
are removed.

The cache holds code that runs with the user's rights, so it is trusted by more than
its SDK version: the cache root is made readable and writable by its owner alone
(0700), and every use checks that the install and everything in it belongs to the
user and can be written by no one else, and that npm's record of what it installed
(``node_modules/.package-lock.json``: each package's version and the integrity hash
of its tarball, which ``npm ci`` checked on download) is the shipped lock's. An install
that fails either check is refused in one sentence that names it (remove it: the next
use installs it again). ``FIDELITY_NODE_MODULES`` may name an existing ``node_modules`` that
holds the SDK (the test suite's ``tests/servers/node_modules``): nothing is
installed then.

Every failure is one sentence saying what to do: ``node`` missing or too old, ``npm``
missing, the install failing.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import shutil
import stat
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from fidelity._core.errors import UsageError
from fidelity._core.render import safe

__all__ = ["ENV_NODE_MODULES", "NodeClient", "cache_root", "install_needed", "typescript_client"]

#: Names an existing ``node_modules`` holding the SDK (skips the install).
ENV_NODE_MODULES = "FIDELITY_NODE_MODULES"
_HERE = Path(__file__).resolve().parent
_SDK = ("@modelcontextprotocol", "sdk")
_MIN_NODE = 18
_VERSION_TIMEOUT = 15.0
#: How long ``npm ci`` may take (it fetches about 100 packages, 30 MB).
_INSTALL_TIMEOUT = 600.0
#: Left-over temporary installs older than this are removed.
_STALE_SECONDS = 3600.0
_PREFIX = "typescript-client-"
_OUTPUT_TAIL = 4000
_LOCK = threading.Lock()
_FOUND: dict[str, NodeClient] = {}


@dataclass(frozen=True, slots=True, kw_only=True)
class NodeClient:
    """How to start the driver: ``node``, the driver script, and the folder whose
    ``node_modules`` holds the SDK."""

    node: str
    driver: str
    sdk_dir: str


def cache_root() -> Path:
    """Where installs are kept: ``$XDG_CACHE_HOME/param-fidelity``, by default
    ``~/.cache/param-fidelity``."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "param-fidelity"


def _lock_hash() -> str:
    digest = hashlib.sha256()
    for name in ("package.json", "package-lock.json"):
        digest.update((_HERE / name).read_bytes())
    return digest.hexdigest()[:16]


def _pinned_version() -> str:
    import json

    lock = json.loads((_HERE / "package-lock.json").read_text("utf-8"))
    version: str = lock["packages"]["node_modules/" + "/".join(_SDK)]["version"]
    return version


def _sdk_version(base: Path) -> str | None:
    """The SDK version installed under ``base/node_modules``, or ``None``."""
    import json

    try:
        meta = json.loads(base.joinpath("node_modules", *_SDK, "package.json").read_text("utf-8"))
    except (OSError, ValueError):
        return None
    version = meta.get("version") if isinstance(meta, dict) else None
    return version if isinstance(version, str) else None


def _writable_by_others(path: Path) -> str:
    """Why ``path`` (not followed if a link) is not the user's own, or ``""``."""
    try:
        info = path.lstat()
    except OSError as exc:
        return f"{safe(str(path))} cannot be read ({safe(exc.strerror or str(exc))})"
    if hasattr(os, "getuid") and info.st_uid != os.getuid():
        return f"{safe(str(path))} belongs to another user"
    if not stat.S_ISLNK(info.st_mode) and info.st_mode & 0o022:
        return f"{safe(str(path))} can be written by other users"
    return ""


def _untrusted(root: Path, base: Path) -> str:
    """Why the install at ``base`` is not to be run, or ``""``: see the module doc."""
    import json

    for path in (root, base):
        why = _writable_by_others(path)
        if why:
            return why
    for folder, dirs, files in os.walk(base):
        for name in (*dirs, *files):
            why = _writable_by_others(Path(folder, name))
            if why:
                return why
    try:
        record = json.loads((base / "node_modules" / ".package-lock.json").read_text("utf-8"))
        installed = record["packages"]
        lock = json.loads((_HERE / "package-lock.json").read_text("utf-8"))["packages"]
    except (OSError, ValueError, KeyError, TypeError):
        return "npm's record of the install (node_modules/.package-lock.json) is missing"
    for name, pinned in lock.items():
        if not name or pinned.get("dev"):
            continue
        got = installed.get(name) if isinstance(installed, dict) else None
        got = got if isinstance(got, dict) else {}
        for key in ("version", "integrity"):
            if got.get(key) != pinned.get(key):
                return f"{safe(name.removeprefix('node_modules/'))} is not the locked one ({key})"
    return ""


def _node() -> str:
    node = shutil.which("node")
    if node is None:
        raise UsageError(
            f"the typescript client needs Node.js {_MIN_NODE} or later, and node is not on "
            "PATH; install Node.js, or probe without the typescript client."
        )
    try:
        out = subprocess.run(
            [node, "--version"],
            capture_output=True,
            text=True,
            timeout=_VERSION_TIMEOUT,
            check=False,
        ).stdout
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise UsageError(
            f"the typescript client could not run node --version ({safe(str(exc))}); "
            f"install Node.js {_MIN_NODE} or later, or probe without the typescript client."
        ) from None
    match = re.match(r"v(\d+)\.", out.strip())
    if match is None or int(match.group(1)) < _MIN_NODE:
        shown = safe(out.strip()[:40]) or "no version"
        raise UsageError(
            f"the typescript client needs Node.js {_MIN_NODE} or later, and node on PATH "
            f"is {shown}; install a newer Node.js, or probe without the typescript client."
        )
    return node


def _given(value: str) -> Path:
    """The folder holding the ``node_modules`` that ``FIDELITY_NODE_MODULES`` names."""
    path = Path(value).expanduser().resolve()
    base = path.parent if path.name == "node_modules" else path
    if _sdk_version(base) is None:
        raise UsageError(
            f"{ENV_NODE_MODULES}={safe(value)} holds no {'/'.join(_SDK)}; point it at a "
            "node_modules directory where the SDK is installed, or unset it to install "
            "the SDK on first use."
        )
    return base


def _tail(path: Path) -> str:
    try:
        with path.open("rb") as f:
            f.seek(0, os.SEEK_END)
            f.seek(max(0, f.tell() - _OUTPUT_TAIL))
            data = f.read()
    except OSError:
        return ""
    lines = [line.strip() for line in data.decode("utf-8", "replace").splitlines()]
    useful = [line for line in lines if line and not line.startswith("npm notice")]
    return safe(useful[-1][:200]) if useful else ""


def _prune(root: Path, keep: Path) -> None:
    """Remove installs of other lock files, and temporary ones left behind long ago."""
    now = time.time()
    with contextlib.suppress(OSError):
        for entry in root.iterdir():
            if entry == keep:
                continue
            stale = entry.name.startswith(".install-") and now - entry.stat().st_mtime > (
                _STALE_SECONDS
            )
            if entry.name.startswith(_PREFIX) or stale:
                shutil.rmtree(entry, ignore_errors=True)


def _install(root: Path, final: Path) -> None:
    """``npm ci`` into a temporary folder of ``root``, then rename it to ``final``."""
    npm = shutil.which("npm")
    if npm is None:
        raise UsageError(
            f"the typescript client installs {'/'.join(_SDK)} with npm on first use, and "
            f"npm is not on PATH; install npm (it comes with Node.js), or set "
            f"{ENV_NODE_MODULES} to a node_modules that holds the SDK."
        )
    try:
        root.mkdir(parents=True, exist_ok=True, mode=0o700)
        if _writable_by_others(root):
            with contextlib.suppress(OSError):
                root.chmod(0o700)  # ours: made private; another user's: refused below
        work = Path(tempfile.mkdtemp(prefix=".install-", dir=root))
    except OSError as exc:
        raise UsageError(
            f"the typescript client cannot create its cache directory {safe(str(root))} "
            f"({safe(exc.strerror or str(exc))}); set XDG_CACHE_HOME to a writable folder."
        ) from None
    try:
        for name in ("package.json", "package-lock.json"):
            shutil.copyfile(_HERE / name, work / name)
        log = work / "npm.log"
        with log.open("wb") as out:
            try:
                code = subprocess.run(
                    [npm, "ci", "--omit=dev", "--ignore-scripts", "--no-audit", "--no-fund"],
                    cwd=work,
                    stdin=subprocess.DEVNULL,
                    stdout=out,
                    stderr=subprocess.STDOUT,
                    timeout=_INSTALL_TIMEOUT,
                    check=False,
                    umask=0o077,  # the install is the user's alone, whatever their umask
                ).returncode
            except subprocess.TimeoutExpired:
                code = None
            except OSError as exc:
                raise UsageError(
                    f"the typescript client could not run npm ({safe(str(exc))}); check the "
                    f"npm installation, or set {ENV_NODE_MODULES} to a node_modules that "
                    "holds the SDK."
                ) from None
        if code != 0 or _sdk_version(work) != _pinned_version():
            why = (
                f"it took longer than {_INSTALL_TIMEOUT:g}s"
                if code is None
                else (_tail(log) or f"npm exited with status {code}")
            )
            raise UsageError(
                f"installing {'/'.join(_SDK)} {_pinned_version()} for the typescript client "
                f"(npm ci) failed: {why.rstrip('.')}; check access to the npm registry, or set "
                f"{ENV_NODE_MODULES} to a node_modules that holds the SDK."
            )
        log.unlink()
        for _ in range(2):
            try:
                work.rename(final)
                break
            except OSError as exc:
                if _sdk_version(final) == _pinned_version():
                    break  # another run finished the same install first
                error = exc
                shutil.rmtree(final, ignore_errors=True)  # a broken copy: replaced
        else:
            raise UsageError(
                f"the typescript client could not put its SDK in place at {safe(str(final))} "
                f"({safe(error.strerror or str(error))}); remove that folder and try again."
            )
    finally:
        shutil.rmtree(work, ignore_errors=True)


def install_needed() -> str:
    """Where the SDK would be installed on first use, or ``""`` when nothing needs
    installing (installed already, or ``FIDELITY_NODE_MODULES`` names one)."""
    if os.environ.get(ENV_NODE_MODULES, ""):
        return ""
    base = cache_root() / f"{_PREFIX}{_lock_hash()}"
    return "" if _sdk_version(base) == _pinned_version() else str(base)


def typescript_client() -> NodeClient:
    """``node``, the driver and the SDK, installed on first use (see the module doc).

    Raises ``UsageError`` (one sentence) when node or npm is missing or the install
    fails. The result is remembered for the process.
    """
    given = os.environ.get(ENV_NODE_MODULES, "")
    with _LOCK:
        found = _FOUND.get(given)
        if found is not None:
            return found
        node = _node()
        if given:
            base = _given(given)
        else:
            root = cache_root()
            base = root / f"{_PREFIX}{_lock_hash()}"
            if _sdk_version(base) != _pinned_version():
                _install(root, base)
                _prune(root, base)
            why = _untrusted(root, base)
            if why:
                raise UsageError(
                    f"the typescript client will not run the SDK installed at "
                    f"{safe(str(base))}: {why}; remove that folder (the next use installs "
                    f"it again), or set {ENV_NODE_MODULES} to a node_modules that holds "
                    "the SDK."
                )
        found = NodeClient(node=node, driver=str(_HERE / "driver.mjs"), sdk_dir=str(base))
        _FOUND[given] = found
        return found
