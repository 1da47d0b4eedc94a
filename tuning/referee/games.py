"""One game loop for every referee, parameterised by a rules object, with the fault verdicts
(a crash, no move in time, a late move, an illegal move, a false declaration lose), and the
match loop: games in parallel, a results.jsonl line per game, resume, and the summary."""

from __future__ import annotations

import concurrent.futures as cf
import dataclasses
import datetime as dt
import json
import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path

from .engines import REPO, EngineCrash, EngineError, Reply, kill_live_engines
from .stats import print_summary

BLACK, WHITE = 0, 1
COLOUR = {BLACK: "black", WHITE: "white", None: "draw"}


@dataclasses.dataclass
class Ending:
    winner: int | None  # a colour, None for a draw
    reason: str
    detail: str | None = None
    faulty: int | None = None  # the colour whose engine misbehaved


class Rules:
    """A game's rules as the game loop asks them.  `moves` are the moves played as the engines
    read them (the opening included); the defaults suit the USI referees."""

    # What an engine's answer is called in a fault's detail.
    move_word = "bestmove"
    # A claim (a resignation, a result line) judged before the clock: a late claim is a claim,
    # not a loss on time.
    claims_beat_the_clock = False
    moves: list

    def turn(self) -> int:
        raise NotImplementedError

    def plies(self) -> int:
        return len(self.moves)

    def engine(self, colour: int, spec, ms: int, log_path: Path | None):
        """The engine of `colour`, set up for this game but not started."""
        raise NotImplementedError

    def begin(self, engines: dict) -> Ending | None:
        """Once the engines have started: the game may be over already."""
        return self.adjudicate()

    def adjudicate(self) -> Ending | None:
        raise NotImplementedError

    def before_move(self, colour: int) -> Ending | None:
        return None

    def claim(self, colour: int, reply: Reply) -> Ending:
        """A USI engine's only claim is `bestmove resign`."""
        return Ending(1 - colour, "resign")

    def declare(self, colour: int, reply: Reply) -> Ending:
        """`bestmove win`: an entering-king declaration, true or false."""
        raise NotImplementedError

    def play(self, colour: int, reply: Reply) -> Ending | None:
        """The move if legal (then the game may be over), else the mover's loss."""
        raise NotImplementedError

    def result_fields(self, record: Path, times: list) -> dict:
        """What this game adds to its result line; times: ms per ply, None for the opening."""
        return {}

    def write_record(self, path: Path, res: dict, times: list):
        raise NotImplementedError


def new_stats() -> dict:
    return {"moves": 0, "total_ms": 0.0, "max_ms": 0.0, "over_byoyomi": 0}


def judge_reply(rules: Rules, colour: int, engine, reply: Reply, limit: float) -> Ending | None:
    """The verdict on an engine's answer: faults first (no answer, a late one), then the claim,
    the declaration or the move."""
    if reply.claim is not None and rules.claims_beat_the_clock:
        return rules.claim(colour, reply)
    if reply.move is None and reply.claim is None:
        crashed = engine.proc.poll() is not None
        return Ending(1 - colour, "crash" if crashed else "time",
                      f"no {rules.move_word} after {reply.ms:.0f} ms (limit {limit:.0f})", colour)
    if reply.ms > limit:
        said = reply.move if reply.move is not None else reply.claim
        return Ending(1 - colour, "time", f"{rules.move_word} {said} after {reply.ms:.0f} ms (limit {limit:.0f})",
                      colour)
    if reply.claim is not None:
        return rules.claim(colour, reply)
    if reply.move == "win":
        return rules.declare(colour, reply)
    return rules.play(colour, reply)


