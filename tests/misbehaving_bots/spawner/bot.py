"""Starts a grandchild (sleep 300) at match start, writes both pids to the file named by its
`pidfile` parameter, then hangs at decision `at`: stopping it must take the grandchild too."""
import os, sys, time
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import wire  # noqa: E402

import subprocess
def start(params):
    child = subprocess.Popen(["sleep", "300"])
    with open(params["pidfile"], "w") as f:
        f.write(f"{os.getpid()} {child.pid}\n")
wire.serve(lambda obs, reply: time.sleep(3600), on_start=start)
