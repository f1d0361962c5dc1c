"""File names for exports: data, key parameters, view and rounds, in safe characters."""

from __future__ import annotations

import re

import numpy as np



def _safe(text, limit: int = 40) -> str:
    """Text made safe for a file name: letters, digits, '.', '-' only."""
    text = re.sub(r"[^A-Za-z0-9.]+", "-", str(text)).strip("-.")
    return text[:limit].strip("-.") or "data"


def export_name(dataset: str, params: dict, view: str, round_or_rounds, ext: str) -> str:
    """A file name for an export: dataset, key parameters, view and round(s).

    Parameters
    ----------
    dataset : str
        Toy set or file name (an extension such as .csv is dropped).
    params : dict
        Keyword arguments of ``explorer.fit`` (or ``trace.params``): loss, n_rounds,
        learning_rate, max_depth, max_leaves, subsample; missing ones are left out.
    view : str
    round_or_rounds : int, sequence of int, or None
        One round ("m10"), several ("m0-1-10"; long lists as "m0-to-50-12rounds"),
        or None for every round ("all-rounds").
    ext : str

    Returns
    -------
    str
        Such as ``boosting_model_moons_log-loss_M100_lr0.1_d3_m10.png``: ASCII
        letters, digits, '.', '-' and '_' only, at most about 150 characters.
    """
    dataset = re.sub(r"\.(csv|tsv|txt)$", "", str(dataset), flags=re.IGNORECASE)
    parts = ["boosting", _safe(view), _safe(dataset)]
    if "loss" in params:
        parts.append(_safe(str(params["loss"]).replace("_", "-")))
    for key, short in (("n_rounds", "M"), ("learning_rate", "lr"), ("max_depth", "d"),
                       ("max_leaves", "L")):
        if params.get(key) is not None and params.get(key) != 0:
            parts.append(f"{short}{_safe(format(params[key], 'g'))}")
    if params.get("subsample", 1.0) < 1:
        parts.append(f"s{params['subsample']:g}")
    if round_or_rounds is None:
        parts.append("all-rounds")
    elif isinstance(round_or_rounds, (int, np.integer)):
        parts.append(f"m{int(round_or_rounds)}")
    else:
        rounds = [int(m) for m in round_or_rounds]
        parts.append("m" + "-".join(map(str, rounds)) if len(rounds) <= 8 else
                     f"m{rounds[0]}-to-{rounds[-1]}-{len(rounds)}rounds")
    return "_".join(parts) + "." + _safe(ext, 8).lower()

