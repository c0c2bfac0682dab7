"""``mallows bots list|check`` (placeholder until the agent-protocol work lands)."""


def register(app) -> None:
    pass
