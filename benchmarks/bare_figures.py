"""A reference for a page's change of setting: a Streamlit script whose learning-rate slider
redraws that page's own charts with st.plotly_chart, as the bare slider (bare_slider.py)
redraws its heat map. The charts are the app's, drawn by its figure functions for the
default settings at round 10 and each learning rate the benchmark reaches, all made in
the first run: a change of setting only sends them, so what is left is Streamlit's and
plotly.js's own work for the page's figures. Each title names the learning rate, so that
the benchmark sees every chart drawn anew. The page: ``EXPLORER_BARE_PAGE`` (tree).
benchmarks/bench_setting.py starts it like the app and times it beside the app's page."""

import json
import os
import sys
from pathlib import Path

import streamlit as st

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the project, for explorer

from benchmarks.bench_binding import fitted
from explorer.figures import pages

PAGE = os.environ.get("EXPLORER_BARE_PAGE", "tree")
RATES = [round(0.10 + 0.01 * k, 2) for k in range(13)]  # one notch a key press


@st.cache_resource(show_spinner="Drawing the page's figures at each learning rate")
def figures(page: str) -> dict:
    out = {}
    for lr in RATES:
        trace, grid, state, names = fitted({"lr": lr, "round": 10})
        described = pages.describe(page, trace, grid, state, names, key="floor")
        out[lr] = []
        for chart in described.charts:
            figure = json.loads(chart.json_at(state.round, False))
            title = figure["layout"].setdefault("title", {})
            title["text"] = f"{title.get('text', '')} · ν = {lr:.2f}"
            out[lr].append(figure)
    return out


nu = st.slider("Learning rate", 0.01, 1.0, 0.1, step=0.01, key="lr")
for figure in figures(PAGE).get(round(nu, 2), figures(PAGE)[RATES[0]]):
    st.plotly_chart(figure, theme=None)
