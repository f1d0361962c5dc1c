"""Slides page: any view at any round as one slide (PNG, SVG; 16:9 or 4:3), the Compare
page's and the Sweep page's included, a storyboard of chosen rounds (PNG, SVG) and the
fit as an HTML animation. The files are the command line's (``python -m explorer export
--view ... --aspect ...``, ``--compare PAIR``, ``--sweep OPTION=V,V``): both call
explorer.export."""

import streamlit as st

from explorer import app, export
from explorer.figures.pages import PAGES
from explorer.state import COMPARISONS
from explorer.sweep import AXES, DEFAULT, plan, text

ctx = app.page("Slides: any view at any round, a storyboard of rounds, an animation")

VIEW_LABELS = {"model": "Model", "residuals": "Residuals", "tree": "Tree regions"}
# every view one slide can show, named as the command line's --help names it
SLIDE_LABELS = {**{view: label for view, (_, label) in export.VIEWS.items()},
                **{view: label for view, (label, _) in export.CHARTS.items()},
                **export.COMPARE_VIEWS, **export.SWEEP_VIEWS}


def dataset_name(ctx, s) -> str:
    """The data as a file name says it: its own size (iris: 150, whatever n says)."""
    points = len(ctx.train.y) + (len(ctx.valid.y) if ctx.valid is not None else 0)
    return ("upload-" + ctx.train.name if s.is_upload else "drawn" if s.is_drawn
            else f"{s.data}{points}")


def one_slide(ctx, s, names: dict, label: str, no_browser: bool) -> None:
    """Any view at any round as one slide, PNG or SVG, 16:9 or 4:3: the command line's
    ``export --view V`` (or ``--compare PAIR``, ``--sweep OPTION=V,V``) ``--aspect A``,
    previewed."""
    tr = ctx.trace
    st.markdown("##### One view as a slide")
    view_col, round_col, aspect_col = st.columns([3, 1, 1], vertical_alignment="bottom")
    view = view_col.selectbox("View", tuple(SLIDE_LABELS), format_func=SLIDE_LABELS.get,
                              key="slide_view", persist_state="session")
    m = int(round_col.number_input("Round", 0, tr.n_rounds, min(s.round, tr.n_rounds),
                                   key="slide_round"))
    aspect = aspect_col.radio("Aspect", tuple(export.ASPECTS), horizontal=True,
                              key="slide_aspect", persist_state="session")
    made = slide_maker(ctx, s, view, m, aspect, names, label)
    if made is None:
        return
    draw, args, kwargs, file_view = made

    def name(ext):
        return export.export_name(dataset_name(ctx, s), tr.params, file_view, m, ext)
    png, svg = st.columns(2)
    # the files are made only when a download is clicked
    png.download_button(
        "Slide PNG", data=lambda: export.to_image(draw(*args, **kwargs), "png"),
        file_name=name("png"), mime="image/png", key="slide_png", on_click="ignore",
        disabled=no_browser, icon=":material/image:", width="stretch",
        help=f"{export.MIN_WIDTH} px wide; made when you click (a second or two).")
    svg.download_button(
        "Slide SVG", data=lambda: export.to_image(draw(*args, **kwargs), "svg"),
        file_name=name("svg"), mime="image/svg+xml", key="slide_svg", on_click="ignore",
        disabled=no_browser, icon=":material/polyline:", width="stretch",
        help="Vector image: sharp at any size, editable in Inkscape or Illustrator.")
    app.chart(app.figure(draw, *args, **kwargs), s, f"{view}-slide", key="chart_slide",
              live=True)
    st.caption("Each chart's toolbar camera also saves any chart as it is, without its "
               "hints.")


def slide_maker(ctx, s, view: str, m: int, aspect: str, names: dict, label: str):
    """(draw, args, kwargs, the view as a file names it) of one slide, the figure being
    ``draw(*args, **kwargs)``: the page's own fit, the Compare page's two fits (the State's
    ``pair``) or the Sweep page's (its ``sweep``, ``sweep2``; its ready sweep where none is
    set), from the caches those pages fill. None, said on the page, where there is none."""
    tr = ctx.trace
    if view in export.COMPARE_VIEWS:
        *sides, flip = s.compared()
        st.caption(f"The Compare page's pair: {COMPARISONS[s.pair][0]} (choose another "
                   "there).")
        try:
            fits = tuple(app.variant(ctx, side, flip) for _, side in sides)
        except ValueError as error:
            st.error(f"This comparison cannot be fitted: {app.md_escape(str(error))}",
                     icon=":material/error:")
            return None
        return export.compare_figure, (view, fits, tuple(n for n, _ in sides), m), dict(
            marked=export.compare_marked(flip, ctx.train), data_label=label,
            names=ctx.names, log=s.logscale, aspect=aspect), export.file_view(view, s.pair)
    if view in export.SWEEP_VIEWS:
        sweep = plan(s)
        given = " and ".join(f"`{text(axis, values)}`" for axis, values in sweep.axes)
        st.caption(f"The Sweep page's sweep: {given}." if s.sweep or s.sweep2 else
                   f"No sweep is set: the Sweep page's ready one, {AXES[DEFAULT].name} "
                   f"over {given}. Set another on the Sweep page.")
        fits = app.sweep_cells(ctx, sweep)
        if isinstance(fits, str):
            st.error(app.md_escape(fits), icon=":material/error:")
            return None
        kept = [(c, f) for c, f in zip(sweep.cells, fits) if not isinstance(f, ValueError)]
        if not kept:
            st.error("No cell of this sweep can be fitted: see the Sweep page.",
                     icon=":material/error:")
            return None
        if view == "sweep-heat" and (len(sweep.axes) < 2
                                     or kept[0][1].trace.valid_loss is None):
            st.info("The heat map needs two swept settings and validation points: set a "
                    "second setting on the Sweep page.", icon=":material/info:")
            return None
        swept = "-".join(axis.key for axis, _ in sweep.axes)
        return export.sweep_figure, (view, sweep, tuple(c for c, _ in kept),
                                     tuple(f for _, f in kept), s, m), dict(
            data_label=label, aspect=aspect), export.file_view(view, swept)
    return export.view_figure, (tr, view, m, ctx.grid), dict(
        aspect=aspect, data_label=label, sample=s.sample, **names), view


