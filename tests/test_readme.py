"""The README's promises: every image it shows exists in the repository (at most 300 kB,
made again by ``make screenshots``), and every link into the app opens a page the app has,
at settings the State takes as they are written."""

import re
from urllib.parse import parse_qsl, urlsplit

import pytest

from explorer.lessons import LESSONS
from explorer.process import ROOT
from explorer.state import KEYS, State

README = (ROOT / "README.md").read_text(encoding="utf-8")
IMAGES = re.findall(r"!\[[^\]]*\]\(([^)\s]+)\)", README)
LINKS = sorted(set(re.findall(r"\]\((http://localhost:8501[^)\s]*)\)", README)))
PATHS = set(re.findall(r'url_path="([\w-]+)"', (ROOT / "app.py").read_text())) | {""}


def test_the_readme_shows_the_model_and_tree_pages():
    assert IMAGES == ["docs/model.png", "docs/tree.png"]


@pytest.mark.parametrize("image", IMAGES)
def test_every_image_exists_and_is_small(image):
    path = ROOT / image
    assert path.is_file() and path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert path.stat().st_size <= 300_000


def test_the_lesson_plan_has_nine_steps_and_the_two_commands():
    plan = README.split("## Teaching with it", 1)[1].split("\n## ", 1)[0]
    assert len(re.findall(r"^\d\. \*\*", plan, re.M)) == 9
    assert "make app" in README and "make test" in README


@pytest.mark.parametrize("link", LINKS)
def test_every_link_opens_a_page_at_the_settings_it_names(link):
    url = urlsplit(link)
    assert url.path.strip("/") in PATHS, link
    query = dict(parse_qsl(url.query))
    assert set(query) <= set(KEYS), link
    state = State.from_query(query)
    if "lesson" in query:
        assert query["lesson"] in LESSONS and state.lesson == query["lesson"], link
        assert LESSONS[query["lesson"]].page == (url.path.strip("/") or "model"), link
    for key, value in query.items():  # nothing the link says is dropped as invalid
        assert state.to_query().get(key, value) == value or key == "lesson", (link, key)


DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")),
        ROOT / "benchmarks" / "README.md"]


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_points_to_a_file_that_exists(doc):
    text = doc.read_text(encoding="utf-8")
    targets = [t for t in re.findall(r"\]\(([^)\s]+)\)", text)
               if not re.match(r"(https?:|mailto:|#)", t)]
    missing = [t for t in targets if not (doc.parent / t.split("#")[0]).exists()]
    assert not missing, missing


PLAN = re.findall(r"\]\((http://localhost:8501[^)\s]*)\)",
                  README.split("## Teaching with it", 1)[1].split("\n## ", 1)[0])


def test_each_step_of_the_lesson_plan_is_a_lesson_that_opens_in_apptest():
    """Every step's link is a lesson's own (its page, its key); tests/test_lessons.py
    opens every lesson by its link in AppTest, at rounds 0, 1 and its last, with no error
    and its caption, so the plan's links are opened there (not twice)."""
    steps = [link for link in PLAN if "lesson=" in link]  # (the Lessons page's link too)
    assert len(steps) == 10  # nine steps, the ninth with two links
    for link in steps:
        url = urlsplit(link)
        key = dict(parse_qsl(url.query)).get("lesson")
        assert key in LESSONS, link
        assert LESSONS[key].page == (url.path.strip("/") or "model"), link
