// A fit's record in the browser (explorer/numbers/record.py writes it): F_m on the grid
// and at the training points for any round m, with the engine's own arithmetic, so that
// every number drawn is the engine's to the last bit.
//
// - A point goes left when float32(x) <= threshold (threshold is a float64), as in
//   scikit-learn's trees; the points and the grid are compared through Math.fround.
// - F_m = F_(m-1) + nu * value, one float64 add per tree in round order (scikit-learn);
//   second-order trees step in float32 as xgboost does: f32(F) + f32(value) * f32(nu).
// - The grid is float32 for drawing: each round's float64 sum, clipped to +-1e30, is
//   rounded once (Python's Grid.F).

const TYPES = { float64: Float64Array, float32: Float32Array, int32: Int32Array,
                int8: Int8Array, uint8: Uint8Array };
const LIMIT = 1e30;

export function decode(buffer) {
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
  return new Record(header, arrays);
}

const f32 = Math.fround;

export class Record {
  constructor(header, arrays) {
    Object.assign(this, header);
    this.a = arrays;
    this._grid = [];  // cached float64 sums on the grid, per round
    this._points = [];  // cached F_m at the training points
  }

  step(F, value) {
    return this.single ? f32(f32(F) + f32(f32(value) * f32(this.nu))) : F + this.nu * value;
  }

  // node id of the leaf of tree m that (x0, x1) falls in; x already float32
  leaf(m, x0, x1) {
    const { feature, threshold, left, right, offsets } = this.a;
    const base = offsets[m - 1];
    let k = 0;
    while (left[base + k] !== -1) {
      const x = feature[base + k] === 0 ? x0 : x1;
      k = x <= threshold[base + k] ? left[base + k] : right[base + k];
    }
    return k;
  }

  valueAt(m, x0, x1) {
    return this.a.value[this.a.offsets[m - 1] + this.leaf(m, x0, x1)];
  }

  // F_m at the training points (Float64Array of n)
  pointsF(m) {
    if (!this._points[0]) this._points[0] = new Float64Array(this.n).fill(this.f0);
    for (let r = this._points.length; r <= m; r++) {
      const before = this._points[r - 1];
      const F = new Float64Array(this.n);
      const X = this.a.X;
      const d = this.features;
      for (let i = 0; i < this.n; i++) {
        const x1 = d > 1 ? X[i * d + 1] : 0;
        F[i] = this.step(before[i], this.valueAt(r, X[i * d], x1));
      }
      this._points[r] = F;
    }
    return this._points[m];
  }

  // F_m on the grid, row by row (ys outer, xs inner), as float32 (Float32Array)
  gridF(m) {
    const xs = this.a.xs, ys = this.line ? [0] : this.a.ys;
    const cells = xs.length * ys.length;
    if (!this._grid[0]) this._grid[0] = new Float64Array(cells).fill(this.f0);
    for (let r = this._grid.length; r <= m; r++) {
      const before = this._grid[r - 1];
      const F = new Float64Array(cells);
      for (let i = 0; i < ys.length; i++) {
        const y = f32(ys[i]);
        for (let j = 0; j < xs.length; j++) {
          const c = i * xs.length + j;
          F[c] = this.step(before[c], this.valueAt(r, f32(xs[j]), y));
        }
      }
      this._grid[r] = F;
    }
    const out = new Float32Array(cells);
    const F = this._grid[m];
    for (let c = 0; c < cells; c++) out[c] = Math.min(Math.max(F[c], -LIMIT), LIMIT);
    return out;
  }
}
