"""The explorer's charts: pure functions (trace, round, options) -> plotly Figure.

No Streamlit here, and no model computation beyond reading the trace and the numbers
of :mod:`explorer.numbers`. ``theme`` holds the common look (``presenter`` its
projector's version); ``plane`` the views on the
plane (or along a regression's one input), each drawable as one panel of a larger
figure (``Panel``); ``charts`` the curves, the tree diagram and a sample's path;
``maths`` the charts of the mathematics pages, from the numbers they are given.
"""

from .charts import curves, curves_title, sample_trajectory, tree_diagram
from .maths import compare_curves, leaf_loss, leaf_loss_of, split_scan
from .plane import (drawn_points, leaf_value_range, model_view, probability_map, probability_title,
                    regression_line, regression_surface, residual_map, residual_scale,
                    residual_title, sample_map_title, tree_line, tree_regions)
from .update import update_panels
from .presenter import PRESENT_SCALE, presented
from .layout import arrange
from .panels import Panel, class_names, empty_figure
from .theme import PRINT_TEMPLATE, TEMPLATE

__all__ = ["PRESENT_SCALE", "PRINT_TEMPLATE", "Panel", "TEMPLATE", "arrange", "class_names",
           "compare_curves", "curves", "curves_title", "drawn_points", "empty_figure",
           "leaf_loss", "leaf_loss_of", "leaf_value_range", "model_view", "presented",
           "probability_map", "probability_title", "regression_line", "regression_surface",
           "residual_map", "residual_scale", "residual_title", "sample_map_title",
           "sample_trajectory", "split_scan", "tree_diagram", "tree_line", "tree_regions",
           "update_panels"]
