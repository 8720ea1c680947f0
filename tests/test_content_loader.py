from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from pydantic import BaseModel, Field, TypeAdapter, ValidationError

from sidecar.content import (
    BUNDLED_CONTENT,
    ContentError,
    ContentLoadError,
    ContentStore,
    LocalizedText,
    check,
    register_kind,
    registered_kinds,
    unregister_kind,
)
from sidecar.models import Language


class Effect(BaseModel):
    dc: int
    text: LocalizedText | None = None


class Widget(BaseModel):
    id: str
    name: LocalizedText
    weight: int = Field(ge=0)
    effects: list[Effect] = Field(default_factory=list)


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def widgets() -> Iterator[None]:
    register_kind("widget", "widgets", Widget)
    yield
    unregister_kind("widget")


GOOD = """
- id: anvil
  name: {en: Anvil, ru: Наковальня, zh-CN: 铁砧}
  weight: 100
- id: feather
  name: Feather
  weight: 0
  effects:
    - dc: 10
      text: {en: Tickles}
"""

BROKEN = """
entries:
  - id: poison_darts
    name: {en: Darts}
    weight: 1
    effects:
      - dc: fifteen
  - id: heavy
    name: {ru: Тяжесть}
    weight: -3
  - name: {en: No id}
    weight: 1
  - just a string
"""


def test_valid_file_loads(tmp_path: Path, widgets: None) -> None:
    write(tmp_path / "content" / "widgets" / "basic.yaml", GOOD)
    store = ContentStore.load([tmp_path / "content"])
    assert store.errors == []
    store.raise_if_errors()
    anvil = store.get("widget", "anvil")
    assert isinstance(anvil, Widget) and anvil.weight == 100
    assert store.get_as("widget", "feather", Widget) is not None
    assert store.get("widget", "nope") is None
    assert list(store.all("widget")) == ["anvil", "feather"]
    assert store.source("widget", "anvil") == "content/widgets/basic.yaml"
    with pytest.raises(KeyError):
        store.all("unknown-kind")


def test_errors_name_file_entry_and_field(tmp_path: Path, widgets: None) -> None:
    write(tmp_path / "content" / "widgets" / "darts.yaml", BROKEN)
    store = ContentStore.load([tmp_path / "content"])
    by_entry = {(e.entry, e.field): e for e in store.errors}
    dart = by_entry[("poison_darts", "effects.0.dc")]
    assert dart.file == "content/widgets/darts.yaml"
    assert str(dart) == (
        "content/widgets/darts.yaml: entry 'poison_darts': field 'effects.0.dc': "
        "Input should be a valid integer, unable to parse string as an integer"
    )
    assert ("heavy", "weight") in by_entry
    assert ("heavy", "name") in by_entry  # English is required
    assert ("#2", "id") in by_entry
    assert str(by_entry[("#2", "id")]).startswith(
        "content/widgets/darts.yaml: entry #2: field 'id'"
    )
    assert ("#3", None) in by_entry
    assert len(store.errors) == 5  # all errors collected, not just the first
    assert store.all("widget") == {}
    with pytest.raises(ContentLoadError) as info:
        store.raise_if_errors()
    assert len(info.value.errors) == 5
    assert "poison_darts" in str(info.value)


def test_errors_across_files_are_all_collected(tmp_path: Path, widgets: None) -> None:
    root = tmp_path / "content"
    write(root / "widgets" / "a.yaml", "- id: a\n  name: A\n  weight: x\n")
    write(root / "widgets" / "nested" / "b.yml", "- id: b\n  name: B\n  weight: y\n")
    write(root / "widgets" / "c.yaml", "key: [broken\n")
    write(root / "widgets" / "d.yaml", "- id: a\n  name: A again\n  weight: 1\n")
    write(root / "widgets" / "e.yaml", "entires:\n  - id: e\n")
    store = ContentStore.load([root])
    files = sorted({e.file for e in store.errors})
    assert files == [
        "content/widgets/a.yaml",
        "content/widgets/c.yaml",
        "content/widgets/d.yaml",
        "content/widgets/e.yaml",
        "content/widgets/nested/b.yml",
    ]
    assert any("invalid YAML" in e.message for e in store.errors)
    assert any(e.field == "entires" for e in store.errors)
    # an id used twice in one root is an error even if its first definition was invalid
    assert any(e.file.endswith("d.yaml") and "duplicate id" in e.message for e in store.errors)
    assert store.all("widget") == {}


def test_duplicate_id_in_one_root(tmp_path: Path, widgets: None) -> None:
    root = tmp_path / "content"
    write(root / "widgets" / "a.yaml", "- id: a\n  name: A\n  weight: 1\n")
    write(root / "widgets" / "b.yaml", "- id: a\n  name: B\n  weight: 2\n")
    store = ContentStore.load([root])
    assert [(e.file, e.entry, e.field) for e in store.errors] == [
        ("content/widgets/b.yaml", "a", "id")
    ]
    assert "content/widgets/a.yaml" in store.errors[0].message


