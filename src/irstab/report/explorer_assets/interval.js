/* irstab explorer: the interval of the difference in Phi to the baseline.
 *
 * One entry point, IrstabInterval.phiDifference(args) -> {lower, upper, level, label}; the rest
 * of the page knows nothing else about the method, so another method replaces this file only.
 *
 * The method is the verdict's (irstab.compare.paired, interval="parametric"): generalized
 * pivotal quantities of the multivariate G-study of the two measures. The mean-product
 * matrices MP_s, MP_t, MP_e (2 x 2: systems, topics, residual; Brennan, Generalizability
 * Theory, 2001, ch. 9) are drawn B times from their Wishart distributions
 * W_2(nu, MP / nu) (nu = S-1, T-1, (S-1)(T-1); Bartlett's decomposition, Smith & Hocking,
 * Applied Statistics 1972, or Z'Z when nu is below the rank); each drawn mean square MS* gives
 * the pivot MS^2 / MS* of its expectation (Weerahandi, JASA 1993); Phi of each measure from
 * the pivots (components clipped at 0), and the interval is the percentile interval of the
 * pivots' differences at Student's t level c' with z_{(1+c')/2} = t_{(1+c)/2, S-1}
 * (Hesterberg, The American Statistician 2015). With one candidate the simultaneous
 * percentile interval of Mandel & Betensky (CSDA 2008) is the ordinary one: the k-th and
 * (B+1-k)-th order statistics, k the largest with 2(k-1) <= (1-c') B.
 *
 * Randomness: xoshiro128** (Blackman & Vigna 2018) seeded from the seed through MurmurHash3's
 * finaliser of a Weyl sequence, normals by the polar method,
 * chi-square by Marsaglia & Tsang's gamma generator (ACM TOMS 2000); every update starts from
 * the same seed, so the interval does not flicker. The library draws with numpy's generator:
 * the ends agree within the Monte-Carlo error of B draws, not digit for digit.
 */
