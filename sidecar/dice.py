"""Dice: notation, seeded reproducible rolls, and Foundry's serialized Roll JSON.

Each world owns one seed. The random stream is counter-based (BLAKE2b of seed, stream and
draw number), so a world's dice state is two small integers, a replay from the stored seed
is exact, and an event can be given its own stream without disturbing any other.

Why not avrae's ``d20`` package: it draws from the module-global ``random`` (shared by all
worlds, not persistable per world) and pins an old ``lark-parser``; see docs/design.md.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from typing import Any, Literal

MAX_DICE = 100
MAX_FACES = 1000
MAX_TERMS = 20
MAX_FORMULA = 200


class DiceError(ValueError):
    """A formula that cannot or may not be rolled."""


@dataclass(frozen=True)
class DieResult:
    result: int
    active: bool = True


@dataclass(frozen=True)
class DiceTerm:
    number: int
    faces: int
    keep: Literal["kh", "kl"] | None = None
    keep_count: int = 0
    results: tuple[DieResult, ...] = ()

    @property
    def total(self) -> int:
        return sum(r.result for r in self.results if r.active)

    @property
    def notation(self) -> str:
        mod = f"{self.keep}{self.keep_count}" if self.keep else ""
        return f"{self.number}d{self.faces}{mod}"


@dataclass(frozen=True)
class NumberTerm:
    number: int


@dataclass(frozen=True)
class Roll:
    """An evaluated roll: signed terms, the total, and every die face that was rolled."""

    formula: str
    terms: tuple[tuple[int, DiceTerm | NumberTerm], ...]
    flavor: str = ""

    @property
    def total(self) -> int:
        total = 0
        for sign, term in self.terms:
            total += sign * (term.total if isinstance(term, DiceTerm) else term.number)
        return total

    @property
    def dice(self) -> list[DiceTerm]:
        return [t for _, t in self.terms if isinstance(t, DiceTerm)]

    @property
    def natural(self) -> int | None:
        """The kept face of a single d20 test, if this is one."""
        d20s = [t for t in self.dice if t.faces == 20]
        if len(d20s) != 1:
            return None
        kept = [r.result for r in d20s[0].results if r.active]
        return kept[0] if len(kept) == 1 else None

    def describe(self) -> str:
        """Human-readable breakdown, e.g. ``2d10 (3, 7) + 4 = 14``."""
        parts: list[str] = []
        for i, (sign, term) in enumerate(self.terms):
            prefix = ("- " if sign < 0 else "+ ") if i else ("-" if sign < 0 else "")
            if isinstance(term, DiceTerm):
                faces = ", ".join(
                    str(r.result) if r.active else f"~{r.result}~" for r in term.results
                )
                parts.append(f"{prefix}{term.notation} ({faces})")
            else:
                parts.append(f"{prefix}{term.number}")
        return f"{' '.join(parts)} = {self.total}"

    def to_foundry(self) -> dict[str, Any]:
        """Foundry's serialized Roll (``Roll#toJSON``), rebuilt by ``Roll.fromData``."""
        terms: list[dict[str, Any]] = []
        for i, (sign, term) in enumerate(self.terms):
            if i or sign < 0:
                terms.append(
                    {
                        "class": "OperatorTerm",
                        "options": {},
                        "evaluated": True,
                        "operator": "-" if sign < 0 else "+",
                    }
                )
            if isinstance(term, DiceTerm):
                terms.append(
                    {
                        "class": "Die",
                        "options": {},
                        "evaluated": True,
                        "number": term.number,
                        "faces": term.faces,
                        "modifiers": [f"{term.keep}{term.keep_count}"] if term.keep else [],
                        "results": [
                            {"result": r.result, "active": r.active}
                            | ({} if r.active else {"discarded": True})
                            for r in term.results
                        ],
                    }
                )
            else:
                terms.append(
                    {
                        "class": "NumericTerm",
                        "options": {},
                        "evaluated": True,
                        "number": term.number,
                    }
                )
        return {
            "class": "Roll",
            "options": {"flavor": self.flavor} if self.flavor else {},
            "dice": [],
            "formula": self.formula,
            "terms": terms,
            "total": self.total,
            "evaluated": True,
        }


_TERM = re.compile(r"\s*([+-])?\s*(?:(\d*)[dD](\d+)(?:(kh|kl)(\d*))?|(\d+))\s*")


@dataclass(frozen=True)
class _ParsedDice:
    number: int
    faces: int
    keep: Literal["kh", "kl"] | None
    keep_count: int


def parse(formula: str) -> list[tuple[int, _ParsedDice | int]]:
    """Parse ``NdM[kh|klN]`` and integer terms joined by + and -."""
    if len(formula) > MAX_FORMULA:
        raise DiceError(f"formula longer than {MAX_FORMULA} characters")
    text = formula.strip()
    if not text:
        raise DiceError("empty formula")
    pos = 0
    terms: list[tuple[int, _ParsedDice | int]] = []
    total_dice = 0
    while pos < len(text):
        match = _TERM.match(text, pos)
        if not match or match.end() == pos:
            raise DiceError(f"cannot read {formula!r} at position {pos + 1}")
        sign_text, count, faces, keep, keep_count, number = match.groups()
        if terms and sign_text is None:
            raise DiceError(f"missing + or - before position {pos + 1} in {formula!r}")
        sign = -1 if sign_text == "-" else 1
        if number is not None:
            value = int(number)
            if value > 1_000_000:
                raise DiceError(f"number {value} is too large")
            terms.append((sign, value))
        else:
            n = int(count) if count else 1
            m = int(faces)
            if n < 1 or m < 1:
                raise DiceError(f"{n}d{m}: dice and faces must be at least 1")
            if m > MAX_FACES:
                raise DiceError(f"d{m}: at most {MAX_FACES} faces")
            total_dice += n
            if total_dice > MAX_DICE:
                raise DiceError(f"{formula!r}: at most {MAX_DICE} dice in one roll")
            k = int(keep_count) if keep_count else (1 if keep else 0)
            if keep and not 1 <= k <= n:
                raise DiceError(f"{n}d{m}{keep}{k}: can keep 1 to {n} dice")
            kind: Literal["kh", "kl"] | None = "kh" if keep == "kh" else "kl" if keep else None
            terms.append((sign, _ParsedDice(n, m, kind, k)))
        if len(terms) > MAX_TERMS:
            raise DiceError(f"{formula!r}: at most {MAX_TERMS} terms")
        pos = match.end()
    return terms


