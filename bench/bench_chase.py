"""Benchmark of the chase odds simulator (``chase.odds``).

Run as ``python bench/bench_chase.py``. It simulates an urban chase (a thief against two
pursuers, 60 ft apart, out of sight, ten rounds at most) and reports simulated chases per
second, next to a baseline measured in the same run: a plain Python loop of d20 rolls from
the same kind of generator. The ratio says how many d20 rolls one simulated chase costs,
which stays comparable across machines.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sidecar.content import ContentStore, default_roots  # noqa: E402
from sidecar.models import Creature  # noqa: E402
from sidecar.rules import registry  # noqa: E402,F401  (registers the content kinds)
from sidecar.rules.chase_content import ChaseTable  # noqa: E402
from sidecar.rules.chase_odds import SimParticipant, SimSetup, simulate  # noqa: E402


def creature(
    cid: str, *, speed: int, stealth: int = 0, passive: int = 10, con: int = 0, dex: int = 0
) -> Creature:
    return Creature.model_validate(
        {
            "id": cid,
            "name": cid,
            "hp": {"value": 20, "max": 20},
            "speed": speed,
            "abilities": {"str": 0, "dex": dex, "con": con, "int": 0, "wis": 1, "cha": 0},
            "saves": {"str": 0, "dex": dex, "con": con, "int": 0, "wis": 1, "cha": 0},
            "skills": {"ste": stealth},
            "passive_perception": passive,
        }
    )


def demo_setup(table_id: str = "urban", *, long: bool = False) -> SimSetup:
    """The thief of the demo; ``long``: it can never hide and nobody can reach it, so every
    simulated chase runs all ten rounds (the worst case for the simulator)."""
    content = ContentStore.load(default_roots())
    table = content.get_as("chase_table", table_id, ChaseTable)
    assert table is not None
    stealth = -30 if long else 7
    people = [
        SimParticipant(
            "thief",
            "Thief",
            True,
            creature("thief", speed=60 if long else 30, stealth=stealth, dex=4),
            initiative=18,
            position=60,
            free_dashes=4,
        ),
        SimParticipant(
            "aria",
            "Aria",
            False,
            creature("aria", speed=30, passive=14, con=1),
            initiative=15,
            free_dashes=4,
        ),
        SimParticipant(
            "borin",
            "Borin",
            False,
            creature("borin", speed=25, passive=11, con=3),
            initiative=8,
            free_dashes=6,
        ),
    ]
    return SimSetup(participants=people, table=table)


def baseline(rolls: int, seed: int) -> float:
    """d20 rolls per second: the plainest loop the simulator could be compared with."""
    rand = random.Random(seed).random
    start = time.perf_counter()
    total = 0
    for _ in range(rolls):
        total += int(rand() * 20) + 1
    elapsed = time.perf_counter() - start
    assert total > 0
    return rolls / elapsed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--table", default="urban")
    args = parser.parse_args()
    d20_per_s = max(baseline(1_000_000, 7) for _ in range(3))
    print(f"baseline: {d20_per_s:,.0f} d20 rolls per second (a plain loop)")
    worst = 0.0
    for label, long in (("demo thief", False), ("never ends early", True)):
        setup = demo_setup(args.table, long=long)
        times = []
        result = {}
        for attempt in range(args.repeat):
            start = time.perf_counter()
            result = simulate(setup, args.trials, 10, seed=1000 + attempt)
            times.append(time.perf_counter() - start)
        best = min(times)
        chases_per_s = args.trials / best
        worst = max(worst, 10_000 / chases_per_s)
        thief = result["thief"]
        print(
            f"[{label}] table {args.table}: {args.trials} chases of up to 10 rounds, "
            f"best of {args.repeat}: {best * 1000:.0f} ms"
        )
        print(f"  simulated chases per second: {chases_per_s:,.0f}")
        print(
            f"  ratio to the baseline: {chases_per_s / d20_per_s:.4f} "
            f"(one simulated chase costs {d20_per_s / chases_per_s:.1f} d20 rolls)"
        )
        print(
            f"  thief escapes within 1/3/10 rounds: {thief['escape']['1']:.3f} / "
            f"{thief['escape']['3']:.3f} / {thief['escape']['10']:.3f}; "
            f"caught within 10: {thief['caught']['10']:.3f}"
        )
    print(
        f"10,000 chases in under a second, worst case: {'yes' if worst < 1 else 'NO'} "
        f"({worst * 1000:.0f} ms)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
