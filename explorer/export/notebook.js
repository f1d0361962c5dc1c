// The explorer in a notebook: the anywidget module of explorer/notebook.py's widget.
//
// The lesson file's sibling (interactive.js): a page's charts that follow the round, each
// from its template, bindings and tables (explorer/figures/pages.py describes them, as the
// app draws them), stepped in the browser by the app's own round bar (stepper.js) with the
// engine's arithmetic (record.js) and the bindings (bindings.js). Nothing here draws a
// chart: Python draws, the browser binds.
//
// What differs from the lesson file:
// - Several widgets share a notebook page, each with its own bar and charts. The browser
//   modules are written for one page (they find the charts in `document`, keep the keys'
//   handler in `window`): each view calls __explorerModules with a document and a window
//   scoped to its own element, so each has its own bar, charts, records and keys, and
//   none writes the page's address.
// - plotly.js comes once per page from the kernel session's PlotlyJS model (every widget
//   names it), as bytes, and runs as a classic script from a blob: no CDN, no network.
// - The record and the tables come as binary buffers.
// - `round` (and `sample`) are the model's traits: a round set in Python steps the view,
//   and the bar's round at rest (setStateValue, as the app's bar sends it to Streamlit)
//   sets the trait.

function __explorerModules(document, window) {
// the browser modules, inlined here (explorer/notebook.py)
return __modules;
}

// plotly.js, loaded once per notebook page from the PlotlyJS model the widget names
// ("IPY_MODEL_<id>", anywidget's "anywidget:<id>"); a plotly.js the page had before keeps
// window.Plotly
function loadPlotly(model) {
  if (globalThis.__explorerPlotly) return globalThis.__explorerPlotly;
  globalThis.__explorerPlotly = (async () => {
    const ref = String(model.get("_plotly"));
    const holder = await model.widget_manager.get_model(ref.replace(/^(IPY_MODEL_|anywidget:)/, ""));
    const source = holder.get("source");
    const url = URL.createObjectURL(new Blob([source], { type: "text/javascript" }));
    const before = globalThis.Plotly;
    try {
      await new Promise((resolve, reject) => {
        const script = document.createElement("script");
        script.src = url;
        script.onload = resolve;
        script.onerror = () => reject(new Error("plotly.js did not load"));
        document.head.appendChild(script);
      });
    } finally {
      URL.revokeObjectURL(url);
    }
    const ours = globalThis.Plotly;
    if (before) globalThis.Plotly = before;
    return ours;
  })();
  globalThis.__explorerPlotly.catch(() => { globalThis.__explorerPlotly = null; });
  return globalThis.__explorerPlotly;
}

// bytes of a trait (DataView, ArrayBuffer or typed array) as a Uint8Array
function u8(value) {
  if (value instanceof ArrayBuffer) return new Uint8Array(value);
  if (ArrayBuffer.isView(value)) return new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
  return new Uint8Array(0);
}

// bindings.js reads a chart's tables as base64 text (as the app and the lesson file send them)
function base64(bytes) {
  let text = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    text += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
  }
  return btoa(text);
}

// The browser modules' document and window, scoped to one view's element
function scoped(root, Plotly) {
  const doc = {
    get documentElement() { return root; },
    get body() { return document.body; },
    get head() { return document.head; },
    querySelector: (selector) => root.querySelector(selector),
    querySelectorAll: (selector) => root.querySelectorAll(selector),
    createElement: (name) => document.createElement(name),
    addEventListener: (...args) => root.addEventListener(...args),
    removeEventListener: (...args) => root.removeEventListener(...args),
    dispatchEvent: (event) => root.dispatchEvent(event),
  };
  const own = {
    Plotly, document: doc,
    history: { state: null, replaceState() {} },  // the notebook's address is its own
    __explorerRecords: new Map(), __explorerKeys: null, __explorerLinks: null,
    __explorerFigureAt: null,
  };
  const win = new Proxy(window, {
    get(target, key) {
      if (key in own) return own[key];
      const value = Reflect.get(target, key);
      return typeof value === "function" ? value.bind(target) : value;
    },
    set(target, key, value) {
      if (key in own) own[key] = value; else Reflect.set(target, key, value);
      return true;
    },
  });
  return { doc, win };
}

