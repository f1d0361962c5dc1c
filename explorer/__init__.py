"""Boosting Explorer: gradient boosting, every round of it, for teaching."""

import importlib
import os
import tempfile
from pathlib import Path

__all__ = ["DivergedError", "Trace", "fit", "fit_count", "show", "warmup"]
# show (a notebook widget, anywidget imported on its first call) and warmup (the engine
# compiled part by part, with progress) are explorer.notebook's
_FROM = {"DivergedError": ".boosting", "fit": ".boosting", "fit_count": ".boosting",
         "show": ".notebook", "warmup": ".notebook", "Trace": ".trace"}


def _numba_cache_dir() -> None:
    """Where numba keeps the compiled engine, set before numba is imported: the
    environment's NUMBA_CACHE_DIR if it has one (the Makefile's, a container image's),
    else the checkout's ``.cache/numba``, where ``make`` puts it, so that a plain
    ``streamlit run app.py`` (Streamlit Community Cloud) and ``python -m explorer warmup``
    share one cache; else, when that folder cannot be written, one in the temporary
    folder. Installed as a package (no app.py beside it), numba chooses."""
    if os.environ.get("NUMBA_CACHE_DIR"):
        return
    root = Path(__file__).resolve().parents[1]
    if not (root / "app.py").is_file():
        return
    for folder in (root / ".cache" / "numba",
                   Path(tempfile.gettempdir()) / "boosting-explorer-numba"):
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError:
            continue
        if os.access(folder, os.W_OK | os.X_OK):
            os.environ["NUMBA_CACHE_DIR"] = str(folder)
            return


_numba_cache_dir()


def __getattr__(name):
    # Imported on first use: the app's entry imports a light module of this package
    # first (explorer.app.assets) and should not wait for numba to load.
    if name not in _FROM:
        raise AttributeError(f"module 'explorer' has no attribute {name!r}")
    value = getattr(importlib.import_module(_FROM[name], __name__), name)
    globals()[name] = value
    return value
