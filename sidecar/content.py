"""Content loading: YAML catalogs of traps, poisons, diseases... validated by pydantic.

Rules engines register a *kind* (``register_kind("trap", "traps", TrapDef)``); every YAML
file under ``<root>/traps/`` then holds entries of that kind, either as a list or as a
mapping with an ``entries:`` list. Each entry is a mapping with an ``id``.

Several roots are loaded in order: the bundled ``content/`` directory first, then a GM's
own directories, whose entries add to or replace bundled entries with the same kind and id.
Translations come from the ``i18n/`` directory of every root, in the same order.

Loading never stops at the first problem: every error is collected as a
:class:`ContentError` naming the file, the entry and the field.

Files are read with ``yaml.safe_load`` only, must be at most 2 MiB and must resolve inside
their root (a symlink pointing outside the content directory is refused).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal, TypeVar

from pydantic import AfterValidator, BaseModel, BeforeValidator, ValidationError

from sidecar.i18n import (
    LANGUAGES,
    Catalog,
    YamlFileError,
    find_yaml_files,
    read_yaml_file,
)
from sidecar.models import Language

BUNDLED_CONTENT = Path(__file__).resolve().parent.parent / "content"
I18N_DIR = "i18n"
MAX_ID_LENGTH = 128
MAX_ERRORS_PER_FILE = 50

M = TypeVar("M", bound=BaseModel)
Severity = Literal["error", "warning"]


# ---------------------------------------------------------------- localized text


def _text_to_mapping(value: Any) -> Any:
    """A plain string is English text."""
    if isinstance(value, str):
        return {"en": value}
    return value


def _require_english(value: dict[Language, str]) -> dict[Language, str]:
    if not value.get("en", "").strip():
        raise ValueError("an English text ('en') is required")
    return value


#: Inline translated text in content: ``{en: ..., ru: ..., zh-CN: ...}``, English required.
#: A plain string is accepted as English.
LocalizedText = Annotated[
    dict[Language, str],
    BeforeValidator(_text_to_mapping),
    AfterValidator(_require_english),
]


# ---------------------------------------------------------------- errors


class ContentError(Exception):
    """One problem in content: which file, which entry, which field, and what."""

    def __init__(
        self,
        file: str,
        message: str,
        entry: str | None = None,
        field: str | None = None,
    ) -> None:
        self.file = file
        self.entry = entry
        self.field = field
        self.message = message
        super().__init__(str(self))

    def __str__(self) -> str:
        parts = [self.file]
        if self.entry is not None:
            parts.append(
                f"entry {self.entry}" if self.entry.startswith("#") else f"entry {self.entry!r}"
            )
        if self.field is not None:
            parts.append(f"field {self.field!r}")
        parts.append(self.message)
        return ": ".join(parts)

    def __repr__(self) -> str:
        return (
            f"ContentError(file={self.file!r}, entry={self.entry!r}, "
            f"field={self.field!r}, message={self.message!r})"
        )


class ContentLoadError(Exception):
    """Raised by :meth:`ContentStore.raise_if_errors`; ``errors`` holds every problem."""

    def __init__(self, errors: list[ContentError]) -> None:
        self.errors = list(errors)
        shown = "\n".join(f"  {e}" for e in self.errors[:100])
        more = f"\n  ... and {len(self.errors) - 100} more" if len(self.errors) > 100 else ""
        super().__init__(f"{len(self.errors)} content error(s):\n{shown}{more}")


# ---------------------------------------------------------------- registry


@dataclass(frozen=True)
class KindSpec:
    name: str
    directory: str
    model: type[BaseModel]


_KINDS: dict[str, KindSpec] = {}


def register_kind(name: str, directory: str, model: type[BaseModel]) -> KindSpec:
    """Register a content kind: entries of ``model`` read from ``<root>/<directory>/``.

    Registering the same name again replaces the earlier registration (module reloads).
    """
    if not name or not directory:
        raise ValueError("kind name and directory must be non-empty")
    parts = Path(directory).parts
    if Path(directory).is_absolute() or ".." in parts or directory.startswith("."):
        raise ValueError(f"content directory must be relative and inside the root: {directory!r}")
    if parts and parts[0] == I18N_DIR:
        raise ValueError(f"{I18N_DIR!r} is reserved for translations")
    for other in _KINDS.values():
        if other.name == name:
            continue
        mine, theirs = Path(directory), Path(other.directory)
        if mine == theirs or mine.is_relative_to(theirs) or theirs.is_relative_to(mine):
            raise ValueError(
                f"directory {directory!r} overlaps {other.directory!r} of kind {other.name!r}"
            )
    spec = KindSpec(name, directory, model)
    _KINDS[name] = spec
    return spec


def unregister_kind(name: str) -> None:
    _KINDS.pop(name, None)


def registered_kinds() -> dict[str, KindSpec]:
    return dict(_KINDS)


# ---------------------------------------------------------------- loading


def _label(path: Path, root: Path) -> str:
    """A file's name for messages: the root's name plus the path inside it."""
    try:
        inner = path.relative_to(root).as_posix()
    except ValueError:
        return path.as_posix()
    return f"{root.name}/{inner}" if root.name else inner


def _loc(loc: Iterable[int | str]) -> str:
    return ".".join(str(p) for p in loc)


def _entries_of(data: Any, label: str) -> tuple[list[Any], list[ContentError]]:
    if data is None:
        return [], []
    if isinstance(data, list):
        return data, []
    if isinstance(data, dict):
        unknown = sorted(str(k) for k in data if k != "entries")
        errors = [
            ContentError(label, "unknown top-level key; expected only 'entries'", field=key)
            for key in unknown
        ]
        entries = data.get("entries")
        if entries is None:
            if not unknown:
                return [], []
            errors.append(ContentError(label, "a mapping file needs an 'entries:' list"))
            return [], errors
        if not isinstance(entries, list):
            errors.append(ContentError(label, "'entries' must be a list", field="entries"))
            return [], errors
        return entries, errors
    return [], [
        ContentError(label, "a content file must be a list of entries or a mapping with 'entries:'")
    ]


@dataclass
class _Loaded:
    model: BaseModel
    source: str


class ContentStore:
    """Validated content of every registered kind, plus the merged translation catalog."""

    def __init__(self, roots: list[Path], kinds: Mapping[str, KindSpec]) -> None:
        self.roots = list(roots)
        self.kinds: dict[str, KindSpec] = dict(kinds)
        self.errors: list[ContentError] = []
        self.catalog = Catalog()
        self._entries: dict[str, dict[str, _Loaded]] = {k: {} for k in self.kinds}

    @classmethod
    def load(
        cls, roots: Iterable[Path], *, kinds: Mapping[str, KindSpec] | None = None
    ) -> ContentStore:
        """Load every registered kind (or ``kinds``) from ``roots``, later roots winning."""
        root_list = [Path(r) for r in roots]
        store = cls(root_list, _KINDS if kinds is None else kinds)
        i18n_dirs: list[Path] = []
        for root in root_list:
            if not root.is_dir():
                store.errors.append(ContentError(root.as_posix(), "content directory not found"))
                continue
            store._load_root(root)
            i18n = root / I18N_DIR
            if i18n.exists():
                if i18n.resolve().is_relative_to(root.resolve()):
                    i18n_dirs.append(i18n)
                else:
                    store.errors.append(
                        ContentError(_label(i18n, root), "resolves outside its content root")
                    )
        store.catalog = Catalog.load(i18n_dirs)
        for problem in store.catalog.errors:
            owner = next((r for r in root_list if problem.file.is_relative_to(r)), None)
            label = _label(problem.file, owner) if owner else problem.file.as_posix()
            store.errors.append(ContentError(label, problem.message, field=problem.key))
        return store

    def _load_root(self, root: Path) -> None:
        for spec in self.kinds.values():
            directory = root / spec.directory
            files, problems = find_yaml_files(directory, root)
            for problem in problems:
                self.errors.append(ContentError(_label(problem.path, root), problem.message))
            seen_here: dict[str, str] = {}
            for path in files:
                self._load_file(spec, path, root, seen_here)

    def _load_file(self, spec: KindSpec, path: Path, root: Path, seen_here: dict[str, str]) -> None:
        label = _label(path, root)
        try:
            data = read_yaml_file(path, root)
        except YamlFileError as exc:
            self.errors.append(ContentError(label, exc.message))
            return
        entries, errors = _entries_of(data, label)
        self.errors.extend(errors)
        has_id_field = "id" in spec.model.model_fields
        table = self._entries[spec.name]
        file_errors = 0
        for index, raw in enumerate(entries):
            ref = f"#{index}"
            if not isinstance(raw, dict):
                self.errors.append(ContentError(label, "an entry must be a mapping", entry=ref))
                continue
            entry_id = raw.get("id")
            if not isinstance(entry_id, str) or not entry_id.strip():
                self.errors.append(
                    ContentError(label, "every entry needs a text 'id'", entry=ref, field="id")
                )
                continue
            if len(entry_id) > MAX_ID_LENGTH:
                self.errors.append(
                    ContentError(
                        label,
                        f"id longer than {MAX_ID_LENGTH} characters",
                        entry=entry_id[:40] + "...",
                        field="id",
                    )
                )
                continue
            if entry_id in seen_here:
                self.errors.append(
                    ContentError(
                        label,
                        f"duplicate id (first defined in {seen_here[entry_id]})",
                        entry=entry_id,
                        field="id",
                    )
                )
                continue
            seen_here[entry_id] = label
            payload = raw if has_id_field else {k: v for k, v in raw.items() if k != "id"}
            try:
                model = spec.model.model_validate(payload)
            except ValidationError as exc:
                for err in exc.errors(include_url=False):
                    file_errors += 1
                    if file_errors > MAX_ERRORS_PER_FILE:
                        break
                    self.errors.append(
                        ContentError(label, err["msg"], entry=entry_id, field=_loc(err["loc"]))
                    )
                continue
            except (ValueError, TypeError, RecursionError) as exc:
                self.errors.append(ContentError(label, str(exc)[:300], entry=entry_id))
                continue
            table[entry_id] = _Loaded(model, label)
        if file_errors > MAX_ERRORS_PER_FILE:
            self.errors.append(
                ContentError(label, f"more than {MAX_ERRORS_PER_FILE} errors; the rest omitted")
            )

    # -- queries

    def _table(self, kind: str) -> dict[str, _Loaded]:
        try:
            return self._entries[kind]
        except KeyError:
            known = ", ".join(sorted(self._entries)) or "none"
            raise KeyError(f"unknown content kind {kind!r} (registered: {known})") from None

    def get(self, kind: str, id: str) -> BaseModel | None:
        """The entry ``id`` of ``kind``, or None. Unknown kinds raise KeyError."""
        loaded = self._table(kind).get(id)
        return loaded.model if loaded else None

    def get_as(self, kind: str, id: str, model: type[M]) -> M | None:
        """Like :meth:`get`, typed: raises TypeError if the entry is not a ``model``."""
        value = self.get(kind, id)
        if value is not None and not isinstance(value, model):
            raise TypeError(f"{kind} {id!r} is a {type(value).__name__}, not {model.__name__}")
        return value

    def all(self, kind: str) -> dict[str, BaseModel]:
        """Every entry of ``kind`` by id (a copy, sorted by id)."""
        table = self._table(kind)
        return {key: table[key].model for key in sorted(table)}

    def source(self, kind: str, id: str) -> str | None:
        """The file an entry came from, as named in error messages."""
        loaded = self._table(kind).get(id)
        return loaded.source if loaded else None

    def raise_if_errors(self) -> None:
        if self.errors:
            raise ContentLoadError(self.errors)


def default_roots(extra: Iterable[Path] = ()) -> list[Path]:
    """The bundled content directory followed by a GM's own directories."""
    return [BUNDLED_CONTENT, *(Path(p) for p in extra)]


