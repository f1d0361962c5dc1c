// The explorer's chart: one plotly.js graph per key, kept mounted and updated in place.
//
// st.plotly_chart gives a chart a new identity whenever its figure changes, so every
// step of the round would tear down and rebuild each chart (WebGL contexts included).
// This component keeps one graph per key and updates it with Plotly.react; clicks come
// back as a trigger value. plotly.js is the copy that ships with the plotly package,
// served from the app's static folder, where this module is too (explorer/app/assets.py
// copies both there); the component's own script is loader.js's few lines.

import { decoded } from "./arrays.js";
import { withCleanCamera } from "./camera.js";

function loadPlotly(url) {
  if (window.Plotly) return Promise.resolve(window.Plotly);
  if (!window.__explorerPlotly) {
    window.__explorerPlotly = new Promise((resolve, reject) => {
      const script = document.createElement("script");
      script.src = url;
      script.async = true;
      script.onload = () => resolve(window.Plotly);
      script.onerror = () => reject(new Error("plotly.js did not load from " + url));
      document.head.appendChild(script);
    });
  }
  return window.__explorerPlotly;
}

function fetched(url) {
  return fetch(url).then((response) => {
    if (!response.ok) throw new Error(`${url}: ${response.status}`);
    return response.json();
  });
}

// a chart's step: its tables come by address (src) where the server serves them
function stepOf(text) {
  const step = JSON.parse(text);
  return step && step.src ? fetched(step.src).then((more) => Object.assign(step, more))
    : Promise.resolve(step);
}

