from __future__ import annotations

from pathlib import Path

import jinja2
import pytest

from sidecar.cards import TEMPLATE_DIR, CardRenderer, card_text, css_classes, html_text, line
from sidecar.content import BUNDLED_CONTENT
from sidecar.dice import Dice
from sidecar.i18n import Catalog
from sidecar.protocol import Card, Speaker

EVIL = "<script>alert(1)</script>"


@pytest.fixture(scope="module")
def renderer() -> CardRenderer:
    return CardRenderer(Catalog.load([BUNDLED_CONTENT / "i18n"]))


def test_bundled_templates_exist() -> None:
    for name in ("base.html.j2", "generic.html.j2", "text.html.j2"):
        assert (TEMPLATE_DIR / name).is_file()


def test_generic_card(renderer: CardRenderer) -> None:
    roll = Dice.seeded(7).roll("1d20 + 2")
    card = renderer.render(
        "generic",
        "en",
        title="Poison darts",
        card_id="card-1",
        visibility="owners",
        owners_of=["tok1"],
        rolls=[roll.to_foundry()],
        data={"trap": "darts"},
        speaker=Speaker(alias="Trap"),
        undoable=True,
        lines=[line("Bob rolls", roll, css="save"), {"text": "Second"}],
    )
    assert isinstance(card, Card)
    assert card.id == "card-1" and card.title == "Poison darts"
    assert card.visibility == "owners" and card.owners_of == ["tok1"]
    assert card.rolls[0]["total"] == roll.total
    assert card.data == {"trap": "darts"} and card.undoable
    assert card.speaker.alias == "Trap"
    assert 'class="vtt-sidecar card"' in card.html
    assert 'data-visibility="owners"' in card.html
    assert f'= <strong class="roll-total">{roll.total}</strong>' in card.html
    assert "card-line save" in card.html


def test_script_in_names_is_escaped_in_title_and_lines(renderer: CardRenderer) -> None:
    card = renderer.render(
        "generic",
        "en",
        title=f"{EVIL} falls",
        card_id="c",
        lines=[
            {
                "text": renderer.catalog.t(
                    "en", "card.damage.line", name=EVIL, amount=3, type="fire"
                )
            },
            {"text": "x", "roll": {"formula": EVIL, "total": EVIL, "breakdown": EVIL}},
            {"text": "y", "css": '" onmouseover="alert(1)'},
        ],
    )
    assert "<script>" not in card.html
    assert card.html.count("&lt;script&gt;alert(1)&lt;/script&gt;") == 5
    assert "onmouseover=" not in card.html
    assert card.title == f"{EVIL} falls"  # the Card field stays plain text


def test_text_card_escapes(renderer: CardRenderer) -> None:
    card = renderer.render("text", "ru", title=EVIL, card_id="t", text=f"{EVIL} & <b>")
    assert "<script>" not in card.html and "<b>" not in card.html
    assert "&amp; &lt;b&gt;" in card.html


def test_gm_badge_is_translated(renderer: CardRenderer) -> None:
    card = renderer.render("text", "zh-cn", title="T", card_id="t", visibility="gm", text="x")
    assert "仅限 GM" in card.html
    assert 'lang="zh-CN"' in card.html
    ru = renderer.render("text", "ru", title="T", card_id="t", visibility="gm", text="x")
    assert "только для Мастера" in ru.html


def test_card_text(renderer: CardRenderer) -> None:
    card = renderer.render(
        "generic",
        "en",
        title=f"{EVIL} &  trap",
        card_id="c",
        lines=[
            {"text": "First   line"},
            {"text": "Second", "roll": {"formula": "1d20 + 2", "total": 14, "breakdown": "b"}},
        ],
    )
    assert card_text(card) == f"{EVIL} & trap\nFirst line\nSecond (1d20 + 2 = 14)"


def test_html_text_unescapes_once() -> None:
    assert html_text("<p>a &amp;lt; b</p><ul><li>one</li><li>two<br>three</li></ul>") == (
        "a &lt; b\none\ntwo\nthree"
    )
    assert html_text("<p>x<script>bad()</script></p>") == "x"


def test_autoescape_is_on_for_every_template(tmp_path: Path) -> None:
    (tmp_path / "custom.txt.j2").write_text("{{ name }} {{ t('ui.gm_only') }}", encoding="utf-8")
    renderer = CardRenderer(Catalog({"en": {"ui": {"gm_only": "GM"}}}), [tmp_path])
    card = renderer.render("custom.txt.j2", "en", title="t", card_id="c", name=EVIL)
    assert card.html == "&lt;script&gt;alert(1)&lt;/script&gt; GM"


def test_gm_template_dir_overrides_bundled(tmp_path: Path) -> None:
    (tmp_path / "text.html.j2").write_text("mine: {{ text }}", encoding="utf-8")
    renderer = CardRenderer(Catalog(), [tmp_path])
    assert renderer.render("text", "en", title="t", card_id="c", text="hi").html == "mine: hi"
    generic = renderer.render("generic", "en", title="t", card_id="c", lines=[])
    assert "vtt-sidecar" in generic.html


def test_strict_undefined(renderer: CardRenderer) -> None:
    with pytest.raises(jinja2.UndefinedError):
        renderer.render("text", "en", title="t", card_id="c")


def test_sandbox_blocks_internals(tmp_path: Path) -> None:
    (tmp_path / "evil.html.j2").write_text("{{ t.__globals__ }}", encoding="utf-8")
    renderer = CardRenderer(Catalog(), [tmp_path])
    with pytest.raises(jinja2.exceptions.SecurityError):
        renderer.render("evil", "en", title="t", card_id="c")


def test_reserved_context_names(renderer: CardRenderer) -> None:
    with pytest.raises(TypeError, match="reserved"):
        renderer.render("text", "en", title="t", card_id="c", text="x", t="oops")


def test_template_path_traversal_refused(renderer: CardRenderer) -> None:
    with pytest.raises(jinja2.TemplateNotFound):
        renderer.render("../content.py", "en", title="t", card_id="c")


def test_css_classes() -> None:
    assert css_classes('good bad"<> x-y_z') == "good bad x-y_z"
