// The round bar, in the browser: first, previous, the slider, next, last and Play step
// through the rounds with no server round trip. A chart that follows the round came with
// its template, bindings and per-round tables (explorer/figures/bindings.py); at each step
// it is drawn at the new round from them and the fit's record (bindings.js, record.js).
// Once stepping rests for IDLE_MS the round goes to the server in one rerun, which brings
// the text panels and tables; the charts it sends are the same bytes as before, which
// Streamlit sends as a reference.
//
// The round has one holder at a time: this bar while stepping, the server's State once
// the rerun at rest has brought it there. The bar writes the link (?round=) as it steps;
// the server writes it at rest (explorer/app/store.py), and a run for a round the bar has
// since left keeps the bar's (holdLink).

const IDLE_MS = 300;
const PLAY_MS = 100;  // ten rounds a second
const HOLD_MS = 5000;  // a page link waits at most this long for the page's run
const STUCK_MS = 1000;  // a round sent and not run within this (no run going): session gone
const RECONNECT_MS = 500;  // after a reconnect, the frontend's own run, if any, starts within
const POLL_MS = 500;  // while the frontend is disconnected, the bar asks the server this often

// Served from the app's static folder with record.js and bindings.js (assets.py); the
// component's own script only loads this module, so that a rerun does not send it again.
import { decode } from "./record.js";
import { figureAt as boundFigure } from "./bindings.js";

// A fit's record comes once per fit from a record component, as bytes (the Compare page
// has two, the Sweep page up to 25); it is decoded when a chart first needs it. The last
// ones are kept, by name, up to RECORD_BYTES of records (a 5 x 5 sweep of 1,000 points and
// 500 rounds of depth 6 holds about 40 MB), the newest always.
const RECORDS = (window.__explorerRecords ||= new Map());
const RECORD_BYTES = 96 * 2 ** 20;

function record(key) {
  const held = RECORDS.get(key);
  if (!held) return null;
  if (!held.decoded) held.decoded = Promise.resolve(decode(held.bytes));
  return held.decoded;
}

function keep(bytes) {
  const view = bytes instanceof ArrayBuffer ? new Uint8Array(bytes)
    : new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const n = new DataView(view.buffer, view.byteOffset, view.byteLength).getUint32(0, true);
  const key = JSON.parse(new TextDecoder().decode(view.subarray(4, 4 + n))).key;
  const held = RECORDS.get(key);
  RECORDS.delete(key);  // (again) the newest
  RECORDS.set(key, held || { bytes: view.slice() });
  let total = 0;
  for (const kept of RECORDS.values()) total += kept.bytes.byteLength;
  for (const [old, kept] of RECORDS) {
    if (total <= RECORD_BYTES || old === key) break;
    RECORDS.delete(old);
    total -= kept.bytes.byteLength;
  }
}

// Charts that follow the round: component.js marks them (gd.__step)
function following() {
  return [...document.querySelectorAll(".explorer-chart")].filter(
    (gd) => gd.__step);
}

// Chart gd at round m: {data, layout}, built on the chart's own copy of the template's
// layout (gd.__base, made by component.js); tests (window.__explorerTest) also keep the
// figure built on the template as sent
async function figureAt(gd, m, drawn = false) {
  const step = gd.__step;
  const rec = step.record ? await record(step.record) : null;
  if (step.record && !rec) return null;  // the record is on its way: the next draw has it
  if (drawn && window.__explorerTest) {
    const sent = boundFigure(step, gd.__template, gd.__zero, rec, m,
                             structuredClone(gd.__template.layout));
    gd.__drawn = { data: sent.data, layout: structuredClone(sent.layout) };
  }
  return boundFigure(step, gd.__template, gd.__zero, rec, m, restored(gd));
}