def body(ctx):
    tr, s = ctx.trace, app.state()
    left, right = st.columns([2, 3], vertical_alignment="bottom")
    with left:
        view = st.radio("View", list(export.VIEWS), format_func=VIEW_LABELS.get,
                        horizontal=True, key="slides_view", persist_state="session")
    with right:
        text = st.text_input(
            "Rounds", ", ".join(map(str, export.storyboard_rounds(tr.n_rounds))),
            key="slides_rounds", persist_state="session",
            help="Whole numbers separated by commas; one panel each, in this order.")
    try:
        wanted = export.parse_rounds(text)
    except ValueError as error:
        st.error(app.md_escape(error), icon=":material/error:")
        return
    # The fit may have fewer rounds than when the list was typed: leave those out, and say so.
    rounds = [m for m in wanted if m <= tr.n_rounds]
    beyond = [m for m in wanted if m > tr.n_rounds]
    if beyond:
        st.caption(f"Left out, beyond the last round {tr.n_rounds}: "
                   f"{', '.join(map(str, beyond))}.")
    if not rounds:
        st.error(f"Give rounds between 0 and {tr.n_rounds}.", icon=":material/error:")
        return

    k = None
    if tr.is_multiclass:  # the residuals' and the tree's class; p_k on the model on request
        pick, toggle = st.columns([2, 1], vertical_alignment="bottom")
        if view == "model":
            app.field("pk", s, toggle)
        if view != "model" or s.pk:  # the class map shows every class: no picker there
            k = app.class_picker(ctx, s, pick)
        else:
            pick.caption("The model's class map shows every class; turn on p_k to map "
                         "one class.")
    names = dict(feature_names=ctx.feature_names, classes=ctx.train.classes or None,
                 target_name=ctx.target_name, k=k)
    label = f"{ctx.train.name}, {len(tr.y)} training points"
    args, options = (tr, view, rounds, ctx.grid), dict(data_label=label, **names)

    def board():  # for the files, made only when a download is clicked
        return export.storyboard(*args, **options)

    def name(kind, which, ext):
        return export.export_name(dataset_name(ctx, s), tr.params, kind, which, ext)

    no_browser = export.find_browser() is None
    if no_browser:
        st.warning(f"Images cannot be made on this server: {export.NO_BROWSER}. "
                   "The animation needs no browser on the server.", icon=":material/warning:")
    # Files are built when a button is clicked (data=callable), not on every run;
    # on_click="ignore": downloading changes nothing on the page.
    png, svg, html = st.columns(3)
    png.download_button(
        "Storyboard PNG", data=lambda: export.to_image(board(), "png"),
        file_name=name(f"{view}-storyboard", rounds, "png"), mime="image/png",
        key="slides_png", on_click="ignore", disabled=no_browser,
        icon=":material/image:", width="stretch",
        help=f"{export.MIN_WIDTH} px wide; made when you click (a second or two).")
    svg.download_button(
        "Storyboard SVG", data=lambda: export.to_image(board(), "svg"),
        file_name=name(f"{view}-storyboard", rounds, "svg"), mime="image/svg+xml",
        key="slides_svg", on_click="ignore", disabled=no_browser,
        icon=":material/polyline:", width="stretch",
        help="Vector image: sharp at any size, editable in Inkscape or Illustrator.")
    html.download_button(
        "Animation HTML",
        data=lambda: export.animation_html(tr, view, None, ctx.grid, **names),
        file_name=name(f"{view}-animation", None, "html"), mime="text/html",
        key="slides_html", on_click="ignore", icon=":material/animation:", width="stretch",
        help="Every round (at most 50 frames) with a slider and a play button; plotly.js "
             "is inside the file, so it plays offline in a slide deck.")
    st.caption("If a download fails, the button says so for a few seconds: try again. "
               "The command line writes the same files: `python -m explorer export "
               "--help`.")
    app.chart(app.figure(export.storyboard, *args, **options), s, f"{view}-storyboard",
              live=True)
    one_slide(ctx, s, names, label, no_browser)
    st.markdown("##### A lesson that steps offline")
    page = st.selectbox("Page of the lesson file", PAGES, format_func=str.capitalize,
                        key="slides_lesson_page", persist_state="session",
                        help="That page's charts at every round, in one HTML file.")
    app.lesson_file(ctx, s, page, key="slides_lesson")


body(ctx)