export default function (component) {
  const { data, parentElement, setTriggerValue } = component;
  if (data.preload) {  // drawn early in the sidebar: start fetching plotly.js at once
    loadPlotly(data.preload).catch(() => {});
    return;
  }
  let gd = parentElement.querySelector(".explorer-chart");
  if (!gd) {
    gd = document.createElement("div");
    gd.className = "explorer-chart";
    gd.style.width = "100%";
    parentElement.appendChild(gd);
  }
  gd.__trigger = setTriggerValue;
  gd.__draw = Boolean(data.draw);
  gd.setAttribute("data-view", data.view);
  // a new fit's chart, drawn before its bindings come (component.py's bind_later)
  gd.toggleAttribute("data-binding", Boolean(data.binding));
  // The same chart again (a rerun at rest sends the same bytes): nothing to redraw
  const sent = [data.figure, data.src, data.step, data.config];
  if (gd.__sent && sent.every((text, i) => text === gd.__sent[i])) return;
  gd.__sent = sent;
  const config = JSON.parse(data.config);
  // On a touch screen, what the chart's config says a touch screen changes (component.py's
  // TOUCH: no mode bar, a one-finger drag that scrolls the page); elsewhere nothing
  const touch = config.touch || {};
  delete config.touch;
  const imageTitle = config.imageTitle;
  delete config.imageTitle;
  const touching = window.matchMedia("(hover: none) and (pointer: coarse)").matches;
  if (touching) Object.assign(config, touch.config);
  // plotly.js rebuilds the whole graph (WebGL contexts too) when the config changes:
  // keep the first config and only update the image file name, which names the round.
  if (!gd.__config) gd.__config = config;
  const imageOptions = config.toImageButtonOptions;
  // A chart that follows the round sends its template and its tables by address, fetched
  // once (explorer/app/blobs.py); other charts send their figure inline.
  const loaded = Promise.all([data.src ? fetched(data.src) : JSON.parse(data.figure),
                              stepOf(data.step)]);
  const take = ([figure, step]) => {
    figure.data = decoded(figure.data || []);
    // a chart that follows the round: its template, and round 0's figure where it differs
    // (explorer/figures/bindings.py); stepper.js draws it at the bar's round
    gd.__step = step;
    gd.__template = step ? figure : null;
    // the chart's own copy of the layout, which plotly.js writes into; the template stays
    // as sent
    gd.__base = structuredClone(figure.layout);
    gd.__zero = step && step.zero ? (() => {
      const zero = JSON.parse(step.zero);
      zero.data = decoded(zero.data || []);
      return zero;
    })() : null;
    // the layouts the chart is drawn on (every round's is built on one of them)
    if (touching) for (const layout of [gd.__base, gd.__zero?.layout]) {
      if (layout) Object.assign(layout, touch.layout);
    }
    gd.style.minHeight = (figure.layout.height || 450) + "px";
    return figure;
  };
  // a chart that follows the round is drawn at the bar's round once the bar has one
  let filename = null;
  const drawn = (Plotly, figure) => (gd.__step && window.__explorerFigureAt
    ? window.__explorerFigureAt(gd) : Promise.resolve(null)).then((found) => {
    filename = found && found.filename;
    const fig = found ? found.figure : { data: figure.data, layout: gd.__base };
    if (!found) gd.__drawn = { data: fig.data, layout: structuredClone(figure.layout) };
    withCleanCamera(Plotly, gd.__config, imageTitle);  // once: the config stays
    return Plotly.react(gd, fig.data, fig.layout, gd.__config);
  });
  // in the chart's queue of draws (stepper.js's steps join it): a step asked for while
  // this first draw runs is drawn after it
  gd.__queue = (gd.__queue || Promise.resolve()).then(
    () => Promise.all([loadPlotly(data.plotly), loaded])).then(
    ([Plotly, parts]) => drawn(Plotly, take(parts)).then(() => {
      if (gd._context && gd._context.toImageButtonOptions) {
        // the file name names the round; the size and format follow the figure and the
        // sidebar's choice. Update the options object in place: a new object would
        // differ from the config react is given, and plotly.js would rebuild the graph
        // (WebGL contexts and all) at every step.
        Object.assign(gd._context.toImageButtonOptions, imageOptions,
                      filename ? { filename } : {});
      }
      if (gd.__bound) return;
      gd.__bound = true;
      // plotly.js's responsive config follows only the window's size; the chart's column
      // can change width without it (presenter mode hides the sidebar after the first
      // draw), which left a chart drawn narrower than its column
      new ResizeObserver(() => {
        const width = Math.round(gd.getBoundingClientRect().width);
        if (!width || !gd._fullLayout || Math.round(gd._fullLayout.width) === width) return;
        gd.__queue = gd.__queue.then(() => Plotly.Plots.resize(gd)).catch(() => {});
      }).observe(gd);
      gd.on("plotly_click", (event) => {
        if (gd.__draw) return;  // drawing: the click on the plane below says it all
        const points = (event.points || []).map((p) => ({
          x: p.x, y: p.y, curve: p.curveNumber, index: p.pointIndex,
          customdata: p.customdata === undefined ? null
            : (ArrayBuffer.isView(p.customdata) ? Array.from(p.customdata) : p.customdata),
        }));
        gd.__trigger("click", points);
      });
      // a leaf's label (named label:<node id>, figures.regions.tree_regions) selects the leaf
      gd.on("plotly_clickannotation", (event) => {
        const name = String((event.annotation || {}).name || "");
        if (gd.__draw || !/^label:\d+$/.test(name)) return;
        gd.__trigger("click", [{ customdata: [Number(name.slice(6))] }]);
      });
      // Drawing points: plotly.js dispatches a click on its drag layer after a mouse-up
      // that did not drag. Send the place in data units and a pixel's size, so that the
      // server can tell a click on a point (remove it) from one beside it (add one).
      gd.addEventListener("click", (event) => {
        if (!gd.__draw || !event.target.classList.contains("nsewdrag")) return;
        const { xaxis, yaxis } = gd._fullLayout;
        const box = event.target.getBoundingClientRect();
        gd.__trigger("click", [{
          plane: true,
          x: xaxis.p2l(event.clientX - box.left), y: yaxis.p2l(event.clientY - box.top),
          dx: (xaxis.range[1] - xaxis.range[0]) / xaxis._length,
          dy: (yaxis.range[1] - yaxis.range[0]) / yaxis._length,
        }]);
      });
    })
  ).catch((error) => {
    gd.__sent = null;  // the next rerun tries again (a blob the server no longer kept)
    gd.textContent = String(error);
  });
}
