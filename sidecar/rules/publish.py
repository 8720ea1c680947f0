"""Turn a resolution into what the module receives: a public card, a GM card, the ops."""

from __future__ import annotations

from typing import Any, Literal

from sidecar.engine import EventContext
from sidecar.protocol import Card, Speaker
from sidecar.rules.effects import Line, Resolution


def _lines(lines: list[Line]) -> list[dict[str, Any]]:
    return [{"text": ln.text, "roll": ln.roll, "css": ln.css} for ln in lines]


def publish(
    ctx: EventContext,
    resolution: Resolution,
    *,
    title: str,
    gm_title: str | None = None,
    public: bool = True,
    intro: str | None = None,
    gm_intro: str | None = None,
    data: dict[str, Any] | None = None,
    speaker: Speaker | None = None,
    visibility: Literal["public", "owners"] = "public",
    owners_of: list[str] | None = None,
) -> list[Card]:
    """Send the result card(s) and the operations of one resolution.

    The public card shows what everyone at the table sees (rolls, saves without hidden DCs,
    damage). The GM card repeats it with what only the GM may know (DCs, attack bonuses).
    The GM card is sent only when it says more than the public one.
    """
    cards: list[Card] = []
    undoable = bool(resolution.ops)
    facts = {"facts": resolution.facts, **(data or {})}
    if public:
        public_lines = ([Line(intro)] if intro else []) + resolution.public
        cards.append(
            ctx.render(
                "generic.html.j2",
                title=title,
                visibility=visibility,
                owners_of=owners_of,
                rolls=[r.to_foundry() for r in resolution.rolls],
                data={"facts": [f for f in resolution.facts if f.get("fact") != "save"]}
                | {k: v for k, v in (data or {}).items() if not str(k).startswith("gm_")},
                speaker=speaker,
                undoable=undoable and visibility == "public",
                lines=_lines(public_lines),
            )
        )
    gm_lines = ([Line(gm_intro or intro or "")] if (gm_intro or intro) else []) + resolution.gm
    if not public or [ln.text for ln in gm_lines] != [
        ln.text for ln in ([Line(intro)] if intro else []) + resolution.public
    ]:
        cards.append(
            ctx.render(
                "generic.html.j2",
                title=gm_title or title,
                visibility="gm",
                rolls=[r.to_foundry() for r in resolution.rolls + resolution.gm_rolls],
                data=facts,
                speaker=speaker,
                undoable=undoable and not public,
                lines=_lines(gm_lines),
            )
        )
    ctx.out.ops(resolution.ops)
    return cards
