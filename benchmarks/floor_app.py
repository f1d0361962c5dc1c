"""The classroom floor: the app's router, sidebar, fit and round bar with one page that
draws no chart. ``python -m benchmarks.load --floor`` runs the same load against it, so
the cost of the charts shows as the ratio of the app's server CPU per rerun to this one's.
Started like the app (``streamlit run benchmarks/floor_app.py``, same config and flags)."""

import sys
from pathlib import Path

import streamlit as st

if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the project, for explorer
    from explorer.app import assets

    st.set_page_config(page_title="Boosting Explorer (floor)", page_icon=str(assets.ICON),
                       layout="wide", initial_sidebar_state="expanded")
    page = st.navigation([st.Page(str(Path(__file__).with_name("floor_page.py")),
                                  title="Model", url_path="model", default=True)],
                         position="top")
    st.sidebar.markdown("### :material/forest: Boosting Explorer")
    assets.preload()

    from explorer import app

    app.setup()
    page.run()
    app.finish()
