#!/usr/bin/env python3
"""Self-play data from several `kirin-tune gen` processes at once, one a core, on this machine or
on the SSH hosts of ShogiArena instances files.

A game of `kirin-tune gen` is fixed by the seed and its game number (its opening, the nodes of
each move), so processes that play disjoint ranges of game numbers can run side by side and their
data is the same as one process would write. Process i plays, in each run, the games from
`FIRST + i * STRIDE` on; its games go to a part file of its own, run after run; the output is the
parts in process order.

A run is `FIRST:COUNTS`, the number of games each process plays (regenerates a run exactly), or
`FIRST:MINUTES:PROCS` (plays for that long; the counts it printed regenerate it):

    tuning/gen_parallel.py --tune target/release/kirin-tune --out positions.tsv --stride 1000 \\
        --run 1360:8.4:16 --run 1760:3.9:16 -- --openings book_openings.sfen --seed 10006 \\
        --nodes-min 4000 --nodes-max 8000 --eval default

Options after `--` go to every `kirin-tune gen` unchanged.

With `--instances FILE` (ShogiArena's instances file, as its run configurations name; repeatable)
the processes run on the file's hosts instead, `slots` processes a host, in the file's order: the
binary and every file named after `--` (the openings, a network) are uploaded to
`PROJECT_ROOT/kirin-gen/files` under their checksums, the parts are written on the host and
fetched at the end, and the host's job folder is removed. The output is the same file as on one
machine. A host that cannot be reached or set up stops everything before a game is played; a
process that fails later (its host lost, the process killed) loses only that run's games: it
counts 0 in the printed counts, which still regenerate the output exactly, and the exit status is 1.
An interrupt ends the processes on the hosts too (each watches its SSH session's input).
"""
import argparse
import hashlib
import os
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def parse_run(text: str):
    """`FIRST:A,B,C` -> (first, [A, B, C], None); `FIRST:MINUTES:PROCS` -> (first, None, (m, p))."""
    parts = text.split(":")
    try:
        first = int(parts[0])
        if len(parts) == 2:
            counts = [int(c) for c in parts[1].split(",")]
            if first >= 0 and counts and min(counts) >= 0:
                return first, counts, None
        elif len(parts) == 3:
            minutes, procs = float(parts[1]), int(parts[2])
            if first >= 0 and minutes > 0 and procs > 0:
                return first, None, (minutes, procs)
    except ValueError:
        pass
    raise argparse.ArgumentTypeError(f"a run is FIRST:COUNT,COUNT.. or FIRST:MINUTES:PROCS, not {text!r}")


class PlaceFailed(Exception):
    """A command on a place failed; the message is one line."""


class Here:
    """Processes on this machine, their parts in a local folder."""

    def __init__(self, slots: int, folder: Path):
        self.name, self.slots, self.folder = "this machine", slots, folder

    def setup(self, tune: str, files: list[str]) -> dict:
        return {f: str(Path(f).resolve()) for f in [tune, *files] if Path(f).exists()}

    def start(self, argv: list[str], log) -> subprocess.Popen:
        return subprocess.Popen(argv, cwd=self.folder, stderr=log)

    def size(self, part: str) -> int:
        p = self.folder / part
        return p.stat().st_size if p.exists() else 0

    def truncate(self, part: str, size: int):
        os.truncate(self.folder / part, size)

    def fetch(self, part: str, size: int) -> bytes:
        return (self.folder / part).read_bytes()[:size] if size else b""

    def cleanup(self):
        pass


