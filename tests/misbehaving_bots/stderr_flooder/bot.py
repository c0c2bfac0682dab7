"""Writes to stderr until the file-size limit stops it (Python gets EFBIG), then answers."""
import os, sys, time
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import wire  # noqa: E402

def flood(obs, reply):
    chunk = b"log line " * 8000 + b"\n"
    try:
        while True:
            os.write(2, chunk)
    except OSError:
        pass
    reply()
wire.serve(flood)
