// The text of drawn plotly charts: pairs of texts that overlap, and texts that run past
// their chart's edge. Loaded into a page by the tests (tests/chart_text.py); one call:
//
//   chartTextProblems(tolerance, least)  ->  [{chart, width, height, fixed, texts, overlaps, cut, small}]
//
// A chart is a plotly graph in the page (div.js-plotly-plot) or, on a page that is
// just an exported SVG file, that <svg>. Every visible, non-empty <text> of the chart
// counts (titles, axis titles, tick labels, legend entries, annotations, colour bar
// title and ticks), except the hover layer's and the toolbar's. Two texts overlap when
// their boxes share more than `tolerance` pixels in both directions; a colour bar's
// title overlaps its tick labels when it shares that much with the box around them all;
// a text is cut off when its box reaches more than `tolerance` pixels past the chart's
// box; with `least` (px), a text whose font is smaller is too small to read (a phone's).

(function () {
  const KINDS = [
    ["gtitle", "title"], ["g-gtitle", "title"], ["xtitle", "x title"], ["ytitle", "y title"],
    ["legendtext", "legend"], ["annotation-text", "annotation"], ["cbtitle", "colour bar title"],
    ["cbaxis", "colour bar tick"], ["xtick", "x tick"], ["ytick", "y tick"],
  ];

  function kind(el, root) {
    for (let node = el; node && node !== root; node = node.parentNode) {
      const cls = node.classList ? [...node.classList] : [];
      for (const [name, label] of KINDS) {
        // axes after the first are x2title, y3tick, ...
        const numbered = new RegExp("^" + name[0] + "\\d+" + name.slice(1) + "$");
        if (cls.some((c) => c === name || c.startsWith(name + "-")
                     || (/^[xy](title|tick)$/.test(name) && numbered.test(c)))) return label;
      }
    }
    return "text";
  }

  function visible(el) {
    for (let node = el; node && node.nodeType === 1; node = node.parentNode) {
      const style = getComputedStyle(node);
      if (style.display === "none" || style.visibility === "hidden"
          || Number(style.opacity) === 0) return false;
    }
    return true;
  }

  function skipped(el, root) {
    for (let node = el; node && node !== root; node = node.parentNode) {
      const cls = node.classList;
      if (cls && (cls.contains("hoverlayer") || cls.contains("modebar")
                  || cls.contains("modebar-container"))) return true;
    }
    return false;
  }

  function texts(root) {
    const found = [];
    for (const el of root.querySelectorAll("text")) {
      const content = (el.textContent || "").replace(/\s+/g, " ").trim();
      if (!content || skipped(el, root) || !visible(el)) continue;
      const r = el.getBoundingClientRect();
      if (r.width < 0.5 || r.height < 0.5) continue;
      found.push({ kind: kind(el, root), text: content.slice(0, 70),
                   size: parseFloat(getComputedStyle(el).fontSize),
                   bar: el.closest(".colorbar"),
                   box: { left: r.left, top: r.top, right: r.right, bottom: r.bottom } });
    }
    return found;
  }

  function shared(a, b) {
    return Math.min(Math.min(a.right, b.right) - Math.max(a.left, b.left),
                    Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top));
  }

  function describe(t) {
    return t.kind + " '" + t.text + "'";
  }

  function check(root, frame, tolerance, least) {
    const all = texts(root);
    const overlaps = [];
    for (let i = 0; i < all.length; i++) {
      for (let j = i + 1; j < all.length; j++) {
        const depth = shared(all[i].box, all[j].box);
        if (depth > tolerance) {
          overlaps.push([describe(all[i]), describe(all[j]), Math.round(depth * 10) / 10]);
        }
      }
    }
    // A colour bar's title against its tick labels taken together: a title that stands
    // in the labels' column (or row) reads as one of them ("0 F"), even where it meets no
    // single label, as plotly puts a short title on a vertical bar's right side.
    for (const title of all.filter((t) => t.kind === "colour bar title")) {
      const ticks = all.filter((t) => t.kind === "colour bar tick" && t.bar === title.bar);
      if (!ticks.length) continue;
      const column = {
        left: Math.min(...ticks.map((t) => t.box.left)), top: Math.min(...ticks.map((t) => t.box.top)),
        right: Math.max(...ticks.map((t) => t.box.right)),
        bottom: Math.max(...ticks.map((t) => t.box.bottom)),
      };
      const depth = shared(title.box, column);
      if (depth > tolerance) {
        const labels = ticks.map((t) => t.text).join(" ");
        overlaps.push([describe(title), "its colour bar's tick labels '" + labels.slice(0, 40) + "'",
                       Math.round(depth * 10) / 10]);
      }
    }
    const cut = [];
    for (const t of all) {
      const past = Math.max(frame.left - t.box.left, t.box.right - frame.right,
                            frame.top - t.box.top, t.box.bottom - frame.bottom);
      if (past > tolerance) cut.push([describe(t), Math.round(past * 10) / 10]);
    }
    const small = least ? all.filter((t) => t.size < least).map((t) => [describe(t), t.size])
      : [];
    return { texts: all.length, overlaps, cut, small, broken: brokenSymbols(root) };
  }

  // Texts whose markup breaks a line inside a sub- or superscript: F<sub>2,<br>0</sub>.
  // Read from the figure's own markup (plotly draws each line as a tspan of its own, and
  // a symbol cut by a break is two half-symbols there): every title, annotation, axis
  // and legend text of the figure the chart holds.
  const BROKEN = /<(sub|sup)>(?:(?!<\/\1>).)*?<br\s*\/?>/i;

  function brokenSymbols(root) {
    const found = [];
    const seen = new Set();
    function walk(node, depth) {
      if (!node || depth > 8 || seen.has(node)) return;
      if (typeof node === "string") {
        if (BROKEN.test(node)) found.push(node.slice(0, 90));
        return;
      }
      if (typeof node !== "object") return;
      seen.add(node);
      if (Array.isArray(node)) {
        if (node.length > 200) return;  // data arrays hold no markup worth reading
        node.forEach((item) => walk(item, depth + 1));
        return;
      }
      for (const [key, value] of Object.entries(node)) {
        if (key === "text" || key === "name" || key === "title" || key === "annotations"
            || key === "layout" || key === "data" || /^(x|y)axis\d*$/.test(key)
            || key === "legend" || key === "colorbar" || key === "marker") {
          walk(value, depth + 1);
        }
      }
    }
    if (root.layout) walk({ layout: root.layout, data: root.data }, 0);
    else {  // an exported SVG: its text, lines as tspans, has no markup left to read
      for (const el of root.querySelectorAll("text")) {
        if (/<(sub|sup)>/i.test(el.textContent || "")) found.push(el.textContent.slice(0, 90));
      }
    }
    return found;
  }

  function name(root, index) {
    const keyed = root.closest && root.closest("[class*='st-key-']");
    if (keyed) {
      const key = [...keyed.classList].find((c) => c.startsWith("st-key-"));
      if (key) return key.slice(7);
    }
    const view = root.closest && root.closest("[data-view]");
    return view ? view.getAttribute("data-view") : "chart " + index;
  }

  window.chartTextBrokenSymbols = brokenSymbols;

  window.chartTextProblems = function (tolerance = 1.5, least = 0) {
    // not the charts out of sight (stepper.js measures labels in one while the page rests)
    const graphs = [...document.querySelectorAll(".js-plotly-plot")]
      .filter((gd) => !gd.closest("[aria-hidden=true]"));
    const roots = graphs.length ? graphs : [...document.querySelectorAll("body > svg")];
    return roots.map((root, index) => {
      const svg = root.tagName.toLowerCase() === "svg" ? root : root.querySelector(".main-svg");
      const frame = svg.getBoundingClientRect();
      const title = root.querySelector(".gtitle");
      // a slide names its file's width (root.layout.width): it does not follow the column
      return Object.assign({ chart: name(root, index), title: title ? title.textContent : "",
                             width: Math.round(frame.width), height: Math.round(frame.height),
                             fixed: Boolean(root.layout && root.layout.width) },
                           check(root, frame, tolerance, least));
    });
  };
})();
