/* irstab explorer: the interval of the difference in Phi to the baseline.
 *
 * One entry point, IrstabInterval.phiDifference(args); the rest of the page knows nothing else
 * about the method, so another method replaces this file only.
 *
 * The method is the verdict's default (irstab.verdict.paired, interval="jackknife";
 * irstab.verdict.jackknife.phi_contrasts and irstab.verdict.jackknife.jackknife_differences),
 * for one candidate against the baseline:
 *   1. each matrix is scaled by an exact power of two to a spread in [1/2, 1); a matrix whose
 *      spread is at most 1e-12 of its largest |score| is constant and becomes zeros
 *      (irstab._numeric.unit_spread);
 *   2. the mean squares MS_s, MS_t, MS_e of each matrix, and of every submatrix with one system,
 *      one topic, or one system and one topic left out, in closed form from the row, column and
 *      grand sums (leave_one_out_mean_squares);
 *   3. the gradient g of Phi(T) in (MS_s, MS_t, MS_e) at the full data (components clipped at 0,
 *      the clip inactive; phi_gradient), and every leave-one-out contrast linearised:
 *      theta_(.) = g_cand . MS_cand,(.) - g_base . MS_base,(.) (the delta method); where the
 *      system means of either matrix have excess kurtosis >= 1 (HEAVY_TAILS; m4 / m2^2 - 3,
 *      divisor S; system_kurtosis), V_s's leave-one-system-out contrasts are exact instead:
 *      Phi_cand(MS_cand,(i.)) - Phi_base(MS_base,(i.));
 *   4. V_s = (S-1)/S sum_i (theta_(i.) - mean)^2, V_t likewise over topics, and
 *      V_st = (S-1)(T-1)/(S T) sum_ij psi_ij^2, psi the double-centred
 *      theta - theta_(i.) - theta_(.j) + theta_(ij) (linearised); the interaction is counted
 *      once: V = V_st + max(V_s - V_st, 0) + max(V_t - V_st, 0) (two_facet_variance), with
 *      Satterthwaite's degrees of freedom from the three parts p_s, p_t, p_st, the facets'
 *      deflated and counting the noise they were cleared of, u_f = p_f + c min(V_f, V_st):
 *      df = V^2 / (u_s^2 k_s / (S-1) + u_t^2 k_t / (T-1) + p_st^2 / ((S-1)(T-1))),
 *      k_f = min(a_f + b_f max(kappa_f, 0), max(a_f, (n_f - 1) / 3)), kappa_f the excess kurtosis (m4 / m2^2 - 3, divisor n)
 *      of the facet's exact leave-one-out contrasts Phi_cand - Phi_base (systems: at S - 1
 *      systems, topics: at T - 1 topics, Phi at T topics; contrast_kurtosis),
 *      (a_s, a_t) = (7, 1), (b_s, b_t) = (0, 6), floor 3, c = 1/2 (FACET_DF_DEFLATION,
 *      FACET_DF_KURTOSIS, FACET_DF_FLOOR, CLIPPED_PART_NOISE; facet_df);
 *   5. the interval is estimate +- t_{(1+c)/2, df} sqrt(V), cut to [-1, 1]; an affine twin of the
 *      baseline (a x + b, a != 0, up to rounding; irstab._numeric.affine_twins) has difference 0
 *      and interval [0, 0]; a difference within 1e-9 of 0 is 0; sqrt(V) <= 1e-9 gives
 *      [estimate, estimate]. At least 3 systems and 3 topics; a constant baseline has none.
 * The estimate is the G-studies' difference of Phi (the caller's). No random draws: the page's
 * ends equal the library's to rounding (tests/report/test_explorer_browser.py, 1e-9).
 * Student's t quantile: bisection to the last bit on the upper tail
 * P(T > t) = I_{df/(df+t^2)}(df/2, 1/2) / 2, the regularized incomplete beta by its continued
 * fraction (modified Lentz; Press et al., Numerical Recipes, 3rd ed., 2007, §6.4) and
 * log B(df/2, 1/2) from Stirling's series of the ratio of the gammas (no cancellation of large
 * log-gammas); equal to scipy.stats.t.ppf to 1e-9 (tested).
 * Cost: O(S T) per update, typed arrays reused from one update to the next.
 *
 * References: Arvesen & Schmitz, Biometrics 26(4), 1970 (jackknife of variance components);
 * Brennan, Generalizability Theory, 2001, §6.2; Efron & Stein, Annals of Statistics 9(3), 1981.
 */
