"""The browser's modules, one package for the three front ends: the app
(``explorer/app/component.js`` and the round bar), the lesson file
(``explorer/export/interactive.js``) and the notebook widget (``explorer/export/notebook.js``)
all load these same files, plain ES modules with no build step.

They do five things only: ``arrays.js`` decodes plotly's typed arrays, ``record.js``
decodes a fit's record and computes on it with the engine's arithmetic (F, p, the
residuals), ``bindings.js`` applies a chart's bindings at a round, ``stepper.js``
(with ``stepper.css``) runs the round bar, and ``camera.js`` gives the toolbar's image
the title Python wrote for files. Python decides everything a chart shows.

No Python imports: a front end takes the files from here.
"""

from pathlib import Path

FOLDER = Path(__file__).parent
# in their import order: each module after those it imports
MODULES = tuple(FOLDER / name for name in ("arrays.js", "record.js", "bindings.js",
                                           "stepper.js", "camera.js"))
CSS = FOLDER / "stepper.css"  # the round bar's one rule set
