"""Raises a 255 KiB incompressible error message at its first decision."""

import os


class Bot:
    name = "loud"
    version = "1"
    games = ("take4",)

    def act(self, observation):
        raise ValueError(os.urandom(255 * 1024 // 2).hex())
