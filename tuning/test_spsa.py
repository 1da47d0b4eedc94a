"""Tests of the SPSA driver (tuning/spsa.py).  Run: .venv/bin/python -m pytest -q tuning/test_spsa.py

Covered: reading the Tune_ spin options from a `usi` answer (lines as kirin's tune build writes
them) and choosing a subset; the schedule's end points (c_k = c_end and a_k / c_k^2 = r_end at the
last iteration), its decrease and its floor; perturbation signs and clamping; rounding half up;
the update direction (theta+ winning moves theta along delta, losing against it); convergence to
a known optimum when a noiseless fake match prefers the parameters closer to it; resuming after
an interruption inside an iteration; and the whole command with scripted fake engines whose
strength depends on a Tune_ option, played through the match referee (state, trajectory, games
log, the three tuned-value files, resume with --stop-after giving the same end as one run).
"""

import json
import sys
import tempfile
import textwrap
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import match as M  # noqa: E402
import spsa as S  # noqa: E402

# Lines in the form kirin's tune build writes (src/usi/engine/options.rs), among other options.
USI_ANSWER = """id name kirin
id author kirin developers
option name USI_Hash type spin default 256 min 1 max 33554432
option name Threads type spin default 1 min 1 max 256
option name Tune_lmr_scale type spin default 20 min 10 max 30
option name Tune_rfp_margin type spin default 110 min 40 max 250
option name Tune_rfp_max_depth type spin default 8 min 4 max 12
option name Variant type combo default shogi var shogi var yari
""".splitlines()


def param(name="x", default=50, lo=0, hi=100, c_div=20.0):
    return S.Param(name, default, lo, hi, (hi - lo) / c_div)


class ParseTests(unittest.TestCase):
    def test_tune_spin_options(self):
        ps = S.parse_tune_options(USI_ANSWER)
        self.assertEqual([(p.name, p.default, p.min, p.max) for p in ps],
                         [("lmr_scale", 20, 10, 30), ("rfp_margin", 110, 40, 250), ("rfp_max_depth", 8, 4, 12)])
        self.assertEqual(ps[1].c_end, 10.5)  # (250 - 40) / 20
        self.assertEqual(ps[1].option, "Tune_rfp_margin")
        self.assertEqual(ps[2].c_end, 0.5)  # 8 / 20 = 0.4, floored so that theta+- round apart
        self.assertEqual(S.parse_tune_options(USI_ANSWER, c_div=10)[0].c_end, 2.0)

    def test_malformed_tune_options_are_refused(self):
        with self.assertRaises(ValueError):
            S.parse_tune_options(["option name Tune_a type check default true"])
        with self.assertRaises(ValueError):
            S.parse_tune_options(["option name Tune_a type spin default 9 min 0 max 5"])
        with self.assertRaises(ValueError):
            S.parse_tune_options(["option name Tune_a type spin default 5 min 0"])

    def test_subset(self):
        ps = S.parse_tune_options(USI_ANSWER)
        self.assertEqual(S.select(ps, "all"), ps)
        self.assertEqual([p.name for p in S.select(ps, "rfp_max_depth,Tune_lmr_scale")],
                         ["rfp_max_depth", "lmr_scale"])
        with self.assertRaises(SystemExit):
            S.select(ps, "rfp_margin,no_such")


class ScheduleTests(unittest.TestCase):
    def test_end_points(self):
        p = param(lo=40, hi=250)  # c_end 10.5
        s = S.Schedule(iterations=500, A=50, r_end=0.002)
        last = s.iterations - 1
        self.assertAlmostEqual(s.c_k(p, last), 10.5)
        self.assertAlmostEqual(s.a_k(p, last) / s.c_k(p, last) ** 2, 0.002)
        # c_0 = c_end * N^gamma; a_0 = a / (A + 1)^alpha
        self.assertAlmostEqual(s.c_k(p, 0), 10.5 * 500 ** 0.101)
        self.assertAlmostEqual(s.a_k(p, 0), 0.002 * 10.5 ** 2 * (550 / 51) ** 0.602)

    def test_decreasing_and_floored(self):
        p, s = param(), S.Schedule(iterations=100, A=10)
        cs = [s.c_k(p, k) for k in range(100)]
        as_ = [s.a_k(p, k) for k in range(100)]
        self.assertTrue(all(x > y for x, y in zip(cs, cs[1:])))
        self.assertTrue(all(x > y for x, y in zip(as_, as_[1:])))
        narrow = param(lo=4, hi=12)  # c_end 0.4 would round theta+ and theta- together
        self.assertEqual(s.c_k(narrow, 99), 0.5)