# ---------------------------------------------------------------- check report

_LOCALIZED_FIELD_NAMES = frozenset({"name", "text"})


def _is_localized_mapping(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and "en" in value
        and all(k in LANGUAGES and isinstance(v, str) for k, v in value.items())
    )


def _untranslated(value: Any, path: str = "") -> Iterator[tuple[str, list[Language]]]:
    """(field path, missing languages) for every inline localized text in a model."""
    if isinstance(value, BaseModel):
        for name in type(value).model_fields:
            sub = getattr(value, name)
            where = f"{path}.{name}" if path else name
            if isinstance(sub, dict) and (
                name in _LOCALIZED_FIELD_NAMES or _is_localized_mapping(sub)
            ):
                missing: list[Language] = [
                    lang for lang in LANGUAGES if lang != "en" and not sub.get(lang)
                ]
                if missing:
                    yield where, missing
                continue
            yield from _untranslated(sub, where)
    elif isinstance(value, list | tuple):
        for index, item in enumerate(value):
            yield from _untranslated(item, f"{path}.{index}")
    elif isinstance(value, dict):
        for key, item in value.items():
            if _is_localized_mapping(item):
                absent: list[Language] = [
                    lang for lang in LANGUAGES if lang != "en" and not item.get(lang)
                ]
                if absent:
                    yield f"{path}.{key}", absent
            else:
                yield from _untranslated(item, f"{path}.{key}")


