// The round bar, in the browser: first, previous, the slider, next, last and Play step
// through the rounds with no server round trip. Charts that know how to follow the round
// (their figure says so in layout.meta.step) are redrawn here from the fit's record, with
// the engine's numbers (record.js); once stepping rests for IDLE_MS the round goes to
// the server in one rerun, which brings the text, the tables and every other chart.

const IDLE_MS = 300;
const PLAY_MS = 100;  // ten rounds a second
const SIGMOID = (z) => (z >= 0 ? 1 / (1 + Math.exp(-z)) : Math.exp(z) / (1 + Math.exp(z)));

// The fit's record comes once per fit from the record component, as bytes; it is decoded
// (record.js, from the app's static folder) when a chart first needs it.
function record(key) {
  const held = window.__explorerRecord;
  if (!held || held.key !== key || !window.__explorerRecordModule) return null;
  if (!held.decoded) {
    // an absolute address: this module itself was loaded from a blob
    const url = new URL(window.__explorerRecordModule, window.location.href).href;
    held.decoded = import(url).then(({ decode }) => decode(held.bytes));
  }
  return held.decoded;
}

// tree.js (the Tree page's views), from the app's static folder, loaded once when needed
function treeViews() {
  const url = new URL(window.__explorerTreeModule, window.location.href).href;
  if (window.__explorerTreeViews?.url !== url) {
    window.__explorerTreeViews = { url, module: import(url) };
  }
  return window.__explorerTreeViews.module;
}

function keep(bytes) {
  const view = bytes instanceof ArrayBuffer ? new Uint8Array(bytes)
    : new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const n = new DataView(view.buffer, view.byteOffset, view.byteLength).getUint32(0, true);
  const key = JSON.parse(new TextDecoder().decode(view.subarray(4, 4 + n))).key;
  const held = window.__explorerRecord;
  if (!held || held.key !== key) window.__explorerRecord = { key, bytes: view.slice() };
}

// The decision boundary F = 0 as axis-aligned lines between grid cells (the same as
// explorer/numbers/grid.py's boundary_lines, which draws the server's figures).
function boundaryLines(xs, ys, F) {
  const nx = xs.length, ny = ys.length;
  const edges = (v) => {
    const e = [v[0] - (v[1] - v[0]) / 2];
    for (let i = 0; i + 1 < v.length; i++) e.push((v[i] + v[i + 1]) / 2);
    e.push(v[v.length - 1] + (v[v.length - 1] - v[v.length - 2]) / 2);
    return e;
  };
  const xe = edges(xs), ye = edges(ys);
  const above = (i, j) => F[i * nx + j] > 0;
  const px = [], py = [];
  for (let j = 0; j + 1 < nx; j++) {  // vertical pieces between columns j and j + 1
    let start = -1;
    for (let i = 0; i <= ny; i++) {
      const change = i < ny && above(i, j) !== above(i, j + 1);
      if (change && start < 0) start = i;
      if (!change && start >= 0) {
        px.push(xe[j + 1], xe[j + 1], null); py.push(ye[start], ye[i], null); start = -1;
      }
    }
  }
  for (let i = 0; i + 1 < ny; i++) {  // horizontal pieces between rows i and i + 1
    let start = -1;
    for (let j = 0; j <= nx; j++) {
      const change = j < nx && above(i, j) !== above(i + 1, j);
      if (change && start < 0) start = j;
      if (!change && start >= 0) {
        px.push(xe[start], xe[j], null); py.push(ye[i + 1], ye[i + 1], null); start = -1;
      }
    }
  }
  return [px, py];
}

function title_of(meta, m, M) {
  return (m < M ? meta.title : meta.title_last || meta.title)
    .replaceAll("{m}", String(m)).replaceAll("{m1}", String(m + 1));
}

// The server wraps long titles (figures.theme.wrap: a <br> for a space, at clauses); a
// title drawn here keeps the lines of the one on screen, numbers aside.
function rewrap(old, text) {
  const skeleton = (t) => t.replaceAll("<br>", " ").replace(/\d+/g, "#");
  if (!old || !old.includes("<br>") || skeleton(old) !== skeleton(text)) return text;
  const breaks = new Set();
  let spaces = 0;
  for (const line of old.split("<br>").slice(0, -1)) {
    spaces += (line.match(/ /g) || []).length;
    breaks.add(spaces++);  // the space this <br> stands for
  }
  let n = 0;
  return text.replace(/ /g, () => (breaks.has(n++) ? "<br>" : " "));
}

