/* irstab explorer: SVG line charts drawn by the page itself (no library). */
(function (root) {
  "use strict";

  var NS = "http://www.w3.org/2000/svg";

  function el(name, attrs, text) {
    var e = document.createElementNS(NS, name);
    for (var k in attrs) if (Object.prototype.hasOwnProperty.call(attrs, k)) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    return e;
  }

  /* Round tick values: about n of them between lo and hi. */
  function ticks(lo, hi, n) {
    var span = hi - lo, step = Math.pow(10, Math.floor(Math.log10(span / n)));
    var err = span / n / step;
    step *= err >= 7.5 ? 10 : err >= 3.5 ? 5 : err >= 1.5 ? 2 : 1;
    var out = [];
    for (var v = Math.ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) out.push(Math.round(v / step) * step);
    return out;
  }

  function fmt(v) { return Math.abs(v) >= 1000 || Number.isInteger(v) ? String(Math.round(v)) : v.toFixed(2).replace(/0$/, ""); }

  /**
   * A line chart into the <svg> element `svg` (its contents are replaced).
   * opts: {width, height, x: {min, max, label}, y: {min, max, label},
   *        series: [{points: [[x, y]...], cls, label, markers}], hlines: [{y, label, below}],
   *        vlines: [{x, label}], legend: "lower right" | "upper right"}
   * Returns {toData(clientX, clientY) -> [x, y]} for pointer interaction.
   */
  function lineChart(svg, opts) {
    var W = opts.width, H = opts.height, m = { l: 52, r: 14, t: 12, b: 40 };
    var pw = W - m.l - m.r, ph = H - m.t - m.b;
    var X = function (v) { return m.l + (v - opts.x.min) / (opts.x.max - opts.x.min) * pw; };
    var Y = function (v) { return m.t + (1 - (v - opts.y.min) / (opts.y.max - opts.y.min)) * ph; };
    while (svg.firstChild) svg.removeChild(svg.firstChild);
    svg.setAttribute("viewBox", "0 0 " + W + " " + H);
    svg.setAttribute("width", W);
    svg.setAttribute("height", H);
    svg.appendChild(el("rect", { x: m.l, y: m.t, width: pw, height: ph, class: "plot-area" }));
    var g = el("g", { class: "grid" });
    ticks(opts.y.min, opts.y.max, 5).forEach(function (v) {
      g.appendChild(el("line", { x1: m.l, x2: m.l + pw, y1: Y(v), y2: Y(v) }));
      svg.appendChild(el("text", { x: m.l - 6, y: Y(v) + 4, class: "tick", "text-anchor": "end" }, fmt(v)));
    });
    ticks(opts.x.min, opts.x.max, Math.max(2, Math.floor(pw / 70))).forEach(function (v) {
      g.appendChild(el("line", { x1: X(v), x2: X(v), y1: m.t, y2: m.t + ph }));
      svg.appendChild(el("text", { x: X(v), y: m.t + ph + 15, class: "tick", "text-anchor": "middle" }, fmt(v)));
    });
    svg.insertBefore(g, svg.childNodes[1]);
    svg.appendChild(el("text", { x: m.l + pw / 2, y: H - 4, class: "axis-label", "text-anchor": "middle" }, opts.x.label));
    svg.appendChild(el("text", { x: 12, y: m.t + ph / 2, class: "axis-label", "text-anchor": "middle",
      transform: "rotate(-90 12 " + (m.t + ph / 2) + ")" }, opts.y.label));
    (opts.hlines || []).forEach(function (h) {
      svg.appendChild(el("line", { x1: m.l, x2: m.l + pw, y1: Y(h.y), y2: Y(h.y), class: "ref" }));
      svg.appendChild(el("text", { x: m.l + 5, y: h.below ? Y(h.y) + 12 : Y(h.y) - 3, class: "ref-label" }, h.label));
    });
    (opts.vlines || []).forEach(function (v) {
      svg.appendChild(el("line", { x1: X(v.x), x2: X(v.x), y1: m.t, y2: m.t + ph, class: "ref" }));
      svg.appendChild(el("text", { x: X(v.x) + 4, y: m.t + ph * 0.55, class: "ref-label" }, v.label));
    });
    opts.series.forEach(function (s) {
      if (!s.points.length) return;
      var d = s.points.map(function (p, i) { return (i ? "L" : "M") + X(p[0]).toFixed(1) + " " + Y(p[1]).toFixed(1); });
      svg.appendChild(el("path", { d: d.join(""), class: "series " + s.cls }));
      if (s.markers) {
        s.points.forEach(function (p, i) {
          svg.appendChild(el("circle", { cx: X(p[0]), cy: Y(p[1]), r: s.markers, class: "marker " + s.cls, "data-index": i }));
        });
      }
    });
    var shown = opts.series.filter(function (s) { return s.label; });
    if (shown.length) {
      var lh = 17, lw = 10 + 7.2 * Math.max.apply(null, shown.map(function (s) { return s.label.length; })) + 34;
      var lx = m.l + pw - lw - 8, ly = opts.legend === "upper right" ? m.t + 8 : m.t + ph - lh * shown.length - 10;
      var box = el("g", { class: "legend" });
      box.appendChild(el("rect", { x: lx, y: ly, width: lw, height: lh * shown.length + 6, class: "legend-box" }));
      shown.forEach(function (s, i) {
        var yy = ly + 12 + i * lh;
        box.appendChild(el("line", { x1: lx + 6, x2: lx + 30, y1: yy - 4, y2: yy - 4, class: "series " + s.cls }));
        box.appendChild(el("text", { x: lx + 36, y: yy, class: "legend-text" }, s.label));
      });
      svg.appendChild(box);
    }
    return {
      toData: function (cx, cy) {
        var r = svg.getBoundingClientRect(), sx = W / r.width, sy = H / r.height;
        var px = (cx - r.left) * sx, py = (cy - r.top) * sy;
        return [opts.x.min + (px - m.l) / pw * (opts.x.max - opts.x.min),
          opts.y.min + (1 - (py - m.t) / ph) * (opts.y.max - opts.y.min)];
      }
    };
  }

  root.IrstabPlot = { lineChart: lineChart, ticks: ticks };
})(window);
