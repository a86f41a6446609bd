"""The typescript client's set-up: node found and checked, the SDK installed on first
use into the cache (for real, with npm ci), every failure one sentence."""

from __future__ import annotations

import json
import os
import shutil
import stat
from pathlib import Path

import pytest
from _needs import need_executable, need_module
from _support.servers import HOSTILE_MCP

import probes
from fidelity import Status, UsageError
from probes._mcp.node import setup as node_setup


@pytest.fixture(autouse=True)
def _fresh(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Nothing remembered from other tests; the cache in a temporary folder."""
    monkeypatch.setattr(node_setup, "_FOUND", {})
    monkeypatch.delenv(node_setup.ENV_NODE_MODULES, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))


def _bin(tmp_path: Path, **programs: str) -> Path:
    """A folder for PATH holding the real node (as ``node``) and small shell programs."""
    folder = tmp_path / "bin"
    folder.mkdir(exist_ok=True)
    for name, script in programs.items():
        path = folder / name
        path.write_text("#!/bin/sh\n" + script + "\n")
        path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return folder


def _with_node(tmp_path: Path) -> Path:
    folder = _bin(tmp_path)
    (folder / "node").symlink_to(need_executable("node"))
    return folder


def test_no_node_on_path(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PATH", str(_bin(tmp_path)))
    with pytest.raises(UsageError) as info:
        node_setup.typescript_client()
    assert str(info.value) == (
        "the typescript client needs Node.js 18 or later, and node is not on PATH; install "
        "Node.js, or probe without the typescript client."
    )


def test_a_node_too_old(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PATH", str(_bin(tmp_path, node="echo v16.20.2")))
    with pytest.raises(UsageError, match=r"and node on PATH is v16\.20\.2; install a newer"):
        node_setup.typescript_client()


def test_no_npm_for_the_first_install(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PATH", str(_with_node(tmp_path)))
    with pytest.raises(UsageError) as info:
        node_setup.typescript_client()
    assert str(info.value) == (
        "the typescript client installs @modelcontextprotocol/sdk with npm on first use, and "
        "npm is not on PATH; install npm (it comes with Node.js), or set "
        "FIDELITY_NODE_MODULES to a node_modules that holds the SDK."
    )


def test_a_failed_install_is_one_sentence_and_leaves_nothing(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    folder = _with_node(tmp_path)
    _bin(tmp_path, npm="echo 'npm error code ENOTFOUND'; echo 'npm error network down' >&2; exit 1")
    monkeypatch.setenv("PATH", str(folder))
    with pytest.raises(UsageError) as info:
        node_setup.typescript_client()
    assert str(info.value) == (
        "installing @modelcontextprotocol/sdk 1.32.2 for the typescript client (npm ci) "
        "failed: npm error network down; check access to the npm registry, or set "
        "FIDELITY_NODE_MODULES to a node_modules that holds the SDK."
    )
    assert list(node_setup.cache_root().iterdir()) == []  # no half install left behind


def test_node_modules_without_the_sdk(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    need_executable("node")
    monkeypatch.setenv(node_setup.ENV_NODE_MODULES, str(tmp_path))
    with pytest.raises(UsageError, match=r"holds no @modelcontextprotocol/sdk; point it at"):
        node_setup.typescript_client()


def test_the_first_use_installs_the_pinned_sdk_into_the_cache(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    need_module("mcp")
    need_executable("npm")
    root = node_setup.cache_root()
    old = root / "typescript-client-0123456789abcdef"  # another lock's install
    left = root / ".install-abandoned"  # an install interrupted long ago
    for folder in (old, left):
        folder.mkdir(parents=True)
    os.utime(left, (0, 0))
    found = node_setup.typescript_client()
    base = Path(found.sdk_dir)
    assert base.parent == root
    assert base.name.startswith("typescript-client-")
    meta = json.loads((base / "node_modules/@modelcontextprotocol/sdk/package.json").read_text())
    assert meta["version"] == "1.32.2"
    assert sorted(p.name for p in root.iterdir()) == [base.name]  # the old ones pruned
    # The client works from there, and a later process needs no npm any more.
    with probes.mcp([*HOSTILE_MCP], client="typescript", timeout=5) as probe:
        assert probe.observe("installed“").status is Status.PRESERVED
    monkeypatch.setattr(node_setup, "_FOUND", {})
    monkeypatch.setenv("PATH", str(_with_node(tmp_path)))
    assert node_setup.typescript_client().sdk_dir == str(base)
    shutil.rmtree(root)


def test_the_driver_ships_with_its_pins_and_the_tests_use_the_same_sdk() -> None:
    folder = Path(node_setup.__file__).parent
    shipped = sorted(p.name for p in folder.iterdir() if p.suffix != ".py" and p.is_file())
    assert shipped == ["driver.mjs", "package-lock.json", "package.json"]
    assert not (folder / "node_modules").exists()  # installed into the cache, not shipped
    package = json.loads((folder / "package.json").read_text())
    lock = json.loads((folder / "package-lock.json").read_text())
    sdk = "@modelcontextprotocol/sdk"
    assert package["dependencies"][sdk] == lock["packages"][""]["dependencies"][sdk] == "1.32.2"
    assert lock["packages"][f"node_modules/{sdk}"]["version"] == "1.32.2"
    tests_lock = json.loads((Path(__file__).parents[1] / "servers/package-lock.json").read_text())
    assert tests_lock["packages"][f"node_modules/{sdk}"]["version"] == "1.32.2"


def _installed_copy(tmp_path: Path) -> Path:
    """The tests' node_modules copied into the cache where an install would put it, the
    user's alone (as npm ci leaves it under umask 077)."""
    need_executable("node")
    root = node_setup.cache_root()
    root.mkdir(parents=True, mode=0o700)
    base = root / f"typescript-client-{node_setup._lock_hash()}"
    shutil.copytree(Path(__file__).parents[1] / "servers/node_modules", base / "node_modules")
    for folder, dirs, files in os.walk(base):
        for name in (*dirs, *files):
            path = Path(folder, name)
            if not path.is_symlink():
                path.chmod(path.stat().st_mode & ~0o022)
    base.chmod(0o700)
    return base


def test_an_install_the_user_alone_can_write_is_used(tmp_path: Path) -> None:
    base = _installed_copy(tmp_path)
    assert node_setup.typescript_client().sdk_dir == str(base)


def test_an_install_others_can_write_is_refused(tmp_path: Path) -> None:
    # Code the client runs with the user's rights: a file someone else could have
    # rewritten is not run, whatever version its package.json says.
    base = _installed_copy(tmp_path)
    target = base / "node_modules/@modelcontextprotocol/sdk/dist/esm/client/index.js"
    target.chmod(0o666)
    with pytest.raises(UsageError) as info:
        node_setup.typescript_client()
    assert str(info.value) == (
        f"the typescript client will not run the SDK installed at {base}: {target} can be "
        "written by other users; remove that folder (the next use installs it again), or "
        "set FIDELITY_NODE_MODULES to a node_modules that holds the SDK."
    )


def test_an_install_whose_record_differs_from_the_lock_is_refused(tmp_path: Path) -> None:
    # The version string alone is not trusted: npm's record of every package's tarball
    # hash must be the shipped lock's.
    base = _installed_copy(tmp_path)
    record_file = base / "node_modules/.package-lock.json"
    record = json.loads(record_file.read_text())
    record["packages"]["node_modules/zod"]["integrity"] = "sha512-AAAA"
    record_file.write_text(json.dumps(record))
    with pytest.raises(UsageError, match=r": zod is not the locked one \(integrity\); remove"):
        node_setup.typescript_client()
