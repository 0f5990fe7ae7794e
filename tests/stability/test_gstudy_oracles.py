"""G-study against independent oracles: textbook results, statsmodels, ICC formulas."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from brennan_data import SYNTHETIC_1, SYNTHETIC_4

from irstab.stability import gstudy

DL2019 = Path(__file__).resolve().parents[2] / ".." / "shared" / "data" / "trec-dl-2019-passage"


def dl2019_matrix(measure: str) -> pd.DataFrame:
    if not (DL2019 / "qrels.txt").is_file():
        pytest.skip(f"TREC DL 2019 data not found at {DL2019}")
    from irstab.metrics import parse_measure

    coll = _collection()
    return pd.DataFrame(
        parse_measure(measure).compute(coll), index=coll.systems, columns=coll.topics
    )


_CACHE: dict = {}


def _collection():
    if "coll" not in _CACHE:
        from irstab.collection import Collection

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            _CACHE["coll"] = Collection.from_files(
                DL2019 / "qrels.txt", DL2019 / "runs", depth=1000
            )
    return _CACHE["coll"]


# ------------------------------------------------------------ Brennan (2001)


def test_brennan_synthetic_1_printed_digits():
    g = gstudy(SYNTHETIC_1)
    # Brennan (2001), ch. 2, Synthetic Data Set No. 1 (p x i): printed values,
    # quoted in issue 4: sigma2(p)=.0574, sigma2(i)=.0754, sigma2(pi,e)=.1269,
    # Erho2=.844 and Phi=.773 for n'_i=12.
    assert round(g.var_system, 4) == 0.0574
    assert round(g.var_topic, 4) == 0.0754
    assert round(g.var_residual, 4) == 0.1269
    assert round(g.erho2(12), 3) == 0.844
    assert round(g.phi(12), 3) == 0.773
    # Same book, ANOVA table of the data set (as quoted in the GeneralizIT
    # fixture design1_fixtures.py): SS 7.3417, 9.6917, 12.5583; MS .8157, .8811, .1269;
    # df 9, 11, 99.
    assert (g.df_system, g.df_topic, g.df_residual) == (9, 11, 99)
    assert [round(v, 4) for v in (g.ss_system, g.ss_topic, g.ss_residual)] == [
        7.3417,
        9.6917,
        12.5583,
    ]
    assert [round(v, 4) for v in (g.ms_system, g.ms_topic, g.ms_residual)] == [
        0.8157,
        0.8811,
        0.1269,
    ]


def test_brennan_synthetic_4_as_p_x_i_components():
    g = gstudy(SYNTHETIC_4)
    # Brennan (2001) Table 6.2, p. 182 (Synthetic Data Set No. 4 as p x i), as
    # used by gt4ireval's tests (github.com/julian-urbano/gt4ireval,
    # tests/testthat/test.gstudy.R): MS 10.2963, 11.6273, 2.7872;
    # sigma2 .6258, .8840, 2.7872.
    assert [round(v, 4) for v in (g.ms_system, g.ms_topic, g.ms_residual)] == [
        10.2963,
        11.6273,
        2.7872,
    ]
    assert [round(v, 4) for v in (g.var_system, g.var_topic, g.var_residual)] == [
        0.6258,
        0.8840,
        2.7872,
    ]


def test_brennan_synthetic_4_f_intervals():
    g = gstudy(SYNTHETIC_4)
    # Brennan (2001) Table 6.5, p. 198, 80% intervals for n'=12 (as used by
    # gt4ireval's tests/testthat/test.dstudy.R): Erho2 .729 [.541, .876]
    # (Feldt), Phi .672 [.457, .845] (Arteaga et al.).
    assert round(g.erho2(), 3) == 0.729
    assert [round(v, 3) for v in g.erho2_interval(confidence=0.80)] == [0.541, 0.876]
    assert round(g.phi(), 3) == 0.672
    assert [round(v, 3) for v in g.phi_interval(confidence=0.80)] == [0.457, 0.845]
    d = g.dstudy(confidence=0.80)
    assert [round(v, 3) for v in (d.phi_lower[0], d.phi_upper[0])] == [0.457, 0.845]


def test_feldt_interval_closed_form():
    # Feldt (1965): 1 - Erho2 = F_crit / F_obs at n' = n_t, so the limits are
    # 1 - F_{1-a/2}/F_obs and 1 - F_{a/2}/F_obs (arithmetic, scipy.stats quantiles).
    from scipy import stats

    g = gstudy(SYNTHETIC_4)
    f_obs = g.ms_system / g.ms_residual
    lo = 1 - stats.f.ppf(0.975, 9, 99) / f_obs
    hi = 1 - stats.f.ppf(0.025, 9, 99) / f_obs
    np.testing.assert_allclose(g.erho2_interval(confidence=0.95), (lo, hi), rtol=1e-10)


# ------------------------------------------------------------ statsmodels


def _anova_lm_ss(x: np.ndarray) -> tuple[float, float, float]:
    from statsmodels.formula.api import ols
    from statsmodels.stats.anova import anova_lm

    n_s, n_t = x.shape
    long = pd.DataFrame(
        {
            "system": np.repeat([f"s{i}" for i in range(n_s)], n_t),
            "topic": np.tile([f"t{j}" for j in range(n_t)], n_s),
            "score": x.ravel(),
        }
    )
    table = anova_lm(ols("score ~ C(system) + C(topic)", data=long).fit())
    return tuple(float(table.loc[k, "sum_sq"]) for k in ("C(system)", "C(topic)", "Residual"))


@pytest.mark.filterwarnings("ignore::irstab.errors.IRStabWarning")
@pytest.mark.parametrize(
    "x",
    [
        SYNTHETIC_1,
        SYNTHETIC_4,
        np.random.default_rng(7).normal(size=(9, 14)),
        np.random.default_rng(8).uniform(size=(3, 2)),
    ],
    ids=["brennan1", "brennan4", "normal9x14", "uniform3x2"],
)
def test_sums_of_squares_match_statsmodels(x):
    g = gstudy(x)
    np.testing.assert_allclose(
        (g.ss_system, g.ss_topic, g.ss_residual), _anova_lm_ss(x), rtol=1e-9, atol=1e-12
    )


def test_sums_of_squares_match_statsmodels_on_dl2019():
    frame = dl2019_matrix("nDCG@10")
    g = gstudy(frame)
    np.testing.assert_allclose(
        (g.ss_system, g.ss_topic, g.ss_residual), _anova_lm_ss(frame.to_numpy()), rtol=1e-9
    )


# ------------------------------------------------------------ ICC (Shrout & Fleiss 1979)


def _shrout_fleiss(x: np.ndarray) -> dict:
    """ICC(2,1), ICC(2,k), ICC(3,1), ICC(3,k); targets = rows (systems), judges = columns.

    Mean squares from raw sums ("T" terms), not from deviations as irstab does.
    """
    n, k = x.shape
    t_mu = x.sum() ** 2 / (n * k)
    t_rows = (x.sum(axis=1) ** 2).sum() / k
    t_cols = (x.sum(axis=0) ** 2).sum() / n
    t_all = (x**2).sum()
    bms = (t_rows - t_mu) / (n - 1)
    jms = (t_cols - t_mu) / (k - 1)
    ems = (t_all - t_rows - t_cols + t_mu) / ((n - 1) * (k - 1))
    return {
        "ICC(2,1)": (bms - ems) / (bms + (k - 1) * ems + k * (jms - ems) / n),
        "ICC(2,k)": (bms - ems) / (bms + (jms - ems) / n),
        "ICC(3,1)": (bms - ems) / (bms + (k - 1) * ems),
        "ICC(3,k)": (bms - ems) / bms,
    }


@pytest.mark.parametrize("seed", range(5))
def test_coefficients_equal_icc(seed):
    rng = np.random.default_rng(seed)
    n_s, n_t = rng.integers(3, 30, size=2)
    x = rng.normal(size=(n_s, 1)) + 0.7 * rng.normal(size=(1, n_t)) + rng.normal(size=(n_s, n_t))
    g = gstudy(x)
    if min(g.var_system, g.var_topic) < 0:
        pytest.skip("the ICCs use raw components; this sample has a negative one")
    icc = _shrout_fleiss(x)
    assert g.erho2(n_t) == pytest.approx(icc["ICC(3,k)"], rel=1e-9)
    assert g.phi(n_t) == pytest.approx(icc["ICC(2,k)"], rel=1e-9)
    assert g.erho2(1) == pytest.approx(icc["ICC(3,1)"], rel=1e-9)
    assert g.phi(1) == pytest.approx(icc["ICC(2,1)"], rel=1e-9)


def test_coefficients_equal_icc_on_dl2019():
    frame = dl2019_matrix("nDCG@10")
    g = gstudy(frame)
    icc = _shrout_fleiss(frame.to_numpy())
    assert g.erho2() == pytest.approx(icc["ICC(3,k)"], rel=1e-9)
    assert g.phi() == pytest.approx(icc["ICC(2,k)"], rel=1e-9)


# ------------------------------------------------------------ optimum independence of n'


def test_argmax_phi1_is_argmax_phin_on_dl2019_gain_grid():
    # Seed 003 §2.1: Phi(n) is a monotone function of Phi(1), so the gain
    # vector maximising Phi(1) maximises Phi(n) for every n.
    grid = [(0, 1, g2, g3) for g2 in (1, 2, 4, 8) for g3 in (1, 4, 16)]
    grid = [g for g in grid if g[3] >= g[2]]
    studies = []
    for gain in grid:
        frame = dl2019_matrix(f"nDCG(gain={gain})@10")
        studies.append(gstudy(frame))
    n_values = [1, 2, 5, 10, 43, 100, 1000]
    phis = np.array([[g.phi(n) for n in n_values] for g in studies])
    best = np.argmax(phis[:, 0])
    assert np.all(np.argmax(phis, axis=0) == best)
    # the whole ordering is preserved, not only the argmax
    order = np.argsort(-phis[:, 0], kind="stable")
    for j in range(len(n_values)):
        assert np.all(np.diff(phis[order, j]) <= 1e-15)


@pytest.mark.filterwarnings("ignore::irstab.errors.IRStabWarning")
def test_argmax_phi1_is_argmax_phin_synthetic_family():
    # A one-parameter family of "measures": scores mix a stable and a noisy matrix.
    rng = np.random.default_rng(3)
    stable = rng.normal(size=(12, 1)) + 0.3 * rng.normal(size=(12, 40))
    noisy = rng.normal(size=(1, 40)) + rng.normal(size=(12, 40))
    weights = np.linspace(0, 1, 21)
    studies = [gstudy((1 - w) * stable + w * noisy) for w in weights]
    for n in (1, 3, 10, 40, 500):
        assert np.argmax([g.phi(n) for g in studies]) == np.argmax([g.phi(1) for g in studies])
