// A chart at round m, from its template, its bindings and its per-round tables
// (explorer/figures/bindings.py makes all three; its `apply` is this file in Python).
//
// Nothing here decides what a chart shows: a bound property takes either the value
// Python stored for that round (a table) or a term the record computes with the
// engine's arithmetic (record.js). Unbound parts are the template's own objects, so
// plotly.js finds them unchanged and redraws only what the round changed.

import { bytes, shaped } from "./arrays.js";
import { unpack } from "./record.js";

const TYPED = { float32: Float32Array, float64: Float64Array };

// The tables of a chart (base64 of record.py's pack), decoded once per payload
const decodedTables = new Map();
export function tables(text) {
  let found = decodedTables.get(text);
  if (!found) {
    const [header, arrays] = unpack(bytes(text));
    found = { header, arrays: Object.keys(arrays).map((i) => arrays[i]) };
    if (decodedTables.size > 32) decodedTables.clear();
    decodedTables.set(text, found);
  }
  return found;
}

// A stored value with its arrays back: numbers in binary (maybe as a dictionary and
// codes), long lists of strings as words and codes
function decodeValue(value, arrays) {
  if (Array.isArray(value)) return value.map((v) => decodeValue(v, arrays));
  if (value === null || typeof value !== "object") return value;
  if (!("$" in value)) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, decodeValue(v, arrays)]));
  }
  const codes = arrays[value.$];
  if (value.words) {
    const flat = Array.from(codes, (c) => value.words[c]);
    if (value.shape.length < 2) return flat;
    const w = value.shape[1];
    return Array.from({ length: value.shape[0] }, (_, i) => flat.slice(i * w, (i + 1) * w));
  }
  let flat = codes;
  if (value.dict) {
    const dict = arrays[value.dict];
    flat = new dict.constructor(codes.length);
    for (let i = 0; i < codes.length; i++) flat[i] = dict[codes[i]];
  }
  if (value.kind === "list") return Array.from(flat, (v) => (Number.isNaN(v) ? null : v));
  const Type = TYPED[value.kind];
  if (Type && !(flat instanceof Type)) flat = Type.from(flat);
  return shaped(flat, value.shape);
}

function cast(values, dtype) {
  return dtype === "float32" ? Float32Array.from(values) : Float64Array.from(values);
}

function pointsTerm(part, record, arrays, m) {
  const v = record.term(part.term[0], part.term[1], part.term[2], m);
  if (part.gather === null || part.gather === undefined) return v;
  const at = arrays[part.gather];
  return Float64Array.from(at, (i) => v[i]);
}

function boundValue(b, before, tab, record, m) {
  if ("table" in b) {
    const table = tab.header.tables[b.table];
    return decodeValue(table.values[table.rounds[m - tab.header.first]], tab.arrays);
  }
  if (b.domain === "grid") {
    return shaped(cast(record.term(b.term[0], b.term[1], b.term[2], m), b.dtype), b.shape);
  }
  if (!b.columns) return cast(pointsTerm(b, record, tab.arrays, m), b.dtype);
  // a matrix whose columns are the template's or terms (a point's index and its p)
  const [rows, width] = b.shape;
  const out = new TYPED[b.dtype](rows * width);
  for (let i = 0; i < rows; i++) for (let j = 0; j < width; j++) out[i * width + j] = before[i][j];
  b.columns.forEach((part, j) => {
    if (!part) return;
    const v = pointsTerm(part, record, tab.arrays, m);
    for (let i = 0; i < rows; i++) out[i * width + j] = v[i];
  });
  return shaped(out, b.shape);
}

// A copy of `node` along `path` with the value at its end replaced: every object off the
// path is shared with the template
function replaced(node, path, make) {
  if (!path.length) return make(node);
  const [key, ...rest] = path;
  const copy = Array.isArray(node) ? node.slice() : { ...node };
  copy[key] = replaced(node[key], rest, make);
  return copy;
}

// The figure {data, layout} of a bound chart at round m. `step` is the chart's binding
// spec (bindings.py's Bound, as component.py sends it); `template` its figure, decoded;
// `zero` round 0's whole figure where it is not the template's; `layout` the layout to
// build on: the template's, or the chart's own copy of it, into which plotly.js has
// written what it fills in (then an unchanged part is unchanged for plotly.js too).
export function figureAt(step, template, zero, record, m, layout = template.layout) {
  if (m === 0 && zero) return { data: zero.data, layout: structuredClone(zero.layout) };
  const tab = tables(step.tables);
  let fig = { data: template.data, layout };
  for (const b of step.bindings) {
    fig = replaced(fig, b.path, (before) => boundValue(b, before, tab, record, m));
  }
  return fig;
}
