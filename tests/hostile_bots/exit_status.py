"""Exits with status `code` at its first decision (os._exit: no clean-up), as a program
with a fatal error does (a Perl compile error exits with 255)."""
import os


class Bot:
    name, version, games = "exit_status", "1.0", ("arschmallows", "take4")

    def __init__(self, code="200"):
        self.code = int(code)

    def act(self, observation):
        os._exit(self.code)
