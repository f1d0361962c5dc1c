// The Tree page's three views of tree m, drawn in the browser from the fit's record
// (record.js): its regions on the plane, the update F_(m-1) + nu * tree m = F_m, and the
// tree as a diagram. Each is the figure the server's function draws (explorer/figures/
// plane.py tree_regions and update_panels, charts.py tree_diagram), built from the last
// figure the server sent for the chart (gd.__figure) with this round's numbers, then laid
// out by the same rule (theme.py arrange). Numbers print as Python's num / signed print
// them, colours are sampled as plotly's sample_colorscale samples them.

const BIG = 1e6;  // theme.BIG: any displayed magnitude is clipped to this
const LABEL = "label";  // theme.LABEL: a data label the layout rule may leave out
const CHART_MIN_WIDTH = 370, CHAR_EM = 0.47, LINE_EM = 1.3, FONT_SIZE = 15;  // theme.py
const f32 = Math.fround;

// --- numbers and colours as Python prints them ------------------------------------------

export function finite(x) {
  return Number.isNaN(x) ? 0 : Math.min(Math.max(x, -BIG), BIG);
}

// Python's round(): halves to even
function pyRound(x) {
  const f = Math.floor(x);
  return x - f === 0.5 ? (f % 2 === 0 ? f : f + 1) : Math.round(x);
}

// f"{x:.{digits}g}" (theme.num): exact decimal digits, rounded half to even
export function num(x, digits = 4) {
  x = finite(Number(x));
  if (x === 0) return "0";
  const [mantissa, power] = Math.abs(x).toExponential(99).split("e");
  const all = mantissa.replace(".", "");
  let e = Number(power);
  const kept = Array.from(all.slice(0, digits), Number);
  const next = all.charCodeAt(digits) - 48;
  const tail = /[1-9]/.test(all.slice(digits + 1));
  if (next > 5 || (next === 5 && (tail || kept[digits - 1] % 2 === 1))) {
    let i = digits - 1;
    while (i >= 0 && kept[i] === 9) kept[i--] = 0;
    if (i < 0) { kept.unshift(1); kept.pop(); e += 1; } else kept[i] += 1;
  }
  const strip = (s) => (s.includes(".") ? s.replace(/0+$/, "").replace(/\.$/, "") : s);
  const d = kept.join("");
  let s;
  if (e >= -4 && e < digits) {
    s = strip(e >= 0 ? d.slice(0, e + 1) + "." + d.slice(e + 1) : "0." + "0".repeat(-e - 1) + d);
  } else {
    s = strip(d[0] + "." + d.slice(1)) + "e" + (e < 0 ? "-" : "+")
      + String(Math.abs(e)).padStart(2, "0");
  }
  return (x < 0 ? "-" : "") + s;
}

export function signed(x, digits = 3) {
  const s = num(x, digits);
  return s.startsWith("-") || s === "0" ? s : "+" + s;
}

// plotly.colors.sample_colorscale(scale, [point])[0] for a scale of [position, "#rrggbb"]
export function sampleColor(scale, point) {
  const pos = scale.map((s) => s[0]);
  const cols = scale.map(([, hex]) => [1, 3, 5].map(
    (i) => parseInt(hex.slice(i, i + 2), 16) / 255.0));
  let high = pos.findIndex((p) => p >= point);  // bisect_left
  if (high < 0) high = pos.length;
  const at = (a, i) => a[i < 0 ? a.length + i : i];  // Python's negative indices
  const t = (point - at(pos, high - 1)) / (at(pos, high) - at(pos, high - 1));
  const lo = at(cols, high - 1), hi = at(cols, high);
  const byte = (c) => {  // Decimal(str(c * 255.0)).quantize(1, ROUND_HALF_EVEN)
    const v = c * 255.0;
    return /\.5$/.test(String(v)) ? pyRound(v) : Math.round(v);
  };
  return `rgb(${[0, 1, 2].map((i) => byte(lo[i] + t * (hi[i] - lo[i]))).join(", ")})`;
}

// --- the layout rule (theme.arrange), as the Tree page's figures use it -----------------

