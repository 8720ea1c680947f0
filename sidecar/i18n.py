"""Translation catalogs: English, Russian and Simplified Chinese strings for cards.

Catalogs are YAML files under ``<dir>/<lang>/*.yaml`` (several files per language are
merged; nested maps are flattened into dotted keys such as ``card.save.line``). Later
directories override earlier ones, so a GM's content directory can replace bundled strings.

Lookups never crash: a key missing in the requested language falls back to English, and a
key missing in English too comes back as the key itself. Placeholders are filled with
``str.format_map``; a placeholder without a value is left as written.

Plural forms live under a key with one sub-key per CLDR category, e.g.
``duration.round.one`` / ``duration.round.other`` in English and ``one``/``few``/``many``/
``other`` in Russian; :meth:`Catalog.tn` picks the form for a count.

This module also holds the safe YAML reading used by :mod:`sidecar.content`: files must
stay inside their root (no symlinks out), are at most 2 MiB and are read with
``yaml.safe_load``.
"""

from __future__ import annotations

import os
import re
import string
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from sidecar.models import Language

LANGUAGES: tuple[Language, ...] = ("en", "ru", "zh-CN")
DEFAULT_LANGUAGE: Language = "en"

#: CLDR plural categories each language uses for :meth:`Catalog.tn`.
PLURAL_CATEGORIES: dict[Language, tuple[str, ...]] = {
    "en": ("one", "other"),
    "ru": ("one", "few", "many", "other"),
    "zh-CN": ("other",),
}
_ALL_PLURAL_CATEGORIES = frozenset({"zero", "one", "two", "few", "many", "other"})

MAX_YAML_BYTES = 2 * 1024 * 1024
MAX_YAML_NODES = 200_000
MAX_YAML_DEPTH = 64
YAML_SUFFIXES = (".yaml", ".yml")


# ---------------------------------------------------------------- safe YAML reading


class YamlFileError(Exception):
    """A YAML file (or directory) that may not or cannot be read."""

    def __init__(self, path: Path, message: str) -> None:
        super().__init__(f"{path}: {message}")
        self.path = path
        self.message = message


def _inside(path: Path, root: Path) -> bool:
    return path == root or path.is_relative_to(root)


def find_yaml_files(directory: Path, root: Path) -> tuple[list[Path], list[YamlFileError]]:
    """Every ``*.yaml``/``*.yml`` file under ``directory`` (recursively, sorted).

    Hidden files and directories (``.name``) are skipped. A directory or file whose
    resolved path leaves ``root`` (a symlink pointing outside) is reported, not read.
    The returned paths are unresolved (``directory / ...``) so callers can name them
    relative to the root.
    """
    files: list[Path] = []
    problems: list[YamlFileError] = []
    real_root = root.resolve()
    if not directory.is_dir():
        return files, problems
    real_dir = directory.resolve()
    if not _inside(real_dir, real_root):
        problems.append(YamlFileError(directory, "directory resolves outside its content root"))
        return files, problems
    seen: set[Path] = {real_dir}
    for current, dirnames, filenames in os.walk(directory, followlinks=True):
        base = Path(current)
        keep: list[str] = []
        for name in sorted(dirnames):
            if name.startswith("."):
                continue
            sub = base / name
            real = sub.resolve()
            if not _inside(real, real_root):
                problems.append(YamlFileError(sub, "directory resolves outside its content root"))
                continue
            if real in seen:
                continue  # a symlink loop or a second name for a directory already read
            seen.add(real)
            keep.append(name)
        dirnames[:] = keep
        for name in sorted(filenames):
            if name.startswith(".") or not name.lower().endswith(YAML_SUFFIXES):
                continue
            files.append(base / name)
    files.sort(key=lambda p: p.as_posix())
    return files, problems


def _check_shape(value: Any, path: Path) -> None:
    """Bound the expanded size of loaded data (aliases can multiply it) and its depth."""
    budget = MAX_YAML_NODES
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        budget -= 1
        if budget < 0:
            raise YamlFileError(path, f"too much data (more than {MAX_YAML_NODES} values)")
        if depth > MAX_YAML_DEPTH:
            raise YamlFileError(path, f"nested more than {MAX_YAML_DEPTH} levels deep")
        if isinstance(item, dict):
            for k, v in item.items():
                stack.append((k, depth + 1))
                stack.append((v, depth + 1))
        elif isinstance(item, list):
            stack.extend((v, depth + 1) for v in item)