class Host:
    """Processes on an SSH host of an instances file, run in a job folder of their own under
    PROJECT_ROOT/kirin-gen, with OpenSSH's client and POSIX sh and coreutils on the host."""

    def __init__(self, cfg, job: str):
        if not cfg.slots or cfg.slots < 1:
            raise PlaceFailed(f"host {cfg.name}: set slots (the processes it runs)")
        self.name, self.slots, self.cfg = cfg.name, cfg.slots, cfg
        root = cfg.project_root or "$HOME/ShogiArena-remote"
        root = "$HOME/" + root[2:] if root.startswith("~/") else root
        # double quotes keep $HOME working in a project root, as ShogiArena's default has it
        self.root = '"' + "".join("\\" + c if c in '"\\`' else c for c in root) + '/kirin-gen"'
        self.job = f"{self.root}/jobs/{shlex.quote(job)}"

    def ssh(self, command: str) -> list[str]:
        c = self.cfg
        args = ["ssh", "-o", "BatchMode=yes", "-o", "ConnectTimeout=30", "-p", str(c.port)]
        if c.identity_file:
            args += ["-i", c.identity_file]
        if c.is_strict_host_key_checking:
            args += ["-o", "StrictHostKeyChecking=yes"]
        else:
            args += ["-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null", "-o", "LogLevel=ERROR"]
        return args + [f"{c.user}@{c.host}" if c.user else c.host, command]

    def run(self, command: str, data: bytes | None = None, limit_s: float = 600) -> bytes:
        try:
            done = subprocess.run(self.ssh(command), input=data if data is not None else b"",
                                  capture_output=True, timeout=limit_s)
        except subprocess.TimeoutExpired:
            raise PlaceFailed(f"host {self.name}: no answer within {limit_s:.0f} s") from None
        if done.returncode != 0:
            err = done.stderr.decode(errors="replace").strip().splitlines()
            raise PlaceFailed(f"host {self.name}: {err[-1] if err else f'exit status {done.returncode}'}")
        return done.stdout

    def setup(self, tune: str, files: list[str]) -> dict:
        """Uploads the binary and the files (those already there under the same checksum are
        kept), checks their checksums, and makes the job folder; returns each one's path there."""
        sums = {f: hashlib.sha256(Path(f).read_bytes()).hexdigest() for f in [tune, *files]}
        names = {f: f"{s[:16]}-{Path(f).name}" for f, s in sums.items()}
        files_dir = f"{self.root}/files"

        def present():
            out = self.run(f"mkdir -p {files_dir} {self.job} && cd {files_dir} && "
                           f"sha256sum {' '.join(shlex.quote(n) for n in names.values())} 2>/dev/null; true")
            return {line.split()[1]: line.split()[0] for line in out.decode().splitlines() if len(line.split()) == 2}

        have = present()
        for f, n in names.items():
            if have.get(n) != sums[f]:
                tmp = shlex.quote(f".{n}.{os.getpid()}")
                self.run(f"cd {files_dir} && cat > {tmp} && chmod 755 {tmp} && mv {tmp} {shlex.quote(n)}",
                         Path(f).read_bytes())
        have = present()
        for f, n in names.items():
            if have.get(n) != sums[f]:
                raise PlaceFailed(f"host {self.name}: {n} did not arrive whole")
        return {f: f"{files_dir}/{shlex.quote(n)}" for f, n in names.items()}

    def start(self, argv: list[str], log) -> subprocess.Popen:
        # argv[0] and the uploaded files are shell words already (setup's paths); the process is
        # killed when the session's input ends: when this side closes it or its ssh is gone.
        words = " ".join(a if a.startswith(self.root) else shlex.quote(a) for a in argv)
        script = (f"cd {self.job} && exec 3<&0 && {{ {words} </dev/null & p=$!; "
                  "{ cat <&3 >/dev/null; kill $p; } >/dev/null 2>&1 & w=$!; wait $p; s=$?; kill $w 2>/dev/null; exit $s; }")
        return subprocess.Popen(self.ssh(script), stdin=subprocess.PIPE, stderr=log)

    def size(self, part: str) -> int:
        out = self.run(f"cd {self.job} && if [ -f {part} ]; then wc -c < {part}; else echo 0; fi", limit_s=120)
        return int(out.decode().strip())

    def truncate(self, part: str, size: int):
        self.run(f"cd {self.job} && truncate -s {size} {part}", limit_s=120)

    def fetch(self, part: str, size: int) -> bytes:
        data = self.run(f"cd {self.job} && head -c {size} {part}") if size else b""
        if len(data) != size:
            raise PlaceFailed(f"host {self.name}: {part} came back with {len(data)} of {size} bytes")
        return data

    def cleanup(self):
        try:
            self.run(f"rm -rf {self.job}", limit_s=120)
        except PlaceFailed as e:
            print(f"{e} (removing the job folder)", file=sys.stderr)


def load_hosts(files: list[str], job: str, folder: Path) -> list:
    """The places of ShogiArena instances files, read with its own parser: SSH hosts, and a
    local instance as this machine."""
    from shogiarena._core.contexts.instances.application.instance_pool import InstancePool

    places = []
    for f in files:
        try:
            instances = InstancePool.load_from_yaml(Path(f)).list_instances()
        except Exception as e:  # the parser's own message names the field
            raise PlaceFailed(f"{f}: {str(e).splitlines()[0]}") from None
        for i in instances:
            places.append(Host(i.config, job) if i.is_ssh else Here(i.config.slots or 1, folder))
    return places


def file_args(gen: list[str]) -> list[str]:
    """The option values after `--` that name files here, which a host needs a copy of."""
    return [v for k, v in zip(gen, gen[1:]) if k.startswith("--") and Path(v).is_file()]


