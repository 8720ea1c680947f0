from __future__ import annotations

from pathlib import Path

import pytest

from sidecar.content import BUNDLED_CONTENT
from sidecar.i18n import (
    LANGUAGES,
    Catalog,
    YamlFileError,
    localized,
    normalize_lang,
    plural_category,
    read_yaml_file,
)
from sidecar.models import CONDITIONS, DAMAGE_TYPES


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def catalog() -> Catalog:
    return Catalog(
        {
            "en": {"greet": "Hello, {name}!", "only_en": "English only", "card": {"x": "X"}},
            "ru": {"greet": "Привет, {name}!"},
        }
    )


def test_languages_constant() -> None:
    assert LANGUAGES == ("en", "ru", "zh-CN")


def test_translate_and_format(catalog: Catalog) -> None:
    assert catalog.t("en", "greet", name="Bob") == "Hello, Bob!"
    assert catalog.t("ru", "greet", name="Боб") == "Привет, Боб!"


def test_fallback_to_english_then_key(catalog: Catalog) -> None:
    assert catalog.t("ru", "only_en") == "English only"
    assert catalog.t("zh-CN", "greet", name="A") == "Hello, A!"
    assert catalog.t("ru", "no.such.key") == "no.such.key"
    assert catalog.t("fr", "greet", name="B") == "Hello, B!"


def test_missing_params_and_bad_templates_do_not_crash(catalog: Catalog) -> None:
    assert catalog.t("en", "greet") == "Hello, {name}!"
    catalog.update(
        "en", {"broken": "100% {", "attr": "{name.__class__}", "big": "{name:>99999999}"}
    )
    assert catalog.t("en", "broken", name="x") == "100% {"
    assert catalog.t("en", "attr", name="x") == "{name.__class__}"
    assert catalog.t("en", "big", name="x") == "{name:>99999999}"


def test_params_named_lang_and_key(catalog: Catalog) -> None:
    catalog.update("en", {"p": "{lang}/{key}"})
    assert catalog.t("en", "p", lang="ru", key="k") == "ru/k"


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("en", "en"),
        ("ru", "ru"),
        ("ru-RU", "ru"),
        ("zh-cn", "zh-CN"),
        ("zh-CN", "zh-CN"),
        ("zh_CN", "zh-CN"),
        ("cn", "zh-CN"),
        ("zh", "zh-CN"),
        ("fr", "en"),
        ("", "en"),
        (None, "en"),
    ],
)
def test_normalize_lang(given: object, expected: str) -> None:
    assert normalize_lang(given) == expected
    assert Catalog.normalize_lang(given) == expected


def test_zh_cn_lookup_uses_normalized_language() -> None:
    cat = Catalog({"en": {"k": "en"}, "zh-CN": {"k": "中文"}})
    assert cat.t("zh-cn", "k") == "中文"
    assert cat.t("cn", "k") == "中文"


def test_localized_inline_text() -> None:
    text = {"en": "Trap", "ru": "Ловушка", "zh-CN": "陷阱"}
    assert localized(text, "ru") == "Ловушка"
    assert localized(text, "zh-cn") == "陷阱"
    assert localized({"en": "Trap"}, "ru") == "Trap"
    assert localized({"en": "Trap", "ru": ""}, "ru") == "Trap"
    assert localized("plain", "zh-CN") == "plain"
    assert Catalog.localized(text, "de") == "Trap"


def test_load_flattens_nested_yaml_and_merges_files(tmp_path: Path) -> None:
    write(
        tmp_path / "en" / "a.yaml", "card:\n  save:\n    success: Saved\nplain.dotted: yes please\n"
    )
    write(tmp_path / "en" / "sub" / "b.yml", "card.save.failure: Failed\n")
    cat = Catalog.load([tmp_path])
    assert cat.errors == []
    assert cat.t("en", "card.save.success") == "Saved"
    assert cat.t("en", "card.save.failure") == "Failed"
    assert cat.t("en", "plain.dotted") == "yes please"


def test_later_dirs_override_earlier(tmp_path: Path) -> None:
    bundled, gm = tmp_path / "bundled", tmp_path / "gm"
    write(bundled / "en" / "core.yaml", "a: bundled A\nb: bundled B\n")
    write(bundled / "ru" / "core.yaml", "a: А\n")
    write(gm / "en" / "mine.yaml", "a: GM A\n")
    cat = Catalog.load([bundled, gm])
    assert cat.t("en", "a") == "GM A"
    assert cat.t("en", "b") == "bundled B"
    assert cat.t("ru", "a") == "А"
    reverse = Catalog.load([gm, bundled])
    assert reverse.t("en", "a") == "bundled A"


def test_load_reports_problems(tmp_path: Path) -> None:
    write(tmp_path / "en" / "bad.yaml", "a: [unclosed\n")
    write(tmp_path / "en" / "bools.yaml", "flag: no\nyes: text\nempty:\n")
    write(tmp_path / "zh-cn" / "x.yaml", "a: b\n")
    write(tmp_path / "loose.yaml", "a: b\n")
    cat = Catalog.load([tmp_path, tmp_path / "does-not-exist"])
    messages = [str(e) for e in cat.errors]
    assert any("bad.yaml" in m and "invalid YAML" in m for m in messages)
    assert any("'flag'" in m and "quote it" in m for m in messages)
    assert any("'True'" in m and "quote it" in m for m in messages)
    assert any("'empty'" in m and "empty value" in m for m in messages)
    assert any("zh-cn" in m and "zh-CN" in m for m in messages)
    assert any("loose.yaml" in m for m in messages)


