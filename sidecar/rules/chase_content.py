"""Chase content: complication tables, escape factors and chase maps, all YAML.

- ``content/chase/tables/``: a die (``d12``, ``d20``...) and entries with a ``roll`` (``4`` or
  ``"7-12"``), a localized ``text`` and ``effects`` for the interpreter. The rolls must cover
  every face exactly once. Entries with ``complication: false`` are "nothing happens".
- ``content/chase/factors/``: escape factors (advantage or disadvantage on the Stealth check).
- ``content/chase/maps/``: a route of segments, linear or branching, with obstacles.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import Field, field_validator, model_validator

from sidecar.content import LocalizedText, register_kind
from sidecar.i18n import localized
from sidecar.models import Language, Strict
from sidecar.rules.effects import EffectList

_DIE = re.compile(r"^d(\d{1,4})$")
_RANGE = re.compile(r"^\s*(\d+)\s*(?:-\s*(\d+))?\s*$")


def text_in(value: dict[Language, str], language: str) -> str:
    """A localized content text in ``language`` (English when it lacks one)."""
    return localized({str(k): v for k, v in value.items()}, language)


def die_faces(die: str) -> int:
    match = _DIE.match(die)
    if not match or int(match.group(1)) < 2:
        raise ValueError(f"die must look like d12 or d20, not {die!r}")
    return int(match.group(1))


class TableEntry(Strict):
    id: str = Field(min_length=1, max_length=64)
    roll: tuple[int, int]
    complication: bool = True
    text: LocalizedText
    effects: EffectList = Field(default_factory=list)

    @field_validator("roll", mode="before")
    @classmethod
    def _parse_roll(cls, value: Any) -> Any:
        if isinstance(value, int):
            return (value, value)
        if isinstance(value, str):
            match = _RANGE.match(value)
            if not match:
                raise ValueError(f"roll must be a number or a range like '7-12', not {value!r}")
            low = int(match.group(1))
            return (low, int(match.group(2) or low))
        return value

    @model_validator(mode="after")
    def _ordered(self) -> TableEntry:
        if self.roll[0] > self.roll[1]:
            raise ValueError(f"roll range {self.roll[0]}-{self.roll[1]} runs backwards")
        return self


class ChaseTable(Strict):
    id: str
    name: LocalizedText
    die: str = "d12"
    edition: Literal["2024", "2014", "custom"] = "custom"
    entries: list[TableEntry] = Field(min_length=1, max_length=1000)

    @model_validator(mode="after")
    def _covers_die(self) -> ChaseTable:
        faces = die_faces(self.die)
        seen: dict[int, str] = {}
        for entry in self.entries:
            for face in range(entry.roll[0], entry.roll[1] + 1):
                if not 1 <= face <= faces:
                    raise ValueError(f"entry {entry.id!r}: {face} is not a face of {self.die}")
                if face in seen:
                    raise ValueError(
                        f"{self.die} face {face} is in {seen[face]!r} and {entry.id!r}"
                    )
                seen[face] = entry.id
        missing = [f for f in range(1, faces + 1) if f not in seen]
        if missing:
            raise ValueError(f"{self.die} faces without an entry: {missing}")
        return self

    @property
    def faces(self) -> int:
        return die_faces(self.die)

    def lookup(self, roll: int) -> TableEntry:
        for entry in self.entries:
            if entry.roll[0] <= roll <= entry.roll[1]:
                return entry
        raise ValueError(f"{roll} is not on the table {self.id!r}")

    def complication_rate(self) -> float:
        hits = sum(e.roll[1] - e.roll[0] + 1 for e in self.entries if e.complication)
        return hits / self.faces


class EscapeFactorDef(Strict):
    id: str
    name: LocalizedText
    mode: Literal["advantage", "disadvantage"]


class Obstacle(Strict):
    id: str = Field(min_length=1, max_length=64)
    at_ft: int = Field(ge=0, le=100_000, description="feet from the start of its segment")
    text: LocalizedText
    effects: EffectList = Field(default_factory=list)


class Segment(Strict):
    id: str = Field(min_length=1, max_length=64)
    length_ft: int = Field(ge=5, le=100_000)
    next: list[str] = Field(default_factory=list, max_length=16)
    obstacles: list[Obstacle] = Field(default_factory=list, max_length=100)


class ChaseMap(Strict):
    id: str
    name: LocalizedText
    table: str | None = Field(default=None, description="the complication table it suggests")
    start: str
    segments: list[Segment] = Field(min_length=1, max_length=500)

    @model_validator(mode="after")
    def _links(self) -> ChaseMap:
        ids = {s.id for s in self.segments}
        if len(ids) != len(self.segments):
            raise ValueError("segment ids must be unique")
        if self.start not in ids:
            raise ValueError(f"start segment {self.start!r} is not a segment")
        for seg in self.segments:
            for nxt in seg.next:
                if nxt not in ids:
                    raise ValueError(f"segment {seg.id!r} leads to unknown segment {nxt!r}")
            for obstacle in seg.obstacles:
                if obstacle.at_ft > seg.length_ft:
                    raise ValueError(f"obstacle {obstacle.id!r} lies past the end of {seg.id!r}")
        return self

    def segment(self, seg_id: str) -> Segment:
        for seg in self.segments:
            if seg.id == seg_id:
                return seg
        raise KeyError(seg_id)

    @property
    def linear(self) -> bool:
        return all(len(s.next) <= 1 for s in self.segments)


register_kind("chase_table", "chase/tables", ChaseTable)
register_kind("chase_factor", "chase/factors", EscapeFactorDef)
register_kind("chase_map", "chase/maps", ChaseMap)