def read_yaml_file(path: Path, root: Path, max_bytes: int = MAX_YAML_BYTES) -> Any:
    """Load one YAML file that must resolve inside ``root``; raise YamlFileError."""
    real = path.resolve()
    if not _inside(real, root.resolve()):
        raise YamlFileError(path, "file resolves outside its content root (symlink?)")
    if not real.is_file():
        raise YamlFileError(path, "not a regular file")
    try:
        if real.stat().st_size > max_bytes:
            raise YamlFileError(path, f"file is larger than {max_bytes // (1024 * 1024)} MiB")
        with real.open("rb") as handle:
            raw = handle.read(max_bytes + 1)
    except OSError as exc:
        raise YamlFileError(path, f"cannot read: {exc.strerror or exc}") from None
    if len(raw) > max_bytes:
        raise YamlFileError(path, f"file is larger than {max_bytes // (1024 * 1024)} MiB")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise YamlFileError(path, f"not UTF-8 text (byte {exc.start})") from None
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc)
        raise YamlFileError(path, f"invalid YAML: {where}{problem}") from None
    except RecursionError:
        raise YamlFileError(path, f"nested more than {MAX_YAML_DEPTH} levels deep") from None
    _check_shape(data, path)
    return data


# ---------------------------------------------------------------- languages


def normalize_lang(lang: object) -> Language:
    """Map Foundry's ``game.i18n.lang`` (``en``, ``ru``, ``zh-cn``, ``cn``...) to ours.

    Any Chinese tag (``zh``, ``zh-cn``, ``zh_CN``, ``cn``, ``zh-Hans``...) gives ``zh-CN``;
    ``ru``/``ru-RU`` give ``ru``; anything else, including non-strings, gives ``en``.
    """
    if not isinstance(lang, str):
        return DEFAULT_LANGUAGE
    primary = lang.strip().replace("_", "-").split("-", 1)[0].lower()
    if primary == "ru":
        return "ru"
    if primary in ("zh", "cn"):
        return "zh-CN"
    return DEFAULT_LANGUAGE


def localized(value: str | Mapping[str, str], lang: str) -> str:
    """Pick a language from an inline ``{en: ..., ru: ..., zh-CN: ...}`` mapping.

    A plain string is returned as is. Falls back to English, then to any text present.
    """
    if isinstance(value, str):
        return value
    wanted = normalize_lang(lang)
    text = value.get(wanted)
    if isinstance(text, str) and text:
        return text
    for key, candidate in value.items():
        if isinstance(candidate, str) and candidate and key.lower() == wanted.lower():
            return candidate
    text = value.get(DEFAULT_LANGUAGE)
    if isinstance(text, str) and text:
        return text
    for candidate in value.values():
        if isinstance(candidate, str) and candidate:
            return candidate
    return ""


def plural_category(lang: str, count: float) -> str:
    """The CLDR plural category of ``count`` in ``lang`` (``one``, ``few``, ``many``...)."""
    language = normalize_lang(lang)
    if language == "zh-CN":
        return "other"
    whole = isinstance(count, int) or float(count).is_integer()
    if language == "en":
        return "one" if whole and abs(count) == 1 else "other"
    if not whole:
        return "other"
    n = abs(int(count))
    if n % 10 == 1 and n % 100 != 11:
        return "one"
    if 2 <= n % 10 <= 4 and not 12 <= n % 100 <= 14:
        return "few"
    return "many"


# ---------------------------------------------------------------- formatting


class _Params(dict[str, Any]):
    """Leave ``{placeholder}`` in the text when no value was given for it."""

    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


_FORMATTER = string.Formatter()
_BIG_NUMBER = re.compile(r"\d{4,}")


def _safe_template(text: str) -> bool:
    """Only plain ``{name}`` fields with small format specs: a translation file must not
    reach attributes (``{x.__class__}``), items or allocate huge paddings."""
    try:
        for _literal, field, spec, _conversion in _FORMATTER.parse(text):
            if field is None:
                continue
            if not field.isidentifier():
                return False
            if spec and ("{" in spec or _BIG_NUMBER.search(spec)):
                return False
    except ValueError:
        return False
    return True


