"""Chase content: the bundled tables are well formed, and a GM's own table loads and runs."""

from __future__ import annotations

from pathlib import Path

from sidecar.cards import CardRenderer
from sidecar.content import ContentStore, default_roots
from sidecar.dice import Dice
from sidecar.engine import EventContext
from sidecar.rules import registry  # noqa: F401
from sidecar.rules.chase_content import ChaseMap, ChaseTable
from sidecar.rules.chase_engine import roll_complication
from sidecar.rules.effects import Resolution
from sidecar.state import WorldState
from tests.test_chase_stats import creature, make_chase

SEWER = """
- id: sewer
  name: {en: Sewer, ru: Канализация, zh-CN: 下水道}
  die: d8
  entries:
    - id: sludge
      roll: "1-2"
      text: {en: Thick sludge., ru: Густая жижа., zh-CN: 浓稠的淤泥。}
      effects:
        - {kind: save, ability: str, dc: 12, on_fail: [{kind: difficult_terrain, feet: 15}]}
    - id: rats
      roll: 3
      text: {en: Rats!, ru: Крысы!, zh-CN: 老鼠！}
      effects: [{kind: lose_movement, feet: 5}]
    - id: none
      roll: "4-8"
      complication: false
      text: {en: Nothing., ru: Ничего., zh-CN: 无事。}
"""


def write(root: Path, text: str, name: str = "sewer.yaml") -> Path:
    folder = root / "chase" / "tables"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(text, encoding="utf-8")
    return root


def test_bundled_tables_cover_their_dice() -> None:
    store = ContentStore.load(default_roots())
    assert not store.errors
    tables = store.all("chase_table")
    assert {"urban", "wilderness", "urban-2014", "wilderness-2014"} <= set(tables)
    for table_id, table in tables.items():
        assert isinstance(table, ChaseTable)
        faces = table.faces
        assert faces in (12, 20), table_id
        complications = [e for e in table.entries if e.complication]
        assert len(complications) == (6 if faces == 12 else 10)
        for entry in table.entries:
            assert set(entry.text) == {"en", "ru", "zh-CN"}
    route = store.get_as("chase_map", "market-district", ChaseMap)
    assert route is not None and not route.linear
    assert len(store.all("chase_factor")) >= 4


def test_a_gm_table_loads_and_runs(tmp_path: Path) -> None:
    store = ContentStore.load(default_roots([write(tmp_path, SEWER)]))
    assert not store.errors
    table = store.get_as("chase_table", "sewer", ChaseTable)
    assert table is not None and table.complication_rate() == 3 / 8
    ctx = EventContext(
        world_id="w",
        event_id="e",
        language="ru",
        ruleset="legacy",
        state=WorldState(),
        dice=Dice.seeded(3),
        content=store,
        cards=CardRenderer(store.catalog),
    )
    chase = make_chase(
        ctx, creature("q"), creature("p", saves={"str": -50}), distance=100, table="sewer"
    )
    roll_complication(ctx, chase, chase.participants["q"], 1, Resolution())
    assert chase.participants["p"].difficult_ft == 15
    assert chase.log[-1].text == "Густая жижа."


def test_a_broken_gm_table_is_reported(tmp_path: Path) -> None:
    overlapping = SEWER.replace('roll: "4-8"', 'roll: "3-8"')
    write(tmp_path, overlapping)
    write(tmp_path, SEWER.replace("id: sewer", "id: gappy").replace('"4-8"', '"5-8"'), "b.yaml")
    write(
        tmp_path,
        SEWER.replace("id: sewer", "id: odd").replace("lose_movement", "teleport"),
        "c.yaml",
    )
    store = ContentStore.load(default_roots([tmp_path]))
    messages = "\n".join(str(e) for e in store.errors)
    assert "face 3" in messages
    assert "without an entry: [4]" in messages
    assert "teleport" in messages
