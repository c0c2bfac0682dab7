"""Text that came from a bot or an author is data: capped where it is stored, escaped where it
is shown.

A bot's error message, its hello's name and version, a file name, the tail of its stderr, a
name a user typed: any of them may hold terminal control sequences (ESC ``[2K`` to erase a
line, CR to overwrite it, OSC ``]0;...`` to retitle the window, BEL) or be 255 KiB long.

- ``cap(text, limit)``: at most ``limit`` bytes of UTF-8 (cut at a character boundary) and a
  note of how much was cut: what the platform stores (a forfeit reason: ``REASON_BYTES``).
- ``escape(text)``: every control character visible as an escape (``\\x1b``, ``\\r``, ``\\n``,
  ``\\x07``, ``\\u202e``...): C0 and C1 controls, DEL, Unicode format characters (the
  bidirectional overrides), line and paragraph separators and lone surrogates. The one function
  every terminal output passes bot-supplied text through (``play``, ``replay``, ``tournament
  show``, ``bots list/show/check``, progress lines, error messages). ``keep_lines=True`` leaves
  newlines and tabs for the platform's own multi-line messages.
- ``brief(text)``: a short copy for a list beside the stored one (a report's bot page).
- ``control_characters(text)``: the control characters of a name, for refusing it.

HTML and JSON outputs escape for themselves (Jinja's autoescape, ``json.dumps``).
"""

from __future__ import annotations

import unicodedata

REASON_BYTES = 1024  # a forfeit reason, as stored in a record
TEXT_BYTES = 256  # a bot's name, version or a file name, as stored or shown

_SIMPLE = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
_CONTROL_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})


def is_control(ch: str) -> bool:
    return unicodedata.category(ch) in _CONTROL_CATEGORIES


def _escaped(ch: str) -> str:
    if ch in _SIMPLE:
        return _SIMPLE[ch]
    code = ord(ch)
    if code < 0x100:
        return f"\\x{code:02x}"
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def escape(text: object, keep_lines: bool = False) -> str:
    """``text`` (made a string) with every control character shown as an escape; with
    ``keep_lines`` newlines and tabs stay as they are."""
    s = text if isinstance(text, str) else str(text)
    if s.isprintable() and not any(is_control(c) for c in s):  # the common case: nothing to do
        return s
    keep = ("\n", "\t") if keep_lines else ()
    return "".join(_escaped(c) if c not in keep and is_control(c) else c for c in s)


def cap(text: str, limit: int = REASON_BYTES) -> str:
    """``text`` cut to at most ``limit`` bytes of UTF-8 (whole characters) plus a note of how
    much was cut; the note is within the limit too. Short text is returned as it is."""
    data = text.encode("utf-8", "surrogatepass")
    if len(data) <= limit:
        return text
    note = f" ... [{len(data):,} bytes, cut to {limit:,}]"
    room = max(0, limit - len(note.encode()))
    head = data[:room].decode("utf-8", "ignore")  # a character cut in two is dropped
    return head + note


BRIEF_CHARS = 200  # a reason quoted again beside its full copy (a report's lists)


def brief(text: str, limit: int = BRIEF_CHARS) -> str:
    """``text`` cut to ``limit`` characters with a note of the length, for a second copy of
    a bot's words where the first is kept whole (a report page lists a reason the match's
    record holds)."""
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text):,} characters)"


def control_characters(text: str) -> list[str]:
    """The control characters in ``text``, escaped (``["\\n"]`` for ``"x\\n"``), in order,
    once each."""
    seen: list[str] = []
    for c in text:
        if is_control(c) and _escaped(c) not in seen:
            seen.append(_escaped(c))
    return seen


def refuse_control(name: str, what: str, example: str) -> str:
    """Refuse a name (a submission's, a comparison's, a tournament's, a bot's) that holds a
    control character: ``BadNameError`` names them and gives ``example``. Returns ``name``."""
    found = control_characters(name)
    if found:
        from mallows.errors import BadNameError

        raise BadNameError(
            f"{what} {escape(name)!r} holds the control character"
            f"{'s' if len(found) > 1 else ''} {', '.join(found)}: a name is "
            f"plain text, for example {example}"
        )
    return name
