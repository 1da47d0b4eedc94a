"""`gen_parallel.py --instances`: self-play generation sharded over the SSH hosts of ShogiArena
instances files, run for real against an sshd of the test's own on the loopback address.

Run: .venv/bin/python -m pytest -q tuning/test_gen_hosts.py   (tuning/setup.sh installs sshd)

The hosts are this machine under two names, 127.0.0.1 (one slot) and localhost (two slots), each
with its own project root; a third instances file names a port nothing listens on.  Covered: the
hosts write byte for byte what one machine writes, and an upload is not repeated; an unreachable
host stops the run before a game, with nothing written; a process killed on its host loses that
run's games only, the printed counts regenerate the output, and the process plays the next run; an
interrupt ends the processes on the hosts and leaves no job folder.
"""

import contextlib
import getpass
import io
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import gen_parallel as G  # noqa: E402
import test_gen_parallel as P  # noqa: E402
from loopback_sshd import LoopbackSshd, free_port, wait_for  # noqa: E402

# The cheap games and the build of the one-machine tests: the hosts must write what they write.
TUNE, OPENINGS, GEN = P.TUNE, P.OPENINGS, P.GEN
setUpModule = P.setUpModule


class GenHosts(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = d = Path(tempfile.mkdtemp(prefix="gen-hosts-"))
        cls.sshd = None
        try:
            cls.sshd = LoopbackSshd(d, {"PATH": "/usr/local/bin:/usr/bin:/bin"})
            (d / "openings.sfen").write_text(OPENINGS)
            for name, host, slots, port in (("host-a", "127.0.0.1", 1, cls.sshd.port),
                                            ("host-b", "localhost", 2, cls.sshd.port),
                                            ("dead", "127.0.0.1", 1, free_port())):
                (d / f"{name}.yaml").write_text("\n".join([
                    f"name: {name}", "type: ssh", f"host: {host}", f"port: {port}", f"user: {getpass.getuser()}",
                    f"identity_file: {cls.sshd.client_key}", f"project_root: {d / 'roots' / name}",
                    f"slots: {slots}", "is_strict_host_key_checking: false", ""]))
        except BaseException:
            cls.tearDownClass()
            raise

    @classmethod
    def tearDownClass(cls):
        for pid in cls.remote_processes():
            os.kill(pid, signal.SIGKILL)
        if cls.sshd is not None:
            cls.sshd.stop()
        shutil.rmtree(cls.dir, ignore_errors=True)

    @classmethod
    def remote_processes(cls, host=""):
        """The kirin-tune processes running from a host's project root (all hosts' by default)."""
        root = str(cls.dir / "roots" / host)
        pids = []
        for proc in Path("/proc").iterdir():
            try:
                argv = (proc / "cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if proc.name.isdigit() and argv[0].decode(errors="replace").startswith(root) and b"gen" in argv:
                pids.append(int(proc.name))
        return pids

    def argv(self, out, runs, hosts=()):
        argv = ["--tune", str(TUNE), "--out", str(out), "--stride", "1000"]
        for h in hosts:
            argv += ["--instances", str(self.dir / f"{h}.yaml")]
        for r in runs:
            argv += ["--run", r]
        return argv + ["--", "--openings", str(self.dir / "openings.sfen"), *GEN]

    def main(self, out, runs, hosts=()):
        """gen_parallel in this process: (exit status, stdout, stderr)."""
        stdout, stderr = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
            rc = G.main(self.argv(out, runs, hosts))
        return rc, stdout.getvalue(), stderr.getvalue()

    def here(self, name, runs):
        """The same runs on this machine alone."""
        out = self.dir / name
        rc, _, err = self.main(out, runs)
        self.assertEqual(rc, 0, err)
        return out.read_bytes()

    def jobs(self, host):
        return list((self.dir / "roots" / host / "kirin-gen" / "jobs").glob("*"))

    def test_hosts_write_what_one_machine_writes(self):
        out = self.dir / "hosts.sbinpack"
        runs = ["0:2,1,1", "5:1,0,2"]
        rc, printed, err = self.main(out, runs, ["host-a", "host-b"])
        self.assertEqual(rc, 0, err)
        self.assertIn("to regenerate it: --run 0:2,1,1 --run 5:1,0,2", printed)
        for line in ("run 0 process 0 (host-a)", "run 0 process 1 (host-b)", "run 0 process 2 (host-b)"):
            self.assertIn(line, err)
        got = out.read_bytes()
        self.assertTrue(got.startswith(b"SBN2"))
        self.assertEqual(got, self.here("here.sbinpack", runs))
        # the binary and the openings went to each host under their checksums; no job is left
        for host in ("host-a", "host-b"):
            files = sorted(p.name.split("-", 1)[1] for p in (self.dir / "roots" / host / "kirin-gen" / "files").iterdir())
            self.assertEqual(files, ["kirin-tune", "openings.sfen"])
            self.assertEqual(self.jobs(host), [])
        # a second generation finds them there and does not send them again
        sent = {p: p.stat().st_mtime_ns for p in (self.dir / "roots").glob("*/kirin-gen/files/*")}
        rc, _, err = self.main(self.dir / "again.tsv", ["9:1"], ["host-a"])
        self.assertEqual(rc, 0, err)
        self.assertEqual({p: p.stat().st_mtime_ns for p in sent}, sent)

    def test_an_unreachable_host_stops_the_run_before_a_game(self):
        out = self.dir / "dead.tsv"
        rc, _, err = self.main(out, ["0:1,1"], ["host-a", "dead"])
        self.assertEqual(rc, 1)
        self.assertIn("gen_parallel: host dead: ", err)
        self.assertIn("nothing was written", err)
        self.assertNotIn("process 0", err, "no game was started")
        self.assertFalse(out.exists())
        self.assertEqual(self.jobs("host-a"), [])

    def test_a_process_killed_on_its_host_loses_that_runs_games_only(self):
        out = self.dir / "killed.tsv"
        tool = subprocess.Popen([sys.executable, str(HERE / "gen_parallel.py"),
                                 *self.argv(out, ["0:2,1000", "2000:1,1"], ["host-a", "host-b"])],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            victim = wait_for("the process on host-b", lambda: self.remote_processes("host-b"), 60, tool)
            os.kill(victim[0], signal.SIGKILL)
            printed, err = tool.communicate(timeout=300)
        finally:
            tool.kill()
        self.assertEqual(tool.returncode, 1, err)
        self.assertIn("run 0 process 1 on host-b failed (exit status 137); its games are left out", err)
        self.assertIn("to regenerate it: --run 0:2,0 --run 2000:1,1", printed, err)
        self.assertEqual(out.read_bytes(), self.here("killed-here.tsv", ["0:2,0", "2000:1,1"]))

    def test_an_interrupt_ends_the_processes_on_the_hosts(self):
        out = self.dir / "interrupted.tsv"
        tool = subprocess.Popen([sys.executable, str(HERE / "gen_parallel.py"),
                                 *self.argv(out, ["0:1000,1000"], ["host-a", "host-b"])],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
        try:
            wait_for("a process on each host",
                     lambda: self.remote_processes("host-a") and self.remote_processes("host-b"), 60, tool)
            tool.send_signal(signal.SIGINT)  # to the tool alone: its SSH sessions carry the end
            tool.communicate(timeout=60)
        finally:
            tool.kill()
        self.assertNotEqual(tool.returncode, 0)
        wait_for("the hosts' processes ended", lambda: not self.remote_processes(), 30)
        self.assertFalse(out.exists())
        self.assertEqual(self.jobs("host-a") + self.jobs("host-b"), [])


if __name__ == "__main__":
    unittest.main()