def test_second_root_overrides_and_extends(tmp_path: Path, widgets: None) -> None:
    bundled, gm = tmp_path / "content", tmp_path / "homebrew"
    write(bundled / "widgets" / "basic.yaml", GOOD)
    write(
        gm / "widgets" / "mine.yaml",
        "- id: anvil\n  name: Big anvil\n  weight: 500\n- id: brick\n  name: Brick\n  weight: 5\n",
    )
    write(bundled / "i18n" / "en" / "core.yaml", "a: bundled\nb: bundled b\n")
    write(gm / "i18n" / "en" / "mine.yaml", "a: homebrew\n")
    store = ContentStore.load([bundled, gm])
    assert store.errors == []
    anvil = store.get_as("widget", "anvil", Widget)
    assert anvil is not None and anvil.weight == 500
    assert store.source("widget", "anvil") == "homebrew/widgets/mine.yaml"
    assert set(store.all("widget")) == {"anvil", "feather", "brick"}
    assert store.catalog.t("en", "a") == "homebrew"
    assert store.catalog.t("en", "b") == "bundled b"


def test_symlink_outside_root_is_refused(tmp_path: Path, widgets: None) -> None:
    root = tmp_path / "content"
    secret = write(tmp_path / "secret" / "passwd.yaml", "- id: leak\n  name: L\n  weight: 1\n")
    (root / "widgets").mkdir(parents=True)
    (root / "widgets" / "link.yaml").symlink_to(secret)
    (root / "widgets" / "dir").symlink_to(secret.parent, target_is_directory=True)
    store = ContentStore.load([root])
    assert store.get("widget", "leak") is None
    files = {e.file: e.message for e in store.errors}
    assert "outside" in files["content/widgets/link.yaml"]
    assert "outside" in files["content/widgets/dir"]


def test_symlink_inside_root_is_fine(tmp_path: Path, widgets: None) -> None:
    root = tmp_path / "content"
    real = write(root / "shared" / "w.yaml", "- id: w\n  name: W\n  weight: 1\n")
    (root / "widgets").mkdir()
    (root / "widgets" / "w.yaml").symlink_to(real)
    store = ContentStore.load([root])
    assert store.errors == [] and store.get("widget", "w") is not None


def test_large_file_refused(tmp_path: Path, widgets: None) -> None:
    root = tmp_path / "content"
    write(root / "widgets" / "big.yaml", "# " + "x" * (2 * 1024 * 1024) + "\n")
    store = ContentStore.load([root])
    assert [e.file for e in store.errors] == ["content/widgets/big.yaml"]
    assert "larger than 2 MiB" in store.errors[0].message


def test_unsafe_yaml_tags_refused(tmp_path: Path, widgets: None) -> None:
    root = tmp_path / "content"
    write(root / "widgets" / "evil.yaml", "- !!python/object/apply:os.system ['echo hi']\n")
    store = ContentStore.load([root])
    assert len(store.errors) == 1 and "invalid YAML" in store.errors[0].message


def test_missing_root_is_an_error(tmp_path: Path, widgets: None) -> None:
    store = ContentStore.load([tmp_path / "nope"])
    assert len(store.errors) == 1 and "not found" in store.errors[0].message


def test_content_error_str() -> None:
    err = ContentError(
        file="content/traps/darts.yaml",
        entry="poison_darts",
        field="effects.0.dc",
        message="Input should be a valid integer",
    )
    assert str(err) == (
        "content/traps/darts.yaml: entry 'poison_darts': field 'effects.0.dc': "
        "Input should be a valid integer"
    )
    assert str(ContentError("f.yaml", "bad")) == "f.yaml: bad"


def test_localized_text_type() -> None:
    adapter: TypeAdapter[dict[Language, str]] = TypeAdapter(LocalizedText)
    assert adapter.validate_python({"en": "A", "ru": "Б"}) == {"en": "A", "ru": "Б"}
    assert adapter.validate_python("plain") == {"en": "plain"}
    with pytest.raises(ValidationError, match="English"):
        adapter.validate_python({"ru": "Б"})
    with pytest.raises(ValidationError):
        adapter.validate_python({"en": "A", "de": "B"})


def test_register_kind_rules(widgets: None) -> None:
    assert registered_kinds()["widget"].directory == "widgets"
    with pytest.raises(ValueError):
        register_kind("other", "widgets", Widget)
    with pytest.raises(ValueError):
        register_kind("other", "../outside", Widget)
    with pytest.raises(ValueError):
        register_kind("other", "i18n", Widget)


def test_check_report(tmp_path: Path, widgets: None) -> None:
    root = tmp_path / "content"
    write(root / "widgets" / "basic.yaml", GOOD)
    write(root / "widgets" / "bad.yaml", "- id: bad\n  name: B\n  weight: -1\n")
    write(root / "widget" / "typo.yaml", "- id: t\n")
    write(root / "i18n" / "en" / "x.yaml", "only_english: Hi\n")
    report = check([root])
    errors = [m for s, m in report if s == "error"]
    warnings = [m for s, m in report if s == "warning"]
    assert errors == [
        "content/widgets/bad.yaml: entry 'bad': field 'weight': "
        "Input should be greater than or equal to 0"
    ]
    assert "i18n: key 'only_english' has no ru translation" in warnings
    assert "i18n: key 'only_english' has no zh-CN translation" in warnings
    assert (
        "content/widgets/basic.yaml: entry 'feather': field 'name': no ru, zh-CN translation"
        in warnings
    )
    assert (
        "content/widgets/basic.yaml: entry 'feather': field 'effects.0.text': "
        "no ru, zh-CN translation" in warnings
    )
    assert not any("'anvil'" in w for w in warnings)
    assert any(
        w.startswith("content/widget: directory belongs to no content kind") for w in warnings
    )


def test_bundled_content_checks_clean() -> None:
    report = check([BUNDLED_CONTENT])
    assert [m for s, m in report if s == "error"] == []
    assert not any("i18n:" in m for _, m in report)
