// A fit's record in the browser (explorer/numbers/record.py writes it), and the terms a
// chart's bindings name (explorer/numbers/terms.py): F_m on the grid and at the training
// points for any round m, and what follows from F, with the engine's own arithmetic, so
// that every number drawn is the engine's to the last bit.
//
// - A point goes left when float32(x) <= threshold (threshold is a float64), as in
//   scikit-learn's exact trees; the points and the grid are compared through Math.fround.
//   Histogram trees (HistGradientBoosting) compare x itself, in float64 (header.exact).
// - F_m = F_(m-1) + nu * value, one float64 add per tree in round order (scikit-learn);
//   second-order trees step in float32 as xgboost does: f32(F) + f32(value) * f32(nu).
// - The grid is float32 for drawing: each round's float64 sum, clipped to +-1e30, is
//   rounded once (Python's Grid.F).
// - p is the stable sigmoid of exp(-|z|) (losses.probability); the softmax subtracts the
//   largest score and sums as numpy does (losses.softmax), or in a plain loop where the
//   engine does (losses.softmax_residuals).

const TYPES = { float64: Float64Array, float32: Float32Array, int32: Int32Array,
                int8: Int8Array, uint8: Uint8Array, uint16: Uint16Array };
const LIMIT = 1e30;
const f32 = Math.fround;

// header and arrays of bytes laid out by record.py's pack
export function unpack(buffer) {
  const bytes = buffer instanceof Uint8Array ? buffer : new Uint8Array(buffer);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const n = view.getUint32(0, true);
  const header = JSON.parse(new TextDecoder().decode(bytes.subarray(4, 4 + n)));
  const start = Math.ceil((4 + n) / 8) * 8;
  // copy once, aligned, so that every typed array can view it
  const body = bytes.slice(start).buffer;
  const arrays = {};
  for (const [name, [type, offset, length]] of Object.entries(header.arrays)) {
    arrays[name] = new TYPES[type](body, offset, length);
  }
  return [header, arrays];
}

export function decode(buffer) {
  const [header, arrays] = unpack(buffer);
  return new Record(header, arrays);
}

// numpy's sum of a short contiguous float64 run (pairwise_sum below its block size):
// eight running sums, then the rest in order
function numpySum(a, start, n) {
  if (n < 8) {
    let s = 0;
    for (let i = 0; i < n; i++) s += a[start + i];
    return s;
  }
  const r = new Float64Array(8);
  for (let j = 0; j < 8; j++) r[j] = a[start + j];
  let i = 8;
  for (; i < n - (n % 8); i += 8) for (let j = 0; j < 8; j++) r[j] += a[start + i + j];
  let s = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
  for (; i < n; i++) s += a[start + i];
  return s;
}

function sigmoid(z) {  // losses.probability: exp of a non-positive number
  const e = Math.exp(-Math.abs(z));
  return z >= 0 ? 1 / (1 + e) : e / (1 + e);
}

export class Record {
  constructor(header, arrays) {
    Object.assign(this, header);
    this.a = arrays;
    this.K = header.classes;
    this._grid = [];  // per class: cached float64 sums on the grid, per round
    this._points = [];  // per class: cached F_m at the training points
    this._terms = new Map();
    this.x = header.exact ? (v) => v : f32;  // x as the trees compare it
  }

  step(F, value) {
    return this.single ? f32(f32(F) + f32(f32(value) * f32(this.nu))) : F + this.nu * value;
  }

  base(m, k) {  // the first node of tree (m, k)
    return this.a.offsets[k * (this.rounds + 1) + m - 1];
  }

  // node id of the leaf of tree (m, k) that (x0, x1) falls in; x as the trees compare it
  leaf(m, k, x0, x1) {
    const { feature, threshold, left, right } = this.a;
    const base = this.base(m, k);
    let j = 0;
    while (left[base + j] !== -1) {
      const x = feature[base + j] === 0 ? x0 : x1;
      j = x <= threshold[base + j] ? left[base + j] : right[base + j];
    }
    return j;
  }

  valueAt(m, k, x0, x1) {
    return this.a.value[this.base(m, k) + this.leaf(m, k, x0, x1)];
  }

  // F_m of class k at the training points (Float64Array of n)
  pointsF(m, k = 0) {
    const cache = (this._points[k] ||= [new Float64Array(this.n).fill(this.a.f0[k])]);
    const X = this.a.X, d = this.features;
    for (let r = cache.length; r <= m; r++) {
      const before = cache[r - 1];
      const F = new Float64Array(this.n);
      for (let i = 0; i < this.n; i++) {
        F[i] = this.step(before[i], this.valueAt(r, k, X[i * d], d > 1 ? X[i * d + 1] : 0));
      }
      cache[r] = F;
    }
    return cache[m];
  }

  cells() {
    return this.a.xs.length * (this.line ? 1 : this.a.ys.length);
  }

