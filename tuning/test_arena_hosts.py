"""ShogiArena's SSH path, run for real: an SPRT over two hosts, a resume with a changed
configuration, a worker killed mid-game, and a run interrupted, each resumed.

Run: .venv/bin/python -m pytest -q tuning/test_arena_hosts.py   (tuning/setup.sh installs sshd)
     ARENA_HOSTS_KEEP=1 keeps its folder (configurations, run folders, logs) and says where.

The two hosts are this machine, reached through an sshd of the test's own on the loopback address
(a free port, a throwaway host key and client key, all in a temporary folder) under two names,
127.0.0.1 and localhost, each with its own project root.  ShogiArena builds its worker bundle,
installs it on each host with uv and plays every game there through its remote job supervisor.
The engines are tuning/fake_engine.py's: `first` against `held`, which waits at its first move
until the test lets it go, so that the test knows on which host a game is under way and nothing
is decided by sleeping.  Every game is a draw at the ply limit, so the SPRT never stops early and
the totals are known in advance.

What ShogiArena 1.3.2 does, as asserted below (tuning/arena/README.md, "Adding real machines"):
- the SPRT's games are shared between the hosts, one game per host at a time (a game takes two
  slots), and its totals match the records;
- a resume whose configuration changed is refused;
- a worker killed mid-game stops the whole run as failed (no retry on the other host); the game
  under way on the other host is still recorded, the killed one is not;
- the resume of that run fails the same way: the run pins the game to its job on the host, which
  keeps its failed end, so the game is never played again (and no game is recorded twice);
- a run interrupted with games under way has them cancelled on the hosts, and its resume fails
  on them the same way.
"""

import getpass
import json
import os
import shutil
import signal
import sqlite3
import sys
import tempfile
import unittest
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import arena_harness as H  # noqa: E402
from loopback_sshd import LoopbackSshd, wait_for  # noqa: E402

LAUNCHER = HERE / "arena_host_python.py"
HOSTS = {"host-a": "127.0.0.1", "host-b": "localhost"}
GAMES = 2
# Passed on to the hosts' sessions where set: how this machine reaches the package index.
FORWARDED = ("SSL_CERT_FILE", "SSL_CERT_DIR", "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "http_proxy",
             "https_proxy", "no_proxy", "UV_INDEX_URL", "UV_DEFAULT_INDEX", "UV_CACHE_DIR")


class ArenaHostsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = d = Path(tempfile.mkdtemp(prefix="arena-hosts-"))
        cls.sshd = None
        try:
            cls._start_sshd(d)
            cls._write_configs(d)
        except BaseException:
            cls.tearDownClass()
            raise

    @classmethod
    def _start_sshd(cls, d):
        # What a host needs on PATH: uv, and the Python version the workers are built for.
        cls.bin = d / "bin"
        cls.bin.mkdir()
        (cls.bin / "uv").symlink_to(Path(sys.executable).parent / "uv")
        (cls.bin / "python3").symlink_to(os.path.realpath(sys.executable))
        env = {"PATH": f"{cls.bin}:/usr/local/bin:/usr/bin:/bin",
               "UV_PYTHON_DOWNLOADS": "never",  # the host's Python or none
               "UV_COMPILE_BYTECODE": "1"}  # else every worker start compiles ShogiArena afresh
        env |= {k: os.environ[k] for k in FORWARDED if os.environ.get(k) and " " not in os.environ[k]}
        cls.sshd = LoopbackSshd(d, env)
        cls.port = cls.sshd.port
        # The coordinator's own HOME: ShogiArena checks host keys against ~/.ssh/known_hosts.
        cls.home = d / "home"
        (cls.home / ".ssh").mkdir(parents=True)
        (cls.home / ".ssh" / "known_hosts").write_text(cls.sshd.known_hosts(HOSTS.values()))

    @classmethod
    def _write_configs(cls, d):
        cls.gate = d / "gate"
        cls.gate.mkdir()
        engines = [f"  - {{name: {name}, engine_path: {H.engine_file(d, name, *mode)}}}"
                   for name, mode in (("first", ("first",)), ("held", ("held", str(cls.gate))))]
        for name, host in HOSTS.items():
            (d / "roots" / name).mkdir(parents=True)
            (d / f"{name}.yaml").write_text("\n".join([
                f"name: {name}", "type: ssh", f"host: {host}", f"port: {cls.port}", f"user: {getpass.getuser()}",
                f"identity_file: {d / 'ssh' / 'client_key'}", f"project_root: {d / 'roots' / name}",
                "slots: 2", ""]))  # two engines: one game at a time
        (d / "positions.sfen").write_text(f"sfen {H.START}\n")
        (d / "sprt.yaml").write_text("\n".join([
            "experiment_name: arena-hosts",
            f"instances: [{d / 'host-a.yaml'}, {d / 'host-b.yaml'}]",
            "engines:", *engines,
            "rules:",
            # a held engine's clock runs while the test decides: a long byoyomi, instant moves
            "  time_control: {time_ms: 0, byoyomi_ms: 60000, expiry_margin_ms: 1000}",
            f"  initial_positions: {{type: file, source: {d / 'positions.sfen'}, flip_policy: pair_both}}",
            "  adjudication: {max_plies: 8, sync_max_plies_with_engine: false}",
            "  repetition_occurrences_to_draw: 4",
            f"tournament: {{games_per_pair: {GAMES}, num_parallel: 2}}",
            f"sprt: {{tested_engine: first, elo0: 0, elo1: 10, alpha: 0.05, beta: 0.05, max_games: {GAMES}}}",
            "system: {instance_scheduling: {policy: auto}}",  # the SSH hosts, not this process
            "dashboard: {enabled: false}", ""]))

    @classmethod
    def tearDownClass(cls):
        # let any held engine go, then stop what the test started: the hosts' job processes
        # (their own sessions, not sshd's children) run from the project roots
        if (cls.dir / "gate").exists():
            (cls.dir / "gate" / "go-all").touch()
        for pid in cls._pids_under(cls.dir / "roots"):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        if cls.sshd is not None:
            cls.sshd.stop()
        if os.environ.get("ARENA_HOSTS_KEEP"):
            print(f"kept {cls.dir}", file=sys.stderr)
        else:
            shutil.rmtree(cls.dir, ignore_errors=True)

    @staticmethod
    def _pids_under(root):
        pids = []
        for proc in Path("/proc").iterdir():
            if proc.name.isdigit():
                try:
                    if str(root) in (proc / "cmdline").read_bytes().decode(errors="replace"):
                        pids.append(int(proc.name))
                except OSError:
                    pass
        return pids

    # --- driving ShogiArena -------------------------------------------------------------------

    def start(self, run, log_name, *extra):
        """Starts `shogiarena run sprt` on the test's configuration in the run folder `run`
        (resuming what is there), through tuning/arena_host_python.py."""
        env = dict(os.environ, HOME=str(self.home), PATH=f"{self.bin}:{os.environ['PATH']}")
        # the uv cache stays where it was, so that the worker's wheels are fetched once per machine
        env.setdefault("UV_CACHE_DIR", str(Path.home() / ".cache" / "uv"))
        self.log = self.dir / f"{log_name}.log"
        return H.start([sys.executable, str(LAUNCHER), "run", "sprt", str(self.dir / "sprt.yaml"),
                        "--run-dir", str(self.dir / run), *extra], self.dir, self.log, env)

    def finish(self, proc, limit_s):
        return H.finish(proc, self.log, limit_s)

    def tail(self, n=3000):
        return H.tail(self.log, n)

    def held(self):
        """Engines waiting at their first move: {pid: host name}, the host read from the game's
        folder, which lies under that host's project root.  An engine that is gone (its worker
        killed) waits for nothing."""
        games = {}
        for f in self.gate.glob("thinking-*"):
            pid = int(f.name.split("-")[1])
            if not (self.gate / f"go-{pid}").exists() and Path(f"/proc/{pid}").exists():
                cwd = f.read_text()
                games[pid] = next(h for h in HOSTS if f"/roots/{h}/" in cwd)
        return games

    def game_of(self, pid):
        """The game an engine plays: the logical game ID in its job's spec.json, which lies in a
        folder above the engine's."""
        job = next(p for p in Path(f"/proc/{pid}/cwd").resolve().parents if p.name.startswith("job-"))
        return json.loads((job / "spec.json").read_text())["identity"]["game_id"]

    def release(self, pid):
        (self.gate / f"go-{pid}").touch()

    def games(self, run):
        """The games recorded in the run folder `run`: (name, result, host) for each row of
        ShogiArena's game database."""
        try:
            db = sqlite3.connect(f"file:{self.dir / run / 'game.db'}?mode=ro", uri=True, timeout=10)
        except sqlite3.OperationalError:
            return []
        try:
            return db.execute(
                "select g.game_name, g.game_result, p.instance_id from game g join game_instance_participation p "
                "on p.game_id = g.id and p.role = 'black' order by g.id").fetchall()
        except sqlite3.OperationalError:  # not created yet
            return []
        finally:
            db.close()

    # --- the test -----------------------------------------------------------------------------

    def test_sprt_over_two_hosts(self):
        # 1. The SPRT runs to its end over both hosts.
        (self.gate / "go-all").touch()
        proc = self.start("complete", "complete1")
        self.assertEqual(self.finish(proc, 300), 0, self.tail())
        final = self.games("complete")
        names = [n for n, _, _ in final]
        self.assertEqual(len(final), GAMES)
        self.assertEqual(len(set(names)), GAMES, "a game recorded twice")
        self.assertEqual({h for _, _, h in final}, set(HOSTS))
        self.assertEqual({r for _, r, _ in final}, {"DRAW_BY_MAX_PLIES"})
        status = (self.dir / "complete" / "completion_status.json").read_text()
        for line in ('"status": "clean"', f'"scheduled": {GAMES}', f'"completed": {GAMES}', '"error_games": 0'):
            self.assertIn(line, status)
        state = (self.dir / "complete" / "state.json").read_text()
        self.assertIn(f'"games_played": {GAMES}', state)
        self.assertIn(f'"draws": {GAMES}', state)
        print(f"\ngames per host: { {h: sum(1 for *_, x in final if x == h) for h in HOSTS} }", file=sys.stderr)

        # 2. A resume with another byoyomi is refused, and records nothing.
        proc = self.start("complete", "complete2", "--rules", "time_control.byoyomi_ms=50000")
        self.assertNotEqual(self.finish(proc, 120), 0)
        self.assertEqual(self.games("complete"), final)
        self.assertIn("Current run provenance does not match sealed manifest, cannot resume", self.tail())
        (self.gate / "go-all").unlink()

        # 3. A fresh run: both hosts get a game; the worker of host-a's is killed, host-b's game
        # goes on.  The killed worker fails the whole run; nothing is retried elsewhere.
        proc = self.start("killed", "killed1")
        first = wait_for("a game under way on each host", lambda: len(set(self.held().values())) == 2 and self.held(),
                         300, proc)
        victim = next(pid for pid, host in first.items() if host == "host-a")
        killed = self.game_of(victim)
        worker = int(Path(f"/proc/{victim}/stat").read_text().rsplit(")", 1)[1].split()[1])
        self.assertIn("remote-run-pair", Path(f"/proc/{worker}/cmdline").read_bytes().decode())
        os.kill(worker, signal.SIGKILL)
        self.release(victim)  # gone with its worker, or soon: it holds nothing
        for pid, host in first.items():
            if host == "host-b":
                self.release(pid)
        self.assertNotEqual(self.finish(proc, 180), 0)
        self.assertIn("remote job terminated as failed: worker exited with code -9", self.tail())
        played = self.games("killed")
        self.assertEqual([(r, h) for _, r, h in played], [("DRAW_BY_MAX_PLIES", "host-b")])
        self.assertNotIn(killed, [n for n, _, _ in played])

        # 4. Its resume fails the same way: the run pins the game to its job on host-a, which
        # keeps its failed end, so the game is never played again.  The games are let go here (a
        # held one would keep the failing run waiting); the one dispatched beside the killed game
        # may end or be cancelled, and no game is recorded twice.
        (self.gate / "go-all").touch()
        proc = self.start("killed", "killed2")
        self.assertNotEqual(self.finish(proc, 180), 0)
        self.assertIn("remote job terminated as failed: worker exited with code -9", self.tail())
        resumed = self.games("killed")
        names = [n for n, _, _ in resumed]
        self.assertEqual(resumed[:1], played)
        self.assertNotIn(killed, names)
        self.assertEqual(len(names), len(set(names)), "a game recorded twice")
        (self.gate / "go-all").unlink()

        # 5. A fresh run interrupted (SIGINT) while a game is under way on each host: the games
        # are cancelled on the hosts, and the resume fails on them as on the killed one.
        proc = self.start("interrupted", "interrupted1")
        wait_for("a game under way on each host", lambda: len(set(self.held().values())) == 2, 300, proc)
        os.kill(proc.pid, signal.SIGINT)
        self.finish(proc, 120)
        self.assertEqual(self.games("interrupted"), [])
        (self.gate / "go-all").touch()
        proc = self.start("interrupted", "interrupted2")
        self.assertNotEqual(self.finish(proc, 180), 0)
        self.assertIn("remote job terminated as cancelled", self.tail())
        self.assertEqual(self.games("interrupted"), [])

    def test_the_example_hosts_file(self):
        # tuning/arena/hosts.example.yaml, read by ShogiArena's parser: two SSH hosts, strict host
        # key checking, two games at a time each.
        from shogiarena._core.contexts.instances.application.instance_pool import InstancePool

        pool = InstancePool.load_from_yaml(HERE / "arena" / "hosts.example.yaml")
        hosts = {i.name: i for i in pool.list_instances()}
        self.assertEqual(sorted(hosts), ["kirin-host-001", "kirin-host-002"])
        for instance in hosts.values():
            self.assertTrue(instance.is_ssh)
            self.assertTrue(instance.config.is_strict_host_key_checking)
            self.assertEqual(instance.config.slots, 4)


if __name__ == "__main__":
    unittest.main()
