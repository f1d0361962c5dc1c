"""The best round of a fit: where its validation loss is lowest.

One rule for every page that names it (Curves, the Model page's tiles, the Sweep page and
the lessons): the argmin of the validation loss over rounds 0..M, the first on ties, as
scikit-learn's and XGBoost's early stopping keep the first best iteration. A fit with no
validation points has no best round.

Plain numpy: no Streamlit, no plotly.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .text import number


@dataclass(frozen=True)
class BestRound:
    """The round whose validation loss is lowest, that loss, and the training loss there;
    ``last`` is the validation loss at the last round (how far it has risen since)."""

    round: int
    valid: float
    train: float
    last: float

    @property
    def risen(self) -> float:
        """How much the validation loss has risen from its lowest to the last round."""
        return self.last - self.valid

    def sentence(self, n_rounds: int) -> str:
        """Where the validation loss is lowest and how far it has risen since, in one
        sentence (``n_rounds``: the fit's last round)."""
        where = (f"Validation loss is lowest at round {self.round} "
                 f"({number(self.valid, 4)})")
        if self.round == n_rounds:
            return f"{where}, the last round: it has not turned up within {n_rounds} rounds."
        if self.risen <= 0:
            return f"{where}, and is no higher at round {n_rounds}."
        share = f" ({self.risen / self.valid:.0%})" if self.valid > 0 else ""
        return (f"{where}; by round {n_rounds} it has risen by {number(self.risen, 3)}"
                f"{share}, to {number(self.last, 4)}.")


def best_round(trace) -> BestRound | None:
    """The :class:`BestRound` of ``trace``, or None when it has no validation points."""
    valid = trace.valid_loss
    if valid is None:
        return None
    m = int(np.argmin(valid))  # numpy's argmin: the first of equal minima
    return BestRound(round=m, valid=float(valid[m]), train=float(trace.train_loss[m]),
                     last=float(valid[-1]))
