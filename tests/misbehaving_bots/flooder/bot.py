"""Floods stdout with bytes and no newline at decision `at`, until it is stopped."""
import os, sys, time
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import wire  # noqa: E402

def flood(obs, reply):
    chunk = b"x" * 65536
    while True:
        os.write(1, chunk)
wire.serve(flood)
