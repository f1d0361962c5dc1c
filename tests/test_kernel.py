"""explorer/kernel.py: processes that save into numba's cache at once keep every entry,
each naming its own data."""

from __future__ import annotations

import multiprocessing

from numba.core.caching import IndexDataCacheFile

from explorer import kernel

WORKERS, SAVES = 3, 150


def _save_many(args):
    folder, worker = args
    cache = IndexDataCacheFile(folder, "f", source_stamp=("stamp", 1))
    for i in range(SAVES):
        cache.save((worker, i), f"{worker}:{i}")


def test_processes_saving_at_once_keep_every_entry_with_its_own_data(tmp_path):
    assert IndexDataCacheFile.save is kernel._save
    with multiprocessing.get_context("fork").Pool(WORKERS) as pool:
        pool.map(_save_many, [(str(tmp_path), w) for w in range(WORKERS)])
    cache = IndexDataCacheFile(str(tmp_path), "f", source_stamp=("stamp", 1))
    assert len(cache._load_index()) == WORKERS * SAVES
    for w in range(WORKERS):
        for i in range(SAVES):
            assert cache.load((w, i)) == f"{w}:{i}"


def test_a_signature_saved_again_keeps_its_data_file(tmp_path):
    cache = IndexDataCacheFile(str(tmp_path), "f", source_stamp=("stamp", 1))
    cache.save("a", 1)
    cache.save("b", 2)
    cache.save("a", 3)
    assert cache._load_index() == {"a": "f.1.nbc", "b": "f.2.nbc"}
    assert (cache.load("a"), cache.load("b")) == (3, 2)
