"""Benchmarks of the engine and the app; run each from the repository root as ``python -m benchmarks.<name>``."""

import re


def split_links(text: str) -> list[str]:
    """The links of a ``--links`` option: comma-separated, each starting with "/" (a
    sweep's values keep their commas: ``/sweep?sweep=lr:0.1,0.5,/tree``)."""
    return [link for link in re.split(r",(?=/)", text) if link]
