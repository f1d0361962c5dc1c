"""explorer.figures.layout: the layout rule (no text on other text, none past the edge)."""

from __future__ import annotations

import numpy as np
import pytest

from explorer import figures
from explorer.figures import layout as rule


def test_wrap_breaks_at_clauses_and_keeps_every_word():
    text = "Leaf 4 of tree 10 is pure: L_R keeps falling, no finite minimiser (Newton step 1.3)"
    wrapped = rule.wrap(text, 18, 340)
    lines = wrapped.split("<br>")
    assert len(lines) > 1 and " ".join(lines) == text
    assert all(rule.text_width(line, 18) <= 340 for line in lines)
    assert "no finite minimiser" in wrapped  # a clause is not split when it fits
    assert rule.wrap(wrapped, 18, 2000) == text  # wrapped again for a wider chart


def test_the_rule_puts_the_legend_under_the_axis_text_with_room_for_it(moons_fit):
    from explorer.numbers.grid import make_grid
    fig = figures.probability_map(moons_fit, 3, make_grid(moons_fit, resolution=40))
    layout = fig.layout
    plot = layout.height - layout.margin.t - layout.margin.b
    gap = -layout.legend.y * plot  # px from the plot's bottom to the legend's top
    assert gap >= 2 * 15  # the tick labels and the axis title
    assert layout.margin.b >= gap + 15  # and the bottom margin holds a row of legend
    # idempotent: the rule applied again changes nothing
    again = rule.arrange(fig.to_plotly_json())
    assert again["layout"]["legend"]["y"] == pytest.approx(layout.legend.y)
    assert again["layout"]["margin"] == fig.to_plotly_json()["layout"]["margin"]


def test_an_export_wraps_the_title_for_its_own_width(moons_fit):
    from explorer.export import for_export
    story = {"gammas": np.linspace(-1, 1, 5), "loss": np.arange(5.0), "taylor": np.arange(5.0),
             "newton": 0.5, "pure": True}
    fig = figures.leaf_loss(story, 10, 4)
    assert "<br>" in fig.layout.title.text  # narrow in the app
    wide = for_export(fig, (1400, 600))
    assert "<br>" not in wide.layout.title.text and "no finite minimiser" in wide.layout.title.text
    assert wide.layout.height == 600


def test_crowded_data_labels_are_left_to_the_hover():
    def label(x, name=rule.LABEL):
        return dict(x=x, y=0.5, text="γ = +0.25", name=name, showarrow=False)
    notes = [label(0.50), label(0.51), label(0.9, f"{rule.LABEL}:7"), label(0.505, "other")]
    spec = dict(data=[], layout=dict(annotations=notes, xaxis=dict(range=[0, 1]),
                                     yaxis=dict(range=[0, 1])))
    rule.arrange(spec)
    assert [rule.is_label(n) for n in notes] == [True, True, True, False]
    # the second label would sit on the first; the third has room; others are not touched
    assert [n.get("opacity") for n in notes] == [1.0, 0.0, 1.0, None]


def test_a_legend_entry_longer_than_a_phone_is_wide_wraps_beside_its_swatch():
    """Issue 46: the leaf loss's one legend entry ran 18 px past a phone's chart in
    presenter mode; an entry wraps to the chart's width, and the bottom margin holds its
    lines."""
    name = "the value the fit uses, γ = -0.565054, one Newton step from zero"
    def spec():
        return dict(data=[dict(type="scatter", x=[0, 1], y=[0, 1], name=name,
                               showlegend=True)],
                    layout=dict(xaxis=dict(title=dict(text="γ")), margin=dict(l=10, r=10)))
    one = rule.arrange(spec())
    wrapped = one["data"][0]["name"]
    lines = wrapped.split("<br>")
    assert len(lines) > 1 and " ".join(lines) == name
    room = rule.CHART_MIN_WIDTH - 10 - 20 - 40  # the chart, its sides, the swatch
    assert all(rule.text_width(line, 15) <= room for line in lines)
    short = spec()
    short["data"][0]["name"] = "γ"
    assert one["layout"]["margin"]["b"] >= rule.arrange(short)["layout"]["margin"]["b"] \
        + (len(lines) - 1) * 15 * rule.LINE_EM
    # a figure of its own width keeps an entry that fits it on one line
    assert rule.arrange(spec(), width=1400)["data"][0]["name"] == name
    assert rule.arrange(one)["data"][0]["name"] == wrapped  # idempotent
