"""The files that deploy the app agree with the code: the upload limit written in
.streamlit/config.toml and in the app, nginx's body limit, pyproject.toml's packages and
package data against what is on disk, and the files Streamlit Community Cloud reads
(requirements.txt, packages.txt)."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from explorer import dataset, upload

ROOT = Path(__file__).resolve().parents[1]
CONFIG = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text(encoding="utf-8"))
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def test_the_upload_limit_is_the_same_for_the_server_and_the_app():
    # A config file cannot import the constant: the server refuses a larger body (413),
    # the app's widget and its reading say the same number of MB.
    assert CONFIG["server"]["maxUploadSize"] == dataset.MAX_UPLOAD_MB
    # the library's own default (the command line's) is the larger, 10 MB
    assert upload.MAX_BYTES == 10 * 2**20 >= dataset.MAX_UPLOAD_MB * 2**20
    assert "10 MB" in upload.__doc__ and "10 MB" in upload.read_table.__doc__


def test_nginx_lets_the_app_answer_an_upload_at_its_limit():
    template = (ROOT / "deploy" / "nginx.conf.template").read_text(encoding="utf-8")
    (size,) = re.findall(r"client_max_body_size\s+(\d+)m;", template)
    assert int(size) > CONFIG["server"]["maxUploadSize"]  # the form's own bytes on top


def test_pyproject_lists_every_package_and_the_app_s_data_files():
    setuptools = PROJECT["tool"]["setuptools"]
    on_disk = {".".join(p.parent.relative_to(ROOT).parts)
               for p in (ROOT / "explorer").rglob("__init__.py")}
    assert set(setuptools["packages"]) == on_disk
    listed = setuptools["package-data"]
    for package in on_disk:  # every file that is not code is listed as package data
        folder = ROOT.joinpath(*package.split("."))
        data = {p.name for p in folder.iterdir()
                if p.is_file() and p.suffix not in (".py", ".pyc")}
        patterns = listed.get(package, [])
        assert all(any(Path(name).match(pattern) for pattern in patterns)
                   for name in data), (package, data)
    # the browser's scripts: the shared package's, the app's, and the lesson file's
    assert "stepper.js" in {p.name for p in (ROOT / "explorer" / "browser").iterdir()}
    assert set(listed) == {"explorer.app", "explorer.browser", "explorer.export"}


def test_one_list_of_dependencies_which_the_requirements_files_name():
    project = PROJECT["project"]
    assert project["requires-python"].startswith(">=3.")
    names = {re.split(r"[<>=!~\[ ]", d)[0].lower() for d in project["dependencies"]}
    assert {"numba", "numpy", "scikit-learn", "streamlit", "plotly", "kaleido"} <= names
    assert all(re.search(r">=\d", d) for d in project["dependencies"])  # lower bounds
    assert "pytest" in " ".join(project["optional-dependencies"]["dev"])

    def requirements(name):
        lines = (ROOT / name).read_text(encoding="utf-8").splitlines()
        return [line.strip() for line in lines if line.strip() and not line.startswith("#")]
    assert requirements("requirements.txt") == ["-e ."]
    assert requirements("requirements-dev.txt") == ["-e .[dev]"]
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    stamps = re.findall(r"^\$\(VENV\)/\.\w+:([^|\n]*)", makefile, flags=re.M)
    assert len(stamps) == 2 and all("pyproject.toml" in s for s in stamps)


def test_community_cloud_installs_chromium_for_the_slide_images():
    # packages.txt: one Debian package a line, nothing else (no comments)
    assert (ROOT / "packages.txt").read_text(encoding="utf-8").split() == ["chromium"]
