"""A platform process that holds a pool of sandboxed bots raises its soft limit on open files
(``isolation.raise_descriptor_limit``, at ``BotPool``): each sandboxed process costs the
platform a few descriptors (its pipes, its stderr file, its cgroup files, a pidfd), and on a
machine with the common default of 1,024 a big enough field ran out: a bot that could not be
started forfeited its seat. Here the limit starts at 64 and twelve sandboxed bots, about 84
descriptors, all shake hands; without the raise the ninth or so could not be started."""

from __future__ import annotations

import resource
import subprocess
import sys

from conftest import REPO, needs_sandbox

pytestmark = needs_sandbox()

POOL = r"""
import resource, sys, time
from mallows.agents.pool import BotPool
from mallows.agents.process import SubprocessBot
from mallows.agents.protocol import Limits

bot = sys.argv[1]
with BotPool():
    bots = [
        SubprocessBot(f"b{i}", [sys.executable, "-P", "-m", "mallows.agents.host", bot],
                      limits=Limits(start_seconds=60.0), bot_paths=[bot], python=True)
        for i in range(12)
    ]
    try:
        for b in bots:
            b.handshake(time.monotonic() + 60)
        print("all", len(bots), "soft limit", resource.getrlimit(resource.RLIMIT_NOFILE)[0])
    finally:
        for b in bots:
            b.close()
"""


def test_a_pool_of_sandboxed_bots_is_not_held_to_a_low_default_limit_on_open_files():
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    assert hard == resource.RLIM_INFINITY or hard > 200, hard  # room to raise into

    def low() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (64, hard))

    run = subprocess.run(
        [sys.executable, "-c", POOL, str(REPO / "bots" / "random.py")],
        capture_output=True,
        text=True,
        preexec_fn=low,
        timeout=300,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.startswith("all 12 soft limit"), run.stdout
    assert int(run.stdout.split()[-1]) > 64