// How each kind of chart follows the round m. Each returns a Plotly.update's arguments.
const FOLLOW = {
  proba(gd, record, m, meta) {  // the probability map, its boundary, the points' p
    const F = record.gridF(m);
    const xs = Array.from(record.a.xs), ys = Array.from(record.a.ys);
    // float32 rows, as the server sends p (and plotly takes typed rows fastest)
    const p = new Float32Array(F.length);
    for (let c = 0; c < F.length; c++) p[c] = SIGMOID(meta.scale * F[c]);
    const z = [];
    for (let i = 0; i < ys.length; i++) z.push(p.subarray(i * xs.length, (i + 1) * xs.length));
    const [bx, by] = boundaryLines(xs, ys, F);
    const Fp = record.pointsF(m);
    // each point's index (component.js decoded the figure's arrays)
    const points = meta.points.map((k) => Array.from(gd.data[k].customdata,
      (c) => [c[0], SIGMOID(meta.scale * Fp[c[0]])]));
    return [[{ z: [z] }, [0]], [{ x: [bx], y: [by] }, [1]],
            [{ customdata: points }, meta.points]];
  },
  residuals(gd, record, m, meta) {
    const F = record.gridF(m);
    const [bx, by] = boundaryLines(Array.from(record.a.xs), Array.from(record.a.ys), F);
    const Fp = record.pointsF(m), y = record.a.y;
    const r = Float64Array.from(Fp, (f, i) => y[i] - SIGMOID(f));  // log-loss: y - p
    const size = Float32Array.from(r, (v) => 4 + 16 * Math.min(Math.abs(v), 1));
    const custom = Array.from(r, (v, i) => [i, v]);
    return [[{ x: [bx], y: [by] }, [0]],
            [{ "marker.color": [r], "marker.size": [size], customdata: [custom] }, [1]]];
  },
  // a line's marker at round m, and the round's rule: shapes only, so that plotly.js
  // redraws them and not the chart's traces (figures.theme.round_marker)
  marks(gd, record, m, meta) {
    const shapes = (gd.layout.shapes || []).map(
      (s, j) => (meta.shapes.includes(j) ? { ...s, x0: m, x1: m } : s));
    for (const [k, line] of meta.markers) {
      shapes[k] = { ...shapes[k], xanchor: m, yanchor: gd.data[line].y[m] };
    }
    return [null, null, null, null, { shapes }];
  },
};

function following() {
  return [...document.querySelectorAll(".explorer-chart")].filter((gd) => {
    const meta = gd.layout && gd.layout.meta && gd.layout.meta.step;
    const drawn = meta && (meta.kind === "tree" ? gd.__figure && window.__explorerTreeModule
      : FOLLOW[meta.kind]);
    return drawn && record(meta.record);
  });
}

// Each chart redrawn once: its figure with this round's numbers, in one Plotly.react.
async function redraw(m, M) {
  for (const gd of following()) {
    const meta = gd.layout.meta.step;
    const rec = await record(meta.record);
    if (meta.kind === "tree") {  // a whole new figure (tree.js)
      const fig = (await treeViews()).draw(gd.__figure, rec, m, meta, boundaryLines, gd);
      await window.Plotly.react(gd, fig.data, fig.layout);
      continue;
    }
    const updates = FOLLOW[meta.kind](gd, rec, m, meta);
    const data = gd.data.map((trace) => ({ ...trace }));
    for (const u of updates.slice(0, 3)) {
      if (!u) continue;
      u[1].forEach((k, j) => {
        for (const [path, values] of Object.entries(u[0])) {
          const value = values[j];
          if (path.startsWith("marker.")) {
            data[k].marker = { ...data[k].marker, [path.slice(7)]: value };
          } else {
            data[k][path] = value;
          }
        }
      });
    }
    const before = (gd.layout.title || {}).text;
    const text = meta.title ? rewrap(before, title_of(meta, m, M)) : before;
    const title = { ...(gd.layout.title || {}), text };
    await window.Plotly.react(gd, data, { ...gd.layout, title, ...(updates[4] || {}) });
  }
}