const TAG = /<[^>]*>/g, BREAK = /<br\s*\/?>/gi, CLAUSE = /(?<=[:;,])\s+|\s+(?=\()/;

export function textWidth(text, size) {
  const shown = text.replace(TAG, "").replace(/&(#\d+|#x[0-9a-f]+|[a-z][a-z0-9]*);/gi, "x");
  return [...shown].length * CHAR_EM * size;
}

export function wrap(text, size, room) {
  text = (text || "").replace(BREAK, " ").trim();
  if (textWidth(text, size) <= room) return text;
  const lines = [];
  let line = "";
  for (const clause of text.split(CLAUSE)) {
    for (const piece of (textWidth(clause, size) <= room ? [clause] : clause.split(" "))) {
      let joined = line ? `${line} ${piece}` : piece;
      if (line && textWidth(joined, size) > room) { lines.push(line); joined = piece; }
      line = joined;
    }
  }
  return [...lines, line].join("<br>");
}

const isDict = (v) => v !== null && typeof v === "object" && !Array.isArray(v);
const lineCount = (text) => (text ? (text.match(BREAK) || []).length + 1 : 0);
const span = (domain) => { const [a, b] = domain || [0, 1]; return b - a; };
function fontOf(node, fallback) {
  const f = isDict(node) ? node.font : null;
  return isDict(f) ? Number(f.size || fallback) : fallback;
}
function axesOf(layout, letter) {
  const re = new RegExp(`^${letter}axis\\d*$`);
  return Object.entries(layout).filter(([key, v]) => re.test(key) && isDict(v)).map(([, v]) => v);
}
function titleText(node) {
  const t = isDict(node) ? node.title : null;
  return isDict(t) ? t.text || "" : t || "";
}

export function arrange(spec) {
  const layout = spec.layout, data = spec.data || [];
  const meta = isDict(layout.meta) ? layout.meta : {};
  const margin = { ...(layout.margin || {}) };
  const own = meta.layout_rule || { t: margin.t ?? 56, b: margin.b ?? 10,
                                    height: layout.height || 450, plot: null, scale: 1.0 };
  const k = Number(own.scale);
  const W = Number(layout.width || CHART_MIN_WIDTH * k);
  const fs = fontOf(layout, FONT_SIZE);
  const side = 10 * k + ((margin.l ?? 10) + (margin.r ?? 10));
  let extraTop = 0;
  const title = layout.title;
  if (isDict(title) && title.text) {
    const tfs = fontOf(title, fs);
    title.text = wrap(title.text, tfs, W - side);
    const lines = Math.max(1, lineCount(title.text));
    const shift = lines > 1 ? 0.9 * tfs : 0.0;
    extraTop += (lines - 1) * tfs * LINE_EM + shift / 4;
    Object.assign(title, { y: 1.0, yref: "container", yanchor: "top",
                           pad: { t: pyRound(10 * k + shift), b: 0, l: pyRound(10 * k), r: 0 } });
  }
  const t = pyRound(own.t * k + extraTop);
  const ys = Object.fromEntries(Object.entries(layout).filter(
    ([key, v]) => /^yaxis\d*$/.test(key) && isDict(v)));
  let xs = axesOf(layout, "x");
  if (!xs.length && data.length) xs = [{}];
  const bottomOf = (axis) => {
    const anchor = axis.anchor ?? "y";
    const dom = anchor[0] === "y" ? (ys["yaxis" + anchor.slice(1)] || {}).domain : null;
    return (dom || [0.0, 1.0])[0];
  };
  const lowest = xs.length ? Math.min(...xs.map(bottomOf)) : 0.0;
  let below = 0.0;
  for (const axis of xs) {
    if (axis.visible === false || bottomOf(axis) > lowest + 1e-9 || axis.side === "top") continue;
    const room = (W - side - 60 * k) * span(axis.domain);
    let here = 0.0;
    if (axis.showticklabels ?? true) here += 9 * k + fontOf({ font: axis.tickfont }, fs) * LINE_EM;
    const text = titleText(axis);
    if (text && isDict(axis.title)) {
      const tfs = fontOf(axis.title, fs);
      axis.title.text = wrap(text, tfs, room);
      here += 14 * k + lineCount(axis.title.text) * tfs * LINE_EM;
    }
    below = Math.max(below, here);
  }
  const stack = [];
  const bars = [
    ...Object.entries(layout).filter(([key, v]) => key.startsWith("coloraxis") && isDict(v))
      .map(([, v]) => v.colorbar),
    ...data.map((tr) => tr.colorbar),
    ...data.filter((tr) => isDict(tr.marker)).map((tr) => tr.marker.colorbar)];
  for (const bar of bars.filter((b) => isDict(b) && b.orientation === "h")) {
    bar.title = bar.title || {};
    bar.title.side = "top";
    const barFs = fontOf({ font: bar.tickfont }, fs);
    stack.push([bar, fontOf(bar.title, fs) * LINE_EM + (bar.thickness ?? 30) + 8 * k
                     + barFs * LINE_EM]);
  }
  layout.legend = layout.legend || {};
  const legend = layout.legend;
  const entries = data.filter((tr) => tr.showlegend !== false && tr.visible !== false
    && ["scatter", "scattergl", "bar"].includes(tr.type ?? "scatter")).map((tr) => tr.name || "");
  const shown = entries.length > 1 || data.some((tr) => tr.showlegend === true);
  if ((layout.showlegend ?? shown) && entries.length) {
    const lfs = fontOf(legend, fs);
    const widths = entries.map((name) => 40 * k + textWidth(name, lfs));
    const room = W - side;
    let rows = 1;
    if (widths.reduce((a, b) => a + b, 0) > room) {
      rows = Math.ceil(widths.length / Math.max(1, Math.floor(room / Math.max(...widths))));
    }
    stack.push([legend, rows * lfs * LINE_EM * 1.15 + 10 * k]);
  }
  const grow = k !== 1.0 && own.plot !== null ? 1.0 + (k - 1.0) / 2 : 1.0;
  const gap = 12 * k;
  const needed = grow * (below + stack.reduce((a, [, h]) => a + gap + h, 0)) + 8 * k;
  const b = pyRound(Math.max(own.b * k, needed));
  let H = grow !== 1.0 ? own.plot * grow + t + b : Number(own.height);
  let plot = Math.max(H - t - b, 1.0);
  const titled = Object.values(ys)
    .filter((a) => titleText(a) && isDict(a.title) && a.visible !== false)
    .map((a) => [a, fontOf(a.title, fs), titleText(a)]);
  const tallest = Math.max(0.0, ...titled.map(([a, tfs, text]) => (Math.max(
    ...text.replace(BREAK, " ").split(/\s+/).filter(Boolean).map((w) => textWidth(w, tfs))) + 8 * k)
    / span(a.domain)));
  if (plot < tallest) { H += tallest - plot; plot = tallest; }
  let offset = below + gap;
  for (const [thing, h] of stack) {
    Object.assign(thing, { y: -grow * offset / plot, yanchor: "top" });
    offset += h + gap;
  }
  Object.assign(legend, { orientation: "h", x: 0.0, xanchor: "left" });
  for (const [axis, tfs, text] of titled) {
    axis.title.text = wrap(text, tfs, plot * span(axis.domain) - 8 * k);
  }
  const coloured = Object.keys(layout).some((key) => key.startsWith("coloraxis")) || data.some(
    (tr) => tr.type === "heatmap" || (isDict(tr.marker) && "colorbar" in tr.marker));
  leaveOutCrowdedLabels(layout, W - side - (coloured ? 90 * k : 0.0), plot, k, fs);
  layout.margin = { ...margin, t, b };
  layout.height = pyRound(H);
  layout.meta = { ...meta, layout_rule: { ...own, plot: own.plot ?? plot, scale: k } };
  return spec;
}

function leaveOutCrowdedLabels(layout, width, plot, k, fs) {
  const kept = {};
  for (const note of layout.annotations || []) {
    // theme.is_label: named LABEL, or LABEL:<what it labels>
    if (!isDict(note) || !(note.name === LABEL || String(note.name).startsWith(`${LABEL}:`))) {
      continue;
    }
    const xref = note.xref ?? "x", yref = note.yref ?? "y";
    const xa = layout["xaxis" + xref.slice(1)] || {}, ya = layout["yaxis" + yref.slice(1)] || {};
    if (!(xa.range && ya.range)) continue;
    const [x0, x1] = xa.range, [y0, y1] = ya.range;
    let sx = (width - 60 * k) * span(xa.domain) / (x1 - x0);
    let sy = plot * span(ya.domain) / (y1 - y0);
    if (ya.scaleanchor) sx = sy = Math.min(sx, sy);
    const size = fontOf(note, fs);
    const lines = (note.text || "").split(BREAK);
    const pad = 2 * ((note.borderpad ?? 1) + (note.borderwidth ?? 1)) + 2 * k;
    const w = Math.max(...lines.map((line) => textWidth(line, size))) + pad;
    const h = lines.length * size * LINE_EM + pad;
    const cx = (note.x - x0) * sx + (note.xshift ?? 0);
    const cy = (note.y - y0) * sy + (note.yshift ?? 0);
    const box = [cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2];
    const others = (kept[xref + "," + yref] ||= []);
    const crowded = others.some(
      (o) => box[0] < o[2] && o[0] < box[2] && box[1] < o[3] && o[1] < box[3]);
    note.opacity = crowded ? 0.0 : 1.0;
    if (!crowded) others.push(box);
  }
}

// --- the views ----------------------------------------------------------------------------

function fill(template, m, extra = {}) {
  let text = template.replaceAll("{m1}", String(m + 1)).replaceAll("{m0}", String(m - 1))
    .replaceAll("{m}", String(m));
  for (const [key, value] of Object.entries(extra)) {
    text = text.replaceAll(`{${key}}`, String(value));
  }
  return text;
}

// tree m's nodes: a view of the record's arrays, and each node's numbers
function treeOf(rec, m) {
  const base = rec.a.offsets[m - 1], count = rec.a.offsets[m] - base;
  const at = (name) => (k) => rec.a[name][base + k];
  return { base, count, left: at("left"), right: at("right"), feature: at("feature"),
           threshold: at("threshold"), value: (k) => finite(rec.a.value[base + k]),
           n: at("count"), sumR: at("sum_r"), sumH: at("sum_h"), improvement: at("improvement"),
           depth: at("depth") };
}

// summaries.resolve_leaf: the leaf selected, if tree m has it, else the sample's leaf
function leafAt(rec, tree, m, meta) {
  if (meta.leaf >= 0 && meta.leaf < tree.count && tree.left(meta.leaf) < 0) return meta.leaf;
  const i = Math.min(Math.max(meta.sample, 0), rec.n - 1), d = rec.features;
  return rec.leaf(m, rec.a.X[i * d], d > 1 ? rec.a.X[i * d + 1] : 0);
}

function leafRange(tree) {
  let vmax = 0;
  for (let k = 0; k < tree.count; k++) {
    if (tree.left(k) < 0) vmax = Math.max(vmax, Math.abs(tree.value(k)));
  }
  return vmax;
}

// trace.regions: each leaf's box on the plane lo..hi, by node id
function boxes(tree, lo, hi) {
  const out = [], stack = [[0, lo[0], hi[0], lo[1], hi[1]]];
  while (stack.length) {
    const [k, x0, x1, y0, y1] = stack.pop();
    if (tree.left(k) === -1) { out.push([k, x0, x1, y0, y1]); continue; }
    const t = tree.threshold(k);
    if (tree.feature(k) === 0) {
      stack.push([tree.right(k), Math.max(x0, t), x1, y0, y1],
                 [tree.left(k), x0, Math.min(x1, t), y0, y1]);
    } else {
      stack.push([tree.right(k), x0, x1, Math.max(y0, t), y1],
                 [tree.left(k), x0, x1, y0, Math.min(y1, t)]);
    }
  }
  return out.sort((a, b) => a[0] - b[0]);
}

function regions(fig, rec, m, meta) {
  const tree = treeOf(rec, m), leaf = leafAt(rec, tree, m, meta);
  const vmax = Math.max(finite(leafRange(tree)), 1e-12);
  const shown = boxes(tree, meta.lo, meta.hi).filter(([, x0, x1, y0, y1]) => x1 > x0 && y1 > y0);
  const textSize = shown.length <= 8 ? 16 : shown.length <= 20 ? 13 : 11;
  const shapes = [], notes = [];
  let selected = null;
  for (const [node, x0, x1, y0, y1] of shown) {
    const g = tree.value(node);
    // (g - lo) / (hi - lo) on [-vmax, vmax], as plotly places the marker colours
    const at = Math.min(Math.max((g + vmax) / (vmax + vmax), 0.0), 1.0);
    const fillcolor = sampleColor(meta.scale, at);
    shapes.push({ type: "rect", x0, x1, y0, y1, layer: "below", fillcolor, opacity: 0.6,
                  line: { color: "white", width: 2 } });
    if (shown.length <= 40) {
      notes.push({ x: (x0 + x1) / 2, y: (y0 + y1) / 2, text: `γ = ${signed(g)}`,
                   showarrow: false, name: `${LABEL}:${node}`,
                   font: { size: textSize, color: meta.ink },
                   bgcolor: "rgba(255,255,255,0.85)",
                   bordercolor: node === leaf ? meta.ink : "rgba(0,0,0,0)",
                   borderwidth: node === leaf ? 2 : 0, borderpad: 3,
                   hovertext: `leaf ${node} (click to select)<br>n = ${tree.n(node)}`
                     + `<br>γ = ${num(g, 6)}<br>ν·γ = ${num(rec.nu * g, 6)}`,
                   captureevents: true });
    }
    if (node === leaf) {
      selected = { type: "rect", x0, x1, y0, y1, layer: "above", fillcolor: "rgba(0,0,0,0)",
                   line: { color: meta.ink, width: 4 } };
    }
  }
  if (selected) shapes.push(selected);
  // as many boxes and labels as the server's figure holds at every round (summaries.most_leaves)
  const clear = "rgba(0,0,0,0)";
  while (shapes.length < meta.slots + 1) {
    shapes.push({ type: "rect", x0: 0, x1: 0, y0: 0, y1: 0, layer: "below", fillcolor: clear,
                  opacity: 0, line: { color: clear, width: 0 } });
  }
  while (notes.length < meta.slots) {
    notes.push({ x: 0, y: 0, text: " ", showarrow: false, opacity: 0 });
  }
  const data = fig.data;
  const groups = rec.classifier ? 2 : 1;
  if (rec.a.bag) {  // this round's subsample: each group's in-bag points, then the rest
    const row = Math.ceil(rec.n / 8) * m, X = rec.a.X, d = rec.features;
    const inBag = (i) => (rec.a.bag[row + (i >> 3)] >> (i & 7)) & 1;
    const points = (keep) => {
      const idx = [];
      for (let i = 0; i < rec.n; i++) if (keep(i)) idx.push(i);
      return { x: Float32Array.from(idx, (i) => X[i * d]),
               y: Float32Array.from(idx, (i) => X[i * d + 1]),
               customdata: idx.map((i) => [-1 - i, i]) };
    };
    for (let c = 0; c < groups; c++) {
      Object.assign(data[c], points((i) => inBag(i) && (groups === 1 || rec.a.y[i] === c)));
    }
    Object.assign(data[groups], points((i) => !inBag(i)), { name: `not in tree ${m}'s subsample` });
  }
  const bar = data[groups + (rec.a.bag ? 1 : 0)];  // plane.bar_title
  bar.marker = { ...bar.marker, colorbar: { ...bar.marker.colorbar, title: {
    ...bar.marker.colorbar.title, text: `leaf value γ (max |γ| = ${num(vmax, 3)})` } } };
  Object.assign(fig.layout, { shapes, annotations: notes });
  fig.layout.title.text = fill(meta.title, m, { n: shown.length });
  return fig;
}

function update(fig, rec, m, meta, boundaryLines) {
  const xs = rec.a.xs, ys = rec.a.ys, nx = xs.length, ny = ys.length;
  const clip = (F) => Float32Array.from(F, (v) => finite(v));  // finite, then float32
  const before = clip(rec.gridF(m - 1)), after = clip(rec.gridF(m));
  const tree = treeOf(rec, m);
  const step = new Float64Array(nx * ny);  // grid.tree_on_grid: nu * gamma, in float64
  for (let i = 0; i < ny; i++) {
    for (let j = 0; j < nx; j++) {
      const node = rec.leaf(m, f32(xs[j]), f32(ys[i]));
      step[i * nx + j] = finite(rec.nu * rec.a.value[tree.base + node]);
    }
  }
  const absMax = (a) => a.reduce((top, v) => Math.max(top, Math.abs(v)), 0);
  const fmax = Math.max(absMax(before), absMax(after), 0.5), smax = Math.max(absMax(step), 1e-9);
  const rows = (F) => {  // float32 rows, as the server sends them (and plotly.js takes fastest)
    const f = Float32Array.from(F);
    return Array.from({ length: ny }, (_, i) => f.subarray(i * nx, (i + 1) * nx));
  };
  const maps = [before, step, after];
  let k = 0;
  for (const trace of fig.data) {
    if (trace.type === "heatmap") {
      trace.z = rows(maps[k++]);
    } else {  // the boundary F = 0 of the map before it
      [trace.x, trace.y] = boundaryLines(Array.from(xs), Array.from(ys), maps[k - 1]);
    }
  }
  const layout = fig.layout;
  Object.assign(layout.coloraxis, { cmin: -fmax, cmax: fmax });
  Object.assign(layout.coloraxis2, { cmin: -smax, cmax: smax });
  meta.panels.forEach((text, j) => { layout.annotations[j].text = fill(text, m); });
  layout.title.text = fill(meta.title, m);
  return fig;
}

// charts._tree_layout: leaves evenly spaced left to right, parents centred
function positions(tree) {
  const x = new Float64Array(tree.count);
  let nextLeaf = 0.0;
  const stack = [[0, false]];
  while (stack.length) {
    const [k, done] = stack.pop();
    if (tree.left(k) < 0) { x[k] = nextLeaf; nextLeaf += 1.0; }
    else if (done) x[k] = (x[tree.left(k)] + x[tree.right(k)]) / 2;
    else stack.push([k, true], [tree.right(k), false], [tree.left(k), false]);
  }
  return x;
}

function diagram(fig, rec, m, meta) {
  const tree = treeOf(rec, m), leaf = leafAt(rec, tree, m, meta);
  const x = positions(tree), depth = Array.from({ length: tree.count }, (_, k) => tree.depth(k));
  let leaves = 0;
  for (let k = 0; k < tree.count; k++) if (tree.left(k) < 0) leaves++;
  const compact = leaves > 8, tiny = leaves > 20;
  const vmax = Math.max(leafRange(tree), 1e-12);
  const ex = [], ey = [], notes = [];
  const fontSize = !compact ? 13 : !tiny ? 11 : 9;
  for (let k = 0; k < tree.count; k++) {
    const n = tree.n(k), sr = num(tree.sumR(k)), sh = num(tree.sumH(k));
    let text, bg, border, bw;
    if (tree.left(k) >= 0) {
      const left = tree.left(k), right = tree.right(k);
      for (const child of [left, right]) {
        ex.push(x[k], x[child], null);
        ey.push(-depth[k], -depth[child], null);
      }
      const split = `<b>${meta.names[tree.feature(k)]} ≤ ${num(tree.threshold(k), 4)}</b>`;
      text = tiny ? split : compact ? `${split}<br>n=${n}`
        : `${split}<br>n = ${n}<br>Σr = ${sr}<br>Σh = ${sh}`
          + `<br>improvement ${num(tree.improvement(k), 3)}`;
      [bg, border, bw] = ["#ffffff", "#9aa3ad", 1];
      if (!tiny) {
        for (const [child, word] of [[left, "yes"], [right, "no"]]) {
          notes.push({ x: (x[k] + x[child]) / 2, y: -(depth[k] + depth[child]) / 2, text: word,
                       showarrow: false, bgcolor: "white", font: { size: 12, color: meta.muted } });
        }
      }
    } else {
      const g = tree.value(k);
      text = tiny ? `<b>${signed(g, 2)}</b>` : compact ? `n=${n}<br><b>γ=${signed(g, 3)}</b>`
        : `leaf ${k}<br>n = ${n}<br>Σr = ${sr}<br>Σh = ${sh}<br><b>γ = ${signed(g, 4)}</b>`;
      bg = sampleColor(meta.scale, 0.5 + 0.3 * g / vmax);
      [border, bw] = k === leaf ? [meta.ink, 3] : ["#9aa3ad", 1];
    }
    notes.push({ x: x[k], y: -depth[k], text, showarrow: false, align: "center",
                 font: { size: fontSize, color: meta.ink }, bgcolor: bg, bordercolor: border,
                 borderwidth: bw, borderpad: 5 });
  }
  const [edges, marks] = fig.data;
  Object.assign(edges, { x: ex, y: ey });
  Object.assign(marks, {
    x: Array.from(x), y: depth.map((d) => -d),
    customdata: depth.map((_, k) => [k, tree.left(k) < 0 ? 1 : 0]),
    hovertext: depth.map((_, k) => (tree.left(k) < 0 ? `leaf ${k}: click to select` : `node ${k}`)),
  });
  const maxDepth = Math.max(...depth);
  const height = Math.trunc(190 + (!compact ? 150 : 110) * maxDepth);
  const layout = fig.layout, spanX = Math.max(leaves - 1, 1);
  Object.assign(layout, { annotations: notes, height });
  layout.meta.layout_rule.height = height;
  layout.xaxis.range = leaves > 1 ? [-0.7, spanX + 0.7] : [-1, 1];
  layout.yaxis.range = [-maxDepth - 0.5, 0.5];
  layout.title.text = fill(meta.title, m);
  return fig;
}

const VIEWS = { regions, update, diagram };

// The figure of ``meta.view`` at round m: the server's figure ``base`` (left as it is)
// with round m's numbers, laid out; round 0's is the server's message. Given the chart on
// screen (``screen``: plotly.js's data and layout), the figure shares every part that
// stays the same with it (share).
export function draw(base, rec, m, meta, boundaryLines, screen = null) {
  const fig = m < 1 ? structuredClone(meta.zero) : structuredClone(base);
  fig.layout.meta = { ...(fig.layout.meta || {}) };
  if (m >= 1) {
    fig.layout.meta.layout_rule = { ...fig.layout.meta.layout_rule, plot: null };
    VIEWS[meta.view](fig, rec, m, meta, boundaryLines);
    arrange(fig);
  }
  fig.layout.meta.step = meta;
  return screen ? { data: share(fig.data, screen.data), layout: share(fig.layout, screen.layout) }
    : fig;
}

// ``value``, with each part equal to the same part of ``old`` replaced by that part. plotly.js
// compares data arrays, and some parts of a layout (its template, its meta), by identity: a
// new copy, however equal, recomputes and redraws every trace. Shared, a step that changes
// only the layout (the regions' boxes and labels) redraws only them.
function share(value, old) {
  if (value === old || old === undefined || old === null) return value;
  const listed = (v) => Array.isArray(v) || ArrayBuffer.isView(v);
  if (listed(value) && listed(old)) {
    if (value.length !== old.length) return value;
    if (ArrayBuffer.isView(value) || typeof value[0] !== "object") {  // numbers: no parts
      for (let i = 0; i < value.length; i++) if (value[i] !== old[i]) return value;
      return old;
    }
    const parts = Array.from(value, (v, i) => share(v, old[i]));
    return parts.every((v, i) => v === old[i]) ? old : parts;
  }
  if (isDict(value) && isDict(old)) {
    const parts = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, share(v, old[k])]));
    // an axis's "type": plotly.js writes the type it infers into the layout it is given
    const same = Object.keys(old).every((k) => k in parts || k === "type")
      && Object.entries(parts).every(([k, v]) => v === old[k]);
    return same ? old : parts;
  }
  return value;
}