function figure(json, decoded) {
  const fig = typeof json === "string" ? JSON.parse(json) : json;
  fig.data = decoded(fig.data || []);
  return fig;
}

async function render({ model, el }) {
  const root = document.createElement("div");
  root.className = "explorer-widget";
  // the bar's keys (Home, End, PageUp, PageDown) are the widget's, not the notebook's
  root.dataset.lmSuppressShortcuts = "true";
  root.tabIndex = 0;
  root.innerHTML = `<div class="explorer-title"></div><div class="explorer-bar"></div>`
    + `<div class="explorer-charts"></div>`;
  el.appendChild(root);
  const Plotly = await loadPlotly(model);
  const { doc, win } = scoped(root, Plotly);
  const modules = __explorerModules(doc, win);
  const stepper = modules["stepper.js"].default;
  const { decoded } = modules["arrays.js"];
  const { withCleanCamera } = modules["camera.js"];
  const bar = root.querySelector(".explorer-bar");
  const charts = root.querySelector(".explorer-charts");
  let spec = null;

  const setStateValue = (name, value) => {
    if (name !== "round") return;
    model.set("round", value.m);
    model.save_changes();
    root.dataset.sent = String(value.m);  // told the kernel (a cell that reads it waits)
  };
  const stepTo = (m) => stepper({ data: { round: m, rounds: spec.rounds, present: spec.present,
                                          seq: -1 }, parentElement: bar, setStateValue });

  // the page's charts from the model's spec, record and tables, drawn at the trait's round
  const build = () => {
    for (const gd of charts.querySelectorAll(".explorer-chart")) Plotly.purge(gd);
    charts.replaceChildren();
    spec = JSON.parse(model.get("_spec"));
    root.querySelector(".explorer-title").textContent = spec.title;
    stepper({ data: u8(model.get("_record")) });  // kept by the bar by its key
    const tables = u8(model.get("_tables"));
    for (const chart of spec.charts) {
      const slot = document.createElement("div");
      slot.className = chart.wide ? "slot wide" : "slot";
      const gd = document.createElement("div");
      gd.className = "explorer-chart";
      gd.dataset.view = chart.view;
      slot.appendChild(gd);
      charts.appendChild(slot);
      const template = figure(chart.figure, decoded);
      const [at, length] = chart.step.tables;
      gd.__step = { ...chart.step, record: spec.key,
                    tables: base64(tables.subarray(at, at + length)) };
      gd.__template = template;
      gd.__base = structuredClone(template.layout);  // plotly.js writes into its copy
      gd.__zero = chart.step.zero ? figure(chart.step.zero, decoded) : null;
      gd.style.minHeight = (template.layout.height || 450) + "px";
      const config = structuredClone(spec.config);
      const imageTitle = config.imageTitle;  // the toolbar's image: the title without hints
      delete config.imageTitle;
      gd.__queue = Plotly.newPlot(gd, template.data, gd.__base,
                                  withCleanCamera(Plotly, config, imageTitle));
    }
    stepTo(model.get("round"));  // the bar draws the new charts at the trait's round
  };

  // the round drawn, once it is (tests and the notebook's readers wait for it)
  root.addEventListener("explorer-drawn", () => {
    root.dataset.drawn = bar.querySelector(".explorer-stepper").dataset.round;
  });
  const onRound = () => {
    const m = model.get("round");
    const shown = bar.querySelector(".explorer-stepper");
    if (!shown || shown.dataset.round !== String(m)) stepTo(m);
  };
  model.on("change:round", onRound);
  model.on("change:_spec", build);
  build();
  root.dataset.ready = "true";
  return () => {
    model.off("change:round", onRound);
    model.off("change:_spec", build);
    for (const gd of charts.querySelectorAll(".explorer-chart")) Plotly.purge(gd);
  };
}

export default { render };
