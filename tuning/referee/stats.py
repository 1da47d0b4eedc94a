"""Match statistics: Elo with a 95 % margin from W/D/L (trinomial) and from game pairs
(pentanomial), the SPRT, and the tally and summary of a match's games."""

from __future__ import annotations

import math
import sys

Z95 = 1.959963984540054


def elo_from_score(s: float) -> float:
    """Logistic Elo difference for an expected score s in (0, 1)."""
    if s <= 0.0:
        return -math.inf
    if s >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / s - 1.0)


def score_from_elo(elo: float) -> float:
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def _mean_var(values_counts):
    """Mean and (population) variance of a discrete distribution given as (value, count) pairs."""
    n = sum(c for _, c in values_counts)
    if n == 0:
        return 0.0, 0.0, 0
    mean = sum(v * c for v, c in values_counts) / n
    var = sum(c * (v - mean) ** 2 for v, c in values_counts) / n
    return mean, var, n


def _elo_interval(mean, var, n):
    se = math.sqrt(var / n) if n else math.inf
    lo, hi = elo_from_score(mean - Z95 * se), elo_from_score(mean + Z95 * se)
    margin = (hi - lo) / 2.0 if math.isfinite(lo) and math.isfinite(hi) else math.inf
    return elo_from_score(mean), margin, lo, hi


def elo_trinomial(w: int, d: int, l: int):
    """(elo, margin95, lo, hi) from W/D/L, games treated as independent.

    score mean s = (W + D/2)/N, per-game variance var = (W(1-s)^2 + D(1/2-s)^2 + L s^2)/N,
    standard error se = sqrt(var/N); the interval is elo(s -+ 1.96 se), the margin its half width.
    """
    return _elo_interval(*_mean_var([(1.0, w), (0.5, d), (0.0, l)]))


PENTA_VALUES = [0.0, 0.25, 0.5, 0.75, 1.0]


def elo_pentanomial(p):
    """(elo, margin95, lo, hi) from pair counts p[0..4] (pair score 0, 1/2, 1, 3/2, 2 points).

    A pair is the two games of one opening with colours swapped; its score per game is
    0, 1/4, 1/2, 3/4, 1 and the pairs (not the games) are the independent samples, which removes
    the opening's bias from the variance.
    """
    return _elo_interval(*_mean_var(list(zip(PENTA_VALUES, p))))


def sprt_llr(mean: float, var: float, n: int, elo0: float, elo1: float) -> float:
    """Log-likelihood ratio of H1 (elo1) against H0 (elo0), normal approximation.

    Derivation: the sample mean x of n i.i.d. scores with variance var is ~ N(s, var/n).  With
    s0 = score(elo0), s1 = score(elo1):
        LLR = log N(x; s1, var/n) - log N(x; s0, var/n)
            = n/(2 var) * ((x - s0)^2 - (x - s1)^2)
            = n (s1 - s0) (2x - s0 - s1) / (2 var).
    This is the approximation fishtest's (logistic-Elo) SPRT uses; for pentanomial data the
    samples are game pairs with per-game pair scores 0, 1/4, ..., 1.
    """
    if n == 0 or var <= 0.0:
        return 0.0
    s0, s1 = score_from_elo(elo0), score_from_elo(elo1)
    return n * (s1 - s0) * (2.0 * mean - s0 - s1) / (2.0 * var)


def sprt_bounds(alpha: float, beta: float):
    """(lower, upper): accept H0 when LLR <= lower, H1 when LLR >= upper (Wald)."""
    return math.log(beta / (1.0 - alpha)), math.log((1.0 - beta) / alpha)


def sprt_status(llr, alpha, beta):
    lo, hi = sprt_bounds(alpha, beta)
    if llr >= hi:
        return "H1 accepted"
    if llr <= lo:
        return "H0 accepted"
    return "continue"


def sprt_from_results(w, d, l, penta, elo0, elo1, model="penta"):
    """LLR from W/D/L (model 'tri') or pair counts (model 'penta').

    Empty categories get a count of 1e-3 (as fishtest regularises): otherwise a one-sided run
    (all wins) has zero variance and the LLR would stay 0 for ever."""
    if model == "penta" and sum(penta) > 0:
        vc = list(zip(PENTA_VALUES, penta))
    elif w + d + l > 0:
        vc = [(1.0, w), (0.5, d), (0.0, l)]
    else:
        return 0.0
    vc = [(v, c if c > 0 else 1e-3) for v, c in vc]
    mean, var, n = _mean_var(vc)
    return sprt_llr(mean, var, n, elo0, elo1)


