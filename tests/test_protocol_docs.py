"""docs/protocol.md documents every message with an example that the models accept, and the
checked-in JSON Schema is current."""

from __future__ import annotations

import json
import re
from pathlib import Path

from sidecar.cli import main
from sidecar.protocol import CLIENT_TYPES, client_adapter, server_adapter

DOC = Path(__file__).resolve().parent.parent / "docs" / "protocol.md"
SERVER_TYPES = {"welcome", "accepted", "error", "pong", "card", "ops", "save.request", "state"}


def sections() -> dict[str, list[dict[str, object]]]:
    text = DOC.read_text("utf-8")
    found: dict[str, list[dict[str, object]]] = {}
    for part in re.split(r"^### ", text, flags=re.M)[1:]:
        name = part.split("\n", 1)[0].strip().strip("`")
        blocks = re.findall(r"```json\n(.*?)```", part, flags=re.S)
        found[name] = [json.loads(b) for b in blocks]
    return found


def test_every_message_type_has_a_section_with_an_example() -> None:
    documented = sections()
    for kind in CLIENT_TYPES | SERVER_TYPES:
        assert kind in documented, f"docs/protocol.md has no section for {kind}"
        assert documented[kind], f"the {kind} section has no JSON example"


def test_examples_validate_against_the_models() -> None:
    for kind, examples in sections().items():
        for example in examples:
            assert example["type"] == kind
            adapter = client_adapter if kind in CLIENT_TYPES else server_adapter
            adapter.validate_python(example)


def test_checked_in_schema_is_current(capsys: object) -> None:
    assert main(["schema", "--check"]) == 0
