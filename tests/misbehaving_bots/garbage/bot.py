"""Prints a human sentence on stdout instead of its answer at decision `at`."""
import os, sys, time
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import wire  # noqa: E402

wire.serve(lambda obs, reply: print("thinking very hard about", obs["phase"], flush=True))