class Tally:
    """W/D/L, pair counts, times and faults of a match's games, from engine A's view."""

    def __init__(self):
        self.w = self.d = self.l = 0
        self.pairs: dict = {}  # pair index -> list of scores for A
        self.penta = [0, 0, 0, 0, 0]
        self.time = {"A": self._t(), "B": self._t()}
        self.faults = {"A": {}, "B": {}}
        self.reasons: dict = {}

    @staticmethod
    def _t():
        return {"moves": 0, "total_ms": 0.0, "max_ms": 0.0, "over_byoyomi": 0}

    def add(self, pair: int, a_colour: str, res: dict):
        score = 0.5 if res["winner"] == "draw" else (1.0 if res["winner"] == a_colour else 0.0)
        if score == 1.0:
            self.w += 1
        elif score == 0.5:
            self.d += 1
        else:
            self.l += 1
        self.pairs.setdefault(pair, []).append(score)
        if len(self.pairs[pair]) == 2:
            self.penta[int(round(sum(self.pairs[pair]) * 2))] += 1
        b_colour = "white" if a_colour == "black" else "black"
        for who, col in (("A", a_colour), ("B", b_colour)):
            s, t = res["stats"][col], self.time[who]
            t["moves"] += s["moves"]
            t["total_ms"] += s["total_ms"]
            t["max_ms"] = max(t["max_ms"], s["max_ms"])
            t["over_byoyomi"] += s["over_byoyomi"]
        if res["faulty"]:
            who = "A" if res["faulty"] == a_colour else "B"
            self.faults[who][res["reason"]] = self.faults[who].get(res["reason"], 0) + 1
        self.reasons[res["reason"]] = self.reasons.get(res["reason"], 0) + 1

    def summary(self, sprt=None, model="penta"):
        n = self.w + self.d + self.l
        out = {"games": n, "W": self.w, "D": self.d, "L": self.l, "pentanomial": self.penta,
               "reasons": self.reasons, "faults": self.faults, "time": {}}
        if n:
            e, m, _, _ = elo_trinomial(self.w, self.d, self.l)
            out["elo_trinomial"] = [e, m]
        if sum(self.penta):
            e, m, _, _ = elo_pentanomial(self.penta)
            out["elo_pentanomial"] = [e, m]
        for who, t in self.time.items():
            out["time"][who] = dict(t, mean_ms=(t["total_ms"] / t["moves"]) if t["moves"] else 0.0)
        if sprt:
            llr = sprt_from_results(self.w, self.d, self.l, self.penta, sprt["elo0"], sprt["elo1"], model)
            lo, hi = sprt_bounds(sprt["alpha"], sprt["beta"])
            status = sprt_status(llr, sprt["alpha"], sprt["beta"])
            if n < sprt.get("min_games", 0):
                status = "continue"  # the regularised variance of a handful of games decides too fast
            out["sprt"] = {"llr": llr, "lower": lo, "upper": hi, "status": status, **sprt}
        return out


def fmt_elo(x):
    return f"{x + 0.0:+.1f}" if math.isfinite(x) else ("+inf" if x > 0 else "-inf")


def print_summary(s, a_name, b_name, file=sys.stdout):
    print(f"{a_name} vs {b_name}: {s['games']} games  W {s['W']}  D {s['D']}  L {s['L']}"
          f"  pentanomial {s['pentanomial']}", file=file)
    if "elo_trinomial" in s:
        e, m = s["elo_trinomial"]
        print(f"  Elo (trinomial)  {fmt_elo(e)} +- {m:.1f}", file=file)
    n = s["games"]
    if n and s["W"] + s["D"] == 0:  # no point scored: the one-sided bound 1 - 0.05^(1/N) on the score
        print(f"  Elo < {fmt_elo(elo_from_score(1 - 0.05 ** (1 / n)))} (95 %, no point in {n} games)", file=file)
    if n and s["L"] + s["D"] == 0:
        print(f"  Elo > {fmt_elo(elo_from_score(0.05 ** (1 / n)))} (95 %, every game won of {n})", file=file)
    if "elo_pentanomial" in s:
        e, m = s["elo_pentanomial"]
        note = "  (zero sample variance: every pair scored alike, the margin means nothing)" if m == 0 else ""
        print(f"  Elo (pentanomial) {fmt_elo(e)} +- {m:.1f}{note}", file=file)
    if "sprt" in s:
        p = s["sprt"]
        print(f"  SPRT elo0={p['elo0']} elo1={p['elo1']} alpha={p['alpha']} beta={p['beta']}: "
              f"LLR {p['llr']:.3f} [{p['lower']:.3f}, {p['upper']:.3f}] -> {p['status']}", file=file)
        if p.get("decided_after"):
            print(f"  sequentially, in the order the games finished: {p['first_decision']} "
                  f"after {p['decided_after']} games", file=file)
    for who, name in (("A", a_name), ("B", b_name)):
        t = s["time"][who]
        print(f"  time {name}: {t['moves']} moves, mean {t['mean_ms']:.0f} ms, max {t['max_ms']:.0f} ms, "
              f"over byoyomi {t['over_byoyomi']}; faults {s['faults'][who] or 'none'}", file=file)
    print(f"  endings {s['reasons']}", file=file)


def parse_sprt(words):
    d = {"elo0": 0.0, "elo1": 5.0, "alpha": 0.05, "beta": 0.05, "min_games": 20}
    for w in words:
        k, _, v = w.partition("=")
        if k not in d:
            raise SystemExit(f"--sprt: unknown key {k}")
        d[k] = float(v)
    return d


