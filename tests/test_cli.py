"""The command line: content check, worlds, demo."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from sidecar.cli import main
from sidecar.content import registered_kinds
from sidecar.rules import registry  # noqa: F401

ROOT = Path(__file__).resolve().parent.parent


def test_content_check_passes_on_bundled_content(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["content", "check"]) == 0
    assert "content check passed" in capsys.readouterr().out


def test_content_check_names_file_entry_and_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    kinds = registered_kinds()
    assert kinds, "engines register content kinds"
    spec = next(iter(kinds.values()))
    folder = tmp_path / "mine" / spec.directory
    folder.mkdir(parents=True)
    (folder / "broken.yaml").write_text("- id: my_broken_entry\n  no_such_field: 3\n", "utf-8")
    assert main(["content", "check", "--content", str(tmp_path / "mine")]) == 1
    out = capsys.readouterr().out
    assert "broken.yaml" in out
    assert "my_broken_entry" in out
    assert "no_such_field" in out or "field" in out
    assert "content check failed" in out


def test_world_commands(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = str(tmp_path / "w.db")
    assert main(["--db", db, "world", "add", "camp", "--title", "Campaign"]) == 0
    token = capsys.readouterr().out.splitlines()[1]
    assert len(token) >= 40
    assert main(["--db", db, "world", "list"]) == 0
    listed = capsys.readouterr().out
    assert "camp" in listed and token not in listed
    assert main(["--db", db, "world", "add", "camp"]) == 1
    assert main(["--db", db, "world", "rotate", "camp"]) == 0
    assert main(["--db", db, "world", "remove", "camp"]) == 0
    assert main(["--db", db, "world", "remove", "camp"]) == 1


def test_demo_prints_readable_cards() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "sidecar.cli", "demo", "--only", "core"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    ).stdout
    assert "Handshake: welcome" in out
    assert "[card] Gout of flame" in out
    assert "Dexterity saving throw" in out
    assert "<" not in out.replace("<b>", "")  # cards are text, not HTML


def test_demo_in_russian() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "sidecar.cli", "demo", "--only", "core", "--language", "ru"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    ).stdout
    assert "спасбросок" in out.lower() or "Спасбросок" in out