def play_game(rules: Rules, specs: dict, ms: dict, record: Path, log_dir: Path | None = None) -> dict:
    """Plays one game.  specs: {BLACK: spec, WHITE: spec} (each with a name and limit_ms(ms)),
    ms: the move time of each colour.  Never raises for engine faults (they are losses).
    Returns the result line, also written to `record` by the rules."""
    stats = {c: new_stats() for c in (BLACK, WHITE)}
    engines: dict = {}
    end = None
    times: list = []
    try:
        for c in (BLACK, WHITE):
            try:
                log = (log_dir / f"{record.stem}-{'bw'[c]}-{specs[c].name}.log") if log_dir else None
                e = rules.engine(c, specs[c], ms[c], log)
                engines[c] = e
                e.start()
            except EngineError as ex:
                end = Ending(1 - c, "crash", f"start: {ex}", c)
                break
        if end is None:
            end = rules.begin(engines)
        times = [None] * len(rules.moves)
        while end is None:
            c = rules.turn()
            end = rules.before_move(c)
            if end is not None:
                break
            e, limit = engines[c], specs[c].limit_ms(ms[c])
            try:
                reply = e.ask(rules.moves, limit)
            except EngineCrash as ex:
                end = Ending(1 - c, "crash", str(ex), c)
                break
            s = stats[c]
            s["moves"] += 1
            s["total_ms"] += reply.ms
            s["max_ms"] = max(s["max_ms"], reply.ms)
            if reply.ms > ms[c]:
                s["over_byoyomi"] += 1
            times.append(reply.ms)
            end = judge_reply(rules, c, e, reply, limit)
    finally:
        winner = end.winner if end else None
        for c, e in engines.items():
            e.close("draw" if winner is None else ("win" if winner == c else "lose"))
    res = {
        "winner": COLOUR[end.winner], "reason": end.reason, "detail": end.detail,
        "faulty": None if end.faulty is None else COLOUR[end.faulty],
        "plies": rules.plies(), "black": specs[BLACK].name, "white": specs[WHITE].name,
        "stats": {COLOUR[c]: stats[c] for c in stats}, "moves": rules.moves,
    }
    res.update(rules.result_fields(record, times))
    rules.write_record(record, res, times)
    return res


def text_record(title: str, res: dict, movetime: int, opening_plies: int, position: str, notes=(), after=()) -> str:
    """A game record in text: the engines, the move times, the `position` command of the game
    (notes after it), the result (after: lines after it)."""
    return "".join(
        [f"# {title}, {res['black']} (black) vs {res['white']} (white), {movetime} ms a move\n",
         f"# opening: {opening_plies} random plies; ms per move (- for opening plies): "
         + " ".join("-" if t is None else str(t) for t in res["ms"]) + "\n",
         f"{position}\n"]
        + [f"{n}\n" for n in notes]
        + [f"result {res['winner']} ({res['reason']})" + (f": {res['detail']}" if res["detail"] else "") + "\n"]
        + [f"{a}\n" for a in after])


def random_opening(legal_after, in_play, rng, plies: int, tries: int = 100) -> list:
    """`plies` random legal moves from the start (legal_after(moves): the legal moves there),
    leaving a game still in play (in_play(moves))."""
    for _ in range(tries):
        moves: list = []
        for _ in range(plies):
            legal = sorted(legal_after(moves))
            if not legal:
                break
            moves.append(rng.choice(legal))
        if len(moves) == plies and in_play(moves):
            return moves
    raise RuntimeError(f"no {plies}-ply opening still in play after {tries} tries")


# ----------------------------------------------------------------------------------------------
# The match
# ----------------------------------------------------------------------------------------------
def data_dir() -> Path:
    return Path(os.environ.get("KIRIN_DATA", str(Path.home() / "kirin-data")))


def match_folder(root: Path, stamp: str, a_name: str, b_name: str) -> Path:
    return root / f"{stamp}-{a_name}-vs-{b_name}".replace("@", "_")


def build_revision(rev: str):
    """Build kirin at `rev` (from $KIRIN_REPO, default this repository) into tuning/out/."""
    script = REPO / "tuning" / "build_rev.sh"
    subprocess.run(["bash", str(script), rev] + ([os.environ["KIRIN_REPO"]] if os.environ.get("KIRIN_REPO") else []),
                   check=True)


def require_engine(name: str, cmd: list, build: str | None = None,
                   hint: str = "build kirin: cargo build --release"):
    """Builds kirin@REV where asked; stops the match if the engine's program is missing."""
    if build and not Path(cmd[0]).exists():
        build_revision(build)
    if not (Path(cmd[0]).exists() or shutil.which(cmd[0])):
        raise SystemExit(f"{name}: {cmd[0]} not found ({hint})")


def game_pairing(i: int):
    """(pair, whether engine A has Black) of game i (from 0): each opening twice, colours swapped."""
    return i // 2, i % 2 == 0


def game_line(res: dict, a_name: str, s: dict, more: str = "") -> str:
    """The progress line of a finished game (s: the match's summary so far)."""
    r = res["winner"]
    sc = "draw" if r == "draw" else ("win" if r == res["a_colour"] else "loss")
    extra = f" [{res['detail']}]" if res["detail"] else ""
    return (f"game {res['game']:4d} {res['black']} vs {res['white']}: {sc} for {a_name} "
            f"({res['reason']}, {res['plies']} plies{more}){extra}  W{s['W']} D{s['D']} L{s['L']}")


