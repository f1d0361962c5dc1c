"""The Streamlit side of the explorer: the only package that imports Streamlit.

``store`` keeps the session's one State and is the URL's only writer; ``controls`` draws
the sidebar from the declared fields; ``context`` makes the data and the shared fits and
prints a page's header; ``stepper`` is the round bar and the selection; ``component`` (with
``component.js``) puts figures on the page, each drawn once for every session
(``figure_cache``); ``text`` holds the blocks of formulas and numbers. Pages use the names
below and nothing else.
"""

import importlib

# name -> (module, its name there); imported on first use, so that app.py can import
# .assets (plotly.js on its way to the browser) before the engine and the figures load
_FROM = {
    "fmt": ("..text", "number"),
    "chart": (".component", "chart"), "figure": (".component", "figure"),
    "following": (".component", "following"), "follow": (".component", "follow"),
    "charts": (".component", "charts"), "lesson_file": (".offline", "lesson_file"),
    "preload": (".assets", "preload"),
    **{name: (".context", name)
       for name in ("finish", "lesson", "md_escape", "page", "setup", "sweep_cells",
                    "variant")},
    "field": (".controls", "field"),
    "edit_points": (".drawing", "edit_from"),
    **{name: (".stepper", name) for name in (
        "class_picker", "leaf_picker", "mark_acted", "round_bar", "run_page",
        "sample_picker", "select_leaf_from", "select_round_from", "select_sample_from")},
    "state": (".store", "current"), "update": (".store", "update"),
    **{name: (".text", name) for name in (
        "f0_block", "leaf_block", "ledger_table", "metrics_row", "sample_block")},
}
__all__ = sorted(_FROM)


def __getattr__(name):
    if name not in _FROM:
        raise AttributeError(f"module 'explorer.app' has no attribute {name!r}")
    module, attribute = _FROM[name]
    value = getattr(importlib.import_module(module, __name__), attribute)
    globals()[name] = value
    return value