def test_missing_lists_untranslated_keys() -> None:
    cat = Catalog(
        {
            "en": {"a": "A", "b": "B", "n": {"one": "{count} x", "other": "{count} xs"}},
            "ru": {"a": "А", "n": {"one": "1", "few": "2", "many": "5", "other": "1.5"}},
            "zh-CN": {"a": "甲", "b": "乙"},
        }
    )
    assert cat.missing() == [("ru", "b"), ("zh-CN", "n.other")]


def test_plural_forms() -> None:
    assert [plural_category("ru", n) for n in (1, 2, 5, 11, 21, 22, 112, 1.5)] == [
        "one",
        "few",
        "many",
        "many",
        "one",
        "few",
        "many",
        "other",
    ]
    assert plural_category("en", 1) == "one"
    assert plural_category("en", 0) == "other"
    assert plural_category("zh-cn", 1) == "other"
    cat = Catalog({"en": {"r": {"one": "{count} round", "other": "{count} rounds"}}})
    assert cat.tn("en", "r", 1) == "1 round"
    assert cat.tn("en", "r", 3) == "3 rounds"
    assert cat.tn("ru", "r", 3) == "3 rounds"  # English fallback
    assert cat.tn("en", "nothing", 3) == "nothing"


def test_read_yaml_refuses_large_and_escaping_files(tmp_path: Path) -> None:
    root = tmp_path / "root"
    big = write(root / "big.yaml", "a: " + "x" * 100 + "\n")
    with pytest.raises(YamlFileError, match="larger"):
        read_yaml_file(big, root, max_bytes=50)
    outside = write(tmp_path / "outside.yaml", "a: b\n")
    link = root / "link.yaml"
    link.symlink_to(outside)
    with pytest.raises(YamlFileError, match="outside"):
        read_yaml_file(link, root)


def test_read_yaml_refuses_alias_bombs(tmp_path: Path) -> None:
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    for i in range(1, 8):
        refs = ", ".join(f"*a{i - 1}" for _ in range(10))
        lines.append(f"a{i}: &a{i} [{refs}]")
    bomb = write(tmp_path / "bomb.yaml", "\n".join(lines) + "\n")
    with pytest.raises(YamlFileError, match="too much data"):
        read_yaml_file(bomb, tmp_path)


# ---------------------------------------------------------------- bundled catalogs


@pytest.fixture(scope="module")
def bundled() -> Catalog:
    return Catalog.load([BUNDLED_CONTENT / "i18n"])


def test_bundled_catalogs_load_cleanly(bundled: Catalog) -> None:
    assert bundled.errors == []


def test_bundled_catalogs_have_no_missing_translations(bundled: Catalog) -> None:
    assert bundled.missing() == []


def test_bundled_catalogs_cover_core_words(bundled: Catalog) -> None:
    keys = (
        [f"ability.{a}" for a in ("str", "dex", "con", "int", "wis", "cha")]
        + [f"damage_type.{d}" for d in DAMAGE_TYPES]
        + [f"condition.{c}" for c in (*CONDITIONS, "exhaustion")]
        + [
            f"term.{w}"
            for w in (
                "saving_throw",
                "success",
                "failure",
                "attack",
                "hit",
                "miss",
                "critical_hit",
                "damage",
                "immune",
                "resistant",
                "vulnerable",
                "advantage",
                "disadvantage",
            )
        ]
        + [
            "ui.gm_only",
            "card.save.line",
            "card.save.line_hidden_dc",
            "card.damage.line",
            "card.damage.immune",
            "card.damage.resisted",
            "card.damage.vulnerable",
            "card.condition.applied",
            "card.condition.immune",
            "card.attack.line",
        ]
    )
    for lang in LANGUAGES:
        for key in keys:
            assert bundled.has(lang, key), (lang, key)
    for unit in ("round", "minute", "hour", "day"):
        assert bundled.tn("en", f"duration.{unit}", 2).startswith("2 ")


def test_bundled_translations_are_translated(bundled: Catalog) -> None:
    same = [
        key
        for key in bundled.keys("en")
        if key.startswith(("ability.", "damage_type.", "condition.", "card."))
        and bundled.raw("ru", key) == bundled.raw("en", key)
    ]
    assert same == []
    assert bundled.t("ru", "ability.str") == "Сила"
    assert bundled.t("zh-cn", "damage_type.fire") == "火焰"


def test_bundled_placeholders_match_english(bundled: Catalog) -> None:
    import string

    def fields(text: str) -> set[str]:
        return {f for _, f, _, _ in string.Formatter().parse(text) if f}

    for key in bundled.keys("en"):
        base, _, last = key.rpartition(".")
        expected = fields(bundled.raw("en", key) or "")
        for lang in ("ru", "zh-CN"):
            text = bundled.raw(lang, key)
            if text is None and base.startswith("duration."):
                continue  # plural groups use language-specific categories
            assert text is not None
            assert fields(text) == expected, (lang, key)


def test_bundled_save_line_renders_in_every_language(bundled: Catalog) -> None:
    for lang in LANGUAGES:
        text = bundled.t(
            lang,
            "card.save.line",
            name="Bob",
            ability=bundled.t(lang, "ability.dex"),
            total=12,
            dc=15,
            result=bundled.t(lang, "term.failure"),
        )
        assert "Bob" in text and "12" in text and "15" in text and "{" not in text
