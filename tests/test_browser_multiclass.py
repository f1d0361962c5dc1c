"""Three classes in a real browser: a 3-class toy set on every page, a 3-class upload
followed through every page, and stepping (on the server: the browser's record holds
one score per point)."""

from __future__ import annotations

import pytest

from apptest_helpers import PAGES
from test_browser import (button, caption_text, no_exception, open_app, titles_at_round,
                          wait_ready, wait_round)

pytestmark = pytest.mark.browser

THREE_CSV = "x;y;kind\n" + "".join(
    f"{(i * 37) % 100 / 10};{(i * 53) % 100 / 10 + 4 * (i % 3)};{('ant', 'bee', 'cow')[i % 3]}\n"
    for i in range(150))
ROUTES = {"pages/model.py": ("/", 2), "pages/tree.py": ("/tree", 3),
          "pages/sample.py": ("/sample", 2), "pages/curves.py": ("/curves", 1)}


@pytest.mark.parametrize("page_file", PAGES)
def test_a_three_class_toy_renders_on_every_page(app_server, browser, page_file):
    path, charts = ROUTES[page_file]
    page = open_app(browser, app_server, f"{path}?data=blobs&rounds=8&round=3", charts=charts)
    no_exception(page)
    assert "class 2" in page.inner_text("[data-testid=stMain]") or page.locator(
        ".legendtext", has_text="class 2").count() >= 1 or "curves" in path
    page.close()


def test_a_three_class_upload_steps_and_opens_every_page(app_server, browser, tmp_path):
    csv = tmp_path / "three.csv"
    csv.write_text(THREE_CSV)
    page = open_app(browser, app_server, "/?data=upload&rounds=8", charts=0)
    page.locator("[data-testid=stFileUploaderDropzoneInput]").set_input_files(str(csv))
    wait_ready(page, 2)
    assert "upload three.csv" in caption_text(page)
    assert page.locator(".legendtext", has_text="class cow").count() >= 1
    button(page, "next").click()
    wait_round(page, 1)
    titles_at_round(page, 1)
    no_exception(page)
    for title in ("Tree", "Sample", "Curves", "Leaf maths", "Splits", "Compare", "Slides"):
        page.get_by_role("link", name=title, exact=True).first.click()
        page.wait_for_url(f"**/{title.lower().replace(' ', '_')}**")
        wait_ready(page, 0)
        no_exception(page)
        assert "upload three.csv" in caption_text(page)
    page.close()
