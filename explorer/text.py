"""Numbers as the pages print them: finite, short, safe inside LaTeX."""

import numpy as np


def number(x: float, digits: int = 6) -> str:
    """``x`` in ``digits`` significant digits; NaN shows as 0 and inf as +-1e300."""
    x = float(np.nan_to_num(x, nan=0.0, posinf=1e300, neginf=-1e300))
    return f"{x:.{digits}g}"
