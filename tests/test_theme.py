"""explorer.figures.theme: the charts' colours, scales and templates."""

from __future__ import annotations

import numpy as np
from plotly.colors import hex_to_rgb

from explorer.figures import theme


def test_the_class_colours_are_the_ends_of_the_signed_scales():
    # "orange" always means "towards class 1": the diverging scales run blue -> orange
    assert theme.CLASS_COLORS == (theme.BLUE, theme.ORANGE)
    for scale in (theme.DIVERGING, theme.PROBA_SCALE):
        (r0, _, b0), (r1, _, b1) = hex_to_rgb(scale[0][1]), hex_to_rgb(scale[-1][1])
        assert b0 > r0 and r1 > b1  # blue at the low end, orange at the high end
        assert [stop for stop, _ in scale] == sorted(stop for stop, _ in scale)
        assert scale[0][0] == 0.0 and scale[-1][0] == 1.0


def test_the_print_template_is_the_screens_on_opaque_white():
    layout = theme.PRINT_TEMPLATE.layout
    assert layout.paper_bgcolor == layout.plot_bgcolor == "white"
    assert layout.legend.bgcolor == "white"
    assert layout.font.family == theme.FONT_FAMILY and layout.font.color == theme.INK
    # the screen's axis settings are kept, with darker lines for a projector
    assert layout.xaxis.gridcolor == theme.TEMPLATE["layout"]["xaxis"]["gridcolor"]
    assert layout.xaxis.linecolor != theme.TEMPLATE["layout"]["xaxis"]["linecolor"]


def test_a_scale_is_sampled_colour_for_colour_as_plotly_samples_it():
    from plotly.colors import sample_colorscale
    rng = np.random.default_rng(3)
    # the stops, the ends, halves that round either way, and thousands of points between
    points = sorted({0.0, 1.0, *(s for s, _ in theme.DIVERGING), *(k / 1020 for k in range(1021)),
                     *rng.random(5000).tolist()})
    for scale in (theme.DIVERGING, theme.PROBA_SCALE, theme.VALUE_SCALE, "Viridis"):
        assert theme.colours_at(scale, points) == sample_colorscale(scale, points), scale