(function (root) {
  "use strict";

  var LABEL = "two-facet jackknife of the G-study (delta method, systems left out exactly where their means are heavy-tailed; Student's t with Satterthwaite's df, the system part's deflated 7 times, the topic part's by 1 + 6 kappa (kappa the excess kurtosis of its exact leave-one-out contrasts; no lower than 3 df on its account), half the interaction they were cleared of counted)";
  var ZERO_RTOL = 1e-12;   // irstab._numeric.ZERO_RTOL
  var PHI_ATOL = 1e-9;     // irstab._numeric.PHI_ATOL
  var HEAVY_TAILS = 1.0;   // irstab.verdict.jackknife.HEAVY_TAILS
  var DEFLATE_S = 7.0, DEFLATE_T = 1.0;  // irstab.verdict.jackknife.FACET_DF_DEFLATION
  var KURTOSIS_S = 0.0, KURTOSIS_T = 6.0;  // irstab.verdict.jackknife.FACET_DF_KURTOSIS
  var DF_FLOOR = 3.0;                    // irstab.verdict.jackknife.FACET_DF_FLOOR
  var CLIPPED_NOISE = 0.5;               // irstab.verdict.jackknife.CLIPPED_PART_NOISE

  /* ------------------------------------------------------------ exact powers of two */

  function pow2(e) {  // 2^e, exact for -1074 <= e <= 1023
    return e < -1022 ? Math.pow(2, e + 1022) * Math.pow(2, -1022) : Math.pow(2, e);
  }

  /* The e with 2^(e-1) <= v < 2^e (numpy.frexp's exponent), v > 0 finite; 0 for v = 0. */
  function exponent(v) {
    if (!(v > 0)) return 0;
    var e = Math.floor(Math.log2(v)) + 1;
    if (e > 1024) e = 1024;
    while (e < 1024 && v >= pow2(e)) e++;
    while (v < pow2(e - 1)) e--;
    return e;
  }

  /* out[i] = x[i] * 2^e, exact where the result is a normal number (-1074 <= e <= 2023, as
   * finite scores need; past 2^1023 the factor is applied in two exact steps). */
  function scaleInto(x, e, out) {
    var f1 = e > 1023 ? pow2(e - 1000) : pow2(e), f2 = e > 1023 ? pow2(1000) : 1;
    for (var i = 0; i < x.length; i++) out[i] = x[i] * f1 * f2;
  }

  /* irstab._numeric.unit_spread of one matrix into out; returns whether it is constant. */
  function unitSpread(x, out) {
    var n = x.length, big = 0, i;
    for (i = 0; i < n; i++) { var a = Math.abs(x[i]); if (a > big) big = a; }
    var eBig = exponent(big), lo = Infinity, hi = -Infinity;
    scaleInto(x, -eBig, out);  // |out| < 1
    for (i = 0; i < n; i++) { if (out[i] < lo) lo = out[i]; if (out[i] > hi) hi = out[i]; }
    var spread = hi - lo, top = 0;
    for (i = 0; i < n; i++) top = Math.max(top, Math.abs(out[i]));
    if (spread <= ZERO_RTOL * top) { out.fill(0); return true; }
    scaleInto(x, -(eBig + exponent(spread)), out);
    return false;
  }

  /* irstab._numeric.affine_twins of two unit-spread matrices (neither constant). */
  function affineTwins(y, z) {
    var n = y.length, i, my = 0, mz = 0, by = 0, bz = 0;
    var loY = Infinity, hiY = -Infinity, loZ = Infinity, hiZ = -Infinity;
    for (i = 0; i < n; i++) {
      my += y[i]; mz += z[i];
      by = Math.max(by, Math.abs(y[i])); bz = Math.max(bz, Math.abs(z[i]));
      loY = Math.min(loY, y[i]); hiY = Math.max(hiY, y[i]);
      loZ = Math.min(loZ, z[i]); hiZ = Math.max(hiZ, z[i]);
    }
    my /= n; mz /= n;
    var sy = hiY - loY, sz = hiZ - loZ, same = 0, flip = 0;
    for (i = 0; i < n; i++) {
      var a = (y[i] - my) / sy, b = (z[i] - mz) / sz;
      same = Math.max(same, Math.abs(a - b));
      flip = Math.max(flip, Math.abs(a + b));
    }
    return Math.min(same, flip) <= ZERO_RTOL * by / sy + ZERO_RTOL * bz / sz + ZERO_RTOL;
  }

  /* ------------------------------------------------------------ Student's t quantile */

  function lgamma(x) {  // x > 0: Stirling's series past 15, the recurrence below it
    var shift = 0;
    while (x < 15) { shift += Math.log(x); x += 1; }
    return (x - 0.5) * Math.log(x) - x + 0.5 * Math.log(2 * Math.PI) + stirling(x) - shift;
  }

  function stirling(x) {  // lgamma(x) - ((x - 1/2) log x - x + log(2 pi) / 2), x >= 15
    var z2 = 1 / (x * x);
    return (1 / 12 - z2 * (1 / 360 - z2 * (1 / 1260 - z2 * (1 / 1680 - z2 * (1 / 1188
      - z2 * (691 / 360360 - z2 / 156)))))) / x;
  }

  /* lgamma(a + 1/2) - lgamma(a) without the cancellation of two large log-gammas. */
  function lgammaHalfStep(a) {
    if (a < 15) return lgamma(a + 0.5) - lgamma(a);
    return a * Math.log1p(0.5 / a) + 0.5 * Math.log(a) - 0.5 + stirling(a + 0.5) - stirling(a);
  }

  function betacf(a, b, x) {  // continued fraction of I_x(a, b) (modified Lentz)
    var tiny = 1e-300, c = 1, d = 1 - (a + b) * x / (a + 1);
    if (Math.abs(d) < tiny) d = tiny;
    d = 1 / d;
    var h = d;
    for (var m = 1; m <= 100000; m++) {
      var m2 = 2 * m, aa = m * (b - m) * x / ((a + m2 - 1) * (a + m2));
      d = 1 + aa * d; if (Math.abs(d) < tiny) d = tiny;
      c = 1 + aa / c; if (Math.abs(c) < tiny) c = tiny;
      d = 1 / d; h *= d * c;
      aa = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1));
      d = 1 + aa * d; if (Math.abs(d) < tiny) d = tiny;
      c = 1 + aa / c; if (Math.abs(c) < tiny) c = tiny;
      d = 1 / d;
      var del = d * c;
      h *= del;
      if (Math.abs(del - 1) < 1e-16) break;
    }
    return h;
  }

  /* Whether P(T > t) > q for Student's t with df degrees of freedom (t >= 0, 0 < q < 1/2).
   * I_x(df/2, 1/2) / 2 with x = df / (df + t^2) is P(T > t); where the continued fraction is
   * read at 1 - x instead, it gives the central mass P(0 < T < t), compared with 1/2 - q, so
   * that neither side loses digits to a subtraction near 1/2. */
  function aboveUpper(t, df, q) {
    if (t === 0) return true;
    var a = df / 2, r = t * t / df, x = 1 / (1 + r), y = r / (1 + r);
    // x^a y^(1/2) / B(a, 1/2), with B(a, 1/2) = sqrt(pi) Gamma(a) / Gamma(a + 1/2)
    var pre = Math.exp(-a * Math.log1p(r) + 0.5 * Math.log(y) - 0.5 * Math.log(Math.PI)
      + lgammaHalfStep(a));
    if (x < (a + 1) / (a + 2.5)) return 0.5 * pre * betacf(a, 0.5, x) / a > q;
    return pre * betacf(0.5, a, y) < 0.5 - q;  // I_y(1/2, a) / 2 = P(0 < T < t)
  }

  /* The t with P(T > t) = q, 0 < q < 1/2 (upper-tail quantile), by bisection to the last bit. */
  function tQuantileUpper(q, df) {
    var lo = 0, hi = 1;
    while (aboveUpper(hi, df, q)) { lo = hi; hi *= 2; if (!isFinite(hi)) return Infinity; }
    for (var i = 0; i < 2200; i++) {
      var mid = 0.5 * (lo + hi);
      if (mid === lo || mid === hi) break;
      if (aboveUpper(mid, df, q)) lo = mid; else hi = mid;
    }
    return 0.5 * (lo + hi);
  }

  /* Student's t quantile at probability p in (0, 1) (scipy.stats.t.ppf). */
  function tQuantile(p, df) {
    if (p === 0.5) return 0;
    return p > 0.5 ? tQuantileUpper(1 - p, df) : -tQuantileUpper(p, df);
  }

  /* ------------------------------------------------------------ the jackknife */

  var ws = null;  // workspace: typed arrays reused while S and T stay the same

  function workspace(S, T) {
    if (ws && ws.S === S && ws.T === T) return ws;
    var n = S * T;
    function pair(len) { return [new Float64Array(len), new Float64Array(len)]; }
    ws = {
      S: S, T: T, y: pair(n), rs: pair(S), cs: pair(T), qi: pair(S), qj: pair(T),
      rx: pair(T), cx: pair(S), full: pair(4), grad: pair(3),
      ps: new Float64Array(S), px: new Float64Array(S), pt: new Float64Array(T),
      pc: new Float64Array(n), xs: new Float64Array(S), xt: new Float64Array(T)
    };
    return ws;
  }

  /* grad . (MS_s, MS_t, MS_e) of an nS x nT matrix from its sums (irstab.verdict.jackknife
   * _mean_squares): q sum of squares, g grand sum, r2 / c2 sums of squared row / column sums. */
  function lin(gr, q, g, r2, c2, nS, nT) {
    var corr = g * g / (nS * nT), ssS = r2 / nT - corr, ssT = c2 / nS - corr;
    var ssE = q - corr - ssS - ssT;
    return gr[0] * (ssS / (nS - 1)) + gr[1] * (ssT / (nT - 1)) + gr[2] * (ssE / ((nS - 1) * (nT - 1)));
  }

  /* Phi(n) of an nS x nT matrix from its sums, components clipped at 0 (phi_gradient's Phi). */
  function phiOf(q, g, r2, c2, nS, nT, n) {
    var corr = g * g / (nS * nT), ssS = r2 / nT - corr, ssT = c2 / nS - corr;
    var msS = ssS / (nS - 1), msT = ssT / (nT - 1);
    var msE = (q - corr - ssS - ssT) / ((nS - 1) * (nT - 1));
    var vs = Math.max((msS - msE) / nT, 0), vt = Math.max((msT - msE) / nS, 0);
    var den = vs + (vt + Math.max(msE, 0)) / n;
    return den > 0 ? vs / den : 0;
  }

  /* Excess kurtosis of matrix m's system means (system_kurtosis); its row sums are the
   * means times T, of the same kurtosis. */
  function systemKurtosis(m, S) { return kurtosis(ws.rs[m], S); }

  /* Row, column and grand sums of matrix m (into the workspace), its mean squares and the
   * gradient of Phi(n) in them (phi_gradient). */
  function sums(m, S, T, n) {
    var y = ws.y[m], rs = ws.rs[m], cs = ws.cs[m], qi = ws.qi[m], qj = ws.qj[m];
    var rx = ws.rx[m], cx = ws.cx[m], full = ws.full[m], gr = ws.grad[m], s, t, v;
    cs.fill(0); qj.fill(0); rx.fill(0);
    for (s = 0; s < S; s++) {
      var r = 0, rq = 0, o = s * T;
      for (t = 0; t < T; t++) { v = y[o + t]; r += v; rq += v * v; cs[t] += v; qj[t] += v * v; }
      rs[s] = r; qi[s] = rq;
    }
    var g = 0, q = 0, r2 = 0, c2 = 0;
    for (s = 0; s < S; s++) { g += rs[s]; q += qi[s]; r2 += rs[s] * rs[s]; }
    for (t = 0; t < T; t++) c2 += cs[t] * cs[t];
    for (s = 0; s < S; s++) {
      var cxs = 0, rss = rs[s];
      o = s * T;
      for (t = 0; t < T; t++) { v = y[o + t]; rx[t] += rss * v; cxs += cs[t] * v; }
      cx[s] = cxs;
    }
    full[0] = g; full[1] = q; full[2] = r2; full[3] = c2;
    var corr = g * g / (S * T), ssS = r2 / T - corr, ssT = c2 / S - corr;
    var msS = ssS / (S - 1), msT = ssT / (T - 1), msE = (q - corr - ssS - ssT) / ((S - 1) * (T - 1));
    var vs = Math.max((msS - msE) / T, 0), vt = Math.max((msT - msE) / S, 0), ve = Math.max(msE, 0);
    var noise = (vt + ve) / n, den = vs + noise;
    if (!(den > 0)) { gr[0] = gr[1] = gr[2] = 0; return; }
    var dvs = noise / (den * den), dnoise = -vs / (den * den);
    gr[0] = dvs / T;
    gr[1] = dnoise / (S * n);
    gr[2] = -dvs / T + dnoise * (1 - 1 / S) / n;
  }

  /* Leave-one-out contrasts theta = lin(candidate) - lin(baseline): full, by system (ps; px the
   * ones V_s reads: exact where heavy-tailed), by topic (pt), by system and topic (pc,
   * row-major). */
  function contrasts(S, T) {
    var p0 = 0, sgn, m, s, t;
    var heavy = systemKurtosis(0, S) >= HEAVY_TAILS || systemKurtosis(1, S) >= HEAVY_TAILS;
    ws.ps.fill(0); ws.px.fill(0); ws.pt.fill(0); ws.pc.fill(0); ws.xs.fill(0); ws.xt.fill(0);
    for (m = 0; m < 2; m++) {
      sgn = m === 0 ? 1 : -1;
      var y = ws.y[m], rs = ws.rs[m], cs = ws.cs[m], qi = ws.qi[m], qj = ws.qj[m];
      var rx = ws.rx[m], cx = ws.cx[m], gr = ws.grad[m], f = ws.full[m];
      var g = f[0], q = f[1], r2 = f[2], c2 = f[3], ps = ws.ps, pt = ws.pt, pc = ws.pc;
      p0 += sgn * lin(gr, q, g, r2, c2, S, T);
      for (s = 0; s < S; s++) {
        var qs1 = q - qi[s], gs1 = g - rs[s], r2s1 = r2 - rs[s] * rs[s], c2s1 = c2 - 2 * cx[s] + qi[s];
        var l = lin(gr, qs1, gs1, r2s1, c2s1, S - 1, T), e = phiOf(qs1, gs1, r2s1, c2s1, S - 1, T, T);
        ps[s] += sgn * l;
        ws.xs[s] += sgn * e;
        ws.px[s] += sgn * (heavy ? e : l);
      }
      for (t = 0; t < T; t++) {
        var qt1 = q - qj[t], gt1 = g - cs[t], r2t1 = r2 - 2 * rx[t] + qj[t], c2t1 = c2 - cs[t] * cs[t];
        pt[t] += sgn * lin(gr, qt1, gt1, r2t1, c2t1, S, T - 1);
        ws.xt[t] += sgn * phiOf(qt1, gt1, r2t1, c2t1, S, T - 1, T);
      }
      for (s = 0; s < S; s++) {  // one system and one topic out
        var o = s * T, qs = q - qi[s], gs = g - rs[s], c2s = c2 - 2 * cx[s] + qi[s], rss = rs[s];
        for (t = 0; t < T; t++) {
          var x = y[o + t], rr = rss - x, cc = cs[t] - x;
          pc[o + t] += sgn * lin(gr, qs - qj[t] + x * x, gs - cs[t] + x,
            r2 - 2 * rx[t] + qj[t] - rr * rr, c2s - cc * cc, S - 1, T - 1);
        }
      }
    }
    return p0;
  }

  /* Sample excess kurtosis of v[0..n): m4 / m2^2 - 3, divisor n; 0 if all equal
   * (contrast_kurtosis). */
  function kurtosis(v, n) {
    var mean = 0, m2 = 0, m4 = 0, i;
    for (i = 0; i < n; i++) mean += v[i];
    mean /= n;
    for (i = 0; i < n; i++) { var d = v[i] - mean, d2 = d * d; m2 += d2; m4 += d2 * d2; }
    m2 /= n; m4 /= n;
    return m2 > 0 ? m4 / (m2 * m2) - 3 : 0;
  }

  /* The three parts of the jackknife variance of the contrast (two_facet_variance). */
  function parts(p0, S, T) {
    var ps = ws.ps, px = ws.px, pt = ws.pt, pc = ws.pc, s, t, mX = 0, mT = 0, mC = 0;
    for (s = 0; s < S; s++) mX += px[s];
    for (t = 0; t < T; t++) mT += pt[t];
    mX /= S; mT /= T;
    var vS = 0, vT = 0, top = 0;
    for (s = 0; s < S; s++) { var a = (px[s] - mX) * (px[s] - mX); vS += a; if (a > top) top = a; }
    for (t = 0; t < T; t++) vT += (pt[t] - mT) * (pt[t] - mT);
    for (s = 0; s < S; s++) for (t = 0; t < T; t++) mC += p0 - ps[s] - pt[t] + pc[s * T + t];
    mC /= S * T;
    var vC = 0;
    for (s = 0; s < S; s++) {
      for (t = 0; t < T; t++) { var d = p0 - ps[s] - pt[t] + pc[s * T + t] - mC; vC += d * d; }
    }
    return { system: (S - 1) / S * vS, topic: (T - 1) / T * vT,
      interaction: (S - 1) * (T - 1) / (S * T) * vC, influence: vS > 0 ? top / vS : null };
  }

  /* ------------------------------------------------------------ the entry point */

  /**
   * The interval of Phi(candidate) - Phi(baseline) at the observed topics.
   *
   * args: {candidate, baseline: Float64Array S*T row-major (systems x topics); nSystems,
   *        nTopics; estimate: the G-studies' difference of Phi; confidence: c}
   * returns {estimate (0 for a twin or within 1e-9 of 0), lower, upper, sd, df (Satterthwaite's,
   *          the facets' parts deflated; null where the variance is 0), quantile (t_{(1+c)/2, df}; 0 where sd <= 1e-9),
   *          level (the tail level (1-c)/2), twin, system_influence (the largest share of V_s
   *          one system carries; null where V_s = 0 and for a twin, whose contrast is rounding
   *          noise), label, problem (null, or why there is no interval: then only estimate)}
   */
  function phiDifference(args) {
    var S = args.nSystems, T = args.nTopics, gamma = 1 - args.confidence;
    var est = Math.abs(args.estimate) <= PHI_ATOL ? 0 : args.estimate;
    var out = { estimate: est, lower: null, upper: null, sd: null, df: null, quantile: null,
      level: gamma / 2, twin: false, system_influence: null, label: LABEL, problem: null };
    if (S < 3 || T < 3) {
      out.problem = "the jackknife needs at least 3 systems and 3 topics, got " + S + " x " + T;
      return out;
    }
    workspace(S, T);
    if (unitSpread(args.baseline, ws.y[1])) {
      out.problem = "the baseline scores every system alike here (constant up to rounding)";
      return out;
    }
    var constant = unitSpread(args.candidate, ws.y[0]);
    for (var m = 0; m < 2; m++) sums(m, S, T, T);
    var p0 = contrasts(S, T), v = parts(p0, S, T);
    var pS = Math.max(v.system - v.interaction, 0), pT = Math.max(v.topic - v.interaction, 0);
    var pST = v.interaction, V = 0 + pS + pT + pST;
    var sd = Math.sqrt(V);
    var uS = pS + CLIPPED_NOISE * Math.min(v.system, v.interaction);
    var uT = pT + CLIPPED_NOISE * Math.min(v.topic, v.interaction);
    var kS = Math.min(DEFLATE_S + KURTOSIS_S * Math.max(kurtosis(ws.xs, S), 0),
      Math.max(DEFLATE_S, (S - 1) / DF_FLOOR));
    var kT = Math.min(DEFLATE_T + KURTOSIS_T * Math.max(kurtosis(ws.xt, T), 0),
      Math.max(DEFLATE_T, (T - 1) / DF_FLOOR));
    var den = uS * uS * kS / (S - 1) + uT * uT * kT / (T - 1) +
      pST * pST / ((S - 1) * (T - 1));
    out.df = V > 0 && den > 0 ? V * V / den : null;
    if (!constant && affineTwins(ws.y[0], ws.y[1])) {  // Phi cannot tell them apart
      out.twin = true; est = 0; sd = 0;
    } else {
      out.system_influence = v.influence;
    }
    var q = sd > PHI_ATOL ? tQuantileUpper(gamma / 2, out.df) : 0;
    out.estimate = est; out.sd = sd; out.quantile = q;
    out.lower = Math.max(est - q * sd, -1);  // a difference of two Phi lies in [-1, 1]
    out.upper = Math.min(est + q * sd, 1);
    return out;
  }

  root.IrstabInterval = { phiDifference: phiDifference, tQuantile: tQuantile, label: LABEL };
})(window);
