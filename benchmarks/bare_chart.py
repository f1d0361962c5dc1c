"""The floor of a first chart: a Streamlit script that draws one three-point plotly chart
with st.plotly_chart and nothing else. benchmarks/bench_app.py starts it like the app
(same flags, same .streamlit/config.toml, same browser) and times its first chart."""

import plotly.graph_objects as go
import streamlit as st

st.plotly_chart(go.Figure(go.Scatter(x=[1, 2, 3], y=[1, 3, 2])))
