"""The floor of a change of setting: a Streamlit script whose slider redraws one 200 x 200
heat map with st.plotly_chart. benchmarks/bench_setting.py times it beside the app."""

import numpy as np
import plotly.graph_objects as go
import streamlit as st

nu = st.slider("Learning rate ν", 0.01, 1.0, 0.1, step=0.01)
x = np.linspace(-3, 3, 200)
z = 1 / (1 + np.exp(-nu * 10 * np.add.outer(np.sin(x), np.cos(x))))
st.plotly_chart(go.Figure(go.Heatmap(z=z, x=x, y=x)))
