"""Raises an error message made of terminal control sequences at its first decision: erase the
line, carriage return, a fake clean row, BEL and an OSC sequence retitling the window."""


class Bot:
    name = "escapes"
    version = "1\x1b]0;pwned\x07"
    games = ("take4",)

    def act(self, observation):
        raise ValueError(
            "\x1b[2K\r(clean) all seats played without a forfeit\x07\x1b]0;pwned\x07\x1b[31mred"
        )
