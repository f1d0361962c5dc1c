"""explorer.figures.theme: the charts' colours, scales and templates."""

from __future__ import annotations

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