  // F_m of class k on the grid, row by row (ys outer, xs inner), as float32 values
  gridF(m, k = 0) {
    const xs = this.a.xs, ys = this.line ? [0] : this.a.ys;
    const cells = this.cells();
    const cache = (this._grid[k] ||= [new Float64Array(cells).fill(this.a.f0[k])]);
    for (let r = cache.length; r <= m; r++) {
      const before = cache[r - 1];
      const F = new Float64Array(cells);
      for (let i = 0; i < ys.length; i++) {
        const y = this.x(ys[i]);
        for (let j = 0; j < xs.length; j++) {
          const c = i * xs.length + j;
          F[c] = this.step(before[c], this.valueAt(r, k, this.x(xs[j]), y));
        }
      }
      cache[r] = F;
    }
    const out = new Float64Array(cells);
    const F = cache[m];
    for (let c = 0; c < cells; c++) out[c] = f32(Math.min(Math.max(F[c], -LIMIT), LIMIT));
    return out;
  }

  // nu * tree (m, k) on the grid (numbers/grid.py's tree_on_grid)
  gridTree(m, k) {
    const xs = this.a.xs, ys = this.line ? [0] : this.a.ys;
    const out = new Float64Array(this.cells());
    for (let i = 0; i < ys.length; i++) {
      for (let j = 0; j < xs.length; j++) {
        out[i * xs.length + j] = this.nu * this.valueAt(m, k, this.x(xs[j]), this.x(ys[i]));
      }
    }
    return out;
  }

  // the softmax of each row of K scores (losses.softmax: numpy's max, exp and sum)
  softmax(rows, count) {
    const K = this.K, P = new Float64Array(count * K), e = new Float64Array(K);
    for (let c = 0; c < count; c++) {
      let top = rows[0][c];
      for (let k = 1; k < K; k++) top = Math.max(top, rows[k][c]);
      for (let k = 0; k < K; k++) e[k] = Math.exp(rows[k][c] - top);
      const total = numpySum(e, 0, K);
      for (let k = 0; k < K; k++) P[c * K + k] = e[k] / total;
    }
    return P;
  }

  // the class probabilities on the grid at round m, of F clipped as figures.panels.finite
  gridP(m) {
    const rows = [];
    for (let k = 0; k < this.K; k++) {
      rows.push(this.gridF(m, k).map((v) => Math.min(Math.max(v, -this.big), this.big)));
    }
    return this.softmax(rows, this.cells());
  }

  // y_k - p_k as the engine computes it (losses.residual, losses.softmax_residuals)
  residuals(m, k) {
    const y = this.a.y, n = this.n;
    const out = new Float64Array(n);
    if (this.residual === "multinomial") {
      const K = this.K, rows = [];
      for (let c = 0; c < K; c++) rows.push(this.pointsF(m, c));
      const e = new Float64Array(K);
      for (let i = 0; i < n; i++) {
        let top = rows[0][i];
        for (let c = 1; c < K; c++) if (top < rows[c][i]) top = rows[c][i];
        let total = 0;
        for (let c = 0; c < K; c++) { e[c] = Math.exp(rows[c][i] - top); total += e[c]; }
        out[i] = -(e[k] / total - (y[i] === k ? 1 : 0));
      }
      return out;
    }
    const F = this.pointsF(m, 0);
    for (let i = 0; i < n; i++) {
      const f = F[i];
      if (this.residual === "log_loss") {
        if (f > -37) {
          const e = Math.exp(-f);
          out[i] = -(((1 - y[i]) - y[i] * e) / (1 + e));
        } else {
          out[i] = -(Math.exp(f) - y[i]);
        }
      } else {
        out[i] = -(f - y[i]);
      }
    }
    return out;
  }

  // A term of explorer/numbers/terms.py at round m: Float64Array, or null where it has none
  term(name, k, shift, m) {
    const r = m + shift;
    if (r < 0 || (name === "gT" && m < 1)) return null;
    const key = `${name}/${k}/${r}`;
    if (this._terms.has(key)) return this._terms.get(key);
    let v;
    const K = this.K;
    if (name === "gF") v = this.gridF(r, k);
    else if (name === "gT") v = this.gridTree(m, k);
    else if (name === "gp") {
      v = this.gridF(r, 0).map((F) => sigmoid(this.scale * Math.min(Math.max(F, -this.big), this.big)));
    } else if (name === "gpk" || name === "gtop" || name === "gshade") {
      const P = this.gridP(r), cells = this.cells();
      v = new Float64Array(cells);
      for (let c = 0; c < cells; c++) {
        if (name === "gpk") { v[c] = P[c * K + k]; continue; }
        let best = 0;  // the first largest, as numpy's argmax
        for (let j = 1; j < K; j++) if (P[c * K + j] > P[c * K + best]) best = j;
        const top = P[c * K + best];
        // terms.class_shade: the class plus 0.999 times how sure
        v[c] = name === "gtop" ? top
          : best + 0.999 * Math.min(Math.max((top - 1 / K) / (1 - 1 / K), 0), 1);
      }
    } else if (name === "pF") v = this.pointsF(r, k);
    else if (name === "pp") {
      if (K > 1) {
        const rows = [];
        for (let c = 0; c < K; c++) rows.push(this.pointsF(r, c));
        const P = this.softmax(rows, this.n);
        v = Float64Array.from({ length: this.n }, (_, i) => P[i * K + k]);
      } else {
        v = this.pointsF(r, 0).map((F) => sigmoid(this.scale * F));
      }
    } else if (name === "pr") v = this.residuals(r, k);
    else throw new Error(`no term ${name}`);
    if (this._terms.size > 64) this._terms.clear();  // the rounds stepped lately suffice
    this._terms.set(key, v);
    return v;
  }
}
