"""User text in chart labels (an uploaded file's column names, class names, its file name):
escaped once for plotly's text, so that it shows exactly as typed and never becomes
markup. In the figure's JSON (what plotly.js would draw, decoded as plotly.js decodes it)
and, in a real browser, the rendered axis titles of an uploaded file's columns."""

from __future__ import annotations

import re

import pytest

from explorer import export, figures
from explorer.figures import panels

# Column names as a user might type them: quotes, a tag, ampersands, a typed entity.
NAMES = ('<img src=x onerror="alert(1)">', 'say "hi" & <b>bye</b> &amp; \'so\'')
CLASSES = ('"no"', "<yes> & more")

# plotly.js's own decoding of label text (src/lib/svg_text_utils.js, the same in the
# plotly.min.js the plotly package ships): tags are split off first, then these entities
# and numeric ones become characters; any other "&...;" is drawn as written.
_PLOTLY_ENTITIES = {"mu": "\u03bc", "amp": "&", "lt": "<", "gt": ">", "nbsp": "\u00a0",
                    "times": "\u00d7", "plusmn": "\u00b1", "deg": "\u00b0"}
_ENTITY = re.compile(r"&(#\d+|#x[\da-fA-F]+|[a-z]+);")


def drawn(text: str) -> str:
    """What plotly.js draws for label text that must hold no markup of its own."""
    assert "<" not in text and ">" not in text, f"markup in plotly text: {text!r}"

    def one(match):
        inner = match.group(1)
        if inner.startswith("#"):
            return chr(int(inner[2:], 16) if inner[1] == "x" else int(inner[1:]))
        return _PLOTLY_ENTITIES.get(inner, match.group(0))
    return _ENTITY.sub(one, text)


def test_esc_escapes_once_and_plotly_draws_the_text_as_typed():
    for name in NAMES + CLASSES + ("a & b", "&lt;", "&#39;", "&quot;", "plain"):
        assert drawn(panels.esc(name)) == name
    assert panels.esc('"') == '"' and "&quot;" not in panels.esc('a "b"')
    assert panels.esc("<b>") == "&lt;b&gt;"


def axis_titles(fig) -> list[str]:
    layout = fig.to_plotly_json()["layout"]
    return [axis["title"]["text"] for key, axis in sorted(layout.items())
            if re.fullmatch(r"[xy]axis\d*", key) and axis.get("title", {}).get("text")]


def test_axis_titles_show_column_names_as_typed(moons_fit, grid):
    for fig in (figures.probability_map(moons_fit, 2, grid, feature_names=NAMES),
                figures.tree_regions(moons_fit, 2, grid, feature_names=NAMES),
                figures.residual_map(moons_fit, 2, grid, feature_names=NAMES)):
        shown = [drawn(t) for t in axis_titles(fig)]
        assert NAMES[0] in shown and NAMES[1] in shown, shown
        assert "&quot;" not in fig.to_json()


def test_legends_and_storyboard_titles_show_user_text_as_typed(moons_fit, grid):
    fig = figures.probability_map(moons_fit, 2, grid, feature_names=NAMES, classes=CLASSES)
    legend = {drawn(t.name) for t in fig.data if t.name}
    assert {f"class {c}" for c in CLASSES} <= legend, legend
    label = 'upload "my" <data> & co.csv'
    board = export.storyboard(moons_fit, "model", [0, 2], grid, feature_names=NAMES,
                              classes=CLASSES, data_label=label)
    title = board.layout.title
    assert drawn(title.subtitle.text).startswith(label)
    assert drawn(title.text) == title.text  # the default title has nothing to escape
    assert NAMES[0] in [drawn(t) for t in axis_titles(board)]


@pytest.mark.browser
def test_uploaded_column_names_show_as_typed_in_the_rendered_axis_titles(app_server, browser,
                                                                           tmp_path):
    from test_browser import no_exception, open_app, wait_ready

    def quoted(name):  # a CSV header cell
        return '"' + name.replace('"', '""') + '"'
    rows = "".join(f"{(i * 37) % 100 / 10},{(i * 53) % 100 / 10},{'AB'[i % 2]}\n"
                   for i in range(60))
    csv = tmp_path / "names.csv"
    csv.write_text(",".join([quoted(NAMES[0]), quoted(NAMES[1]), "label"]) + "\n" + rows)
    dialogs = []
    page = open_app(browser, app_server, "/?data=upload", charts=0)
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.locator("[data-testid=stFileUploaderDropzoneInput]").set_input_files(str(csv))
    wait_ready(page, 2)
    no_exception(page)
    titles = page.evaluate("""() => [...document.querySelectorAll(
        '.explorer-chart .xtitle, .explorer-chart .ytitle')].map(t => t.textContent)""")
    assert NAMES[0] in titles and NAMES[1] in titles, titles
    assert not any("&quot;" in t or "&amp;" in t.replace("&amp; 'so'", "") for t in titles)
    # nothing became an element: no image in any chart, no script ran
    assert page.evaluate("() => document.querySelectorAll('.explorer-chart img').length") == 0
    assert page.evaluate("""() => [...document.querySelectorAll('.explorer-chart svg b')]
                            .length""") == 0
    assert dialogs == []
    page.close()
