"""The floor of a change of setting: a Streamlit script whose slider redraws one 200 x 200
heat map with st.plotly_chart, its title naming the slider's value.
benchmarks/bench_setting.py starts it like the app (same flags, same .streamlit/config.toml,
same browser) and times the release of its slider to the new map drawn."""

import numpy as np
import plotly.graph_objects as go
import streamlit as st

nu = st.slider("Learning rate", 0.01, 1.0, 0.1, step=0.01, key="lr")
x = np.linspace(-3.0, 3.0, 200)
z = np.sin(nu * 10.0 * x[None, :]) * np.cos(x[:, None])
st.plotly_chart(go.Figure(go.Heatmap(x=x, y=x, z=z),
                          layout=dict(title=f"nu = {nu:.2f}", height=500)))
