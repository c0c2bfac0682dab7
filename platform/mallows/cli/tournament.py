"""``mallows tournament``, ``mallows ratings``, ``mallows replay`` (placeholder)."""


def register(app) -> None:
    pass
