"""The interface hints a chart's title carries on screen, and its title without them.

On screen a title says what a click or a hover does ("Loss and accuracy by round (round
40 marked; click a point to go there)"). A slide, a file and the chart toolbar's own image
leave that out: :func:`clean_title`. Every figure carries its clean title in its layout's
meta (:data:`EXPORT_TITLE`, set by :func:`mark`), so that the toolbar's image takes it
from the figure at the round on screen: the text is decided here, never in the browser.
"""

from __future__ import annotations

import re

EXPORT_TITLE = "export_title"  # in layout.meta: the title without its hints

# (pattern, replacement), applied in order to the title as one line
HINTS = tuple((re.compile(pattern, re.IGNORECASE), replacement) for pattern, replacement in (
    (r"\s*\((?:[^()]*;\s*)?(?:click|tap)[^()]*\)", ""),  # "(round 40 marked; click a …)"
    (r"^\s*click a point to follow it\s*", ""),  # the Sample page's map
    (r"\s*\([^()]*:\s*hover\)", ""),  # "(4 too small: hover)", "(Σr, Σh, improvement: hover)"
    (r",\s*hover\)", ")"),  # "(†: none reached, hover)"
    (r"\s*\(hover\)", ""),  # "†: no minimiser reached (hover)"
    (r"per node its split in its hover, and ", ""),
    (r"\s*\(?\b(?:click|hover|tap)\b[^()]*\)?", ""),  # any other, to the end of its clause
))


def clean_title(text: str, label: str = "") -> str:
    """A chart's title without its interface hints, for a slide and the chart toolbar's
    image: "Loss and accuracy by round (round 40 marked; click a point to go there)"
    becomes "Loss and accuracy by round". The layout's line breaks are dropped (a slide's
    layout wraps the title again). ``label`` names the view where the title says
    nothing else (the Sample page's map: "Click a point to follow it (round 3)")."""
    line = re.sub(r"\s*<br\s*/?>\s*", " ", str(text or "")).strip()
    for pattern, replacement in HINTS:
        line = pattern.sub(replacement, line)
    line = line.strip(" ;,")
    if label and (not line or line.startswith("(")):
        line = f"{label} {line}".strip()
    return line


def mark(spec: dict) -> dict:
    """``spec``'s layout.meta given the clean title of its title (a plain figure dict,
    changed in place; returned). A figure without a title gets none."""
    layout = spec.get("layout")
    if not isinstance(layout, dict):
        return spec
    title = layout.get("title")
    text = title.get("text") if isinstance(title, dict) else title
    if not isinstance(text, str) or not text:
        return spec
    meta = layout.get("meta")
    meta = dict(meta) if isinstance(meta, dict) else {}
    meta[EXPORT_TITLE] = clean_title(text)
    layout["meta"] = meta
    return spec
