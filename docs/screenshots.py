"""The README's screenshots, made again from the app itself in Chromium: the Model and the
Tree page at round 10 of the default fit, 1280 x 800, each PNG under 300 kB.

    make screenshots        # or: .venv/bin/python docs/screenshots.py

Starts the app on a free port (``explorer.process``), drives Debian's /usr/bin/chromium
with Playwright and writes ``docs/model.png`` and ``docs/tree.png``.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from explorer.process import CHROMIUM, CHROMIUM_ARGS, start_server  # noqa: E402

SHOTS = {"model.png": "/?round=10", "tree.png": "/tree?round=10"}
READY = "[data-testid=stApp][data-test-script-state=notRunning]"
MAX_BYTES = 300_000


def main() -> int:
    from playwright.sync_api import sync_playwright
    server = start_server(ROOT / ".cache" / "screenshots.log")
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            page = browser.new_page(viewport={"width": 1280, "height": 800})
            for name, link in SHOTS.items():
                page.goto(server.url + link)
                page.wait_for_selector(READY, state="attached", timeout=180_000)
                page.wait_for_function("document.querySelectorAll('.js-plotly-plot').length"
                                       " >= 2", timeout=180_000)
                page.wait_for_timeout(2500)  # the charts settle at the link's round
                path = ROOT / "docs" / name
                page.screenshot(path=str(path), type="png")
                size = path.stat().st_size
                print(f"{path.relative_to(ROOT)}: {size / 1000:.0f} kB")
                if size > MAX_BYTES:
                    print(f"  larger than {MAX_BYTES / 1000:.0f} kB", file=sys.stderr)
                    return 1
            browser.close()
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