class StepTests(unittest.TestCase):
    def setUp(self):
        self.ps = [param("x"), param("y", default=95), param("z", default=2)]
        self.s = S.Schedule(iterations=100, A=10)

    def test_perturbation_signs_and_clamping(self):
        theta = {p.name: float(p.default) for p in self.ps}
        plus, minus = S.perturb(theta, self.ps, self.s, 0, [1, 1, -1])
        c = self.s.c_k(self.ps[0], 0)  # same range, same c for all three
        self.assertAlmostEqual(plus["x"], 50 + c)
        self.assertAlmostEqual(minus["x"], 50 - c)
        self.assertEqual(plus["y"], 100.0)  # 95 + c clamped to max
        self.assertAlmostEqual(minus["y"], 95 - c)
        self.assertEqual(plus["z"], 0.0)  # 2 - c clamped to min
        self.assertAlmostEqual(minus["z"], 2 + c)

    def test_rounding_half_up_within_range(self):
        p = param(lo=4, hi=12)
        self.assertEqual([S.to_int(v, p) for v in (6.5, 7.5, 7.49, 3.0, 12.6)], [7, 8, 7, 4, 12])
        self.assertEqual(S.integer_options({"x": 7.5}, [p]), {"Tune_x": "8"})

    def test_update_direction(self):
        theta = {"x": 50.0, "y": 50.0, "z": 50.0}
        delta = [1, -1, 1]
        won = S.update(theta, self.ps, self.s, 3, delta, 2.0)  # theta+ won both games
        step = self.s.a_k(self.ps[0], 3) / self.s.c_k(self.ps[0], 3) * 2.0
        self.assertGreater(step, 0)
        self.assertEqual(won, {"x": 50 + step, "y": 50 - step, "z": 50 + step})
        lost = S.update(theta, self.ps, self.s, 3, delta, -1.0)  # theta- won 1.5 - 0.5
        self.assertEqual(lost, {"x": 50 - step / 2, "y": 50 + step / 2, "z": 50 - step / 2})
        self.assertEqual(S.update(theta, self.ps, self.s, 3, delta, 0.0), theta)
        edge = S.update({"x": 100.0, "y": 0.0, "z": 50.0}, self.ps, self.s, 0, delta, 2.0)  # pushed out
        self.assertEqual((edge["x"], edge["y"]), (100.0, 0.0))

    def test_signs_are_reproducible(self):
        self.assertEqual(S.signs(7, 12, 30), S.signs(7, 12, 30))
        self.assertNotEqual(S.signs(7, 12, 30), S.signs(7, 13, 30))
        many = S.signs(1, 0, 2000)
        self.assertTrue(set(many) == {1, -1} and 900 < many.count(1) < 1100)


def objective_player(optimum):
    """A noiseless fake match: the side closer (in integers sent) to `optimum` wins both games."""
    def play(k, first_pair, n_pairs, plus, minus, params):
        def dist(v):
            return sum((S.to_int(v[p.name], p) - optimum[p.name]) ** 2 for p in params)
        d = dist(minus) - dist(plus)
        return [2.0 if d > 0 else -2.0 if d < 0 else 0.0] * n_pairs
    return play


