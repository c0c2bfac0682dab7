"""Answers properly, then writes a second line nobody asked for."""
import os, sys, time
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import wire  # noqa: E402

def both(obs, reply):
    reply()
    wire.send({"type": "note", "text": "and another thing"})
    time.sleep(0.2)  # both lines are there before the next request
wire.serve(both)