class Processes:
    """The processes of a generation, each on its slot of a place, and their parts."""

    def __init__(self, args, gen: list[str], places: list, procs: int, logs: Path):
        self.args, self.gen, self.logs = args, gen, logs
        self.slots = [place for place in places for _ in range(place.slots)][:procs]
        suffix = ".sbinpack" if args.out.endswith(".sbinpack") else ".tsv"
        self.part = [f"part-{i}{suffix}" for i in range(procs)]
        self.good = [0] * procs  # each part's bytes of the runs that ended well
        self.failures = []
        self.paths = {id(p): p.setup(args.tune, file_args(gen)) for p in {id(p): p for p in self.slots}.values()}

    def run(self, first: int, counts, timed) -> list[int]:
        """Plays one run; returns the games each process played (0 where it failed)."""
        running = {}
        try:
            for i in range(len(counts) if counts else timed[1]):
                path = self.paths[id(self.slots[i])]
                cmd = [path.get(self.args.tune, self.args.tune), "gen", *[path.get(a, a) for a in self.gen],
                       "--out", self.part[i], "--first", str(first + i * self.args.stride),
                       "--games", str(counts[i] if counts else self.args.stride)]
                if timed:
                    cmd += ["--minutes", str(timed[0])]
                if self.good[i]:
                    cmd += ["--append", "true"]  # the process's games of the runs before
                with (self.logs / f"{i}.log").open("wb") as log:
                    running[i] = self.slots[i].start(cmd, log)
            return [self.ended(first, i, p) for i, p in running.items()]
        except BaseException:
            for p in running.values():
                p.kill()  # a process on a host ends with its SSH session
            raise

    def ended(self, first: int, i: int, p: subprocess.Popen) -> int:
        place = self.slots[i]
        p.wait()  # its input stays open until then: a process on a host ends when it closes
        if p.stdin:
            p.stdin.close()
        err = (self.logs / f"{i}.log").read_text(errors="replace").strip()
        last = err.splitlines()[-1] if err else ""
        print(f"run {first} process {i} ({place.name}): {last}", file=sys.stderr)
        try:
            if p.returncode != 0:
                raise PlaceFailed(f"exit status {p.returncode}")
            played = int(last.split("done: ")[1].split()[0])
            self.good[i] = place.size(self.part[i])
            return played
        except (IndexError, ValueError, PlaceFailed) as e:
            self.failures.append(f"run {first} process {i} on {place.name} failed ({e}); its games are left out")
            try:
                place.truncate(self.part[i], self.good[i])
            except (OSError, PlaceFailed):
                pass  # the part is cut to `good` when fetched
            return 0

    def fetch(self, played: list[list[int]]) -> list[bytes]:
        """The parts' bytes of the runs that ended well; a part that cannot be fetched loses its
        games of every run, and `played` says so."""
        data = []
        for i, place in enumerate(self.slots):
            try:
                data.append(place.fetch(self.part[i], self.good[i]))
            except PlaceFailed as e:
                self.failures.append(f"process {i}'s part could not be fetched ({e}); its games are left out")
                data.append(b"")
                for counts in played:
                    if i < len(counts):
                        counts[i] = 0
        return data


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tune", default="target/release/kirin-tune", help="the kirin-tune binary")
    ap.add_argument("--out", required=True, help="the data file to write (must not exist)")
    ap.add_argument("--stride", type=int, default=1000, help="game numbers between processes")
    ap.add_argument("--run", type=parse_run, action="append", required=True)
    ap.add_argument("--instances", action="append", help="a ShogiArena instances file: run on its hosts")
    ap.add_argument("gen", nargs=argparse.REMAINDER, help="-- then options for kirin-tune gen")
    args = ap.parse_args(argv)
    gen = args.gen[1:] if args.gen[:1] == ["--"] else args.gen
    if any(a in ("--out", "--first", "--games", "--minutes", "--append") for a in gen):
        ap.error("--out, --first, --games, --minutes and --append are set per process")
    out = Path(args.out)
    if out.exists():
        ap.error(f"{out} exists")
    for _, counts, _ in args.run:
        if counts and max(counts) > args.stride:
            ap.error(f"{max(counts)} games overlap the next process's range (stride {args.stride})")
    procs = max(len(c) if c else p[1] for _, c, p in args.run)
    with tempfile.TemporaryDirectory(prefix="gen-parallel-", dir=out.parent) as tmp:
        places = []
        try:
            if args.instances:
                places = load_hosts(args.instances, f"{out.name}-{os.getpid()}-{int(time.time())}", Path(tmp))
            else:
                places = [Here(procs, Path(tmp))]
            if sum(p.slots for p in places) < procs:
                ap.error(f"{procs} processes, but the hosts have {sum(p.slots for p in places)} slots")
            processes = Processes(args, gen, places, procs, Path(tmp))
            played = [processes.run(*run) for run in args.run]
            data = processes.fetch(played)
        except (PlaceFailed, OSError) as e:
            print(f"gen_parallel: {e}; nothing was written", file=sys.stderr)
            return 1
        finally:
            for p in places:
                p.cleanup()
    with out.open("wb") as f:
        for part in data:
            f.write(part)
    for failure in processes.failures:
        print(f"gen_parallel: {failure}", file=sys.stderr)
    runs = [f"--run {first}:{','.join(map(str, counts))}" for (first, _, _), counts in zip(args.run, played)]
    print(f"wrote {out}; to regenerate it: " + " ".join(runs))
    return 1 if processes.failures else 0


if __name__ == "__main__":
    sys.exit(main())
