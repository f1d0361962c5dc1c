// The lesson file's page (explorer/export/interactive.py writes it): a page of the app
// as one HTML file that steps through the rounds with no server and no network.
//
// Everything comes with the file: plotly.js, the fit's record, and each chart's template,
// bindings and tables (explorer/figures/pages.py describes a page's charts, as the app
// draws them). The round bar is the app's own (explorer/browser/stepper.js), given what a
// Streamlit component would give it; the arithmetic is record.js's and the bindings are
// bindings.js's. Python inlines all of them at export time: a file:// page cannot import
// modules.

import { bytes, decoded } from "./arrays.js";
import stepper from "./stepper.js";
import { withCleanCamera } from "./camera.js";

function figure(json) {
  const fig = typeof json === "string" ? JSON.parse(json) : json;
  fig.data = decoded(fig.data || []);
  return fig;
}

// The bar names the round in the link as it steps; a browser that refuses to rewrite a
// file's address must not stop the stepping (the link then keeps the round it opened at)
const replaceState = window.history.replaceState.bind(window.history);
window.history.replaceState = (...args) => {
  try { replaceState(...args); } catch (error) { /* the address stays as it is */ }
};

const lesson = JSON.parse(document.getElementById("lesson-data").textContent);
const TOUCHING = window.matchMedia("(hover: none) and (pointer: coarse)").matches;
// the fits' records (one, or a sweep's cells'), kept by the bar by their keys
for (const record of lesson.records) stepper({ data: bytes(record) });

for (const chart of lesson.charts) {
  const slot = document.querySelector(`[data-slot="${chart.view}"]`);
  const gd = document.createElement("div");
  gd.className = "explorer-chart";
  gd.dataset.view = chart.view;
  slot.appendChild(gd);
  const template = figure(chart.figure);
  gd.__step = { ...chart.step, record: chart.record, filenames: chart.filenames };
  gd.__template = template;
  // the chart's own copy of the layout, which plotly.js writes into (as component.js
  // keeps it; stepper.js gives it the template's axis domains back before each draw)
  gd.__base = structuredClone(template.layout);
  gd.__zero = chart.step.zero ? figure(chart.step.zero) : null;
  gd.style.minHeight = (template.layout.height || 450) + "px";
  const config = structuredClone(lesson.config);
  config.toImageButtonOptions.filename = chart.filenames[chart.step.at];
  // the toolbar's image takes the title without hints, as in the app
  const imageTitle = config.imageTitle;
  delete config.imageTitle;
  withCleanCamera(window.Plotly, config, imageTitle);
  // on a touch screen, what the config says a touch screen changes (as component.js)
  const touch = config.touch || {};
  delete config.touch;
  if (TOUCHING) {
    Object.assign(config, touch.config);
    for (const layout of [gd.__base, gd.__zero?.layout]) {
      if (layout) Object.assign(layout, touch.layout);
    }
  }
  // the bar's draws join this first one (stepper.js's queue of a chart's draws)
  gd.__queue = window.Plotly.newPlot(gd, template.data, gd.__base, config);
}

// The file opens at the round its link names (?round=), else at the exported one
const asked = new URL(window.location.href).searchParams.get("round");
const round = asked !== null && /^\d+$/.test(asked)
  ? Math.min(Number(asked), lesson.rounds) : lesson.round;
stepper({ data: { round, rounds: lesson.rounds, present: lesson.present, seq: -1 },
          parentElement: document.getElementById("bar"),
          setStateValue: () => {} });  // no server to tell at rest
// the round whose charts are drawn, once they are (tests wait for it)
document.addEventListener("explorer-drawn", () => {
  document.documentElement.dataset.drawn =
    document.querySelector(".explorer-stepper").dataset.round;
});
document.documentElement.dataset.ready = "true";
