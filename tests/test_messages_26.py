"""The misleading messages of issue 26, item 11, each naming the real problem and its fix
(the others are held by test_db_files, test_record_file, test_wire_strict, test_serve_scale
and test_kill_leftovers)."""

from __future__ import annotations

import pytest

from mallows.agents.checks import canonical_name
from mallows.errors import BotError
from mallows.tournaments.roundrobin.spec import load_tournament

GOOD = 'name = "t"\ngame = "take4"\nplayers = 2\ndeals = 1\nseed = 1\nbots = ["random", "greedy"]\n'


def test_a_tournament_file_with_a_byte_order_mark_is_read(tmp_path):
    path = tmp_path / "bom.toml"
    path.write_bytes(b"\xef\xbb\xbf" + GOOD.encode())
    t = load_tournament(path)  # was "Invalid statement (at line 1, column 1)"
    assert t.name == "t" and t.bots == ("random", "greedy")


def test_a_nul_in_a_bot_name_is_named(tmp_path):
    with pytest.raises(BotError) as info:
        canonical_name("ran\0dom")
    text = str(info.value)
    assert "NUL character" in text and "characters long" not in text
