"""How the engine compiles a function: ``@kernel`` is numba's njit, cached on disk and
without the GIL, with numba's disk cache made safe for processes that compile at once.

Several processes compile into one cache: ``python -m explorer warmup`` compiles its parts
in a process per core, and the test runner and a classroom's servers share the cache.
numba's cache keeps, per function, an index of its compiled signatures and a data file
for each. Saving a new signature reads the index, takes the first free number, writes
the index, then the data. Two processes saving two signatures of one function at once
can both take number 1; the index then names one signature's code for the other. Here
a save holds a lock on the function's index (flock on a file beside it, released when
the save ends, or its process), reads the index inside it, and writes the data before
the index that names it.
"""

from __future__ import annotations

import itertools

from numba import njit
from numba.core.caching import IndexDataCacheFile

try:
    import fcntl
except ImportError:  # Windows: no flock; numba's own save, as before
    fcntl = None

kernel = njit(cache=True, nogil=True)


def _save(self, key, data):
    """numba's ``IndexDataCacheFile.save``, under a lock on the function's index."""
    with open(self._index_path + ".lock", "ab") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        overloads = self._load_index()
        name = overloads.get(key)
        if name is None:
            taken = set(overloads.values())
            name = next(n for n in map(self._data_name, itertools.count(1)) if n not in taken)
        self._save_data(name, data)
        if overloads.get(key) != name:
            overloads[key] = name
            self._save_index(overloads)


if fcntl is not None:
    IndexDataCacheFile.save = _save
