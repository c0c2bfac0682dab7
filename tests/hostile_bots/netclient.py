"""Connects to TCP `port` on 127.0.0.1 (a listener of the test) or, with `port=ray`, to the
platform's Ray: the GCS port read from another process's command line in /proc."""
import os
import random
import re
import socket

from mallows.agents.policy import random_action


def ray_ports():
    ports = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                found = re.findall(rb"gcs[_-](?:server[_-]port|address)[= \x00](?:[\w.-]+:)?(\d+)",
                                   f.read())
        except OSError:
            continue
        ports += [int(p) for p in found if int(p) and int(p) not in ports]
    if not ports:
        raise LookupError(f"found no Ray process in /proc ({len(os.listdir('/proc'))} entries)")
    return ports


class Bot:
    name, version, games = "netclient", "1.0", ("arschmallows", "take4")

    def __init__(self, port):
        self.port, self.done, self.rng = port, False, random.Random(0)

    def act(self, observation):
        if not self.done:
            self.done = True
            ports = ray_ports() if self.port == "ray" else [int(self.port)]
            for n, port in enumerate(ports):  # the first that answers
                try:
                    with socket.create_connection(("127.0.0.1", port), timeout=2) as s:
                        s.sendall(b"hostile bot\n")
                except OSError:
                    if n == len(ports) - 1:
                        raise
                    continue
                raise RuntimeError(f"ATTACK WORKED: connected to 127.0.0.1:{port}")
        return random_action(observation, self.rng)
