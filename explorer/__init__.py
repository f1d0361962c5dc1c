"""Boosting Explorer: gradient boosting, every round of it, for teaching."""

from .boosting import fit, fit_count, warmup
from .trace import Trace

__all__ = ["Trace", "fit", "fit_count", "warmup"]
