"""Boosting Explorer: gradient boosting, every round of it, for teaching."""

from .boosting import DivergedError, fit, fit_count, warmup
from .trace import Trace

__all__ = ["DivergedError", "Trace", "fit", "fit_count", "warmup"]