class RunTests(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = Path(self.tmp.name)

    def tearDown(self):
        self.tmp.cleanup()

    def state(self, n=200, r_end=0.05):
        ps = [param("x"), param("y", default=10, lo=0, hi=40)]
        sched = S.Schedule(iterations=n, A=n / 10, r_end=r_end)
        return S.new_state("kirin,cmd=/bin/false", ps, sched, {"pairs_per_iteration": 1, "seed": 3})

    def test_converges_to_the_optimum(self):
        st = S.run(self.dir, self.state(), objective_player({"x": 80, "y": 25}), log=lambda s: None)
        self.assertEqual(st["k"], 200)
        self.assertLess(abs(st["theta"]["x"] - 80), 6)
        self.assertLess(abs(st["theta"]["y"] - 25), 3)
        rows = (self.dir / "trajectory.csv").read_text().splitlines()
        self.assertEqual(rows[0], "iteration,result,x,y")
        self.assertEqual(len(rows), 201)
        self.assertEqual(float(rows[-1].split(",")[2]), round(st["theta"]["x"], 3))
        self.assertIn(f"    x: {S.to_int(st['theta']['x'], param())}, 0, 100;",
                      (self.dir / "tuned-params.rs").read_text())

    def test_resume_after_interruption_gives_the_same_run(self):
        whole = S.run(self.dir / "a", self.state(n=30), objective_player({"x": 80, "y": 25}), log=lambda s: None)
        play = objective_player({"x": 80, "y": 25})
        calls = []

        def interrupted(k, *a):
            calls.append(k)
            if len(calls) == 12:  # inside the 12th iteration: nothing of it may be kept
                raise KeyboardInterrupt
            return play(k, *a)

        out = self.dir / "b"
        with self.assertRaises(KeyboardInterrupt):
            S.run(out, self.state(n=30), interrupted, log=lambda s: None)
        saved = S.load_state(out)
        self.assertEqual(saved["k"], 11)
        self.assertEqual(len((out / "trajectory.csv").read_text().splitlines()), 12)
        # stopped after logging iteration 12 but before saving its state: the logs are trimmed
        with open(out / "trajectory.csv", "a") as f:
            f.write("12,2,1,1\n")
        with open(out / "games.jsonl", "w") as f:
            f.write('{"iteration": 11, "pair": 11}\n{"iteration": 12, "pair": 12}\n{"iterat')
        resumed = S.run(out, saved, play, log=lambda s: None)
        self.assertEqual(resumed["theta"], whole["theta"])
        self.assertEqual(resumed["pairs"], 30)
        self.assertEqual((out / "trajectory.csv").read_text(), (self.dir / "a" / "trajectory.csv").read_text())
        self.assertEqual((out / "games.jsonl").read_text(), '{"iteration": 11, "pair": 11}\n')


# A USI engine for the command test: it declares Tune_x and Tune_y; with x >= 50 it plays the
# first legal move, below 50 it resigns.  So the side whose x is larger wins, whatever y is.
FAKE = textwrap.dedent(r'''
    import sys, cshogi
    tune = len(sys.argv) < 2 or sys.argv[1] != "plain"
    board = cshogi.Board(); x = 50
    def out(s):
        sys.stdout.write(s + "\n"); sys.stdout.flush()
    for line in sys.stdin:
        t = line.split()
        if not t: continue
        if t[0] == "usi":
            out("id name fake-tune")
            out("option name Threads type spin default 1 min 1 max 4")
            if tune:
                out("option name Tune_x type spin default 50 min 0 max 100")
                out("option name Tune_y type spin default 10 min 0 max 40")
            out("usiok")
        elif t[0] == "setoption" and t[2] == "Tune_x": x = int(t[4])
        elif t[0] == "isready": out("readyok")
        elif t[0] == "position":
            board.reset()
            for m in t[3:]: board.push_usi(m)
        elif t[0] == "go":
            if x < 50 or board.is_game_over(): out("bestmove resign"); continue
            out("bestmove " + cshogi.move_to_usi(sorted(board.legal_moves)[0]))
        elif t[0] == "quit": break
''')


class CommandTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.dir = Path(cls.tmp.name)
        (cls.dir / "fake.py").write_text(FAKE)
        (cls.dir / "openings.sfen").write_text("startpos moves 7g7f 3c3d\nstartpos moves 2g2f 8c8d\n")

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def argv(self, out, *extra, mode=""):
        # a 30 s referee margin: the fake answers at once, but on a loaded machine "at once" can
        # exceed the 200 ms byoyomi, and a test must not turn on that
        engine = f"kirin,name=fake,margin=30000,cmd={sys.executable} {self.dir / 'fake.py'} {mode}".rstrip()
        return ["--engine", engine, "--iterations", "3", "--r-end", "0.05", "--byoyomi", "200", "--openings",
                str(self.dir / "openings.sfen"), "--out", str(self.dir / out), "--quiet", *extra]

    def test_tuning_run_with_fake_engines(self):
        st = S.main(self.argv("run"))
        out = self.dir / "run"
        self.assertEqual((st["k"], st["pairs"]), (3, 3))
        # the side with the larger x won every game, so x rose at every iteration
        self.assertEqual((st["plus_points"] + st["minus_points"]), 6.0)
        xs = [float(r.split(",")[2]) for r in (out / "trajectory.csv").read_text().splitlines()[1:]]
        self.assertEqual(len(xs), 3)
        self.assertTrue(50 < xs[0] < xs[1] < xs[2])
        games = [json.loads(l) for l in (out / "games.jsonl").read_text().splitlines()]
        self.assertEqual(len(games), 6)
        self.assertEqual({g["reason"] for g in games}, {"resign"})
        self.assertEqual(len(list((out / "games").glob("*.csa"))), 6)
        # the tuned values, three ways
        x, y = S.to_int(st["theta"]["x"], param()), S.to_int(st["theta"]["y"], param("y", 10, 0, 40))
        self.assertGreater(x, 50)
        rs = (out / "tuned-params.rs").read_text()
        self.assertIn(f"\n    x: {x}, 0, 100;", rs)
        self.assertIn(f"\n    y: {y}, 0, 40;", rs)
        self.assertEqual((out / "tuned-setoption.txt").read_text(),
                         f"setoption name Tune_x value {x}\nsetoption name Tune_y value {y}\n")
        spec = M.parse_engine_spec((out / "tuned-engine.txt").read_text().strip())
        self.assertEqual((spec.name, spec.options["Tune_x"], spec.options["Tune_y"]), ("kirin-spsa", str(x), str(y)))
        self.assertEqual(spec.cmd, [sys.executable, str(self.dir / "fake.py")])

    def test_stop_and_resume_ends_like_one_run(self):
        first = S.main(self.argv("parts", "--stop-after", "1"))
        self.assertEqual(first["k"], 1)
        # settings given again on resume are not used: the state's schedule stays
        resumed = S.main(self.argv("parts", "--iterations", "99"))
        whole = S.main(self.argv("whole"))
        self.assertEqual(resumed["k"], 3)
        self.assertEqual(resumed["theta"], whole["theta"])
        self.assertEqual((self.dir / "parts" / "trajectory.csv").read_text(),
                         (self.dir / "whole" / "trajectory.csv").read_text())

    def test_subset_of_parameters(self):
        st = S.main(self.argv("subset", "--params", "Tune_x", "--stop-after", "1"))
        self.assertEqual(list(st["theta"]), ["x"])
        self.assertNotIn("Tune_y", (self.dir / "subset" / "tuned-setoption.txt").read_text())

    def test_engine_without_tune_options_is_refused(self):
        with self.assertRaises(SystemExit) as cm:
            S.main(self.argv("plain", mode="plain"))
        self.assertIn("--features tune", str(cm.exception))
        self.assertFalse((self.dir / "plain" / "state.json").exists())

    def test_bad_input_is_a_one_line_error(self):
        with self.assertRaises(SystemExit) as cm:
            S.main(self.argv("badspec") + ["--engine", "kirin,colour=blue"])
        self.assertIn("unknown engine key", str(cm.exception))
        with self.assertRaises(SystemExit) as cm:
            S.main(self.argv("badparam", "--params", "x,nope"))
        self.assertIn("no Tune_nope", str(cm.exception))
        with self.assertRaises(SystemExit) as cm:
            S.main(self.argv("nobin") + ["--engine", str(self.dir / "no-such-engine")])
        self.assertIn("not found (the tune build", str(cm.exception))
        (self.dir / "corrupt").mkdir()
        (self.dir / "corrupt" / "state.json").write_text("{not json")
        with self.assertRaises(SystemExit) as cm:
            S.main(self.argv("corrupt"))
        self.assertIn("cannot read the state", str(cm.exception))


if __name__ == "__main__":
    unittest.main()
