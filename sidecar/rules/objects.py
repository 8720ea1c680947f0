"""Objects (RULES.md §2): AC by substance, HP by size, damage threshold, immunities.

Catalog entries live in ``content/objects/``; a placed object (a trap's net, a pit's lid,
a door) is an ``object:<key>`` document with its current hit points. Engines that care
when an object breaks (a torn net frees its victims) register a break hook by name.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

from pydantic import Field

from sidecar.content import LocalizedText, register_kind
from sidecar.dice import validate as validate_formula
from sidecar.engine import EventContext, RuleError, gm_action
from sidecar.i18n import localized
from sidecar.models import Size, Strict
from sidecar.rules.effects import Resolution
from sidecar.rules.publish import publish
from sidecar.rules.scene import find_token_anywhere
from sidecar.state import register_document

Material = Literal[
    "cloth",
    "paper",
    "rope",
    "crystal",
    "glass",
    "ice",
    "wood",
    "bone",
    "stone",
    "iron",
    "steel",
    "mithral",
    "adamantine",
]
AC_BY_MATERIAL: dict[str, int] = {
    "cloth": 11,
    "paper": 11,
    "rope": 11,
    "crystal": 13,
    "glass": 13,
    "ice": 13,
    "wood": 15,
    "bone": 15,
    "stone": 17,
    "iron": 19,
    "steel": 19,
    "mithral": 21,
    "adamantine": 23,
}
#: (fragile, resilient) average hit points and dice by size; Huge and Gargantuan objects
#: are tracked as Large sections
HP_BY_SIZE: dict[str, tuple[tuple[int, str], tuple[int, str]]] = {
    "tiny": ((2, "1d4"), (5, "2d4")),
    "sm": ((3, "1d6"), (10, "3d6")),
    "med": ((4, "1d8"), (18, "4d8")),
    "lg": ((5, "1d10"), (27, "5d10")),
}


def object_ac(material: str) -> int:
    return AC_BY_MATERIAL[material]


def object_hp(size: str, resilient: bool) -> tuple[int, str]:
    row = HP_BY_SIZE.get(size, HP_BY_SIZE["lg"])
    return row[1] if resilient else row[0]


class SquareRule(Strict):
    """Part of an object that frees whoever is in one square when cut (the net)."""

    ac: int = Field(ge=0, le=40)
    damage_type: str
    min_damage: int = Field(ge=1, le=1000)


class ObjectDef(Strict):
    id: str
    name: LocalizedText
    material: Material
    size: Size = "med"
    resilient: bool = False
    ac: int | None = Field(default=None, ge=0, le=40, description="overrides the material's AC")
    hp: int | None = Field(default=None, ge=1, le=100_000, description="overrides the size's HP")
    damage_threshold: int = Field(default=0, ge=0, le=1000)
    immunities: list[str] = Field(default_factory=lambda: ["poison", "psychic"])
    resistances: list[str] = Field(default_factory=list)
    vulnerabilities: list[str] = Field(default_factory=list)
    square: SquareRule | None = None

    def armor_class(self) -> int:
        return self.ac if self.ac is not None else object_ac(self.material)

    def hit_points(self) -> int:
        return self.hp if self.hp is not None else object_hp(self.size, self.resilient)[0]


register_kind("object", "objects", ObjectDef)


class ObjectState(Strict):
    object_id: str
    name: dict[str, str]
    ac: int
    hp: int
    max_hp: int
    damage_threshold: int = 0
    immunities: list[str] = Field(default_factory=list)
    resistances: list[str] = Field(default_factory=list)
    vulnerabilities: list[str] = Field(default_factory=list)
    square: SquareRule | None = None
    broken: bool = False
    scene_id: str | None = None
    region_id: str | None = None
    hook: str | None = None
    hook_ref: str | None = None


register_document("object", ObjectState)

BreakHook = Callable[[EventContext, ObjectState, "str | None", Resolution], None]
_HOOKS: dict[str, BreakHook] = {}


def register_hook(name: str, fn: BreakHook) -> None:
    """``fn(ctx, obj, token_id, resolution)``: called with ``token_id=None`` when the object
    breaks, and with a token id when that token's square of it is cut away."""
    _HOOKS[name] = fn


def object_key(key: str) -> str:
    return f"object:{key}"


def create(
    ctx: EventContext,
    object_id: str,
    key: str,
    *,
    scene_id: str | None = None,
    region_id: str | None = None,
    hook: str | None = None,
    hook_ref: str | None = None,
) -> ObjectState:
    spec = ctx.content.get_as("object", object_id, ObjectDef)
    if spec is None:
        raise RuleError(f"unknown object {object_id!r}")
    hp = spec.hit_points()
    state = ObjectState(
        object_id=object_id,
        name=dict(spec.name),
        ac=spec.armor_class(),
        hp=hp,
        max_hp=hp,
        damage_threshold=spec.damage_threshold,
        immunities=list(spec.immunities),
        resistances=list(spec.resistances),
        vulnerabilities=list(spec.vulnerabilities),
        square=spec.square,
        scene_id=scene_id,
        region_id=region_id,
        hook=hook,
        hook_ref=hook_ref,
    )
    ctx.state.put(object_key(key), state)
    return state


