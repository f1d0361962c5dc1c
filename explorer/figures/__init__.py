"""The explorer's charts: pure functions (trace, round, options) -> plotly Figure.

No Streamlit here, and no model computation beyond reading the trace and the numbers
of :mod:`explorer.numbers`. ``theme`` holds the common look (colours, scales,
templates; ``presenter`` its projector's version), ``layout`` the rule that places a
figure's text, ``panels`` how a view is built (its figure, its :class:`Panel` in a
larger figure, the traces the views share). The views on the plane (or along a
regression's one input): ``model`` (view 1), ``residuals`` (view 2), ``regions``
(view 3, tree m), ``update`` (view 4) and ``classes`` (K >= 3 classes); ``charts``
the curves, the tree diagram and a sample's path; ``maths`` and ``histograms`` the
charts of the mathematics pages, from the numbers they are given; ``sweep`` many fits
side by side (the Sweep page's, and Compare's curves).

Each view on the plane takes a ``panel`` (:class:`~.panels.Panel`): where to draw in a
larger figure, and whether to colour through a shared colour axis. A storyboard composes
its grid from them with that argument and the views' shared ranges (``scale``,
``vmax``), never by editing a finished figure.
"""

from .charts import curves, curves_title, sample_trajectory, tree_diagram
from .maths import leaf_loss, leaf_loss_of, split_scan
from .model import (drawn_points, model_view, probability_map, probability_title,
                    regression_line, regression_surface, sample_map_title)
from .regions import leaf_value_range, tree_line, tree_regions
from .residuals import residual_map, residual_scale, residual_title
from .sweep import sweep_curves, sweep_grid, sweep_heat, sweep_map
from .update import update_panels
from .presenter import PRESENT_SCALE, presented
from .layout import arrange
from .panels import Panel, class_names, empty_figure
from .theme import PRINT_TEMPLATE, TEMPLATE

__all__ = ["PRESENT_SCALE", "PRINT_TEMPLATE", "Panel", "TEMPLATE", "arrange", "class_names",
           "curves", "curves_title", "drawn_points", "empty_figure",
           "leaf_loss", "leaf_loss_of", "leaf_value_range", "model_view", "presented",
           "probability_map", "probability_title", "regression_line", "regression_surface",
           "residual_map", "residual_scale", "residual_title", "sample_map_title",
           "sample_trajectory", "split_scan", "sweep_curves", "sweep_grid", "sweep_heat",
           "sweep_map", "tree_diagram", "tree_line", "tree_regions", "update_panels"]