def play_match(out: Path, numbers, ext: str, play_one, on_result, concurrency: int = 1):
    """Plays games `numbers` (from 0), `concurrency` at once.  play_one(i, record) -> the result
    line; each is appended to out/results.jsonl, then on_result(res) runs (under a lock; True
    stops the match: the games not begun are not played).  A Ctrl-C kills the engines: the games
    cut off are not results, their records are removed, and --resume plays them again."""
    lock = threading.Lock()
    stop = threading.Event()
    interrupted = threading.Event()
    with open(out / "results.jsonl", "a") as results_f:

        def job(i):
            if stop.is_set():
                return None
            rec = out / f"game-{i + 1:05d}.{ext}"
            res = play_one(i, rec)
            if interrupted.is_set():
                rec.unlink(missing_ok=True)
                return None
            with lock:
                results_f.write(json.dumps(res) + "\n")
                results_f.flush()
                if on_result(res):
                    stop.set()
            return res

        with cf.ThreadPoolExecutor(max_workers=max(1, concurrency)) as ex:
            futs = [ex.submit(job, i) for i in numbers]
            try:
                for f in cf.as_completed(futs):
                    f.result()
            except KeyboardInterrupt:
                interrupted.set()
                stop.set()
                for f in futs:
                    f.cancel()
                # The games in progress end now, unrecorded. The kill is repeated until every
                # worker is done: an engine a worker was starting as the interrupt came is not
                # yet among the live ones, and its game would otherwise run on to its deadline.
                while not all(f.done() for f in futs):
                    kill_live_engines()
                    cf.wait(futs, timeout=0.5)
                raise


def finish(out: Path, s: dict, a_name: str, b_name: str, more=None) -> dict:
    """The summary of a finished match: summary.json, and printed to the terminal and
    summary.txt (more(s, file) prints what the referee adds)."""
    s["loadavg_end"] = os.getloadavg()
    s["A"], s["B"] = a_name, b_name
    (out / "summary.json").write_text(json.dumps(s, indent=1))
    for f in (sys.stdout, open(out / "summary.txt", "w")):
        print_summary(s, a_name, b_name, file=f)
        if more:
            more(s, f)
        if f is not sys.stdout:
            f.close()
    return s


def time_stamp() -> str:
    return dt.datetime.now().strftime("%Y%m%d-%H%M%S")


def finished_games(out: Path, meta: dict, n_games: int, difference, first: int | None = None) -> dict:
    """Game number -> result for the games an interrupted match in `out` finished, checked to be
    this match's (difference(old match.json, new): the first setting that differs, or None).
    Games run in parallel finish out of order, so the numbers need not be 1..k; a match played
    one game at a time from game `first` must hold games first, first+1, ... in order."""
    try:
        old = json.loads((out / "match.json").read_text())
        lines = (out / "results.jsonl").read_text().splitlines()
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as e:
        raise SystemExit(f"--resume: cannot read the match in {out}: {e}")
    differs = difference(old, json.loads(json.dumps(meta, default=str)))
    if differs:
        raise SystemExit(f"--resume: {out} holds another match ({differs} differs)")
    done: dict = {}
    for n, line in enumerate(lines, first or 1):
        if first is None and not line.strip():
            continue
        try:
            res = json.loads(line)
            g = int(res["game"])
        except (ValueError, KeyError, TypeError):
            raise SystemExit(f"--resume: {out}/results.jsonl line {n} is not a game result")
        if first is not None and g != n:
            raise SystemExit(f"--resume: {out}/results.jsonl line {n} is game {g}, expected {n}")
        if g in done:
            raise SystemExit(f"--resume: {out}/results.jsonl has game {g} twice")
        done[g] = res
    if (first or 1) - 1 + len(done) >= n_games:
        raise SystemExit(f"--resume: {out} already has {len(done)} of {n_games} games")
    return done


def read_match_folders(dirs) -> list:
    """[(folder, match.json, results)] of the folders of a match played in parts; stops with a
    one-line reason where one cannot be read."""
    parts = []
    for d in dirs:
        d = Path(d)
        try:
            meta = json.loads((d / "match.json").read_text())
            rows = [json.loads(x) for x in (d / "results.jsonl").read_text().splitlines() if x.strip()]
        except (OSError, ValueError) as e:
            raise SystemExit(f"--summarize: cannot read the match in {d}: {e}")
        parts.append((d, meta, rows))
    return parts
