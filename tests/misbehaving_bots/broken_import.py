"""Imports a module that does not exist: fails when it is loaded, in its own process."""
import mallows_no_such_module  # noqa: F401


class Bot:
    name, version, games = "broken_import", "1.0", ("take4",)

    def act(self, observation):
        return observation["legal_actions"][0]
