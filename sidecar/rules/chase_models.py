"""Chase documents (RULES.md §6): one ``chase:<id>`` document per running chase.

Positions are feet along the chase route (pursuers start at 0, quarries ahead of them).
A participant is a token (its creature snapshot is read from the token document) or an
off-scene creature that joined through a complication (its snapshot lives here).
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from sidecar.models import Creature, Identifier, Strict
from sidecar.state import register_document

Role = Literal["quarry", "pursuer"]
Status = Literal["active", "caught", "escaped", "out", "gave_up", "left"]
ChaseStatus = Literal["running", "ended"]
EndReason = Literal[
    "quarries_gave_up",
    "pursuers_gave_up",
    "all_escaped",
    "all_caught",
    "pursuers_out",
    "quarries_gone",
    "gm_ended",
    "split",
]


class EscapeFactor(Strict):
    """A reason the quarry's Stealth check has advantage (+1) or disadvantage (-1)."""

    id: str = Field(max_length=64, description="content id (chase_factor) or a GM's own")
    mode: Literal[1, -1]
    note: str = Field(default="", max_length=200)


class Participant(Strict):
    id: Identifier = Field(description="the token id, or a synthetic key for an off-scene creature")
    name: str = Field(max_length=256)
    role: Role
    token_id: str | None = None
    scene_id: str | None = None
    creature: Creature | None = Field(default=None, description="snapshot of a tokenless joiner")
    initiative: float
    position_ft: int = 0
    free_dashes: int = Field(ge=1)
    dashes_used: int = 0
    exhaustion_gained: int = 0
    dash_next: bool = True
    avoid_with_movement: bool | None = Field(
        default=None, description="razorvine-style choices: spend movement (True), save (False)"
    )
    prone: bool = False
    blinded_this_turn: bool = False
    difficult_ft: int = 0
    lose_ft: int = 0
    stopped: bool = False
    status: Status = "active"
    acted_round: int = 0
    in_sight: bool = True
    seen_all_round: bool = True
    factors: list[EscapeFactor] = Field(default_factory=list, max_length=32)
    path: list[str] = Field(default_factory=list, description="map segments taken, in order")
    branch_choice: str | None = None

    @property
    def active(self) -> bool:
        return self.status == "active"


class LogEntry(Strict):
    round: int
    roller: str
    target: str | None = None
    roll: int
    entry: str | None = None
    text: str = ""
    forced: bool = False


class CatchOffer(Strict):
    pursuer: str
    quarry: str
    round: int


class ChaseDoc(Strict):
    id: Identifier
    status: ChaseStatus = "running"
    end_reason: EndReason | None = None
    scene_id: str | None = None
    combat_id: str | None = None
    table_id: str
    map_id: str | None = None
    sight_range_ft: int | None = None
    round: int = 1
    combat_round: int = 0
    participants: dict[str, Participant] = Field(default_factory=dict)
    leader: str | None = None
    distances: dict[str, int] = Field(default_factory=dict)
    offers: list[CatchOffer] = Field(default_factory=list)
    log: list[LogEntry] = Field(default_factory=list)
    parent: str | None = None
    children: list[str] = Field(default_factory=list)
    joined_counter: int = 0

    def order(self) -> list[Participant]:
        """Initiative order, highest first; ties by name then id so it is stable."""
        return sorted(self.participants.values(), key=lambda p: (-p.initiative, p.name, p.id))

    def active(self, role: Role | None = None) -> list[Participant]:
        return [p for p in self.order() if p.active and (role is None or p.role == role)]


register_document("chase", ChaseDoc)


def chase_key(chase_id: str) -> str:
    return f"chase:{chase_id}"


MAX_LOG = 200
