"""A shortened soak: 200 worlds at 10 events/s each for 10 s against a real server process.

The full 60-second run is ``make soak`` (bench/soak.py); this one keeps the same checks: no
error, no lost or doubled reply, no gap or repeat in any world's seq, and a database that
holds exactly what was sent and received.
"""

from __future__ import annotations

import pytest

from bench.soak import ok, report, run_soak


@pytest.mark.slow
async def test_two_hundred_worlds_for_ten_seconds_lose_and_double_nothing() -> None:
    result = await run_soak(worlds=200, rate=10.0, seconds=10.0)
    print("\n" + report(result))
    assert result["events"] == 200 * 100
    assert result["messages"] > 0
    assert ok(result), result
