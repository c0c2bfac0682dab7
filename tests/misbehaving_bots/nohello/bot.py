"""Reads the handshake and never answers it."""
import sys
for line in sys.stdin:
    pass
