"""ShogiArena's command line, with its SSH workers on this machine's Python version.

ShogiArena 1.3.2 runs each SSH host's worker in a virtual environment that `uv` builds on the host
for exactly CPython 3.12.10 (WORKER_PYTHON_VERSION); uv downloads that interpreter from GitHub
when the host has none, which fails on a host that reaches only the package registries.  This
launcher sets the version to the Python that runs it, which such a host has, before ShogiArena
builds its worker bundle; nothing else changes.  The hosts then need that version (and uv) only.

Usage: .venv/bin/python tuning/arena_host_python.py run sprt CONFIG ...   (as `shogiarena ...`)
"""

import platform
import sys

from shogiarena._core.contexts.game_session.ports import worker_deployment

# Set before the bundle builder and the artifact store import the name.
worker_deployment.WORKER_PYTHON_VERSION = platform.python_version()

from shogiarena.cli import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
