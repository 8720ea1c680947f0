"""Run every benchmark in bench/ (files named bench_*.py) and print their figures.

Each benchmark prints its own figures as ratios against a baseline measured in the same run,
because absolute times on shared machines are noise.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main() -> int:
    failed = []
    only = set(sys.argv[1:])
    for script in sorted(HERE.glob("bench_*.py")):
        if only and script.stem not in only:
            continue
        print(f"\n##### {script.stem}", flush=True)
        started = time.monotonic()
        code = subprocess.call([sys.executable, str(script)], cwd=HERE.parent)
        print(
            f"##### {script.stem}: exit {code} after {time.monotonic() - started:.1f} s", flush=True
        )
        if code:
            failed.append(script.stem)
    if failed:
        print(f"failed: {', '.join(failed)}")
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