def format_text(text: str, params: Mapping[str, object]) -> str:
    """``text.format_map(params)`` that never raises; unusable templates come back raw."""
    if not params and "{" not in text and "}" not in text:
        return text
    if not _safe_template(text):
        return text
    try:
        return text.format_map(_Params(params))
    except (ValueError, TypeError, KeyError, IndexError, AttributeError):
        return text


# ---------------------------------------------------------------- catalogs


@dataclass(frozen=True)
class CatalogError:
    """A problem in a catalog file: ``file`` is the path as found under the loaded dir."""

    file: Path
    message: str
    key: str | None = None

    def __str__(self) -> str:
        where = f": key {self.key!r}" if self.key else ""
        return f"{self.file.as_posix()}{where}: {self.message}"


def flatten(data: Mapping[Any, Any], prefix: str = "") -> tuple[dict[str, str], list[str]]:
    """Flatten nested maps into dotted keys; returns (strings, problems as "key: msg")."""
    out: dict[str, str] = {}
    problems: list[str] = []
    for raw_key, value in data.items():
        if isinstance(raw_key, bool) or raw_key is None:
            shown = f"{prefix}{raw_key}"
            problems.append(f"{shown}: key is read as {raw_key!r} by YAML; quote it")
            continue
        if not isinstance(raw_key, str | int | float):
            problems.append(f"{prefix}{raw_key!r}: key must be text")
            continue
        key = f"{prefix}{raw_key}"
        if isinstance(value, Mapping):
            sub, sub_problems = flatten(value, key + ".")
            out.update(sub)
            problems.extend(sub_problems)
        elif isinstance(value, bool):
            problems.append(f"{key}: value is read as {value!r} by YAML; quote it")
        elif isinstance(value, str):
            out[key] = value
        elif isinstance(value, int | float):
            out[key] = str(value)
        elif value is None:
            problems.append(f"{key}: empty value")
        else:
            problems.append(f"{key}: value must be text, not {type(value).__name__}")
    return out, problems


