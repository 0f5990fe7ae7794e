/* irstab explorer: the computations, no DOM.
 *
 * Mirrors the library so that the page's numbers equal it (tests/report/test_explorer_browser.py):
 *   nDCG        irstab.metrics.dcg.nDCG.compute: DCG[s,t] = sum_{g>0, r<k} N[s,t,g,r] gain[g] disc[r]
 *               from the sparse grade-at-rank counts; IDCG[t] from the topic's grade counts (its
 *               relevant grades ordered by gain); gain and discount rescaled to a largest weight
 *               of 1 (scale-free); IDCG = 0 gives 0.
 *   G-study     irstab.stability.gstudy: two-way ANOVA without replication, expected-mean-square
 *               components, a sum of squares or component within 1e-12 of its total exactly 0,
 *               components clipped at 0 in the coefficients (Brennan 2001, ch. 2-3, 6).
 *   Phi, Erho2  n psi / (1 + n psi); topics needed ceil(g / ((1 - g) psi)) (Kanoulas & Aslam,
 *               CIKM 2009, §2.1).
 *   tau         Kendall's tau-b of the systems' mean scores (irstab.compare.correlation), two
 *               means within 1e-12 of the larger one counted as a tie (rounding noise is no order).
 */
(function (root) {
  "use strict";

  var RTOL = 1e-12;           // irstab._numeric: VARIANCE_RTOL and ZERO_RTOL
  var CEIL_TOL = 1e-9;        // irstab.stability.coefficients: slack when rounding topics up
  var TINY_LOG = Math.log(2.2250738585072014e-308);

  function decode(b64, Type) {
    var s = atob(b64), bytes = new Uint8Array(s.length);
    for (var i = 0; i < s.length; i++) bytes[i] = s.charCodeAt(i);
    return new Type(bytes.buffer);
  }

  /* The page's data: sparse counts (CSR by cell s*T+t, ranks ascending) and grade counts. */
  function loadCounts(data) {
    var c = data.counts, S = data.collection.systems.length, T = data.collection.topics.length;
    var G = data.collection.max_grade;
    var gc = new Float64Array(T * (G + 1));
    for (var t = 0; t < T; t++) for (var g = 0; g <= G; g++) gc[t * (G + 1) + g] = c.grade_counts[t][g];
    return {
      S: S, T: T, G: G, kmax: data.collection.cutoff_max,
      start: decode(c.cell_start, Int32Array), rank: decode(c.rank, Uint16Array),
      grade: decode(c.grade, Uint8Array), gradeCounts: gc
    };
  }

  /* ---------------------------------------------------------------- gain and discount */

  var GAINS = {
    linear: function (g) { return g; },
    exp: function (g) { return Math.pow(2, g) - 1; }
  };

  function gainVector(spec, G) {
    var out = new Float64Array(G + 1);
    for (var g = 0; g <= G; g++) out[g] = spec.kind === "custom" ? spec.values[g] : GAINS[spec.kind](g);
    return out;
  }

  /* Weight of rank r (1-based) at cutoff k, per family; p is the family's parameter. */
  var DISCOUNTS = {
    log2: function (r) { return 1 / Math.log2(r + 1); },
    log: function (r, k, p) { return 1 / Math.max(1, Math.log(r) / Math.log(p)); },
    zipf: function (r, k, p) { return p === 1 ? 1 / r : 1 / Math.pow(r, p); },
    geometric: function (r, k, p) { return Math.pow(p, r - 1); },
    linear: function (r, k) { return Math.max((k + 1 - r) / k, 0); },
    flat: function () { return 1; }
  };

  function discountVector(spec, k) {
    var out = new Float64Array(k);
    for (var r = 1; r <= k; r++) {
      out[r - 1] = spec.family === "points" ? spec.points[r - 1] : DISCOUNTS[spec.family](r, k, spec.param);
    }
    return out;
  }

  /* ---------------------------------------------------------------- canonical strings */

  /* Python's repr of a float (shortest round trip; exponent form below 1e-4 and from 1e16). */
  function pyFloat(v) {
    if (Number.isInteger(v) && Math.abs(v) < 1e15) return String(v === 0 ? 0 : v);
    var e = v.toExponential();  // shortest digits, e.g. "1.5e-7"
    var m = /^(-?)(\d)(?:\.(\d+))?e([+-]\d+)$/.exec(e);
    var sign = m[1], digits = m[2] + (m[3] || ""), exp = parseInt(m[4], 10);
    if (exp < -4 || exp >= 16) {
      var mant = m[2] + (m[3] ? "." + m[3] : "");
      return sign + mant + "e" + (exp < 0 ? "-" : "+") + (Math.abs(exp) < 10 ? "0" : "") + Math.abs(exp);
    }
    if (exp < 0) return sign + "0." + "0".repeat(-exp - 1) + digits;
    if (digits.length <= exp + 1) return sign + digits + "0".repeat(exp + 1 - digits.length) + ".0";
    return sign + digits.slice(0, exp + 1) + "." + digits.slice(exp + 1);
  }

  function tuple(values) {
    return "(" + Array.prototype.map.call(values, pyFloat).join(",") + ")";
  }

  var NAMED_DISCOUNTS = { log2: true, linear: true, flat: true };

  /* The canonical string irstab prints for this configuration (irstab.metrics.base). */
  function measureString(cfg) {
    var params = [];
    if (cfg.gain.kind === "exp") params.push("gain=exp");
    else if (cfg.gain.kind === "custom") params.push("gain=" + tuple(cfg.gain.values));
    var d = cfg.discount, text;
    if (NAMED_DISCOUNTS[d.family]) text = d.family;
    else if (d.family === "log") text = "log(base=" + pyFloat(d.param) + ")";
    else if (d.family === "zipf" && d.param === 1) text = "zipf";
    else text = tuple(discountVector(d, cfg.cutoff));
    if (text !== "log2") params.push("discount=" + text);
    return "nDCG" + (params.length ? "(" + params.join(",") + ")" : "") + "@" + cfg.cutoff;
  }

  /* ---------------------------------------------------------------- nDCG from the counts */

  function maxOf(v, n) {
    var m = 0;
    for (var i = 0; i < n; i++) if (v[i] > m) m = v[i];
    return m;
  }

  /* Smallest positive weight's log over the largest's (irstab.metrics.dcg.scale_free). */
  function logSpan(v, n) {
    var lo = Infinity, hi = 0;
    for (var i = 0; i < n; i++) if (v[i] > 0) { lo = Math.min(lo, v[i]); hi = Math.max(hi, v[i]); }
    return hi > 0 ? Math.log(lo) - Math.log(hi) : null;
  }

  /* nDCG@k of every (system, topic), row-major S x T; notes and problems in words. */
  function ndcg(counts, gainRaw, discRaw, k) {
    var S = counts.S, T = counts.T, G = counts.G, notes = [];
    var sg = logSpan(gainRaw, G + 1), sd = logSpan(discRaw, k);
    if (sg !== null && sd !== null && sg + sd < TINY_LOG) {
      return { scores: null, notes: notes, problem: "the gain and discount weights span more than " +
        "the floating-point range; give weights within a factor 1e300 of each other" };
    }
    var gm = maxOf(gainRaw, G + 1), dm = maxOf(discRaw, k);
    var gain = new Float64Array(G + 1), disc = new Float64Array(k);
    for (var g = 0; g <= G; g++) gain[g] = gm > 0 ? gainRaw[g] / gm : gainRaw[g];
    for (var r = 0; r < k; r++) disc[r] = dm > 0 ? discRaw[r] / dm : discRaw[r];

    var prefix = new Float64Array(k + 1);
    for (r = 0; r < k; r++) prefix[r + 1] = prefix[r] + disc[r];
    var order = [];  // relevant grades by decreasing gain (the ideal list), ties by grade
    for (g = G; g >= 1; g--) order.push(g);
    order.sort(function (a, b) { return gain[b] - gain[a] || b - a; });
    var idcg = new Float64Array(T), zero = [];
    for (var t = 0; t < T; t++) {
      var pos = 0, sum = 0;
      for (var i = 0; i < order.length && pos < k; i++) {
        var c = counts.gradeCounts[t * (G + 1) + order[i]];
        if (c > 0) { sum += gain[order[i]] * (prefix[Math.min(pos + c, k)] - prefix[pos]); pos += c; }
      }
      idcg[t] = sum;
      if (!(sum > 0)) zero.push(t);
    }

    var out = new Float64Array(S * T), start = counts.start, rank = counts.rank, grade = counts.grade;
    var top = 0, above = 0;
    for (var s = 0; s < S; s++) {
      for (t = 0; t < T; t++) {
        var cell = s * T + t, dcg = 0;
        for (var e = start[cell]; e < start[cell + 1]; e++) {
          if (rank[e] >= k) break;
          dcg += gain[grade[e]] * disc[rank[e]];
        }
        var v = idcg[t] > 0 ? dcg / idcg[t] : 0;
        out[cell] = v;
        if (v > top) top = v;
        if (v > 1 + 1e-9) above++;
      }
    }
    if (zero.length) notes.push({ kind: "idcg", topics: zero });
    if (!isFinite(top)) {
      return { scores: null, notes: notes, problem: "nDCG overflows: the discount weights span " +
        "more than the floating-point range" };
    }
    if (top > 1 + 1e-9) notes.push({ kind: "above1", top: top, cells: above });
    return { scores: out, notes: notes, problem: null };
  }

  /* ---------------------------------------------------------------- G-study */

  function submatrix(x, T, rows, cols) {
    var out = new Float64Array(rows.length * cols.length);
    for (var i = 0; i < rows.length; i++) {
      var base = rows[i] * T;
      for (var j = 0; j < cols.length; j++) out[i * cols.length + j] = x[base + cols[j]];
    }
    return out;
  }

  function negligible(v, total) { return Math.abs(v) <= RTOL * Math.abs(total); }

  /* Means of the rows and columns and the grand mean of an S x T matrix. */
  function margins(x, S, T) {
    var rows = new Float64Array(S), cols = new Float64Array(T), grand = 0;
    for (var s = 0; s < S; s++) {
      var sum = 0;
      for (var t = 0; t < T; t++) { sum += x[s * T + t]; cols[t] += x[s * T + t]; }
      rows[s] = sum / T;
      grand += sum;
    }
    for (var t2 = 0; t2 < T; t2++) cols[t2] /= S;
    return { rows: rows, cols: cols, grand: grand / (S * T) };
  }

  /* Components from the three mean squares (irstab.stability.designs.crossed). */
  function componentsFromMeanSquares(msS, msT, msR, S, T) {
    var c = [(msS - msR) / T, (msT - msR) / S, msR];
    var scale = Math.abs(c[0]) + Math.abs(c[1]) + Math.abs(c[2]);
    return c.map(function (v) { return negligible(v, scale) ? 0 : v; });
  }

  function safeRatio(num, den) { return den > 0 ? num / den : (num > 0 ? Infinity : 0); }

  function psiOf(comps, coefficient) {
    var c = comps.map(function (v) { return Math.max(v, 0); });
    return safeRatio(c[0], coefficient === "erho2" ? c[2] : c[1] + c[2]);
  }

  function coefFromPsi(psi, n) { return 1 - 1 / (1 + n * psi); }

  function neededFromPsi(psi, target) {
    var raw = target / ((1 - target) * psi);
    if (isFinite(raw)) return Math.max(Math.ceil(raw * (1 - CEIL_TOL)), 1);
    return psi > 0 ? 1 : Infinity;
  }

  /* G-study of an S x T matrix: components, Phi, Erho2, topics needed; or a problem. */
  function gstudy(x, S, T) {
    if (S < 2 || T < 2) {
      return { problem: "a G-study needs at least 2 systems and 2 topics, got " + S + " x " + T };
    }
    var lo = Infinity, hi = -Infinity;
    for (var i = 0; i < x.length; i++) { if (x[i] < lo) lo = x[i]; if (x[i] > hi) hi = x[i]; }
    if (hi === lo) {
      return { problem: "all " + x.length + " scores are equal (" + lo + "): every variance " +
        "component is 0 and Erho2 and Phi are undefined" };
    }
    var m = margins(x, S, T), ssS = 0, ssT = 0, ssR = 0;
    for (var s = 0; s < S; s++) ssS += (m.rows[s] - m.grand) * (m.rows[s] - m.grand);
    for (var t = 0; t < T; t++) ssT += (m.cols[t] - m.grand) * (m.cols[t] - m.grand);
    for (s = 0; s < S; s++) {
      for (t = 0; t < T; t++) {
        var r = x[s * T + t] - m.rows[s] - m.cols[t] + m.grand;
        ssR += r * r;
      }
    }
    ssS *= T; ssT *= S;
    var total = ssS + ssT + ssR;
    if (negligible(ssS, total)) ssS = 0;
    if (negligible(ssT, total)) ssT = 0;
    if (negligible(ssR, total)) ssR = 0;
    var msS = ssS / (S - 1), msT = ssT / (T - 1), msR = ssR / ((S - 1) * (T - 1));
    var comps = componentsFromMeanSquares(msS, msT, msR, S, T);
    var psiPhi = psiOf(comps, "phi"), psiErho = psiOf(comps, "erho2");
    var notes = [];
    if (comps[0] < 0 || comps[1] < 0) notes.push({ kind: "negative", comps: comps });
    if (msS === 0 && msR === 0) notes.push({ kind: "flat" });
    return {
      problem: null, notes: notes, nSystems: S, nTopics: T, means: m.rows,
      var_system: comps[0], var_topic: comps[1], var_residual: comps[2],
      psiPhi: psiPhi, psiErho2: psiErho,
      phi: coefFromPsi(psiPhi, T), erho2: coefFromPsi(psiErho, T),
      topics_needed_090: neededFromPsi(psiPhi, 0.90), topics_needed_095: neededFromPsi(psiPhi, 0.95)
    };
  }

  /* ---------------------------------------------------------------- rankings */

  function sgn(a, b) {
    var d = a - b;
    if (Math.abs(d) <= RTOL * Math.max(Math.abs(a), Math.abs(b))) return 0;
    return d > 0 ? 1 : -1;
  }

  /* Kendall's tau-b of two vectors of means, and the pairs ordered oppositely. */
  function kendall(x, y) {
    var n = x.length, num = 0, nx = 0, ny = 0, swapped = [];
    for (var i = 0; i < n; i++) {
      for (var j = i + 1; j < n; j++) {
        var a = sgn(x[i], x[j]), b = sgn(y[i], y[j]);
        num += a * b; nx += a * a; ny += b * b;
        if (a * b < 0) swapped.push([i, j]);
      }
    }
    var den = Math.sqrt(nx * ny);
    return { tau: den > 0 ? Math.max(-1, Math.min(1, num / den)) : null, swapped: swapped };
  }

  /* Indices by decreasing mean (ties in the given order). */
  function ranking(means) {
    var idx = [];
    for (var i = 0; i < means.length; i++) idx.push(i);
    return idx.sort(function (a, b) { return (means[b] - means[a]) || (a - b); });
  }

  root.IrstabCore = {
    decode: decode, loadCounts: loadCounts, gainVector: gainVector, discountVector: discountVector,
    DISCOUNTS: DISCOUNTS, GAINS: GAINS, pyFloat: pyFloat, measureString: measureString,
    ndcg: ndcg, submatrix: submatrix, gstudy: gstudy, coefFromPsi: coefFromPsi,
    neededFromPsi: neededFromPsi, kendall: kendall, ranking: ranking, RTOL: RTOL
  };
})(window);
