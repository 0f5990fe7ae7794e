/* irstab explorer: the controls, the read-outs and the scripting API.
 *
 * window.irstabExplorer.set(spec) applies a configuration as the controls would and returns
 * state(); spec keys (all optional):
 *   preset       a preset's label or measure string (applied first)
 *   gain         "linear" | "exp" | [g0, g1, ..., gG] (one per grade, g0 = 0)
 *   discount     "log2" | "zipf" | "linear" | "flat" | {family: "log"|"zipf"|"geometric", param}
 *                | [d1, ..., dn] (free points; the cutoff becomes n)
 *   cutoff       1 .. the page's largest cutoff (free points are cut to it, or extended with
 *                their last weight)
 *   topics_out, systems_out   ids left out (replace the current choice)
 * window.irstabExplorer.state() returns {measure, phi, erho2, var_system, var_topic,
 *   var_residual, topics_needed_090, topics_needed_095, kendall_tau_baseline, ranking, phi_diff,
 *   phi_diff_lower, phi_diff_upper} and baseline, phi_baseline, erho2_baseline, n_systems,
 *   n_topics, swapped_pairs ([above, below] names), and of the interval (interval.js):
 *   phi_diff_sd (its jackknife standard deviation), phi_diff_df (its degrees of freedom,
 *   Satterthwaite's, the facets' parts deflated), phi_diff_quantile (the t quantile it was multiplied by), phi_diff_level (the tail
 *   level (1 - confidence) / 2), phi_diff_system_influence (the largest share of the system part
 *   of the variance one system carries), phi_diff_twin (the configuration is an affine twin of
 *   the baseline: difference and interval exactly 0), phi_diff_method; notes, problem,
 *   adjusted (what the last change did that its spec did not name, in words: the cutoff set to
 *   the length of a discount vector, free points cut or extended to the cutoff; [] when
 *   nothing; shown under the cutoff control), update_ms (this update's time by
 *   performance.now(), computing and redrawing).
 *   A number that is undefined for the configuration (all scores equal, ...) is null and
 *   `problem` says why; topics needed that no number of topics reaches are Infinity.
 * window.irstabExplorer.scores() returns the nDCG of every system (rows) on every topic.
 */