// plotly.js writes the domain it gives an axis held square (scaleanchor) back into the
// layout it draws: the chart's copy gets the template's domains back before each draw, or
// a square panel would shrink at every step
function restored(gd) {
  const base = gd.__base, template = gd.__template.layout;
  for (const key of Object.keys(base)) {
    if (!/^[xy]axis\d*$/.test(key) || !base[key]) continue;
    const domain = template[key] && template[key].domain;
    if (domain) base[key].domain = [...domain]; else delete base[key].domain;
  }
  return base;
}

// A chart's draws run one after another (gd.__queue, which component.js's first draw
// joins too): the last one asked for is the one on screen.
function drawAt(gd, m) {
  gd.__queue = (gd.__queue || Promise.resolve()).then(async () => {
    const fig = await figureAt(gd, m, true);
    if (!fig) return;
    await window.Plotly.react(gd, fig.data, fig.layout);
    const names = gd.__step.filenames;
    const options = gd._context && gd._context.toImageButtonOptions;
    if (names && options) options.filename = names[m];  // the file names the round
  }).catch((error) => console.error("stepper:", error));
  return gd.__queue;
}

// Each chart redrawn once, at round m
async function redraw(m) {
  for (const gd of following()) await drawAt(gd, m);
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
    if (r < 0 || r > M) continue;
    for (const gd of following()) {
      if (ticket !== warmTicket) return;  // a step came
      // a chart Streamlit has since replaced still serves: the sizes are kept by text and
      // style, for every chart of the page
      await whenIdle(async () => {
        if (ticket !== warmTicket) return;
        const fig = await figureAt(gd, r);
        if (!fig || !(fig.layout.annotations || []).length) return;
        // the labels alone (no trace, no box, no title to be taken for the chart's), in a
        // chart out of sight, gone once measured
        const div = document.createElement("div");
        div.setAttribute("aria-hidden", "true");
        div.style.cssText = "position:fixed;left:-10000px;top:0;visibility:hidden";
        document.body.appendChild(div);
        try {
          await window.Plotly.newPlot(div, [], { ...fig.layout, title: { text: "" }, shapes: [],
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
      try { await redraw(r); } catch (error) { console.error("stepper:", error); }
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
    root.__state = { label, slider, play, timer: null, idle: null, root };
  }
  const s = root.__state;
  s.renders = (s.renders || 0) + 1;
  onReconnect(s);
  holdLink();
  s.M = M;
  s.setStateValue = setStateValue;
  s.slider.max = String(M);
  const show = (m) => {
    s.m = m;
    onScreen = m;
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
          s.unsent = true;
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
  const send = () => {
    clearTimeout(s.idle);
    s.unsent = false;
    s.awaiting = true;
    s.seq = (s.seq || 0) + 1;
    s.setStateValue("round", { m: s.m, seq: s.seq });
    if (s.reconnected) watchdog(s);
  };
  const settle = () => {
    clearTimeout(s.idle);
    // where no chart follows the round here, the server draws them all: ask at once
    s.idle = setTimeout(() => { if (!s.timer) send(); }, following().length ? IDLE_MS : 0);
  };
  const go = (m) => {
    if (m === null) { playing(false); settle(); return; }
    m = Math.max(0, Math.min(s.M, m));
    if (m === s.m) return;
    s.unsent = true;
    show(m);
    clearTimeout(s.idle);  // the pause is counted from the end of the drawing
    follow(m, s.M).then(() => { link(); settle(); });
  };
  // the handlers below are bound once: they reach this render's functions through s
  Object.assign(s, { go, show, link, playing, settle, send });
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
    // A link to another page followed while the page's run is going, or before the
    // server has the bar's round (the bar sends it when stepping rests, and a page change
    // carries none of the page's state): the round goes now, and the link is followed once
    // the run is over, at most HOLD_MS later (the rest of a run cut short by a page change
    // would land on the new page, and break it)
    document.removeEventListener("click", window.__explorerLinks, true);
    window.__explorerLinks = (event) => {
      const link = event.target?.closest?.("a[href]");
      if (!link || link === s.following) return;
      // only a link to another page of the app, in this tab
      if (link.origin !== location.origin || link.pathname === location.pathname
          || link.target === "_blank" || event.ctrlKey || event.metaKey || event.shiftKey
          || event.altKey) return;
      const app = document.querySelector("[data-testid=stApp]");
      if (!app) return;  // the lesson file: no server to wait for
      const busy = () => s.unsent || s.awaiting || app.dataset.testScriptState === "running";
      if (!busy()) return;
      event.preventDefault();
      event.stopImmediatePropagation();
      s.playing(false);
      if (s.unsent) s.send();
      const waiting = s.held;
      s.held = link;  // the last link clicked is the one followed
      if (waiting) return;
      const given = performance.now() + HOLD_MS;
      const tick = () => {
        if (busy() && performance.now() < given) { setTimeout(tick, 50); return; }
        // the run may have drawn the links anew: the one clicked, or its copy now on the page
        const { href } = s.held;
        const now = s.held.isConnected ? s.held
          : [...document.querySelectorAll("a[href]")].find((a) => a.href === href);
        s.held = null;
        if (!now) { location.assign(href); return; }
        s.following = now;
        now.click();
        s.following = null;
      };
      setTimeout(tick, 50);
    };
    document.addEventListener("click", window.__explorerLinks, true);
  }
  playing(Boolean(s.timer));
  if (data.seq < 0 || data.seq >= (s.seq || 0)) {  // a run has the round: its session lives
    s.awaiting = false;
    s.reconnected = false;
  }
  // The server's round is news unless it is this bar's own (data.seq names the step that
  // set it): the first round, a click on a curve, a settings change that clamps it.
  if (s.m === undefined || data.seq < 0 || data.seq > (s.seq || 0)) {
    show(data.round);
    link();
    follow(data.round, M);
  }
}

// A server process that dies (deploy/README.md): Streamlit's frontend reconnects, through
// the proxy, to a living process (or to the same one started again) within a second, but
// its session is not there. The new session drops a rerun of a fragment it never ran (a
// page's body is one, the bar's rerun at rest too), and the frontend asks for a full run
// only when its last run was a fragment's: the page would look alive and be dead. So
// after a reconnect the bar sends its round, and a round sent that no run takes up within
// STUCK_MS, while the frontend is connected and runs nothing, means the session is gone:
// the page is loaded again at its link, which holds the whole view (the bar wrote the
// round), once the server answers. A session that came back (a network blip) runs it.
// Only after a reconnect, until a run takes up a round: on the connection the page opened,
// the session cannot be gone, and a server slow to start the run (a loaded machine's)
// must not cost a reload: 1.5 s there reloaded the page at the step, losing a key pressed
// meanwhile.
function watchdog(s) {
  const seq = s.seq;
  const check = async () => {
    // answered, or gone, or a run has taken up a round since the reconnect
    if (!s.awaiting || s.seq !== seq || !s.root.isConnected || !s.reconnected) return;
    const app = document.querySelector("[data-testid=stApp]");
    let healthy = false;
    if (app?.dataset.testScriptState === "notRunning"
        && app.dataset.testConnectionState === "CONNECTED") {
      try {
        healthy = (await fetch("_stcore/health", { cache: "no-store" })).ok;
      } catch { /* not yet: the next check */ }
    }
    // (still nothing running: a run that had only been slow to start has begun by now)
    if (healthy && s.awaiting && s.seq === seq && app.dataset.testScriptState === "notRunning")
      location.reload();
    else setTimeout(check, STUCK_MS);
  };
  setTimeout(check, STUCK_MS);
}

// While the frontend is disconnected, its pings to the server back off to 4 s apart
// (Streamlit 1.67: 100 ms doubling, x 0.7-1), so a process started again can answer for
// seconds before the frontend asks (the restart in deploy/README.md). The bar asks every
// POLL_MS as well. Once the server answers and an address this page fetched from it (a
// chart's figure or tables, kept in the process's memory: app/blobs.py) is not found
// there, the process is a new one and the session is gone: the page is loaded again at
// its link at once. A server that still has it (a network blip: the same process, with
// the session and its upload) is left to the frontend's own reconnect.
function awaitServer(app) {
  const kept = [...document.querySelectorAll(".explorer-chart")]
    .map((gd) => gd.__sent?.[1] || gd.__step?.src).find(Boolean);
  if (!kept) return;  // nothing to tell a new process by: the frontend and the watchdog
  const poll = async () => {
    if (app.dataset.testConnectionState === "CONNECTED") return;
    let gone = false;
    try {
      if ((await fetch("_stcore/health", { cache: "no-store" })).ok)
        gone = (await fetch(kept, { method: "HEAD", cache: "no-store" })).status === 404;
    } catch { /* not yet: the next poll */ }
    if (gone && app.dataset.testConnectionState !== "CONNECTED") location.reload();
    else setTimeout(poll, POLL_MS);
  };
  setTimeout(poll, POLL_MS);
}

// The frontend writes into the link the query that each run names (pushState, or
// replaceState). A run for a round the bar has since stepped past ends with that older
// round: while the bar holds the round (a step not yet sent, or not yet run), the link
// keeps the bar's, and an entry that would only name the older round is not added to the
// history (the Back button went to it). Once the run of the bar's last step is over, the
// server's State holds the round, and the run's link is the bar's.
function holdLink() {
  if (window.__explorerHistory) return;
  window.__explorerHistory = true;
  for (const name of ["pushState", "replaceState"]) {
    if (typeof window.history[name] !== "function") continue;  // the notebook's: none
    const write = window.history[name].bind(window.history);
    window.history[name] = (state, unused, url) => {
      const s = barOnScreen;
      if (url == null || !s || !(s.unsent || s.awaiting) || !s.root.isConnected)
        return write(state, unused, url);
      const to = new URL(url, window.location.href);
      if (to.pathname !== window.location.pathname) return write(state, unused, url);
      if (s.m === 0) to.searchParams.delete("round"); else to.searchParams.set("round", s.m);
      if (to.href === window.location.href && name === "pushState") return undefined;
      return write(state, unused, to.href);
    };
  }
}

// Each reconnect (the app's connection state back to CONNECTED): the bar's round is sent
// unless a run has redrawn the bar meanwhile (the frontend reran the page itself).
let barOnScreen;
function onReconnect(s) {
  barOnScreen = s;
  const app = document.querySelector("[data-testid=stApp]");
  if (!app || app.__explorerWatched) return;
  app.__explorerWatched = true;
  let state = app.dataset.testConnectionState;
  new MutationObserver(() => {
    const was = state;
    state = app.dataset.testConnectionState;
    const bar = barOnScreen;
    if (was === "CONNECTED" && state !== "CONNECTED") awaitServer(app);
    if (state !== "CONNECTED" || was === "CONNECTED" || !bar) return;
    bar.reconnected = true;  // the session may be gone: the watchdog looks (until a run)
    const renders = bar.renders;
    setTimeout(() => {
      if (bar.root.isConnected && (bar.renders === renders || bar.awaiting)) bar.send();
    }, RECONNECT_MS);
  }).observe(app, { attributes: true, attributeFilter: ["data-test-connection-state"] });
}

export default function (component) {
  const { data } = component;
  if (data instanceof ArrayBuffer || ArrayBuffer.isView(data)) { keep(data); return; }
  bar(component);
}

// The round on screen: this bar's, while it steps (the one holder of the round then)
let onScreen;

// A chart that follows the round, mounted or given a new template (component.js): its
// figure and file name at the bar's round, or null before the bar has one (it draws its
// template)
window.__explorerFigureAt = async (gd) => {
  if (onScreen === undefined) return null;
  const figure = await figureAt(gd, onScreen, true);
  return figure && { figure, filename: gd.__step.filenames?.[onScreen] };
};
