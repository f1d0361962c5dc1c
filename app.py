"""Boosting Explorer: the router.

Run with ``streamlit run app.py`` (or ``make app``). Every run draws the sidebar
(data and fit controls), makes the data and the fit (cached, shared across
sessions), then runs the page the address names. The pages live in ``pages/``
and only lay out views; ``explorer/app/`` is the Streamlit side (state, controls,
charts), ``explorer/figures/`` the charts.

``streamlit run app.py`` first imports this file as a module, finds the server at the
bottom (an ASGI app: Streamlit's own, see ``explorer/app/server.py``) and starts it; each
visit then runs the file as Streamlit's script, named ``__main__``.
"""

import streamlit as st

if __name__ == "__main__":
    from explorer.app import assets

    # the tab's icon is a file of ours: a Material icon would be fetched from Google's servers.
    # The sidebar starts open on a laptop or a projector and closed on a phone ("auto":
    # closed below Streamlit's 768 px breakpoint), where it would cover the whole page;
    # there the page links (top navigation on a wide screen) move to the top of the
    # sidebar, which the header's open button shows.
    st.set_page_config(page_title="Boosting Explorer", page_icon=str(assets.ICON),
                       layout="wide", initial_sidebar_state="auto")

    # The Model page is served at / (Streamlit serves a default page at the root alone),
    # and /model, the link people type, is a hidden page of its own that sends the
    # browser to / with the same query: its url_path is the alias's, so the default
    # page, which still reserves one, takes another that nobody links to.
    PAGES = [
        st.Page("pages/model.py", title="Model", icon=":material/scatter_plot:",
                url_path="model-page", default=True),
        st.Page("pages/tree.py", title="Tree", icon=":material/account_tree:", url_path="tree"),
        st.Page("pages/sample.py", title="Sample", icon=":material/my_location:",
                url_path="sample"),
        st.Page("pages/curves.py", title="Curves", icon=":material/show_chart:",
                url_path="curves"),
        st.Page("pages/slides.py", title="Slides", icon=":material/slideshow:",
                url_path="slides"),
        st.Page("pages/leaf_maths.py", title="Leaf maths", icon=":material/functions:",
                url_path="leaf_maths"),
        st.Page("pages/splits.py", title="Splits", icon=":material/call_split:",
                url_path="splits"),
        st.Page("pages/compare.py", title="Compare", icon=":material/compare:",
                url_path="compare"),
        st.Page("pages/sweep.py", title="Sweep", icon=":material/grid_view:",
                url_path="sweep"),
        st.Page("pages/lessons.py", title="Lessons", icon=":material/school:",
                url_path="lessons"),
    ]
    MODEL_ALIAS = "model"
    # after the default page, so that st.switch_page("pages/model.py") finds that first
    ALIASES = [st.Page("pages/model.py", title="Model", url_path=MODEL_ALIAS,
                       visibility="hidden")]

    page = st.navigation(PAGES + ALIASES, position="top")
    if page.url_path == MODEL_ALIAS:  # to the canonical link, before anything is drawn
        st.switch_page(PAGES[0], query_params=st.query_params.to_dict())
    st.sidebar.markdown("### :material/forest: Boosting Explorer")
    assets.preload()  # plotly.js runs in the browser while the engine is imported and fits

    from explorer import app  # about a second on a server's first run

    app.setup()
    page.run()  # a page that stops (no fit to show) calls app.finish itself first
    app.finish()
else:
    from explorer.app.server import middleware

    streamlit_app = st.App(__file__, middleware=middleware())
