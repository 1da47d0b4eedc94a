"""An sshd of a test's own on the loopback address, so that tests reach this machine as SSH hosts:
a free port, a throwaway host key and client key, all in the test's folder.

Used by tuning/test_arena_hosts.py (ShogiArena's SSH workers) and tuning/test_gen_hosts.py
(`gen_parallel.py --instances`).  tuning/setup.sh installs openssh-server.
"""

import os
import shutil
import socket
import subprocess
import time
from pathlib import Path

SSHD = Path("/usr/sbin/sshd")


def wait_for(what, condition, limit_s, proc=None):
    """Polls condition() until it returns something true; fails after limit_s, or at once if proc
    has exited."""
    deadline = time.monotonic() + limit_s
    while True:
        value = condition()
        if value:
            return value
        if proc is not None and proc.poll() is not None:
            raise AssertionError(f"{proc.args[0]} exited ({proc.returncode}) while waiting for {what}")
        if time.monotonic() > deadline:
            raise AssertionError(f"no {what} within {limit_s} s")
        time.sleep(0.2)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class LoopbackSshd:
    """Started on construction; `env` is what every session gets (SetEnv).  The client logs in
    with `client_key`; `known_hosts(names)` is the host key as an OpenSSH known_hosts text."""

    def __init__(self, folder: Path, env: dict):
        if not SSHD.exists():
            raise AssertionError(f"{SSHD} missing: run bash tuning/setup.sh (it installs openssh-server)")
        self.folder = ssh = folder / "ssh"
        ssh.mkdir()
        for key in ("host_key", "client_key"):
            subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(ssh / key)], check=True)
        shutil.copy(ssh / "client_key.pub", ssh / "authorized_keys")
        self.client_key = ssh / "client_key"
        self.port = free_port()
        (ssh / "sshd_config").write_text("\n".join([
            "ListenAddress 127.0.0.1", f"Port {self.port}", f"HostKey {ssh / 'host_key'}",
            f"PidFile {ssh / 'sshd.pid'}", f"AuthorizedKeysFile {ssh / 'authorized_keys'}",
            "StrictModes no",  # the keys live under /tmp
            "UsePAM no", "PasswordAuthentication no", "KbdInteractiveAuthentication no",
            "Subsystem sftp /usr/lib/openssh/sftp-server",  # ShogiArena copies files over SFTP
            "SetEnv " + " ".join(f"{k}={v}" for k, v in env.items()), ""]))
        if os.geteuid() == 0:
            os.makedirs("/run/sshd", exist_ok=True)  # sshd's privilege separation folder
        self.log = open(ssh / "sshd.log", "wb")
        self.proc = subprocess.Popen([str(SSHD), "-D", "-e", "-f", str(ssh / "sshd_config")],
                                     stdout=self.log, stderr=subprocess.STDOUT)
        wait_for("sshd listening", lambda: b"Server listening" in (ssh / "sshd.log").read_bytes(), 30, self.proc)

    def known_hosts(self, names) -> str:
        key = (self.folder / "host_key.pub").read_text().split()[:2]
        return "".join(f"[{h}]:{self.port} {key[0]} {key[1]}\n" for h in names)

    def stop(self):
        self.proc.terminate()
        self.proc.wait(timeout=30)
        self.log.close()
