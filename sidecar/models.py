"""System-neutral models of what the VTT shows us: creatures, tokens, shapes, scenes.

The module's system adapter (dnd5e first) fills these; the rules engines read only these.
"""

from __future__ import annotations

from typing import Annotated, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field

Ability = Literal["str", "dex", "con", "int", "wis", "cha"]
ABILITIES: tuple[Ability, ...] = ("str", "dex", "con", "int", "wis", "cha")
Size = Literal["tiny", "sm", "med", "lg", "huge", "grg"]
Ruleset = Literal["legacy", "modern"]
Language = Literal["en", "ru", "zh-CN"]

DamageType = Literal[
    "acid",
    "bludgeoning",
    "cold",
    "fire",
    "force",
    "lightning",
    "necrotic",
    "piercing",
    "poison",
    "psychic",
    "radiant",
    "slashing",
    "thunder",
]
Condition = Literal[
    "blinded",
    "charmed",
    "deafened",
    "frightened",
    "grappled",
    "incapacitated",
    "invisible",
    "paralyzed",
    "petrified",
    "poisoned",
    "prone",
    "restrained",
    "stunned",
    "unconscious",
]

DAMAGE_TYPES: tuple[str, ...] = get_args(DamageType)
CONDITIONS: tuple[str, ...] = get_args(Condition)

Identifier = Annotated[str, Field(min_length=1, max_length=128)]
Name = Annotated[str, Field(max_length=256)]


class Strict(BaseModel):
    """Base for wire models: unknown fields are an error, so typos do not pass silently."""

    model_config = ConfigDict(extra="forbid")


class HitPoints(Strict):
    value: int = Field(ge=-10_000, le=1_000_000)
    max: int = Field(ge=0, le=1_000_000)
    temp: int = Field(default=0, ge=0, le=1_000_000)


class Creature(Strict):
    """A snapshot of one actor as the rules need it."""

    id: Identifier
    name: Name
    owners: list[Identifier] = Field(default_factory=list, max_length=64)
    size: Size = "med"
    creature_type: str | None = Field(default=None, max_length=64)
    race: str | None = Field(default=None, max_length=64)
    hp: HitPoints
    ac: int = Field(default=10, ge=0, le=100)
    abilities: dict[Ability, int] = Field(default_factory=dict)
    saves: dict[Ability, int] = Field(default_factory=dict)
    skills: dict[Annotated[str, Field(max_length=32)], int] = Field(default_factory=dict)
    passive_perception: int = Field(default=10, ge=-50, le=100)
    speed: int = Field(default=30, ge=0, le=1000)
    damage_immunities: list[str] = Field(default_factory=list, max_length=32)
    damage_resistances: list[str] = Field(default_factory=list, max_length=32)
    damage_vulnerabilities: list[str] = Field(default_factory=list, max_length=32)
    condition_immunities: list[str] = Field(default_factory=list, max_length=32)
    statuses: list[str] = Field(default_factory=list, max_length=64)
    exhaustion: int = Field(default=0, ge=0, le=6)
    flying: bool = False
    level: int | None = Field(default=None, ge=0, le=30)
    cr: float | None = Field(default=None, ge=0, le=30)

    def ability_mod(self, ability: Ability) -> int:
        return self.abilities.get(ability, 0)

    def save_bonus(self, ability: Ability) -> int:
        return self.saves.get(ability, self.ability_mod(ability))

    def skill_total(self, skill: str, ability: Ability) -> int:
        return self.skills.get(skill, self.ability_mod(ability))


class Grid(Strict):
    size: float = Field(default=100, gt=0, le=10_000, description="pixels per square")
    distance: float = Field(default=5, gt=0, le=10_000, description="units per square")
    units: str = Field(default="ft", max_length=16)


class Token(Strict):
    id: Identifier
    name: Name
    actor_id: Identifier | None = None
    x: float = Field(ge=-1e7, le=1e7, description="left edge in pixels")
    y: float = Field(ge=-1e7, le=1e7, description="top edge in pixels")
    width: float = Field(default=1, gt=0, le=100, description="squares")
    height: float = Field(default=1, gt=0, le=100, description="squares")
    elevation: float = Field(default=0, ge=-1e6, le=1e6)
    hidden: bool = False
    disposition: int = Field(default=0, ge=-2, le=1)
    creature: Creature | None = None


class RectangleShape(Strict):
    type: Literal["rectangle"] = "rectangle"
    x: float
    y: float
    width: float = Field(ge=0)
    height: float = Field(ge=0)
    rotation: float = 0
    hole: bool = False


class CircleShape(Strict):
    type: Literal["circle"] = "circle"
    x: float
    y: float
    radius: float = Field(ge=0)
    hole: bool = False


class EllipseShape(Strict):
    type: Literal["ellipse"] = "ellipse"
    x: float
    y: float
    radiusX: float = Field(ge=0)  # noqa: N815 - Foundry's field name
    radiusY: float = Field(ge=0)  # noqa: N815 - Foundry's field name
    rotation: float = 0
    hole: bool = False


class PolygonShape(Strict):
    type: Literal["polygon"] = "polygon"
    points: list[float] = Field(min_length=6, max_length=20_000)
    hole: bool = False


class LineShape(Strict):
    """A trip wire: crossing any of its segments triggers."""

    type: Literal["line"] = "line"
    points: list[float] = Field(min_length=4, max_length=20_000)
    hole: bool = False


Shape = Annotated[
    RectangleShape | CircleShape | EllipseShape | PolygonShape | LineShape,
    Field(discriminator="type"),
]


class Elevation(Strict):
    bottom: float | None = None
    top: float | None = None


class Point(Strict):
    x: float
    y: float


class TrapPlacement(Strict):
    """The trap a GM put on a region: which catalog entry, and the GM's overrides."""

    trap_id: Identifier
    overrides: dict[str, object] = Field(default_factory=dict)
    origin: Point | None = Field(default=None, description="effect origin, e.g. the statue")
    direction: float | None = Field(default=None, description="degrees, 0 = east, clockwise")
    track: list[Point] = Field(default_factory=list, max_length=1000)
    hidden: bool = True


class Region(Strict):
    id: Identifier
    name: Name = ""
    shapes: list[Shape] = Field(default_factory=list, max_length=1000)
    elevation: Elevation = Field(default_factory=Elevation)
    trap: TrapPlacement | None = None


class Wall(Strict):
    c: tuple[float, float, float, float]
    blocks_sight: bool = True


class Scene(Strict):
    id: Identifier
    name: Name = ""
    width: float = Field(default=4000, ge=0, le=1e7)
    height: float = Field(default=3000, ge=0, le=1e7)
    grid: Grid = Field(default_factory=Grid)
    tokens: list[Token] = Field(default_factory=list, max_length=5000)
    regions: list[Region] = Field(default_factory=list, max_length=20_000)
    walls: list[Wall] | None = Field(default=None, max_length=50_000)


class Waypoint(Strict):
    x: float = Field(ge=-1e7, le=1e7)
    y: float = Field(ge=-1e7, le=1e7)
    elevation: float = Field(default=0, ge=-1e6, le=1e6)
    width: float | None = Field(default=None, gt=0, le=100)
    height: float | None = Field(default=None, gt=0, le=100)
    action: str = Field(default="walk", max_length=32)
    checkpoint: bool = True