// plotly.js measures every label it has not drawn before (a forced layout of the page
// each), and keeps the sizes: a Tree page step brings some 25 new labels, about 40 ms here.
// While the page rests, the labels of the rounds next to the one on screen are drawn in a
// hidden chart, so that a step to either finds them measured (the page says which round's
// neighbours are: html's data-warmed). Each step takes a new ticket: a warm-up holding an
// older one stops at its next chart.
let warmTicket = 0;
const whenIdle = (f) => (window.requestIdleCallback
  ? new Promise((r) => window.requestIdleCallback(() => r(f()), { timeout: 1000 }))
  : new Promise((r) => setTimeout(() => r(f()), 50)));

async function warm(m, M, ticket) {
  for (const r of [m + 1, m - 1]) {
    if (r < 1 || r > M) continue;
    for (const gd of following()) {
      const meta = gd.layout.meta.step;
      if (meta.kind !== "tree") continue;
      const rec = await record(meta.record);
      const views = await treeViews();
      if (ticket !== warmTicket || !rec) return;  // a step came, or a new fit
      // a chart Streamlit has since replaced still serves: the sizes are kept by text and
      // style, for every chart of the page
      await whenIdle(async () => {
        if (ticket !== warmTicket) return;
        const { layout } = views.draw(gd.__figure, rec, r, meta, boundaryLines);
        // the labels alone (no trace, no box, no title to be taken for the chart's), in a
        // chart out of sight, gone once measured
        const div = document.createElement("div");
        div.setAttribute("aria-hidden", "true");
        div.style.cssText = "position:fixed;left:-10000px;top:0;visibility:hidden";
        document.body.appendChild(div);
        try {
          await window.Plotly.newPlot(div, [], { ...layout, title: { text: "" }, shapes: [],
                                                 images: [] }, { staticPlot: true });
        } finally {
          window.Plotly.purge(div);
          div.remove();
        }
      });
    }
  }
  if (ticket === warmTicket) document.documentElement.dataset.warmed = String(m);  // tests
}

// The warm-up of round m's neighbours, after the frame that shows round m is painted (never
// in its way), with the ticket of the step that drew it: a later step stops it.
function warmSoon(m, M) {
  const ticket = warmTicket;
  requestAnimationFrame(() => setTimeout(() => warm(m, M, ticket).catch(
    (error) => console.error("stepper:", error))));
}

// One redraw at a time, always of the latest round asked for: a burst of steps faster
// than the charts can be drawn skips the rounds in between instead of queueing them.
let drawing = null, wanted = null;
function follow(m, M, { rest = true } = {}) {
  wanted = [m, M];
  warmTicket++;  // the warm-up of the last round's neighbours stops
  delete document.documentElement.dataset.warmed;
  if (drawing) return drawing;
  drawing = (async () => {
    let r, last;
    while (wanted) {
      [r, last] = wanted;
      wanted = null;
      try { await redraw(r, last); } catch (error) { console.error("stepper:", error); }
    }
    drawing = null;
    document.dispatchEvent(new CustomEvent("explorer-drawn"));
    if (rest) warmSoon(r, last);
  })();
  return drawing;
}

const BUTTONS = [
  ["first", "First round", "Home", "|◀"],
  ["prev", "Previous round", "PageUp", "◀"],
  ["next", "Next round", "PageDown", "▶"],
  ["last", "Last round", "End", "▶|"],
];

