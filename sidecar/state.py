"""A world's state: typed documents under string keys, with copy-on-write transactions.

Engines read with ``get`` and change with ``edit``/``put``/``delete``. Nothing they do is
visible outside the transaction until ``commit`` returns the changed keys for the store;
``rollback`` forgets every change, so a failed or paused event leaves no trace.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterator
from typing import Any, TypeVar

from pydantic import BaseModel

M = TypeVar("M", bound=BaseModel)

_KINDS: dict[str, type[BaseModel]] = {}
_DELETED = object()


def register_document(prefix: str, model: type[BaseModel]) -> None:
    """Declare the model stored under keys ``prefix`` or ``prefix:...``."""
    existing = _KINDS.get(prefix)
    if existing is not None and existing is not model:
        raise ValueError(f"document prefix {prefix!r} already registered for {existing}")
    _KINDS[prefix] = model


def model_for(key: str) -> type[BaseModel]:
    prefix = key.split(":", 1)[0]
    try:
        return _KINDS[prefix]
    except KeyError:
        raise KeyError(f"no document kind registered for key {key!r}") from None


def load_document(key: str, payload: str) -> BaseModel:
    return model_for(key).model_validate_json(payload)


class WorldState:
    def __init__(self, docs: dict[str, BaseModel] | None = None) -> None:
        self._docs: dict[str, BaseModel] = dict(docs or {})
        self._overlay: dict[str, Any] = {}
        self._index_cache: dict[str, Any] = {}
        self._sorted: list[str] | None = None  # committed keys in order, for prefix scans
        self.version = 0

    # reading ---------------------------------------------------------------
    def get(self, key: str, model: type[M]) -> M | None:
        """The document under ``key``; treat it as read-only (use ``edit`` to change)."""
        value = self._overlay.get(key, None) if key in self._overlay else self._docs.get(key)
        if value is None or value is _DELETED:
            return None
        if not isinstance(value, model):
            raise TypeError(f"{key!r} holds {type(value).__name__}, not {model.__name__}")
        return value

    def require(self, key: str, model: type[M]) -> M:
        value = self.get(key, model)
        if value is None:
            raise KeyError(key)
        return value

    def keys(self, prefix: str) -> Iterator[str]:
        seen: set[str] = set()
        for key, value in self._overlay.items():
            if key.startswith(prefix):
                seen.add(key)
                if value is not _DELETED:
                    yield key
        if self._sorted is None:
            self._sorted = sorted(self._docs)
        ordered = self._sorted
        # a prefix's keys are one contiguous run of the sorted keys
        for i in range(bisect_left(ordered, prefix), len(ordered)):
            key = ordered[i]
            if not key.startswith(prefix):
                break
            if key not in seen:
                yield key

    def items(self, prefix: str, model: type[M]) -> Iterator[tuple[str, M]]:
        for key in list(self.keys(prefix)):
            value = self.get(key, model)
            if value is not None:
                yield key, value

    # writing ---------------------------------------------------------------
    def edit(self, key: str, model: type[M]) -> M:
        """A private copy of the document, registered as changed."""
        current = self._overlay.get(key) if key in self._overlay else None
        if current is not None and current is not _DELETED:
            if not isinstance(current, model):
                raise TypeError(f"{key!r} holds {type(current).__name__}")
            return current
        original = self._docs.get(key)
        if original is None:
            raise KeyError(key)
        if not isinstance(original, model):
            raise TypeError(f"{key!r} holds {type(original).__name__}")
        # a validated round trip copies several times faster than a deep copy
        copy = type(original).model_validate(original.model_dump())
        self._overlay[key] = copy
        return copy

    def put(self, key: str, value: BaseModel) -> None:
        model_for(key)  # refuse keys nobody can load back
        self._overlay[key] = value

    def delete(self, key: str) -> None:
        if key in self._docs or key in self._overlay:
            self._overlay[key] = _DELETED

    # transactions ----------------------------------------------------------
    @property
    def dirty(self) -> bool:
        return bool(self._overlay)

    def fingerprint(self) -> dict[str, str]:
        """Serialized committed documents (a debugging aid: see ``changed_in_place``)."""
        return {key: doc.model_dump_json() for key, doc in self._docs.items()}

    def changed_in_place(self, before: dict[str, str]) -> list[str]:
        """Committed documents that differ from ``before`` without going through ``edit``:
        an engine changed an object it got from ``get``, which breaks rollback and undo."""
        return [
            key
            for key, doc in self._docs.items()
            if key not in self._overlay and before.get(key) != doc.model_dump_json()
        ]

    def committed(self, key: str) -> BaseModel | None:
        """The document as it was before this transaction."""
        return self._docs.get(key)

    def pending_changes(self) -> dict[str, BaseModel | None]:
        return {k: (None if v is _DELETED else v) for k, v in self._overlay.items()}

    def commit(self) -> dict[str, BaseModel | None]:
        changes = self.pending_changes()
        for key, value in changes.items():
            if value is None:
                self._docs.pop(key, None)
                self._sorted = None
            else:
                if key not in self._docs:
                    self._sorted = None
                self._docs[key] = value
        self._overlay.clear()
        if changes:
            self.version += 1
            stale = [
                name
                for name, (depends, _) in self._index_cache.items()
                if any(key.startswith(depends) for key in changes)
            ]
            for name in stale:
                del self._index_cache[name]
        return changes

    def rollback(self) -> None:
        self._overlay.clear()

    # derived data --------------------------------------------------------
    def cached(self, name: str) -> Any:
        """Derived data (e.g. a spatial index), dropped when a key it depends on changes."""
        entry = self._index_cache.get(name)
        return None if entry is None else entry[1]

    def committed_items(self, prefix: str, model: type[M]) -> Iterator[tuple[str, M]]:
        """Committed documents under ``prefix``, ignoring this transaction's changes
        (for derived indexes cached with ``set_cached(..., committed=True)``)."""
        if self._sorted is None:
            self._sorted = sorted(self._docs)
        ordered = self._sorted
        for i in range(bisect_left(ordered, prefix), len(ordered)):
            key = ordered[i]
            if not key.startswith(prefix):
                break
            value = self._docs[key]
            if isinstance(value, model):
                yield key, value

    def overlay_keys(self, prefix: str) -> list[str]:
        """Keys under ``prefix`` changed, added or deleted in this transaction."""
        return [key for key in self._overlay if key.startswith(prefix)]

    def set_cached(self, name: str, depends: str, value: Any, committed: bool = False) -> None:
        """Remember ``value`` until a committed change touches a key starting ``depends``.

        ``committed=True`` says the value was derived from committed documents only, so it
        may be kept while this transaction has changes of its own."""
        if committed or not any(key.startswith(depends) for key in self._overlay):
            self._index_cache[name] = (depends, value)
