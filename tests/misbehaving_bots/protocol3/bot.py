"""Speaks protocol 3 (this platform speaks 1 and 2): its hello says so."""
import os, sys, time
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import wire  # noqa: E402

wire.serve(hello={"type": "hello", "protocol": 3, "name": "protocol3", "version": "3.0"})
