"""The Streamlit side of the explorer: the only package that imports Streamlit.

``store`` keeps the session's one State and is the URL's only writer; ``controls`` draws
the sidebar from the declared fields; ``context`` makes the data and the shared fits and
prints a page's header; ``stepper`` is the round bar and the selection; ``component`` (with
``component.js``) puts figures on the page, each drawn once for every session
(``figure_cache``); ``text`` holds the blocks of formulas and numbers. Pages use the names
below and nothing else.
"""

from ..text import number as fmt
from .component import chart, figure
from .context import lesson, md_escape, page, setup, variant
from .controls import MAX_POINT_ROUNDS, field
from .stepper import (class_picker, follows, leaf_picker, mark_acted, round_bar, run_page,
                      sample_picker, select_leaf_from, select_round_from, select_sample_from)
from .store import current as state
from .text import f0_block, leaf_block, ledger_table, metrics_row, sample_block

__all__ = ["MAX_POINT_ROUNDS", "chart", "class_picker", "f0_block", "field", "figure", "fmt",
           "follows",
           "leaf_block",
           "leaf_picker", "ledger_table", "lesson", "mark_acted", "md_escape", "metrics_row",
           "page", "round_bar", "run_page", "sample_block", "sample_picker", "select_leaf_from",
           "select_round_from", "select_sample_from", "setup", "state", "variant"]
