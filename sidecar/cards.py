"""Chat cards: Jinja2 templates rendered into :class:`sidecar.protocol.Card` messages.

Everything a template prints is HTML-escaped (``autoescape=True`` for every template,
whatever its extension), undefined variables are errors (``StrictUndefined``), and the
templates run in Jinja's immutable sandbox, so a GM's own template directory cannot reach
Python internals. Names of actors and tokens are user input: pass them as plain text.

Bundled templates live in ``sidecar/templates/``; directories given to
:class:`CardRenderer` are searched first, so a GM can override a bundled template.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined, Template
from jinja2.sandbox import ImmutableSandboxedEnvironment

from sidecar.dice import Roll
from sidecar.i18n import Catalog, localized, normalize_lang
from sidecar.protocol import Card, Speaker, Visibility

TEMPLATE_DIR = Path(__file__).resolve().parent / "templates"
TEMPLATE_SUFFIX = ".html.j2"

#: Names the renderer puts into every template context; ``**context`` may not reuse them.
RESERVED_NAMES = frozenset(
    {
        "t",
        "tn",
        "loc",
        "lang",
        "title",
        "visibility",
        "owners_of",
        "card_id",
        "speaker",
        "undoable",
        "data",
        "rolls",
        "template",
    }
)

_CSS_CLASS = re.compile(r"[^A-Za-z0-9_ -]")


def css_classes(value: object) -> str:
    """Reduce a value to safe CSS class names (letters, digits, ``_``, ``-``, spaces)."""
    return " ".join(_CSS_CLASS.sub("", str(value)).split())


def roll_info(roll: Roll) -> dict[str, Any]:
    """The ``roll`` part of a generic card line for an evaluated dice roll."""
    return {"formula": roll.formula, "total": roll.total, "breakdown": roll.describe()}


def line(text: str, roll: Roll | None = None, css: str | None = None) -> dict[str, Any]:
    """A generic card line: ``{"text": ..., "roll": {...}?, "css": ...?}``."""
    item: dict[str, Any] = {"text": text}
    if roll is not None:
        item["roll"] = roll_info(roll)
    if css:
        item["css"] = css
    return item


def _full_line(item: Mapping[str, Any]) -> dict[str, Any]:
    roll = item.get("roll")
    if roll:
        roll = {
            "formula": roll.get("formula", ""),
            "total": roll.get("total", ""),
            "breakdown": roll.get("breakdown", ""),
        }
    return {"text": item.get("text", ""), "css": item.get("css") or "", "roll": roll or None}


class CardRenderer:
    """Renders card templates in one of the catalog's languages."""

    def __init__(self, catalog: Catalog, template_dirs: Sequence[Path] | None = None) -> None:
        self.catalog = catalog
        search = [Path(d) for d in (template_dirs or [])] + [TEMPLATE_DIR]
        # A GM's own templates run in the sandbox; our bundled ones alone do not need it,
        # and the sandbox's attribute checks were a third of a trap card's cost.
        environment = ImmutableSandboxedEnvironment if template_dirs else Environment
        self.env = environment(
            loader=FileSystemLoader([str(d) for d in search]),
            autoescape=True,
            undefined=StrictUndefined,
            trim_blocks=True,
            lstrip_blocks=True,
            auto_reload=False,
        )
        self.env.filters["css_classes"] = css_classes

    def template(self, name: str) -> Template:
        """Load a template by name; ``"generic"`` means ``"generic.html.j2"``."""
        if not name.endswith(".j2"):
            name += TEMPLATE_SUFFIX
        return self.env.get_template(name)

    def render(
        self,
        template: str,
        lang: str,
        *,
        title: str,
        card_id: str,
        visibility: Visibility = "public",
        owners_of: Sequence[str] = (),
        rolls: Sequence[Mapping[str, Any]] = (),
        data: Mapping[str, Any] | None = None,
        speaker: Speaker | None = None,
        undoable: bool = False,
        **context: Any,
    ) -> Card:
        """Render ``template`` into a Card.

        The template sees ``t(key, **params)`` and ``tn(key, count, **params)`` bound to
        the language, ``loc(value)`` for inline localized texts, ``lang``, ``title``,
        ``visibility``, ``card_id`` and every extra keyword in ``context`` (for
        ``generic``: ``lines``; for ``text``: ``text``). ``title`` stays plain text in
        ``Card.title`` and is escaped where the template prints it.
        """
        clash = RESERVED_NAMES.intersection(context)
        if clash:
            raise TypeError(f"context may not use reserved names: {', '.join(sorted(clash))}")
        language = normalize_lang(lang)
        if "lines" in context:
            context["lines"] = [_full_line(item) for item in context["lines"]]
        card_data = dict(data or {})
        values: dict[str, Any] = {
            "t": self.catalog.translator(language),
            "tn": self.catalog.plural_translator(language),
            "loc": _bind_localized(language),
            "lang": language,
            "title": title,
            "visibility": visibility,
            "owners_of": list(owners_of),
            "card_id": card_id,
            "speaker": speaker or Speaker(),
            "undoable": undoable,
            "data": card_data,
            "rolls": [dict(r) for r in rolls],
            **context,
        }
        html = self.template(template).render(values).strip()
        return Card(
            id=card_id,
            title=title,
            html=html,
            visibility=visibility,
            owners_of=list(owners_of),
            speaker=speaker or Speaker(),
            rolls=[dict(r) for r in rolls],
            data=card_data,
            undoable=undoable,
        )


def _bind_localized(lang: str) -> Callable[[str | Mapping[str, str]], str]:
    def loc(value: str | Mapping[str, str]) -> str:
        return localized(value, lang)

    return loc


# ---------------------------------------------------------------- plain text

_BLOCK_TAGS = frozenset(
    {
        "address",
        "article",
        "aside",
        "blockquote",
        "br",
        "dd",
        "div",
        "dl",
        "dt",
        "footer",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "header",
        "hr",
        "li",
        "ol",
        "p",
        "section",
        "table",
        "tr",
        "ul",
    }
)
_SKIP_TAGS = frozenset({"script", "style", "template"})


class _TextExtractor(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.lines: list[str] = []
        self._current: list[str] = []
        self._skip = 0

    def _break(self) -> None:
        text = " ".join("".join(self._current).split())
        if text:
            self.lines.append(text)
        self._current = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _SKIP_TAGS:
            self._skip += 1
        elif tag in _BLOCK_TAGS:
            self._break()

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _BLOCK_TAGS:
            self._break()

    def handle_endtag(self, tag: str) -> None:
        if tag in _SKIP_TAGS:
            self._skip = max(0, self._skip - 1)
        elif tag in _BLOCK_TAGS:
            self._break()

    def handle_data(self, data: str) -> None:
        if not self._skip:
            self._current.append(data)

    def close(self) -> None:
        super().close()
        self._break()


def html_text(html: str) -> str:
    """Plain text of an HTML fragment: tags stripped, entities unescaped, one line per
    block element, whitespace collapsed."""
    parser = _TextExtractor()
    parser.feed(html)
    parser.close()
    return "\n".join(parser.lines)


def card_text(card: Card) -> str:
    """A rendered card as readable plain text (title first, then one line per item)."""
    return html_text(card.html)


__all__ = [
    "TEMPLATE_DIR",
    "CardRenderer",
    "card_text",
    "css_classes",
    "html_text",
    "line",
    "roll_info",
]
