"""A fit's settings, described once: the page caption, the slug and file names of exported
images, and the parameter line of printed storyboards all come from :class:`Settings`.

A :class:`Settings` is built from the engine's fit parameters (``trace.params``, or the
keyword arguments of :func:`explorer.fit`), so what a caption or a file name says is
what the engine was asked to do. Which parameters a split rule uses, and their
defaults, is one table (:mod:`explorer.rules`); :func:`applies` reads it for the sidebar
and the app's fits.

Plain Python: no Streamlit, no plotly, no numba.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from dataclasses import dataclass, fields

import numpy as np

from . import rules
from .data import IRIS, make_toy


def applies(param: str, split: str) -> bool:
    """Whether ``explorer.fit``'s parameter ``param`` has an effect with this split rule.

    ``split`` is the engine's name ("squared_error", "hessian" or "histogram"); the
    table is :data:`explorer.rules.USES`. Second-order trees use reg_lambda, gamma and
    min_child_weight; squared-error trees max_leaves, min_samples_leaf,
    min_samples_split, subsample and the leaf rule; histogram trees max_leaves,
    min_samples_leaf, reg_lambda and max_bins; loss, rounds, learning rate, depth and
    seed apply to all. ``fit`` refuses a parameter that does not apply when it is set
    to anything but its unused value.
    """
    return rules.uses(param, split)


def toy_name(data: str, n: int) -> str:
    """A toy set named with the number of points it has, for file names: "moons400" for
    moons at 400 points, "iris150" whatever ``n`` says (iris has its own 150 flowers;
    make_toy does not use n there)."""
    return f"{data}{_own_size(data) or n}"


@functools.lru_cache(maxsize=None)
def _own_size(data: str) -> int | None:
    """The number of points of a toy set whose size is its own (None for the others,
    which have n)."""
    return len(make_toy(data).y) if data == IRIS else None


def safe(text, limit: int = 40) -> str:
    """Text made safe for a file name: letters, digits, '.', '-' only, at most ``limit``."""
    text = re.sub(r"[^A-Za-z0-9.]+", "-", str(text)).strip("-.")
    return text[:limit].strip("-.") or "data"


def _rounds_part(round_or_rounds) -> str:
    """One round ("m10"), several ("m0-1-10"; long lists "m0-to-50-12rounds"), or every
    round (None: "all-rounds")."""
    if round_or_rounds is None:
        return "all-rounds"
    if isinstance(round_or_rounds, (int, np.integer)):
        return f"m{int(round_or_rounds)}"
    rounds = [int(m) for m in round_or_rounds]
    return ("m" + "-".join(map(str, rounds)) if len(rounds) <= 8 else
            f"m{rounds[0]}-to-{rounds[-1]}-{len(rounds)}rounds")


@dataclass(frozen=True)
class Settings:
    """The parameters of one fit, with the ways the app writes them.

    Fields are :func:`explorer.fit`'s keyword arguments, in the engine's spelling
    (``loss="log_loss"``, ``leaf="line_search"``); build one with :meth:`of`.
    """

    loss: str
    n_rounds: int
    learning_rate: float
    max_depth: int | None
    max_leaves: int | None
    min_samples_leaf: int
    min_samples_split: int
    subsample: float
    random_state: int
    split: str
    leaf: str
    reg_lambda: float
    gamma: float
    min_child_weight: float
    max_bins: int

    @classmethod
    def of(cls, params: Mapping) -> "Settings":
        """The settings of ``trace.params`` or of ``explorer.fit``'s keyword arguments;
        a parameter not given is ``fit``'s default under the split rule (other keys, such
        as X_valid, are not settings and are ignored)."""
        defaults = rules.defaults(params.get("split", rules.DEFAULT_SPLIT))
        return cls(**{f.name: params.get(f.name, defaults[f.name]) for f in fields(cls)})

    # --- names as the app shows them ---

    @property
    def hessian(self) -> bool:
        """Second-order (xgboost-style) trees."""
        return self.split == "hessian"

    @property
    def histogram(self) -> bool:
        """Histogram trees (scikit-learn's HistGradientBoosting)."""
        return self.split == "histogram"

    @property
    def depth_text(self) -> str:
        """"depth ≤ 3", or "no depth limit" (max_depth None)."""
        return "no depth limit" if self.max_depth is None else f"depth ≤ {self.max_depth}"

    @property
    def loss_name(self) -> str:
        """The loss as shown and written in the URL: "log-loss", "squared-error"."""
        return str(self.loss).replace("_", "-")

    @property
    def leaf_name(self) -> str:
        """The leaf rule as shown and written in the URL: "newton", "line-search"."""
        return str(self.leaf).replace("_", "-")

    # --- the four descriptions ---

    def caption(self, data_label: str) -> str:
        """The line under each page's title: the data, then every setting that applies.

        ``data_label`` goes in as given: escape it for the place it is shown (Streamlit
        markdown) first.
        """
        return f"{data_label} · " + ", ".join(self.caption_parts())

    def caption_parts(self) -> list[str]:
        """The settings of :meth:`caption`, one phrase each, in its order."""
        if self.hessian:
            rule = [f"second-order trees (λ = {self.reg_lambda:g}, γ = {self.gamma:g}, "
                    f"min child weight {self.min_child_weight:g})"]
        elif self.histogram:
            limit = f"≤ {self.max_leaves} leaves" if self.max_leaves else "no leaf limit"
            rule = [f"histogram trees ({self.max_bins} bins, {limit}, min "
                    f"{self.min_samples_leaf} per leaf, λ = {self.reg_lambda:g})"]
        else:
            rule = ([f"≤ {self.max_leaves} leaves"] if self.max_leaves else []) + [
                f"min {self.min_samples_leaf} per leaf"] + (
                [f"subsample {self.subsample:g}"] if self.subsample < 1 else []) + [
                f"{self.leaf_name} leaves"]
        return [self.loss_name, f"M = {self.n_rounds}", f"ν = {self.learning_rate:g}",
                self.depth_text, *rule, f"seed {self.random_state}"]

    def shared_caption(self, other: "Settings", data_label: str, also: str = "") -> str:
        """The caption of two fits side by side (the Compare page's): the data, then only
        the settings both have, then ``also`` (what else both share, such as flipped
        labels); each side's own title names what differs."""
        theirs = other.caption_parts()
        shared = [part for part in self.caption_parts() if part in theirs]
        return f"{data_label} · both sides: " + ", ".join(shared + ([also] if also else []))

    def params_line(self) -> str:
        """The parameter line under a printed storyboard's title (the print template)."""
        parts = [self.loss_name, f"M = {self.n_rounds}", f"ν = {self.learning_rate:g}",
                 self.depth_text]
        if self.max_leaves:
            parts.append(f"≤ {self.max_leaves} leaves")
        if self.subsample < 1:
            parts.append(f"subsample {self.subsample:g}")
        return ", ".join(parts)

    def name_parts(self) -> list[str]:
        """The settings as file-name-safe words: loss, M, ν, depth, leaf limit, subsample,
        then the split rule's own (hessian, λ, γ; histogram, bins…) or a leaf rule other
        than Newton's. Unset limits (None, 0) and a full sample are left out."""
        parts = [safe(self.loss_name)]
        for short, value in (("M", self.n_rounds), ("lr", self.learning_rate),
                             ("d", self.max_depth), ("L", self.max_leaves)):
            if value is not None and value != 0:
                parts.append(f"{short}{safe(format(value, 'g'))}")
        if self.subsample < 1:
            parts.append(f"s{self.subsample:g}")
        if self.hessian:
            parts += ["hessian", f"lam{self.reg_lambda:g}"] + (
                [f"g{self.gamma:g}"] if self.gamma else [])
        elif self.histogram:
            parts += ["histogram", f"b{self.max_bins}", f"msl{self.min_samples_leaf}"] + (
                [f"lam{self.reg_lambda:g}"] if self.reg_lambda else [])
        elif self.leaf != rules.default("leaf"):
            parts.append(safe(self.leaf_name))
        return parts

    def slug(self, data: str, m: int) -> str:
        """A short file-name-safe summary of data, settings and round, such as
        ``moons400_log-loss_M100_lr0.1_d3_m0``: the chart toolbar names its images
        ``boosting_<view>_<slug>``. ``data`` names the data ("moons400", "upload")."""
        return "_".join([safe(data), *self.name_parts(), f"m{int(m)}"])

    def file_name(self, dataset: str, view: str, round_or_rounds, ext: str) -> str:
        """An exported file's name: dataset, settings, view and round(s).

        Parameters
        ----------
        dataset : str
            Toy set or file name (an extension such as .csv is dropped).
        view : str
        round_or_rounds : int, sequence of int, or None
            One round ("m10"), several ("m0-1-10"; long lists as "m0-to-50-12rounds"),
            or None for every round ("all-rounds").
        ext : str

        Returns
        -------
        str
            Such as ``boosting_model_moons_log-loss_M100_lr0.1_d3_m10.png``: ASCII
            letters, digits, '.', '-' and '_' only, at most about 150 characters. A
            split or leaf rule other than the default is named, as in the slug, so that
            two rules' files never share a name.
        """
        dataset = re.sub(r"\.(csv|tsv|txt)$", "", str(dataset), flags=re.IGNORECASE)
        parts = ["boosting", safe(view), safe(dataset), *self.name_parts(),
                 _rounds_part(round_or_rounds)]
        return "_".join(parts) + "." + safe(ext, 8).lower()


def export_name(dataset: str, params: Mapping, view: str, round_or_rounds, ext: str) -> str:
    """:meth:`Settings.file_name` of the fit parameters ``params`` (``trace.params`` or
    ``explorer.fit``'s keyword arguments)."""
    return Settings.of(params).file_name(dataset, view, round_or_rounds, ext)
