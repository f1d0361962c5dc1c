// plotly.py's typed arrays ({dtype, bdata (base64), shape}), decoded once.
//
// plotly.js decodes such a spec afresh at every Plotly.react, and a new array counts as
// new data: every update would recompute and redraw every trace. Decoded once, the
// arrays keep their identity, so an update that changes only the layout (a round's
// marker) redraws only it. component.js (the app) and interactive.js (the lesson file)
// decode their figures with this; bindings.js shapes its tables' arrays with `shaped`.

const TYPED = { f8: Float64Array, f4: Float32Array, i1: Int8Array, u1: Uint8Array,
                i2: Int16Array, u2: Uint16Array, i4: Int32Array, u4: Uint32Array };

// a loop over the decoded string: Uint8Array.from with a mapping function took 140 ms of
// a Tree page's load (the page's tables and typed arrays) in Chromium
export function bytes(base64) {
  const text = atob(base64);
  const out = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) out[i] = text.charCodeAt(i);
  return out;
}

// rows of a matrix, as plotly.js decodes a typed 2-D array
export function shaped(flat, shape) {
  if (shape.length < 2) return flat;
  const width = shape[1];
  return Array.from({ length: shape[0] }, (_, i) => flat.subarray(i * width, (i + 1) * width));
}

export function decoded(node) {
  if (Array.isArray(node)) return node.map(decoded);
  if (node === null || typeof node !== "object") return node;
  if (typeof node.bdata === "string" && TYPED[node.dtype]) {
    const flat = new TYPED[node.dtype](bytes(node.bdata).buffer);
    return shaped(flat, String(node.shape ?? flat.length).split(",").map(Number));
  }
  return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, decoded(value)]));
}
