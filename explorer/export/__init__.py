"""Exports for slides: storyboards, animations, PNG/SVG images and their file names."""

from ..settings import export_name  # exports are named by the fit's settings
from .images import (MIN_WIDTH, NO_BROWSER, PRINT_TEMPLATE, ExportError, find_browser,
                     for_export, shutdown, to_image)
from .groups import (COMPARE_VIEWS, SWEEP_VIEWS, compare_figure, compare_marked, file_view,
                     sweep_figure)
from .storyboard import (ALL_VIEWS, ANIMATION_FRAMES, ASPECTS, CHARTS, FORMATS, PANEL,
                         PLANE_SIZE, VIEWS, animation, animation_html, animation_rounds,
                         check_rounds, clean_title, parse_rounds, slide, storyboard,
                         storyboard_rounds, view_figure)

__all__ = ["COMPARE_VIEWS", "SWEEP_VIEWS", "compare_figure", "compare_marked", "file_view",
           "sweep_figure", "ALL_VIEWS", "ASPECTS", "CHARTS", "clean_title", "slide", "ANIMATION_FRAMES", "ExportError", "FORMATS", "MIN_WIDTH", "NO_BROWSER", "PANEL",
           "PLANE_SIZE", "PRINT_TEMPLATE", "VIEWS", "animation", "animation_html",
           "animation_rounds", "check_rounds", "export_name", "find_browser", "for_export",
           "parse_rounds", "shutdown", "storyboard", "storyboard_rounds", "to_image",
           "view_figure"]