function bar(component) {
  const { data, parentElement, setStateValue } = component;
  let root = parentElement.querySelector(".explorer-stepper");
  const M = data.rounds;
  if (!root) {
    root = document.createElement("div");
    root.className = "explorer-stepper";
    root.setAttribute("role", "group");
    root.setAttribute("aria-label", "Round");
    root.innerHTML = `<span class="explorer-round" aria-live="polite"></span>`;
    const label = root.firstChild;
    for (const [name, aria, key, glyph] of BUTTONS) {
      const b = document.createElement("button");
      b.type = "button";
      b.dataset.go = name;
      b.setAttribute("aria-label", aria);
      b.title = `${aria} (${key})`;
      b.textContent = glyph;
      root.appendChild(b);
    }
    const slider = document.createElement("input");
    slider.type = "range";
    slider.min = "0";
    slider.step = "1";
    slider.setAttribute("aria-label", "Round m");
    root.insertBefore(slider, root.querySelector("[data-go=next]"));
    const play = document.createElement("button");
    play.type = "button";
    play.dataset.go = "play";
    root.appendChild(play);
    parentElement.appendChild(root);
    root.__state = { label, slider, play, timer: null, idle: null };
  }
  const s = root.__state;
  s.M = M;
  s.setStateValue = setStateValue;
  s.slider.max = String(M);
  const show = (m) => {
    s.m = m;
    s.slider.value = String(m);
    s.label.textContent = `Round ${m} / ${M}`;
    root.dataset.round = String(m);
  };
  // the link names the round on screen; written once it is drawn (replaceState takes a
  // few milliseconds here: not in the step's way)
  const link = () => {
    const url = new URL(window.location.href);
    if (s.m === 0) url.searchParams.delete("round"); else url.searchParams.set("round", s.m);
    window.history.replaceState(window.history.state, "", url);
  };
  const playing = (on) => {
    // Play draws every round, at most ten a second: the next step waits for the drawing
    s.timer = on ? (s.timer || {}) : null;
    if (on && !s.timer.running) {
      s.timer.running = true;
      (async () => {
        // rounds fall due every PLAY_MS from the start: a timer that fires late (the
        // browser was painting) shortens the next wait instead of slowing the play
        let due = performance.now();
        while (s.timer) {
          due += PLAY_MS;
          if (s.m + 1 > s.M) { s.playing(false); s.settle(); warmSoon(s.m, s.M); break; }
          s.show(s.m + 1);
          await follow(s.m, s.M, { rest: false });
          s.link();
          const now = performance.now();
          due = Math.max(due, now - PLAY_MS);  // charts slower than that: no rush after them
          await new Promise((r) => setTimeout(r, Math.max(0, due - now)));
        }
      })();
    }
    s.play.textContent = on ? "‖ Pause" : "▶ Play";  // glyphs every font has
    s.play.setAttribute("aria-label", on ? "Pause" : "Play");
    s.play.title = on ? "Pause" : "Play the rounds, ten a second at most";
  };
  const settle = () => {
    clearTimeout(s.idle);
    // where no chart follows the round here, the server draws them all: ask at once
    s.idle = setTimeout(() => {
      if (s.timer) return;
      s.seq = (s.seq || 0) + 1;
      s.setStateValue("round", { m: s.m, seq: s.seq });
    }, following().length ? IDLE_MS : 0);
  };
  const go = (m) => {
    if (m === null) { playing(false); settle(); return; }
    m = Math.max(0, Math.min(s.M, m));
    if (m === s.m) return;
    show(m);
    clearTimeout(s.idle);  // the pause is counted from the end of the drawing
    follow(m, s.M).then(() => { link(); settle(); });
  };
  // the handlers below are bound once: they reach this render's functions through s
  Object.assign(s, { go, show, link, playing, settle });
  if (!root.__bound) {
    root.__bound = true;
    root.addEventListener("click", (event) => {
      const name = event.target.closest("button")?.dataset.go;
      if (!name) return;
      if (name === "play") {
        const on = !s.timer;
        if (on && s.m >= s.M) s.go(0);
        s.playing(on);
        if (!on) { s.settle(); warmSoon(s.m, s.M); }  // Play draws no warm-up
        return;
      }
      s.playing(false);
      s.go({ first: 0, prev: s.m - 1, next: s.m + 1, last: s.M }[name]);
    });
    s.slider.addEventListener("input", () => { s.playing(false); s.go(Number(s.slider.value)); });
    // One keyboard handler for the page, this bar's: a bar of a page left behind drops its own
    document.removeEventListener("keydown", window.__explorerKeys);
    window.__explorerKeys = (event) => {
      const field = event.target?.closest?.("input, textarea, select, [contenteditable]");
      if (field && field !== s.slider) return;
      const to = { PageUp: s.m - 1, PageDown: s.m + 1, Home: 0, End: s.M }[event.key];
      if (to === undefined) return;
      event.preventDefault();
      s.playing(false);
      s.go(to);
    };
    document.addEventListener("keydown", window.__explorerKeys);
  }
  playing(Boolean(s.timer));
  // The server's round is news unless it is this bar's own (data.seq names the step that
  // set it): the first round, a click on a curve, a settings change that clamps it.
  if (s.m === undefined || data.seq < 0 || data.seq > (s.seq || 0)) {
    show(data.round);
    link();
    follow(data.round, M);
  }
}

export default function (component) {
  const { data } = component;
  if (data instanceof ArrayBuffer || ArrayBuffer.isView(data)) { keep(data); return; }
  window.__explorerRecordModule = data.module;
  window.__explorerTreeModule = data.tree;
  // fetched while the page settles, not at the first step (it is small, and cached)
  if (data.tree) treeViews().catch((error) => console.error("stepper:", error));
  bar(component);
}
