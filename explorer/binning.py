"""Binning: each feature cut into at most ``max_bins`` bins, once per fit.

The thresholds are scikit-learn's (``HistGradientBoosting``'s ``_BinMapper``), so
that the histogram trees split where scikit-learn's split:

* a feature with at most ``max_bins`` distinct values gets the midpoints of
  consecutive distinct values;
* otherwise the ``max_bins - 1`` inner percentiles of the column
  (``np.percentile(..., method="averaged_inverted_cdf")``), duplicates removed;
* thresholds are float64, clipped at 1e300; above 200,000 samples they are computed
  on 200,000 rows drawn with replacement, from the fit's random_state as scikit-learn
  draws them.

A value x goes to bin i when ``thresholds[i - 1] < x <= thresholds[i]``, so a tree
that splits after bin b sends x left exactly when ``x <= thresholds[b]``: the
thresholds are the only numbers prediction needs.

The thresholds are found with numpy (its sort and percentile, as scikit-learn); the
mapping of every value to its bin is a small compiled binary search.
"""

import numpy as np

from .kernel import kernel

MAX_BINS = 255  # bins are uint8 and scikit-learn reserves index 255 for missing values
SUBSAMPLE = 200_000  # rows used to find the thresholds (scikit-learn's default)
_ALMOST_INF = 1e300  # scikit-learn's clip of the thresholds


def thresholds(X, max_bins, random_state=0):
    """The bin thresholds of every feature of X, as scikit-learn's binning finds them.

    Parameters
    ----------
    X : float64 array of shape (n, d), finite
    max_bins : int in 2..255
    random_state : int
        The fit's seed. Used only above 200,000 rows, to draw the rows the quantiles
        are computed on, with the same draws as ``HistGradientBoosting*(random_state=...)``.

    Returns
    -------
    list of d float64 arrays, ascending
        Feature f has ``len(result[f]) + 1`` bins (at most max_bins); a constant
        feature has no threshold (one bin).
    """
    if not (isinstance(max_bins, (int, np.integer)) and 2 <= max_bins <= MAX_BINS):
        raise ValueError(f"max_bins must be an integer in 2..{MAX_BINS}; got {max_bins!r}.")
    X = np.asarray(X, dtype=np.float64)
    if X.shape[0] > SUBSAMPLE:
        X = X.take(_subsample_rows(X.shape[0], random_state), axis=0)
    return [_feature_thresholds(X[:, f], max_bins) for f in range(X.shape[1])]


def _subsample_rows(n, random_state):
    """The rows scikit-learn bins on above SUBSAMPLE rows: its estimator draws one seed
    from RandomState(random_state) for the binning, which draws with replacement."""
    seed = np.random.RandomState(random_state).randint(np.iinfo(np.uint32).max, dtype="u8")
    return np.random.RandomState(seed).choice(n, SUBSAMPLE, replace=True)


def _feature_thresholds(column, max_bins):
    ordered = np.sort(column)  # one sort for the distinct values and the quantiles
    distinct = ordered[np.concatenate(([True], ordered[1:] != ordered[:-1]))]
    if len(distinct) == 1:
        return np.empty(0)
    if len(distinct) <= max_bins:
        # numpy's mean of each pair: (a + b) / 2, as scikit-learn's sliding-window mean
        cuts = (distinct[:-1] + distinct[1:]) / 2
    else:
        percentiles = np.linspace(0, 100, num=max_bins + 1)[1:-1]
        cuts = np.percentile(ordered, percentiles, method="averaged_inverted_cdf")
        cuts = np.unique(cuts)  # equal quantiles (many tied values) make one cut
    return np.minimum(cuts, _ALMOST_INF)


def bin_columns(X, cuts):
    """X mapped to bins, feature by feature: uint8 array (d, n), row f the bins of feature f.

    A value x goes to bin i when cuts[f][i - 1] < x <= cuts[f][i] (a binary search, side
    left). Rows are features so that a histogram reads one contiguous row per feature.
    """
    X = np.asarray(X, dtype=np.float64)
    binned = np.empty((X.shape[1], X.shape[0]), dtype=np.uint8)
    for f, thr in enumerate(cuts):
        _bin_column(np.ascontiguousarray(X[:, f]), np.asarray(thr, dtype=np.float64), binned[f])
    return binned


@kernel
def _bin_column(values, thr, out):
    """out[i] = how many thresholds lie below values[i] (np.searchsorted, side left).

    A branch-free binary search: the data decide no jump, so none is mispredicted.
    """
    m = thr.shape[0]
    for i in range(values.shape[0]):
        x = values[i]
        if m == 0:
            out[i] = 0
            continue
        base = 0
        size = m
        while size > 1:
            half = size >> 1
            base += half * (thr[base + half] < x)
            size -= half
        out[i] = base + (thr[base] < x)


def n_bins(cuts):
    """Bins actually used per feature (len(cuts[f]) + 1), as int64 array (d,)."""
    return np.array([len(thr) + 1 for thr in cuts], dtype=np.int64)
