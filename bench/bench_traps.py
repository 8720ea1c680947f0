"""Trap lookup cost per move: does it grow with the number of traps on the scene?

Runs the real ``token.move`` handler in-process on two scenes with 500 tokens each, one with
10 traps and one with 10,000, and a naive baseline that tests every trap's shape against the
path. Prints ratios measured in this run:

- time per move with 10,000 traps / with 10 traps (target <= 2x)
- naive check-every-trap time / indexed time, at 10,000 traps (target >= 50x)

Run: ``python bench/bench_traps.py``
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import sidecar.rules.registry  # noqa: E402, F401
from sidecar.cards import CardRenderer  # noqa: E402
from sidecar.content import BUNDLED_CONTENT, ContentStore  # noqa: E402
from sidecar.dice import Dice  # noqa: E402
from sidecar.engine import EventContext  # noqa: E402
from sidecar.geometry import Footprint, first_contact  # noqa: E402
from sidecar.models import Scene, Token, Waypoint  # noqa: E402
from sidecar.protocol import SceneSync, TokenMove  # noqa: E402
from sidecar.rules.scene import _scene_sync  # noqa: E402
from sidecar.rules.traps import on_move  # noqa: E402
from sidecar.rules.traps_index import _areas, scene_traps  # noqa: E402
from sidecar.state import WorldState  # noqa: E402

SQ = 100
STORE = ContentStore.load([BUNDLED_CONTENT])
CARDS = CardRenderer(STORE.catalog)
KINDS = ["poison_darts", "hidden_pit", "fire_breathing_statue", "collapsing_roof"]


def ctx(state: WorldState, n: int) -> EventContext:
    return EventContext(
        world_id="bench",
        event_id=f"e{n}",
        language="en",
        ruleset="legacy",
        state=state,
        dice=Dice.seeded(1, n),
        content=STORE,
        cards=CARDS,
    )


def build(traps: int, tokens: int = 500) -> WorldState:
    """A 400 x 400-square scene: traps in a lattice away from row 0, tokens scattered."""
    regions: list[dict[str, Any]] = []
    side = 400
    for i in range(traps):
        x, y = (i * 37) % side, 5 + (i * 53) % (side - 5)
        kind = KINDS[i % len(KINDS)]
        shapes: list[dict[str, Any]] = [
            {"type": "rectangle", "x": x * SQ, "y": y * SQ, "width": SQ, "height": SQ}
        ]
        if kind == "collapsing_roof":
            shapes = [{"type": "line", "points": [x * SQ, y * SQ, x * SQ, (y + 1) * SQ]}]
        regions.append({"id": f"r{i}", "shapes": shapes, "trap": {"trap_id": kind}})
    token_list = [
        {
            "id": f"t{i}",
            "name": f"T{i}",
            "x": ((i * 7) % side) * SQ,
            "y": (3 + (i * 11) % (side - 3)) * SQ,
            "creature": {
                "id": f"a{i}",
                "name": f"T{i}",
                "hp": {"value": 20, "max": 20},
                "passive_perception": 1,
            },
        }
        for i in range(tokens)
    ]
    token_list[0] |= {"x": 0, "y": 0}
    scene = Scene.model_validate(
        {
            "id": "s",
            "width": side * SQ,
            "height": side * SQ,
            "grid": {"size": SQ, "distance": 5},
            "tokens": token_list,
            "regions": regions,
        }
    )
    state = WorldState()
    _scene_sync(ctx(state, 0), SceneSync(id="sync", scene=scene))
    state.commit()
    return state


MOVE = TokenMove(
    id="m",
    scene_id="s",
    token_id="t0",
    path=[Waypoint(x=0, y=0), Waypoint(x=40 * SQ, y=0), Waypoint(x=40 * SQ, y=2 * SQ)],
)


def time_indexed(state: WorldState, repeats: int) -> float:
    scene_traps(ctx(state, 0), "s")  # build the index once; it stays cached between moves
    samples = []
    for n in range(repeats):
        c = ctx(state, n + 1)
        start = time.perf_counter()
        on_move(c, MOVE)
        samples.append(time.perf_counter() - start)
        state.rollback()
    return statistics.median(samples)


def time_naive(state: WorldState, repeats: int) -> float:
    """The same path tested against every trap region, with no index."""
    c = ctx(state, 0)
    regions = list(scene_traps(c, "s").scene.regions.values())
    token = state.get("token:s:t0", Token)
    assert token is not None
    foot = Footprint.of(token, scene_traps(c, "s").scene.grid)
    areas = [_areas(r, False)[0] for r in regions]
    points = [(w.x, w.y) for w in MOVE.path]
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        hits = 0
        for area in areas:
            if area is None:
                continue
            for a, b in zip(points, points[1:], strict=False):
                if first_contact(area, foot, a, b) is not None:
                    hits += 1
                    break
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def main() -> None:
    t0 = time.perf_counter()
    small = build(10)
    large = build(10_000)
    built = time.perf_counter() - t0
    small_t = time_indexed(small, 200)
    large_t = time_indexed(large, 200)
    naive_t = time_naive(large, 5)
    print(f"scenes built in {built:.1f} s (500 tokens each; 10 and 10,000 traps)")
    print(f"indexed move, 10 traps:      {small_t * 1e3:8.3f} ms")
    print(f"indexed move, 10,000 traps:  {large_t * 1e3:8.3f} ms")
    print(f"naive check, 10,000 traps:   {naive_t * 1e3:8.3f} ms")
    print(f"ratio 10,000 / 10 traps:     {large_t / small_t:8.2f}x   (target <= 2x)")
    print(f"naive / indexed at 10,000:   {naive_t / large_t:8.1f}x   (target >= 50x)")
    print(f"total bench time {time.perf_counter() - t0:.1f} s")


if __name__ == "__main__":
    main()