class Catalog:
    """Merged translation strings per language."""

    def __init__(self, strings: Mapping[str, Mapping[str, Any]] | None = None) -> None:
        self._strings: dict[Language, dict[str, str]] = {lang: {} for lang in LANGUAGES}
        self.errors: list[CatalogError] = []
        for lang, table in (strings or {}).items():
            self.update(lang, table)

    # -- loading

    @classmethod
    def load(cls, dirs: Iterable[Path]) -> Catalog:
        """Load ``<dir>/<lang>/**/*.yaml`` for every dir; later dirs override earlier ones.

        Missing dirs are skipped. File problems are collected in :attr:`errors`.
        """
        catalog = cls()
        for directory in dirs:
            catalog._load_dir(Path(directory))
        return catalog

    def _load_dir(self, directory: Path) -> None:
        if not directory.is_dir():
            return
        by_name = {lang.lower(): lang for lang in LANGUAGES}
        try:
            children = sorted(directory.iterdir())
        except OSError as exc:
            self.errors.append(CatalogError(directory, f"cannot list: {exc.strerror or exc}"))
            return
        for child in children:
            if child.name.startswith("."):
                continue
            if child.is_dir():
                lang = by_name.get(child.name.lower())
                if lang is None or child.name != lang:
                    expected = ", ".join(LANGUAGES)
                    hint = f" (did you mean {lang!r}?)" if lang else ""
                    self.errors.append(
                        CatalogError(
                            child,
                            f"unknown language directory {child.name!r}{hint}; "
                            f"expected one of {expected}",
                        )
                    )
                    continue
                self._load_lang_dir(lang, child, directory)
            elif child.name.lower().endswith(YAML_SUFFIXES):
                self.errors.append(
                    CatalogError(child, "translation files go in a language directory: <lang>/")
                )

    def _load_lang_dir(self, lang: Language, lang_dir: Path, root: Path) -> None:
        files, problems = find_yaml_files(lang_dir, root)
        self.errors.extend(CatalogError(p.path, p.message) for p in problems)
        for path in files:
            try:
                data = read_yaml_file(path, root)
            except YamlFileError as exc:
                self.errors.append(CatalogError(exc.path, exc.message))
                continue
            if data is None:
                continue
            if not isinstance(data, Mapping):
                self.errors.append(
                    CatalogError(path, "a translation file must be a mapping of keys to text")
                )
                continue
            strings, flat_problems = flatten(data)
            for problem in flat_problems:
                key, _, message = problem.partition(": ")
                self.errors.append(CatalogError(path, message, key))
            self._strings[lang].update(strings)

    def update(self, lang: str, strings: Mapping[str, Any]) -> None:
        """Add or override strings (nested maps are flattened)."""
        flat, problems = flatten(strings)
        if problems:
            raise ValueError("; ".join(problems))
        self._strings[normalize_lang(lang)].update(flat)

    # -- lookups

    def has(self, lang: str, key: str) -> bool:
        return key in self._strings[normalize_lang(lang)]

    def keys(self, lang: str) -> set[str]:
        return set(self._strings[normalize_lang(lang)])

    def raw(self, lang: str, key: str) -> str | None:
        """The unformatted text in exactly this language, or None."""
        return self._strings[normalize_lang(lang)].get(key)

    def t(self, lang: str, key: str, /, **params: object) -> str:
        """Translate ``key`` into ``lang`` and fill its placeholders from ``params``."""
        language = normalize_lang(lang)
        text = self._strings[language].get(key)
        if text is None:
            text = self._strings[DEFAULT_LANGUAGE].get(key)
        if text is None:
            return key
        return format_text(text, params)

    def tn(self, lang: str, key: str, count: float, /, **params: object) -> str:
        """Plural-aware :meth:`t`: picks ``key.<category>`` for ``count``.

        ``count`` is also available to the text as ``{count}``. Falls back to
        ``key.other``, then to English forms, then to ``key`` itself as a plain key.
        """
        values: dict[str, object] = {"count": count, **params}
        language = normalize_lang(lang)
        for candidate in (language, DEFAULT_LANGUAGE):
            table = self._strings[candidate]
            category = plural_category(candidate, count)
            text = table.get(f"{key}.{category}") or table.get(f"{key}.other")
            if text is not None:
                return format_text(text, values)
        return self.t(language, key, **values)

    def translator(self, lang: str) -> Callable[..., str]:
        """``t`` bound to one language: ``tr(key, **params)``."""
        language = normalize_lang(lang)

        def tr(key: str, /, **params: object) -> str:
            return self.t(language, key, **params)

        return tr

    def plural_translator(self, lang: str) -> Callable[..., str]:
        """``tn`` bound to one language: ``trn(key, count, **params)``."""
        language = normalize_lang(lang)

        def trn(key: str, count: float, /, **params: object) -> str:
            return self.tn(language, key, count, **params)

        return trn

    def missing(self) -> list[tuple[Language, str]]:
        """Keys present in English but absent in Russian or Chinese.

        Plural groups (``key.one``/``key.other``...) count as one key: each language must
        have the categories it uses (see :data:`PLURAL_CATEGORIES`).
        """
        english = self._strings[DEFAULT_LANGUAGE]
        plural_bases = {
            k.rsplit(".", 1)[0]
            for k in english
            if k.rsplit(".", 1)[-1] in _ALL_PLURAL_CATEGORIES
            and f"{k.rsplit('.', 1)[0]}.other" in english
        }
        result: list[tuple[Language, str]] = []
        for lang in LANGUAGES:
            if lang == DEFAULT_LANGUAGE:
                continue
            table = self._strings[lang]
            for key in sorted(english):
                base, _, last = key.rpartition(".")
                if base in plural_bases and last in _ALL_PLURAL_CATEGORIES:
                    continue
                if key not in table:
                    result.append((lang, key))
            for base in sorted(plural_bases):
                for category in PLURAL_CATEGORIES[lang]:
                    if f"{base}.{category}" not in table:
                        result.append((lang, f"{base}.{category}"))
        return result

    # convenience aliases so callers holding a Catalog need no second import
    normalize_lang = staticmethod(normalize_lang)
    localized = staticmethod(localized)


__all__ = [
    "DEFAULT_LANGUAGE",
    "LANGUAGES",
    "MAX_YAML_BYTES",
    "PLURAL_CATEGORIES",
    "Catalog",
    "CatalogError",
    "YamlFileError",
    "find_yaml_files",
    "flatten",
    "format_text",
    "localized",
    "normalize_lang",
    "plural_category",
    "read_yaml_file",
]