(function (root) {
  "use strict";

  var LABEL = "generalized pivots of the multivariate G-study";
  var RANK_RTOL = 1e-12;   // irstab.stability.multivariate: eigenvalues below this are 0
  var CONST_RTOL = 1e-12;  // irstab.compare.paired: draws spreading less are constant
  var RTOL = 1e-12;        // irstab._numeric.VARIANCE_RTOL

  /* ------------------------------------------------------------ random numbers */

  function rng(seed) {
    var x = seed >>> 0;
    function splitmix() {
      x = (x + 0x9e3779b9) | 0;
      var z = x;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
      return (z ^ (z >>> 16)) >>> 0;
    }
    var s0 = splitmix(), s1 = splitmix(), s2 = splitmix(), s3 = splitmix();
    function next() {  // xoshiro128** (Blackman & Vigna 2018)
      var m = Math.imul(s1, 5);
      var r = Math.imul((m << 7) | (m >>> 25), 9) >>> 0;
      var t = s1 << 9;
      s2 ^= s0; s3 ^= s1; s1 ^= s2; s0 ^= s3; s2 ^= t;
      s3 = (s3 << 11) | (s3 >>> 21);
      return r;
    }
    function uniform() {  // 53 random bits in (0, 1)
      var v;
      do { v = ((next() >>> 5) * 67108864 + (next() >>> 6)) / 9007199254740992; } while (v === 0);
      return v;
    }
    var spare = null;
    function normal() {
      if (spare !== null) { var z = spare; spare = null; return z; }
      var u, v, q;
      do { u = 2 * uniform() - 1; v = 2 * uniform() - 1; q = u * u + v * v; } while (q >= 1 || q === 0);
      var f = Math.sqrt(-2 * Math.log(q) / q);
      spare = v * f;
      return u * f;
    }
    function gamma(a) {
      if (a < 1) return gamma(a + 1) * Math.pow(uniform(), 1 / a);
      var d = a - 1 / 3, c = 1 / Math.sqrt(9 * d);
      for (;;) {
        var z, w;
        do { z = normal(); w = 1 + c * z; } while (w <= 0);
        w = w * w * w;
        var u = uniform();
        if (u < 1 - 0.0331 * z * z * z * z || Math.log(u) < 0.5 * z * z + d * (1 - w + Math.log(w))) {
          return d * w;
        }
      }
    }
    return { uniform: uniform, normal: normal, chisquare: function (df) { return 2 * gamma(df / 2); } };
  }

  /* ------------------------------------------------------------ Student's t level */

  function lgamma(x) {  // x > 0: Stirling's series past 15, the recurrence below it (~1e-15)
    var shift = 0;
    while (x < 15) { shift += Math.log(x); x += 1; }
    var z2 = 1 / (x * x), series = (1 / 12 - z2 * (1 / 360 - z2 * (1 / 1260 - z2 * (1 / 1680
      - z2 * (1 / 1188 - z2 * (691 / 360360 - z2 / 156)))))) / x;
    return (x - 0.5) * Math.log(x) - x + 0.5 * Math.log(2 * Math.PI) + series - shift;
  }

  function betacf(a, b, x) {  // continued fraction of the incomplete beta (modified Lentz)
    var tiny = 1e-300, c = 1, d = 1 - (a + b) * x / (a + 1);
    if (Math.abs(d) < tiny) d = tiny;
    d = 1 / d;
    var h = d;
    for (var m = 1; m <= 10000; m++) {
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

  function ibeta(x, a, b) {  // regularized incomplete beta I_x(a, b)
    if (x <= 0) return 0;
    if (x >= 1) return 1;
    var lbt = lgamma(a + b) - lgamma(a) - lgamma(b) + a * Math.log(x) + b * Math.log(1 - x);
    if (x < (a + 1) / (a + b + 2)) return Math.exp(lbt) * betacf(a, b, x) / a;
    return 1 - Math.exp(lbt) * betacf(b, a, 1 - x) / b;
  }

  function tUpper(t, df) { return 0.5 * ibeta(df / (df + t * t), df / 2, 0.5); }  // P(T > t), t >= 0

  function tQuantile(p, df) {  // p > 0.5, by bisection to the last bit
    var q = 1 - p, lo = 0, hi = 1;
    while (tUpper(hi, df) > q) { lo = hi; hi *= 2; }
    for (var i = 0; i < 200; i++) {
      var mid = 0.5 * (lo + hi);
      if (mid === lo || mid === hi) break;
      if (tUpper(mid, df) > q) lo = mid; else hi = mid;
    }
    return 0.5 * (lo + hi);
  }

  function gammaQ(a, x) {  // regularized upper incomplete gamma Q(a, x), x >= a + 1 (continued fraction)
    var tiny = 1e-300, b = x + 1 - a, c = 1 / tiny, d = 1 / b, h = d;
    for (var i = 1; i <= 10000; i++) {
      var an = -i * (i - a);
      b += 2;
      d = an * d + b; if (Math.abs(d) < tiny) d = tiny;
      c = b + an / c; if (Math.abs(c) < tiny) c = tiny;
      d = 1 / d;
      var del = d * c;
      h *= del;
      if (Math.abs(del - 1) < 1e-16) break;
    }
    return Math.exp(-x + a * Math.log(x) - lgamma(a)) * h;
  }

  function gammaP(a, x) {  // regularized lower incomplete gamma P(a, x), x < a + 1 (series)
    var ap = a, sum = 1 / a, del = sum;
    for (var n = 1; n <= 10000; n++) {
      ap += 1; del *= x / ap; sum += del;
      if (Math.abs(del) < Math.abs(sum) * 1e-17) break;
    }
    return sum * Math.exp(-x + a * Math.log(x) - lgamma(a));
  }

  function normalUpper(z) {  // P(Z > z) = erfc(z / sqrt 2) / 2 = Q(1/2, z^2 / 2) / 2, z >= 0
    var x = z * z / 2;
    return 0.5 * (x < 1.5 ? 1 - gammaP(0.5, x) : gammaQ(0.5, x));
  }

  /* irstab.compare.paired.expanded_confidence: c' with z_{(1+c')/2} = t_{(1+c)/2, S-1}. */
  var levels = {};
  function expandedConfidence(confidence, nSystems) {
    var key = confidence + "/" + nSystems;
    if (!(key in levels)) levels[key] = 1 - 2 * normalUpper(tQuantile(0.5 + confidence / 2, nSystems - 1));
    return levels[key];
  }

  /* ------------------------------------------------------------ the multivariate G-study */

  /* Mean-product matrices [a, b, c] (symmetric 2 x 2: [[a, b], [b, c]]) of two S x T matrices. */
  function meanProducts(x, y, S, T) {
    function margins(m) {
      var rows = new Float64Array(S), cols = new Float64Array(T), g = 0;
      for (var s = 0; s < S; s++) {
        for (var t = 0; t < T; t++) { rows[s] += m[s * T + t]; cols[t] += m[s * T + t]; }
        g += rows[s]; rows[s] /= T;
      }
      for (var u = 0; u < T; u++) cols[u] /= S;
      return { rows: rows, cols: cols, grand: g / (S * T) };
    }
    var mx = margins(x), my = margins(y), sys = [0, 0, 0], top = [0, 0, 0], res = [0, 0, 0];
    for (var s = 0; s < S; s++) {
      var a = mx.rows[s] - mx.grand, b = my.rows[s] - my.grand;
      sys[0] += a * a; sys[1] += a * b; sys[2] += b * b;
    }
    for (var t = 0; t < T; t++) {
      var c = mx.cols[t] - mx.grand, d = my.cols[t] - my.grand;
      top[0] += c * c; top[1] += c * d; top[2] += d * d;
    }
    for (s = 0; s < S; s++) {
      for (t = 0; t < T; t++) {
        var e = x[s * T + t] - mx.rows[s] - mx.cols[t] + mx.grand;
        var f = y[s * T + t] - my.rows[s] - my.cols[t] + my.grand;
        res[0] += e * e; res[1] += e * f; res[2] += f * f;
      }
    }
    var ks = T / (S - 1), kt = S / (T - 1), ke = 1 / ((S - 1) * (T - 1));
    return [sys.map(function (v) { return v * ks; }), top.map(function (v) { return v * kt; }),
      res.map(function (v) { return v * ke; })];
  }

  /* Columns of L (2 x r) with L L' = the PSD matrix [[a, b], [b, c]], r its numerical rank
   * (eigenvalues above 1e-12 of the largest, as irstab.stability.multivariate._factor). */
  function factor(m) {
    var a = m[0], b = m[1], c = m[2];
    var mean = (a + c) / 2, rad = Math.hypot((a - c) / 2, b);
    var w = [mean + rad, mean - rad], v;
    if (b !== 0) {
      var n = Math.hypot(w[0] - c, b);
      v = [(w[0] - c) / n, b / n];
    } else {
      v = a >= c ? [1, 0] : [0, 1];
      w = a >= c ? [a, c] : [c, a];
    }
    var vecs = [v, [-v[1], v[0]]], top = Math.max(w[0], 0), cols = [];
    for (var i = 0; i < 2; i++) {
      if (w[i] > RANK_RTOL * top) {
        var sq = Math.sqrt(w[i]);
        cols.push([vecs[i][0] * sq, vecs[i][1] * sq]);
      }
    }
    return cols;
  }

  /* Diagonals of B draws of W_2(df, L L') / df, as two Float64Arrays: L A A' L' with A
   * Bartlett's lower triangle (A_00^2 ~ chi2(df), A_11^2 ~ chi2(df - 1), A_10 ~ N(0, 1)), or
   * A = Z' for a 1 x 2 standard normal Z when df = 1 is below the rank 2. */
  function wishartDiagonals(m, df, B, gen) {
    var L = factor(m), r = L.length, o0 = new Float64Array(B), o1 = new Float64Array(B);
    if (r === 0) return [o0, o1];
    var p0 = L[0][0], p1 = L[0][1], q0 = r > 1 ? L[1][0] : 0, q1 = r > 1 ? L[1][1] : 0;
    for (var b = 0; b < B; b++) {
      var u0, u1, w0 = 0, w1 = 0;  // (L A)[m][0] and (L A)[m][1]
      if (r === 1) {
        var a = Math.sqrt(gen.chisquare(df));
        u0 = p0 * a; u1 = p1 * a;
      } else if (df >= 2) {
        var a00 = Math.sqrt(gen.chisquare(df)), a10 = gen.normal(), a11 = Math.sqrt(gen.chisquare(df - 1));
        u0 = p0 * a00 + q0 * a10; u1 = p1 * a00 + q1 * a10;
        w0 = q0 * a11; w1 = q1 * a11;
      } else {
        var z0 = gen.normal(), z1 = gen.normal();
        u0 = p0 * z0 + q0 * z1; u1 = p1 * z0 + q1 * z1;
      }
      o0[b] = (u0 * u0 + w0 * w0) / df;
      o1[b] = (u1 * u1 + w1 * w1) / df;
    }
    return [o0, o1];
  }

  function phiFromMeanSquares(msS, msT, msR, S, T) {
    var c0 = (msS - msR) / T, c1 = (msT - msR) / S, c2 = msR;
    var tol = RTOL * (Math.abs(c0) + Math.abs(c1) + Math.abs(c2));
    c0 = Math.abs(c0) <= tol ? 0 : Math.max(c0, 0);
    c1 = Math.abs(c1) <= tol ? 0 : Math.max(c1, 0);
    c2 = Math.abs(c2) <= tol ? 0 : Math.max(c2, 0);
    var noise = c1 + c2, psi = noise > 0 ? c0 / noise : (c0 > 0 ? Infinity : 0);
    return 1 - 1 / (1 + T * psi);
  }

  /* ------------------------------------------------------------ the entry point */

  /**
   * The interval of Phi(candidate) - Phi(baseline) at the observed topics.
   *
   * args: {candidate, baseline: Float64Array S*T row-major (systems x topics); nSystems,
   *        nTopics; estimate: the observed difference; same: true when the candidate's scores
   *        are the baseline's; draws: B; confidence: c; seed}
   * returns {lower, upper, level (c', the percentile level used), draws, label}
   */
  function phiDifference(args) {
    var S = args.nSystems, T = args.nTopics, B = args.draws, est = args.estimate;
    var level = expandedConfidence(args.confidence, S);
    var out = { lower: est, upper: est, level: level, draws: B, label: LABEL };
    if (args.same) { out.lower = out.upper = 0; return out; }
    var mp = meanProducts(args.candidate, args.baseline, S, T);
    var dfs = [S - 1, T - 1, (S - 1) * (T - 1)], gen = rng(args.seed), drawn = [];
    for (var f = 0; f < 3; f++) drawn.push(wishartDiagonals(mp[f], dfs[f], B, gen));
    var d = new Float64Array(B), lo = Infinity, hi = -Infinity, big = 0;
    var sc = drawn[0], tc = drawn[1], rc = drawn[2];
    for (var b = 0; b < B; b++) {
      var phi = [0, 0];
      for (var k = 0; k < 2; k++) {  // pivots MS^2 / MS* (0 where the draw is 0), then Phi
        var j = 2 * k, v0 = sc[k][b], v1 = tc[k][b], v2 = rc[k][b];
        phi[k] = phiFromMeanSquares(v0 > 0 ? mp[0][j] * mp[0][j] / v0 : 0,
          v1 > 0 ? mp[1][j] * mp[1][j] / v1 : 0, v2 > 0 ? mp[2][j] * mp[2][j] / v2 : 0, S, T);
      }
      d[b] = phi[0] - phi[1];
      if (d[b] < lo) lo = d[b];
      if (d[b] > hi) hi = d[b];
      if (Math.abs(d[b]) > big) big = Math.abs(d[b]);
    }
    if (!(hi - lo > CONST_RTOL * Math.max(big, 1e-300))) return out;  // constant draws
    d.sort();
    var gamma = 1 - level, k = 1;
    while (k + 1 <= Math.floor((B + 1) / 2) && 2 * k <= gamma * B) k++;
    out.lower = d[k - 1];
    out.upper = d[B - k];
    return out;
  }

  root.IrstabInterval = { phiDifference: phiDifference, label: LABEL };
})(window);