def check(
    roots: Iterable[Path], *, kinds: Mapping[str, KindSpec] | None = None
) -> list[tuple[Severity, str]]:
    """Validate content and report problems: errors first, then translation warnings.

    Errors are every :class:`ContentError`; warnings are catalog keys missing in Russian or
    Chinese, inline texts (fields ``name``/``text`` and other ``{en: ...}`` maps) lacking
    ``ru`` or ``zh-CN``, and top-level directories that belong to no registered kind.
    """
    root_list = [Path(r) for r in roots]
    store = ContentStore.load(root_list, kinds=kinds)
    report: list[tuple[Severity, str]] = [("error", str(e)) for e in store.errors]
    warnings: list[tuple[Severity, str]] = []
    for lang, key in store.catalog.missing():
        warnings.append(("warning", f"{I18N_DIR}: key {key!r} has no {lang} translation"))
    for kind in sorted(store.kinds):
        table = store._table(kind)
        for entry_id in sorted(table):
            loaded = table[entry_id]
            for field, langs in _untranslated(loaded.model):
                warnings.append(
                    (
                        "warning",
                        str(
                            ContentError(
                                loaded.source,
                                f"no {', '.join(langs)} translation",
                                entry=entry_id,
                                field=field,
                            )
                        ),
                    )
                )
    known_dirs = {Path(spec.directory).parts[0] for spec in store.kinds.values()}
    for root in root_list:
        if not root.is_dir():
            continue
        for child in sorted(root.iterdir()):
            if (
                child.is_dir()
                and not child.name.startswith(".")
                and child.name not in known_dirs
                and child.name != I18N_DIR
                and find_yaml_files(child, root)[0]
            ):
                warnings.append(
                    (
                        "warning",
                        f"{_label(child, root)}: directory belongs to no content kind "
                        f"(known: {', '.join(sorted(known_dirs)) or 'none'}); its files are ignored",
                    )
                )
    return report + warnings


__all__ = [
    "BUNDLED_CONTENT",
    "ContentError",
    "ContentLoadError",
    "ContentStore",
    "KindSpec",
    "LocalizedText",
    "check",
    "default_roots",
    "register_kind",
    "registered_kinds",
    "unregister_kind",
]