(function (root) {
  "use strict";

  var C = root.IrstabCore, I = root.IrstabInterval, P = root.IrstabPlot;
  var data = JSON.parse(document.getElementById("irstab-data").textContent);
  var counts = C.loadCounts(data);
  var systems = data.collection.systems, topics = data.collection.topics;
  var S = counts.S, T = counts.T, G = counts.G, KMAX = counts.kmax;
  var baseScores = C.decode(data.baseline.scores, Float64Array);
  var PARAMS = {
    log: { label: "base b", min: 1.1, max: 20, step: 0.1, value: 2 },
    zipf: { label: "exponent a", min: 0.1, max: 3, step: 0.05, value: 1 },
    geometric: { label: "p", min: 0.05, max: 0.99, step: 0.01, value: 0.8 }
  };
  var NAMED = { log2: true, zipf: true, linear: true, flat: true };
  var GAIN_MAX = Math.max(Math.pow(2, G) - 1, 1);

  var cfg = null;                       // {gain: {kind, values}, discount: {family, param, points}, cutoff}
  var out = { systems: new Uint8Array(S), topics: new Uint8Array(T) };
  var last = null, lastScores = null;   // the state and scores of the last update
  var adjusted = [];                    // what the last configure() changed unasked, in words
  var $ = function (id) { return document.getElementById(id); };

  /* ------------------------------------------------------------ configuration */

  function fail(key, msg) { throw new Error("irstabExplorer.set: " + key + ": " + msg); }

  function numbers(key, v) {
    if (!Array.isArray(v) || !v.length) fail(key, "expected a non-empty array of numbers");
    v.forEach(function (x) {
      if (typeof x !== "number" || !isFinite(x) || x < 0) fail(key, "values must be finite numbers >= 0, got " + x);
    });
    return v.slice();
  }

  function gainSpec(v) {
    if (v === "linear" || v === "exp") return { kind: v };
    var vals = numbers("gain", v);
    if (vals.length !== G + 1) fail("gain", "give " + (G + 1) + " values, one per grade 0.." + G + ", got " + vals.length);
    if (vals[0] !== 0) fail("gain", "the gain of grade 0 (non-relevant, unjudged) must be 0, got " + vals[0]);
    return { kind: "custom", values: vals };
  }

  function discountSpec(v) {
    if (typeof v === "string") {
      var m = /^log\(base=([0-9.eE+-]+)\)$/.exec(v);
      if (m) return discountSpec({ family: "log", param: parseFloat(m[1]) });
      if (!NAMED[v]) fail("discount", "expected log2, zipf, linear, flat, log(base=b), an object or an array, got " + v);
      return { family: v, param: v === "zipf" ? 1 : null };
    }
    if (Array.isArray(v)) {
      var pts = numbers("discount", v);
      if (pts.length > KMAX) fail("discount", pts.length + " weights but the page goes to rank " + KMAX);
      return { family: "points", points: pts };
    }
    if (v && typeof v === "object" && (PARAMS[v.family] || NAMED[v.family])) {
      var spec = PARAMS[v.family], p = v.param === undefined ? (spec ? spec.value : null) : v.param;
      if (spec && !(typeof p === "number" && isFinite(p))) fail("discount", v.family + " needs a number as param");
      if (v.family === "log" && !(p > 1)) fail("discount", "log: base must be > 1, got " + p);
      if (v.family === "zipf" && !(p > 0)) fail("discount", "zipf: exponent must be > 0, got " + p);
      if (v.family === "geometric" && !(p > 0 && p <= 1)) fail("discount", "geometric: p must be in (0, 1], got " + p);
      return { family: v.family, param: spec ? p : null };
    }
    fail("discount", "expected log2, zipf, linear, flat, log(base=b), {family, param} or an array");
  }

  function resize(points, k) {  // free points at a new cutoff: cut, or extend with the last weight
    var outp = points.slice(0, k);
    while (outp.length < k) outp.push(outp.length ? outp[outp.length - 1] : 1);
    return outp;
  }

  function weights(n) { return n + (n === 1 ? " weight" : " weights"); }
  function ranks(a, b) { return a === b ? "rank " + a : "ranks " + a + "-" + b; }

  /* What resize(points, k) does, in words (null: nothing). */
  function resizeNote(points, k) {
    var n = points.length;
    if (n === k) return null;
    if (n > k) return "discount cut from " + weights(n) + " to " + k + ": the weights of " + ranks(k + 1, n) + " are dropped";
    return "discount extended from " + weights(n) + " to " + k + ": " + ranks(n + 1, k) +
      (n + 1 === k ? " takes" : " take") + " the last weight, " + points[n - 1];
  }

  function findPreset(name) {
    for (var i = 0; i < data.presets.length; i++) {
      if (data.presets[i].label === name || data.presets[i].measure === name) return data.presets[i];
    }
    fail("preset", "no preset " + JSON.stringify(name) + "; presets: " + data.presets.map(function (p) { return p.label; }).join(", "));
  }

  function ids(key, given, all) {
    if (!Array.isArray(given)) fail(key, "expected an array of ids");
    var mask = new Uint8Array(all.length);
    given.forEach(function (id) {
      var i = all.indexOf(String(id));
      if (i < 0) fail(key, "unknown id " + JSON.stringify(id));
      mask[i] = 1;
    });
    return mask;
  }

  var KEYS = { preset: 1, gain: 1, discount: 1, cutoff: 1, topics_out: 1, systems_out: 1 };

  /* A new configuration from spec (validated whole before anything changes). */
  function configure(spec) {
    Object.keys(spec).forEach(function (k) { if (!KEYS[k]) fail(k, "unknown key; keys: " + Object.keys(KEYS).join(", ")); });
    var next = JSON.parse(JSON.stringify(cfg || {})), said = [];
    if (spec.preset !== undefined) next = JSON.parse(JSON.stringify(findPreset(spec.preset).config));
    if (spec.gain !== undefined) next.gain = gainSpec(spec.gain);
    var k = next.cutoff;
    if (spec.cutoff !== undefined) {
      k = spec.cutoff;
      if (!Number.isInteger(k) || k < 1 || k > KMAX) fail("cutoff", "expected an integer in 1.." + KMAX + ", got " + k);
    }
    if (spec.discount !== undefined) {
      next.discount = discountSpec(spec.discount);
      if (next.discount.family === "points") {
        var n = next.discount.points.length;
        if (spec.cutoff !== undefined && spec.cutoff !== n) fail("discount", n + " weights but cutoff " + spec.cutoff + "; give one weight per rank");
        if (spec.cutoff === undefined && n !== k) said.push("cutoff set to " + n + " (was " + k + "): the discount vector has " + weights(n));
        k = n;
      }
    }
    next.cutoff = k;
    if (next.discount.family === "points") {
      var note = resizeNote(next.discount.points, k);
      if (note) said.push(note);
      next.discount.points = resize(next.discount.points, k);
    }
    var sOut = spec.systems_out !== undefined ? ids("systems_out", spec.systems_out, systems) : out.systems;
    var tOut = spec.topics_out !== undefined ? ids("topics_out", spec.topics_out, topics) : out.topics;
    cfg = next; out.systems = sOut; out.topics = tOut; adjusted = said;
  }

  /* ------------------------------------------------------------ computing */

  function kept(mask) {
    var idx = [];
    for (var i = 0; i < mask.length; i++) if (!mask[i]) idx.push(i);
    return idx;
  }

  function noteText(n) {
    if (n.kind === "idcg") {
      var names = n.topics.slice(0, 10).map(function (t) { return topics[t]; }).join(", ");
      return "ideal DCG is 0 on " + n.topics.length + " topic(s) (" + names + (n.topics.length > 10 ? ", ..." : "") +
        "): no relevant grade there has a positive gain, so nDCG is 0 there";
    }
    if (n.kind === "above1") {
      return "nDCG reaches " + n.top.toFixed(4) + " > 1 on " + n.cells + " cell(s): the discount rises somewhere, " +
        "so the ranking by grade (the ideal list) is not the best ranking";
    }
    if (n.kind === "negative") {
      return "negative variance estimate(s) (system " + n.comps[0].toPrecision(4) + ", topic " +
        n.comps[1].toPrecision(4) + "): set to 0 in Erho2 and Phi";
    }
    return "all systems have the same score on every topic: Erho2 and Phi are 0";
  }

  function compute() {
    var k = cfg.cutoff, rows = kept(out.systems), cols = kept(out.topics);
    var res = C.ndcg(counts, C.gainVector(cfg.gain, G), C.discountVector(cfg.discount, k), k);
    var st = {
      measure: C.measureString(cfg), baseline: data.baseline.measure, n_systems: rows.length,
      n_topics: cols.length, phi: null, erho2: null, var_system: null, var_topic: null,
      var_residual: null, topics_needed_090: null, topics_needed_095: null,
      kendall_tau_baseline: null, ranking: [], swapped_pairs: [], phi_diff: null,
      phi_diff_lower: null, phi_diff_upper: null, phi_diff_sd: null, phi_diff_df: null,
      phi_diff_quantile: null, phi_diff_level: null, phi_diff_system_influence: null,
      phi_diff_twin: null, phi_diff_method: I.label, phi_baseline: null, erho2_baseline: null,
      notes: [], problem: null, adjusted: adjusted.slice()
    };
    var view = { rows: rows, cols: cols, g: null, gb: null, means: null, baseMeans: null };
    lastScores = res.scores;
    var y = C.submatrix(baseScores, T, rows, cols), gb = C.gstudy(y, rows.length, cols.length);
    if (!gb.problem) { st.phi_baseline = gb.phi; st.erho2_baseline = gb.erho2; view.gb = gb; }
    res.notes.forEach(function (n) { st.notes.push(noteText(n)); });
    if (res.problem) { st.problem = res.problem; return { state: st, view: view }; }
    var x = C.submatrix(res.scores, T, rows, cols), g = C.gstudy(x, rows.length, cols.length);
    if (g.problem) { st.problem = g.problem; return { state: st, view: view }; }
    g.notes.forEach(function (n) { st.notes.push(noteText(n)); });
    view.g = g;
    st.phi = g.phi; st.erho2 = g.erho2;
    st.var_system = g.var_system; st.var_topic = g.var_topic; st.var_residual = g.var_residual;
    st.topics_needed_090 = g.topics_needed_090; st.topics_needed_095 = g.topics_needed_095;
    var order = C.ranking(g.means);
    st.ranking = order.map(function (i) { return systems[rows[i]]; });
    view.means = g.means;
    if (gb.problem) {
      st.notes.push("the baseline " + data.baseline.measure + " has no G-study on this selection: " + gb.problem);
      return { state: st, view: view };
    }
    view.baseMeans = gb.means;
    var kt = C.kendall(g.means, gb.means);
    st.kendall_tau_baseline = kt.tau;
    if (kt.tau === null) st.notes.push("every system has the same mean under one of the two measures: Kendall's tau is undefined");
    st.swapped_pairs = kt.swapped.map(function (p) {
      var hi = g.means[p[0]] > g.means[p[1]] ? p[0] : p[1], lo = hi === p[0] ? p[1] : p[0];
      return [systems[rows[hi]], systems[rows[lo]]];
    });
    var iv = I.phiDifference({
      candidate: x, baseline: y, nSystems: rows.length, nTopics: cols.length,
      estimate: g.phi - gb.phi, confidence: data.interval.confidence
    });
    st.phi_diff = iv.estimate;
    if (iv.problem) {
      st.notes.push("no interval of the difference: " + iv.problem);
    } else {
      st.phi_diff_lower = iv.lower; st.phi_diff_upper = iv.upper; st.phi_diff_sd = iv.sd;
      st.phi_diff_df = iv.df; st.phi_diff_quantile = iv.quantile; st.phi_diff_level = iv.level;
      st.phi_diff_system_influence = iv.system_influence; st.phi_diff_twin = iv.twin;
    }
    return { state: st, view: view };
  }

  /* ------------------------------------------------------------ rendering */

  function f3(v) { return v === null ? "n/a" : v.toFixed(3); }
  function signed(v) {  // 3 decimals; a small non-zero value keeps 2 significant digits
    if (v === null) return "n/a";
    var a = Math.abs(v);
    return (v >= 0 ? "+" : "\u2212") + (a > 0 && a < 0.0005 ? a.toPrecision(2) : a.toFixed(3));
  }
  function percent(c) { return String(+(100 * c).toPrecision(6)); }
  /* "estimate +- t x sd" of this update's interval, in words. */
  function intervalTerms(st) {
    if (st.phi_diff_lower === null) return "";
    if (st.phi_diff_twin) return ": an affine twin of the baseline, exactly no difference";
    if (!st.phi_diff_quantile) return ": no variance, the interval is the estimate";
    return ": difference \u00b1 t \u00d7 sd = \u00b1 " + st.phi_diff_quantile.toFixed(3) + " \u00d7 " +
      st.phi_diff_sd.toPrecision(3) + " (t at " + +(1 - st.phi_diff_level).toPrecision(6) + ", " +
      st.phi_diff_df.toFixed(1) + " df)";
  }
  function count(v) { return v === null ? "n/a" : isFinite(v) ? String(v) : "never"; }
  function text(id, v) { $(id).textContent = v; }

  function renderCards(st, view) {
    var nt = document.querySelectorAll(".n-topics");
    for (var i = 0; i < nt.length; i++) nt[i].textContent = st.n_topics;
    text("measure", st.measure);
    var prob = $("problem");
    prob.hidden = !st.problem;
    prob.textContent = st.problem ? "Undefined for this configuration: " + st.problem : "";
    var adj = $("adjusted");
    adj.hidden = !st.adjusted.length;
    adj.textContent = st.adjusted.join("; ");
    text("phi", f3(st.phi));
    text("phi-base", "baseline " + data.baseline.label + ": " + f3(st.phi_baseline));
    text("erho2", f3(st.erho2));
    text("erho2-base", "baseline: " + f3(st.erho2_baseline));
    text("needed", count(st.topics_needed_090) + " / " + count(st.topics_needed_095));
    text("needed-base", view.gb ? "baseline: " + count(view.gb.topics_needed_090) + " / " +
      count(view.gb.topics_needed_095) : "baseline: n/a");
    text("phi-diff", signed(st.phi_diff));
    var lvl = data.interval.confidence;
    text("diff-level", "[" + percent(lvl) + " % interval]");
    text("phi-diff-ci", st.phi_diff_lower === null ? "no interval" : "[" + signed(st.phi_diff_lower) + ", " +
      signed(st.phi_diff_upper) + "]" + (st.phi_diff_lower > 0 ? ": reliably more stable" :
      st.phi_diff_upper < 0 ? ": reliably less stable" : ": not reliably different"));
    var bar = $("ci-bar"), lo = st.phi_diff_lower, hi = st.phi_diff_upper, pt = st.phi_diff;
    bar.style.visibility = lo === null ? "hidden" : "visible";
    bar.title = intervalTerms(st).replace(/^: /, "");
    if (lo !== null) {
      var span = Math.max(0.02, Math.abs(lo), Math.abs(hi)) * 1.1;
      var pos = function (v) { return (50 + 50 * v / span) + "%"; };
      var r = bar.querySelector(".range");
      r.style.left = pos(lo); r.style.width = (50 * (hi - lo) / span) + "%";
      r.className = "range" + (lo > 0 ? " up" : "");
      bar.querySelector(".zero").style.left = "50%";
      bar.querySelector(".point").style.left = "calc(" + pos(pt) + " - 1px)";
    }
    text("tau", st.kendall_tau_baseline === null ? "n/a" : st.kendall_tau_baseline.toFixed(3));
    text("swap-count", st.swapped_pairs.length + " of " + (st.n_systems * (st.n_systems - 1) / 2) + " pairs swapped");
  }

  function componentRow(label, g) {
    var tr = document.createElement("tr"), td = document.createElement("td");
    td.textContent = label;
    tr.appendChild(td);
    var c = g ? [g.var_system, g.var_topic, g.var_residual] : null;
    var clip = c ? c.map(function (v) { return Math.max(v, 0); }) : null;
    var tot = clip ? clip[0] + clip[1] + clip[2] : 0;
    for (var i = 0; i < 3; i++) {
      var cell = document.createElement("td");
      cell.textContent = c ? c[i].toFixed(5) + " (" + (tot > 0 ? (100 * clip[i] / tot).toFixed(1) : "0.0") + " %)" : "n/a";
      tr.appendChild(cell);
    }
    var bars = document.createElement("td"), box = document.createElement("div");
    box.className = "shares";
    ["s-sys", "s-top", "s-res"].forEach(function (cls, j) {
      var s = document.createElement("span");
      s.className = cls;
      s.style.width = (tot > 0 ? 100 * clip[j] / tot : 0) + "%";
      s.title = ["system", "topic", "residual"][j];
      box.appendChild(s);
    });
    bars.appendChild(box);
    tr.appendChild(bars);
    return tr;
  }

  function renderComponents(st, view) {
    var body = $("components").tBodies[0];
    body.textContent = "";
    body.appendChild(componentRow("this configuration", view.g));
    body.appendChild(componentRow("baseline " + data.baseline.label, view.gb));
  }

  function curve(g, n) {
    var pts = [], N = n.length;
    for (var i = 0; i < N; i++) pts.push([n[i], C.coefFromPsi(g.psiPhi, n[i])]);
    return pts;
  }

  function renderDstudy(st, view) {
    var nt = st.n_topics, top = Math.max(2 * nt, 50);
    [view.g, view.gb].forEach(function (g) {
      if (g && isFinite(g.topics_needed_095)) top = Math.max(top, Math.ceil(g.topics_needed_095 * 1.15));
    });
    top = Math.min(top, 2000);
    var n = [];
    var step = Math.max(1, Math.ceil(top / 400));
    for (var v = 1; v <= top; v += step) n.push(v);
    if (n[n.length - 1] !== top) n.push(top);
    var series = [];
    if (view.g) series.push({ points: curve(view.g, n), cls: "cand", label: "this configuration" });
    if (view.gb) series.push({ points: curve(view.gb, n), cls: "base", label: "baseline " + data.baseline.label });
    var W = chartWidth("dstudy-plot");
    P.lineChart($("dstudy-plot"), {
      width: W, height: Math.round(Math.min(330, Math.max(220, 0.45 * W))), x: { min: 0, max: top, label: "topics" },
      y: { min: 0, max: 1, label: "Phi" }, series: series, legend: "lower right",
      hlines: [{ y: 0.95, label: "Phi = 0.95" }, { y: 0.90, label: "Phi = 0.90", below: true }],
      vlines: [{ x: nt, label: nt + " topics here" }]
    });
  }

  var discountChart = null;

  /* Charts are drawn at their box's width in CSS pixels, so their text keeps its size. */
  var widths = {};  // measured once per layout: reading it after DOM changes forces a layout
  function chartWidth(id) {
    if (!widths[id]) widths[id] = Math.max(260, Math.round($(id).parentNode.clientWidth || 600));
    return widths[id];
  }

  function renderDiscount() {
    var k = cfg.cutoff, dv = C.discountVector(cfg.discount, k), pts = [], ymax = 1;
    for (var r = 0; r < k; r++) { pts.push([r + 1, dv[r]]); ymax = Math.max(ymax, dv[r]); }
    var W = chartWidth("discount-plot");
    discountChart = P.lineChart($("discount-plot"), {
      width: W, height: Math.round(Math.min(200, Math.max(150, 0.5 * W))), x: { min: k > 1 ? 1 : 0.5, max: k > 1 ? k : 1.5, label: "rank" },
      y: { min: 0, max: ymax, label: "weight" },
      series: [{ points: pts, cls: "cand", markers: k <= 40 ? 3 : 1.8 }]
    });
  }

  function renderRanking(st, view) {
    var body = $("ranking").tBodies[0];
    body.textContent = "";
    if (!view.means) return;
    var rows = view.rows, order = C.ranking(view.means), baseRank = {};
    if (view.baseMeans) C.ranking(view.baseMeans).forEach(function (i, pos) { baseRank[i] = pos + 1; });
    var frag = document.createDocumentFragment();
    order.forEach(function (i, pos) {
      var tr = document.createElement("tr"), b = baseRank[i], moved = b ? b - (pos + 1) : 0;
      [String(pos + 1), systems[rows[i]], view.means[i].toFixed(4), b ? String(b) : "n/a",
        moved > 0 ? "\u2191" + moved : moved < 0 ? "\u2193" + (-moved) : ""].forEach(function (v, j) {
        var td = document.createElement("td");
        td.textContent = v;
        if (j === 1) td.title = v;
        if (j === 4 && moved) td.className = moved > 0 ? "up" : "down";
        tr.appendChild(td);
      });
      frag.appendChild(tr);
    });
    body.appendChild(frag);
  }

  function renderSwaps(st) {
    var list = $("swaps");
    list.textContent = "";
    text("swaps-summary", st.kendall_tau_baseline === null ? "" : st.swapped_pairs.length === 0 ?
      "None: every pair of systems is in the baseline's order (ties aside)." :
      st.swapped_pairs.length + " pair(s) in the opposite order to the baseline's" +
      (st.swapped_pairs.length > 200 ? " (first 200):" : ":"));
    st.swapped_pairs.slice(0, 200).forEach(function (p) {
      var li = document.createElement("li");
      li.textContent = p[0] + " now above " + p[1];
      list.appendChild(li);
    });
    var notes = $("notes");
    notes.textContent = "";
    var all = st.notes.slice();
    var so = st.n_systems < S ? S - st.n_systems : 0, to = st.n_topics < T ? T - st.n_topics : 0;
    if (so || to) all.push("left out: " + so + " system(s), " + to + " topic(s)");
    if (!all.length) all.push("none");
    all.forEach(function (n) { var li = document.createElement("li"); li.textContent = n; notes.appendChild(li); });
  }

  function update() {
    var t0 = performance.now();
    var r = compute();
    renderCards(r.state, r.view);
    renderComponents(r.state, r.view);
    renderDstudy(r.state, r.view);
    renderDiscount();
    renderRanking(r.state, r.view);
    renderSwaps(r.state);
    r.state.update_ms = performance.now() - t0;
    text("timing", "Last update: " + r.state.update_ms.toFixed(1) + " ms. Interval of the difference: " +
      percent(data.interval.confidence) + " %, " + I.label + intervalTerms(r.state) + ".");
    last = r.state;
  }

  /* ------------------------------------------------------------ controls */

  function syncControls() {
    var gv = C.gainVector(cfg.gain, G);
    for (var g = 1; g <= G; g++) {
      $("gain-" + g).value = String(gv[g]);
      $("gain-" + g + "-num").value = String(+gv[g].toPrecision(6));
    }
    $("gain-linear").className = cfg.gain.kind === "linear" ? "on" : "";
    $("gain-exp").className = cfg.gain.kind === "exp" ? "on" : "";
    var fam = cfg.discount.family, spec = PARAMS[fam];
    $("discount-family").value = fam;
    $("discount-param-row").style.display = spec ? "" : "none";
    if (spec) {
      var r = $("discount-param");
      r.min = spec.min; r.max = spec.max; r.step = spec.step;
      r.value = String(cfg.discount.param);
      $("discount-param-num").step = spec.step;
      $("discount-param-num").value = String(cfg.discount.param);
      text("discount-param-label", spec.label);
    }
    $("cutoff").value = String(cfg.cutoff);
    $("cutoff-num").value = String(cfg.cutoff);
    text("topics-count", (T - sum(out.topics)) + " of " + T + " kept");
    text("systems-count", (S - sum(out.systems)) + " of " + S + " kept");
    syncChecks("topics-list", out.topics);
    syncChecks("systems-list", out.systems);
    var btns = $("presets").querySelectorAll("button");
    for (var i = 0; i < btns.length; i++) {
      btns[i].className = data.presets[i].measure === C.measureString(cfg) ? "on" : "";
    }
  }

  function sum(mask) { var s = 0; for (var i = 0; i < mask.length; i++) s += mask[i]; return s; }

  function syncChecks(id, mask) {
    var boxes = $(id).querySelectorAll("input");
    for (var i = 0; i < boxes.length; i++) boxes[i].checked = !mask[i];
  }

  function change(spec) {
    configure(spec);
    syncControls();
    update();
  }

  function build() {
    var presets = $("presets");
    data.presets.forEach(function (p) {
      var b = document.createElement("button");
      b.type = "button";
      b.title = p.measure;
      b.innerHTML = "";
      b.appendChild(document.createTextNode(p.label + " "));
      var fam = document.createElement("span");
      fam.className = "family";
      fam.textContent = p.family;
      b.appendChild(fam);
      b.addEventListener("click", function () { change({ preset: p.label }); });
      presets.appendChild(b);
    });
    var box = $("gain-sliders");
    for (var g = 1; g <= G; g++) {
      var row = document.createElement("div");
      row.className = "row";
      row.innerHTML = '<label for="gain-' + g + '">grade ' + g + '</label><input type="range" id="gain-' + g +
        '" min="0" max="' + GAIN_MAX + '" step="0.05"><input type="number" id="gain-' + g +
        '-num" min="0" step="0.05" aria-label="gain of grade ' + g + '">';
      box.appendChild(row);
    }
    for (g = 1; g <= G; g++) {
      (function (grade) {
        function set(v) {
          v = parseFloat(v);
          if (!(v >= 0) || !isFinite(v)) { syncControls(); return; }
          var vals = Array.prototype.slice.call(C.gainVector(cfg.gain, G));
          vals[grade] = v;
          change({ gain: vals });
        }
        $("gain-" + grade).addEventListener("input", function (e) { set(e.target.value); });
        $("gain-" + grade + "-num").addEventListener("change", function (e) { set(e.target.value); });
      })(g);
    }
    $("gain-linear").addEventListener("click", function () { change({ gain: "linear" }); });
    $("gain-exp").addEventListener("click", function () { change({ gain: "exp" }); });
    $("discount-family").addEventListener("change", function (e) {
      var fam = e.target.value;
      if (fam === "points") change({ discount: normalised() });
      else change({ discount: PARAMS[fam] ? { family: fam, param: PARAMS[fam].value } : fam });
    });
    function setParam(v) {
      v = parseFloat(v);
      try { change({ discount: { family: cfg.discount.family, param: v } }); } catch (err) { syncControls(); }
    }
    $("discount-param").addEventListener("input", function (e) { setParam(e.target.value); });
    $("discount-param-num").addEventListener("change", function (e) { setParam(e.target.value); });
    function setCutoff(v) {
      v = parseInt(v, 10);
      if (Number.isInteger(v) && v >= 1 && v <= KMAX) change({ cutoff: v }); else syncControls();
    }
    $("cutoff").max = KMAX; $("cutoff-num").max = KMAX;
    $("cutoff").addEventListener("input", function (e) { setCutoff(e.target.value); });
    $("cutoff-num").addEventListener("change", function (e) { setCutoff(e.target.value); });
    checks("topics-list", topics, "topics");
    checks("systems-list", systems, "systems");
    $("topics-all").addEventListener("click", function () { change({ topics_out: [] }); });
    $("systems-all").addEventListener("click", function () { change({ systems_out: [] }); });
    $("copy").addEventListener("click", copyMeasure);
    dragging();
  }

  function checks(id, names, which) {
    var list = $(id);
    names.forEach(function (name, i) {
      var label = document.createElement("label"), input = document.createElement("input");
      input.type = "checkbox";
      input.addEventListener("change", function () {
        var mask = out[which].slice();
        mask[i] = input.checked ? 0 : 1;
        var chosen = [];
        for (var j = 0; j < mask.length; j++) if (mask[j]) chosen.push(names[j]);
        var spec = {};
        spec[which + "_out"] = chosen;
        change(spec);
      });
      label.appendChild(input);
      label.appendChild(document.createTextNode(" " + name));
      label.title = name;
      list.appendChild(label);
    });
  }

  function normalised() {
    var dv = C.discountVector(cfg.discount, cfg.cutoff), top = 0;
    for (var i = 0; i < dv.length; i++) top = Math.max(top, dv[i]);
    return Array.prototype.map.call(dv, function (v) { return top > 0 ? v / top : v; });
  }

  /* Free points: a press on the discount plot sets the weight of the rank under it; moving
   * while pressed paints the ranks passed over (weights to 3 decimals, between 0 and 1). */
  function dragging() {
    var svg = $("discount-plot"), prev = null;
    function paint(e) {
      var xy = discountChart.toData(e.clientX, e.clientY), k = cfg.cutoff;
      var r = Math.min(k, Math.max(1, Math.round(xy[0])));
      var v = Math.round(1000 * Math.min(1, Math.max(0, xy[1]))) / 1000;
      var pts = cfg.discount.family === "points" ? cfg.discount.points.slice() : normalised();
      var from = prev ? prev[0] : r, fromV = prev ? prev[1] : v;
      var lo = Math.min(from, r), hi = Math.max(from, r);
      for (var q = lo; q <= hi; q++) {
        var w = hi === lo ? v : fromV + (v - fromV) * (q - from) / (r - from);
        pts[q - 1] = Math.round(1000 * w) / 1000;
      }
      prev = [r, v];
      change({ discount: pts });
    }
    svg.addEventListener("pointerdown", function (e) {
      svg.setPointerCapture(e.pointerId);
      prev = null;
      paint(e);
    });
    svg.addEventListener("pointermove", function (e) { if (prev) paint(e); });
    function stop() { prev = null; }
    svg.addEventListener("pointerup", stop);
    svg.addEventListener("pointercancel", stop);
  }

  function copyMeasure() {
    var t = $("measure").textContent;
    function select() {
      var range = document.createRange();
      range.selectNodeContents($("measure"));
      var sel = window.getSelection();
      sel.removeAllRanges();
      sel.addRange(range);
    }
    if (navigator.clipboard && navigator.clipboard.writeText) {
      navigator.clipboard.writeText(t).then(function () { $("copy").textContent = "copied"; }, select);
    } else {
      select();
    }
  }

  /* ------------------------------------------------------------ start */

  function clone(v) {  // a copy the caller may change (Infinity kept, unlike JSON)
    if (Array.isArray(v)) return v.map(clone);
    if (v && typeof v === "object") {
      var o = {};
      for (var k in v) if (Object.prototype.hasOwnProperty.call(v, k)) o[k] = clone(v[k]);
      return o;
    }
    return v;
  }

  configure({ preset: data.presets[data.start].label,
    systems_out: data.collection.systems_out || [] });
  build();
  syncControls();
  update();
  var resizing = null;
  window.addEventListener("resize", function () {
    if (resizing) cancelAnimationFrame(resizing);
    resizing = requestAnimationFrame(function () { resizing = null; widths = {}; update(); });
  });

  root.irstabExplorer = {
    set: function (spec) { change(spec || {}); return this.state(); },
    state: function () { return clone(last); },
    scores: function () {
      if (!lastScores) return null;
      var rows = [];
      for (var s = 0; s < S; s++) rows.push(Array.prototype.slice.call(lastScores, s * T, (s + 1) * T));
      return rows;
    },
    presets: function () { return data.presets.map(function (p) { return { label: p.label, measure: p.measure }; }); },
    systems: systems.slice(), topics: topics.slice()
  };
})(window);
