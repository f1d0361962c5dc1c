"""Boosting Explorer: gradient boosting, every round of it, for teaching."""

import importlib

__all__ = ["DivergedError", "Trace", "fit", "fit_count", "warmup"]
_FROM = {"DivergedError": ".boosting", "fit": ".boosting", "fit_count": ".boosting",
         "warmup": ".boosting", "Trace": ".trace"}


def __getattr__(name):
    # Imported on first use: the app's entry imports a light module of this package
    # first (explorer.app.assets) and should not wait for numba to load.
    if name not in _FROM:
        raise AttributeError(f"module 'explorer' has no attribute {name!r}")
    value = getattr(importlib.import_module(_FROM[name], __name__), name)
    globals()[name] = value
    return value
