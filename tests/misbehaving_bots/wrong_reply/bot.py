"""Answers a decision with JSON that is not the reply shape: {"move": 1}."""
import os, sys, time
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import wire  # noqa: E402

wire.serve(lambda obs, reply: wire.send({"move": 1}))