def validate(formula: str) -> None:
    """Raise DiceError if the formula cannot be rolled (used when loading content)."""
    parse(formula)


def average(formula: str) -> float:
    """Expected value of a formula without keep modifiers (used for trap builder notes)."""
    total = 0.0
    for sign, term in parse(formula):
        if isinstance(term, int):
            total += sign * term
        else:
            total += sign * term.number * (term.faces + 1) / 2
    return total


def maximum(formula: str) -> int:
    total = 0
    for sign, term in parse(formula):
        if isinstance(term, int):
            total += sign * term
        else:
            kept = term.keep_count if term.keep else term.number
            total += sign * (kept * term.faces if sign > 0 else kept)
    return total


def minimum(formula: str) -> int:
    total = 0
    for sign, term in parse(formula):
        if isinstance(term, int):
            total += sign * term
        else:
            kept = term.keep_count if term.keep else term.number
            total += sign * (kept if sign > 0 else kept * term.faces)
    return total


def scale_dice(formula: str, factor: int) -> str:
    """Multiply the number of every die (critical hits double the dice)."""
    out = ""
    for i, (sign, term) in enumerate(parse(formula)):
        op = (" - " if i else "-") if sign < 0 else (" + " if i else "")
        if isinstance(term, int):
            out += f"{op}{term}"
        else:
            keep = f"{term.keep}{term.keep_count}" if term.keep else ""
            out += f"{op}{term.number * factor}d{term.faces}{keep}"
    return out


@dataclass
class DiceState:
    seed: int
    stream: int = 0
    counter: int = 0


@dataclass
class Dice:
    """A world's seeded dice. ``state`` is all that must be persisted to replay exactly."""

    state: DiceState
    log: list[Roll] = field(default_factory=list)

    @classmethod
    def seeded(cls, seed: int, stream: int = 0, counter: int = 0) -> Dice:
        return cls(DiceState(seed, stream, counter))

    def fork(self, stream: int) -> Dice:
        """An independent stream of the same world (e.g. one per stored event)."""
        return Dice(DiceState(self.state.seed, stream, 0))

    def _next64(self) -> int:
        s = self.state
        data = (
            s.seed.to_bytes(16, "little", signed=True)
            + s.stream.to_bytes(8, "little")
            + s.counter.to_bytes(8, "little")
        )
        s.counter += 1
        return int.from_bytes(hashlib.blake2b(data, digest_size=8).digest(), "little")

    def randbelow(self, n: int) -> int:
        """Uniform integer in [0, n) by rejection, so no face is favoured."""
        if n <= 0:
            raise ValueError("n must be positive")
        limit = (1 << 64) - ((1 << 64) % n)
        while True:
            value = self._next64()
            if value < limit:
                return value % n

    def die(self, faces: int) -> int:
        return self.randbelow(faces) + 1

    def choice(self, items: list[Any]) -> Any:
        return items[self.randbelow(len(items))]

    def sample(self, items: list[Any], k: int) -> list[Any]:
        pool = list(items)
        chosen = []
        for _ in range(min(k, len(pool))):
            chosen.append(pool.pop(self.randbelow(len(pool))))
        return chosen

    def roll(self, formula: str, flavor: str = "") -> Roll:
        terms: list[tuple[int, DiceTerm | NumberTerm]] = []
        for sign, parsed in parse(formula):
            if isinstance(parsed, int):
                terms.append((sign, NumberTerm(parsed)))
                continue
            faces = [self.die(parsed.faces) for _ in range(parsed.number)]
            active = [True] * len(faces)
            if parsed.keep:
                order = sorted(
                    range(len(faces)),
                    key=lambda i: (faces[i], i) if parsed.keep == "kl" else (-faces[i], i),
                )
                active = [False] * len(faces)
                for i in order[: parsed.keep_count]:
                    active[i] = True
            results = tuple(DieResult(f, a) for f, a in zip(faces, active, strict=True))
            terms.append(
                (
                    sign,
                    DiceTerm(parsed.number, parsed.faces, parsed.keep, parsed.keep_count, results),
                )
            )
        roll = Roll(formula=_normalize(formula), terms=tuple(terms), flavor=flavor)
        self.log.append(roll)
        return roll

    def d20(self, modifier: int = 0, mode: int = 0, flavor: str = "") -> Roll:
        """A d20 test: ``mode`` > 0 advantage, < 0 disadvantage, 0 plain."""
        base = "2d20kh1" if mode > 0 else "2d20kl1" if mode < 0 else "1d20"
        if modifier:
            base += f" {'+' if modifier > 0 else '-'} {abs(modifier)}"
        return self.roll(base, flavor)


def _normalize(formula: str) -> str:
    return re.sub(r"\s*([+-])\s*", r" \1 ", formula.strip()).strip()