def damage_after_traits(obj: ObjectState, amount: int, damage_type: str) -> tuple[int, str | None]:
    if damage_type in obj.immunities:
        return 0, "immune"
    if damage_type in obj.resistances:
        return amount // 2, "resistant"
    if damage_type in obj.vulnerabilities:
        return amount * 2, "vulnerable"
    return amount, None


# ---------------------------------------------------------------- GM actions


class PlaceObject(Strict):
    object_id: str
    key: str = Field(min_length=1, max_length=128)
    scene_id: str | None = None
    region_id: str | None = None


@gm_action("object.place", PlaceObject)
def place_object(ctx: EventContext, params: PlaceObject) -> None:
    """Put a catalog object (a door, a chest) in the world so it can be attacked."""
    obj = create(
        ctx, params.object_id, params.key, scene_id=params.scene_id, region_id=params.region_id
    )
    name = localized(obj.name, ctx.language)
    ctx.render(
        "text.html.j2",
        title=name,
        visibility="gm",
        text=ctx.t("object.card.placed", name=name, ac=obj.ac, hp=obj.hp),
    )


class AttackObject(Strict):
    key: str = Field(description="the object's key (``object:<key>`` document)")
    attacker_token_id: str | None = None
    attack_total: int | None = Field(default=None, ge=-50, le=100)
    attack_bonus: int | None = Field(default=None, ge=-20, le=50)
    damage: str = Field(description="a number or dice formula")
    damage_type: str
    token_id: str | None = Field(default=None, description="the creature in the square cut")

    def model_post_init(self, __context: object) -> None:
        validate_formula(self.damage)


@gm_action("object.attack", AttackObject)
def attack_object(ctx: EventContext, params: AttackObject) -> None:
    """Hit an object: AC (or a square's AC), immunities, damage threshold, hit points."""
    key = object_key(params.key)
    current = ctx.state.get(key, ObjectState)
    if current is None:
        raise RuleError(f"no object {params.key!r}")
    if current.broken:
        raise RuleError(f"object {params.key!r} is already broken")
    obj = ctx.state.edit(key, ObjectState)
    name = localized(obj.name, ctx.language)
    res = Resolution()
    attacker = ""
    if params.attacker_token_id:
        found = find_token_anywhere(ctx.state, params.attacker_token_id)
        attacker = found[1].name if found else ""
    square = obj.square if params.token_id else None
    ac = square.ac if square else obj.ac
    if params.attack_total is not None:
        total, natural = params.attack_total, None
        hit = total >= ac
    else:
        roll = ctx.dice.d20(params.attack_bonus or 0, flavor="attack")
        total, natural = roll.total, roll.natural
        hit = natural == 20 or (natural != 1 and total >= ac)
        res.say(ctx.t("object.card.attack_roll", total=total), roll)
    res.say_gm(ctx.t("object.card.vs_ac", ac=ac))
    if not hit:
        res.say(ctx.t("object.card.miss", name=name))
        publish(ctx, res, title=ctx.t("object.card.title", name=name))
        return
    amount_roll = ctx.dice.roll(params.damage, flavor=f"damage.{params.damage_type}")
    amount, note = damage_after_traits(obj, max(0, amount_roll.total), params.damage_type)
    kind = ctx.t(f"damage_type.{params.damage_type}")
    res.say(ctx.t("object.card.damage", name=name, amount=amount, type=kind), amount_roll)
    if note == "immune":
        res.say(ctx.t("object.card.immune", name=name, type=kind))
    res.facts.append({"fact": "object_damage", "object": params.key, "amount": amount})
    if square is not None and params.token_id:
        if params.damage_type == square.damage_type and amount >= square.min_damage:
            hook = _HOOKS.get(obj.hook or "")
            if hook is not None:
                hook(ctx, obj, params.token_id, res)
        else:
            res.say(ctx.t("object.card.square_holds", name=name))
    elif amount > 0 and amount < obj.damage_threshold:
        res.say(ctx.t("object.card.threshold", name=name))
    elif amount > 0:
        obj.hp = max(0, obj.hp - amount)
        if obj.hp == 0:
            obj.broken = True
            res.say(ctx.t("object.card.broken", name=name))
            hook = _HOOKS.get(obj.hook or "")
            if hook is not None:
                hook(ctx, obj, None, res)
        else:
            res.say_gm(ctx.t("object.card.hp_left", name=name, hp=obj.hp, max=obj.max_hp))
    title = ctx.t("object.card.title", name=name)
    intro = ctx.t("object.card.attacker", attacker=attacker, name=name) if attacker else None
    publish(ctx, res, title=title, intro=intro)
