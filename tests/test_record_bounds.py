"""What one stored record may cost (issue 37): a compressed frame that claims more than a record
may hold, or does not say its size, is refused as damaged before anything of that size is
allocated, on every path that decodes records; a record over the bound is refused on writing,
with nothing stored; and damaged or oversized frames written into a real database, fuzzed, never
make a reader allocate more than the bound or print a traceback."""

from __future__ import annotations

import json
import shutil
import sqlite3
import tracemalloc

import pytest
import zstandard
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import REPO, invoke
from mallows.errors import DamagedRecord, RecordTooLarge
from mallows.results import codec
from mallows.results.store import MatchRow, Store

V1 = REPO / "tests" / "data" / "schema-v1.db"
VICTIM = "v1-take4/3"
# a real frame of zeros that decodes to more than a record may hold: a few KB on disk
HUGE = codec.MAX_RECORD_BYTES + (1 << 20)


@pytest.fixture(scope="module")
def huge_frame() -> bytes:
    return zstandard.ZstdCompressor(level=1, write_content_size=True).compress(bytes(HUGE))


@pytest.fixture
def db(tmp_path):
    """A copy of the schema-1 database, upgraded to the current schema (records compressed)."""
    path = tmp_path / "m.db"
    shutil.copy(V1, path)
    Store(path).close()
    return path


def put_frame(db, blob: bytes, number: int = codec.NO_DICT) -> None:
    con = sqlite3.connect(db)
    with con:
        con.execute(
            "UPDATE matches SET record = NULL, record_z = ?, codec = ? WHERE id = ?",
            [blob, number, VICTIM],
        )
    con.close()


def peak_while(fn) -> tuple[object, int]:
    """(what ``fn()`` returned or raised, the peak of Python's allocations while it ran)."""
    tracemalloc.start()
    try:
        try:
            out: object = fn()
        except Exception as exc:  # the outcome under test: a refusal
            out = exc
        return out, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_a_frame_claiming_more_than_a_record_may_hold_is_refused_unallocated(huge_frame):
    assert zstandard.get_frame_parameters(huge_frame).content_size == HUGE
    out, peak = peak_while(lambda: codec.Codec(codec.NO_DICT).decode(huge_frame))
    assert isinstance(out, RecordTooLarge), out
    assert "claims 68.2 MB" in str(out)
    assert peak < HUGE // 8, f"decoding allocated {peak} bytes before refusing"


def test_a_frame_that_does_not_say_its_size_is_refused():
    blob = zstandard.ZstdCompressor(write_content_size=False).compress(b'{"a": 1}')
    with pytest.raises(RecordTooLarge, match="does not say how large"):
        codec.Codec(codec.NO_DICT).decode(blob)


def test_a_frame_decoding_to_more_than_it_claims_is_an_error_not_a_bigger_buffer():
    honest = zstandard.ZstdCompressor(write_content_size=True).compress(bytes(4096))
    # the header's single-segment content size (one byte at offset 5 for small frames, or two
    # at 5-6) rewritten to claim 16 bytes: the blocks still decode to 4096
    params = zstandard.get_frame_parameters(honest)
    assert params.content_size == 4096
    fhd = honest[4]
    size_bytes = {0: 1 if fhd & 0x20 else 0, 1: 2, 2: 4, 3: 8}[fhd >> 6]
    assert size_bytes == 2
    lying = honest[:5] + (16 - 256).to_bytes(2, "little", signed=True) + honest[7:]
    with pytest.raises(zstandard.ZstdError):
        codec.Codec(codec.NO_DICT).decode(lying)


def test_a_record_over_the_bound_is_refused_on_writing_and_nothing_is_stored(db):
    store = Store(db)
    before = store.db.execute("SELECT COUNT(*) FROM matches").fetchone()[0]
    row = store.db.execute(f"SELECT * FROM matches WHERE id = '{VICTIM}'").fetchone()
    assert row is not None
    big = json.dumps({"padding": "x" * (codec.MAX_RECORD_BYTES + 10)})
    match = MatchRow(
        id="v1-take4/999999",
        tournament="v1-take4",
        idx=999999,
        game="take4",
        table=0,
        rotation=0,
        deal=0,
        seed=1,
        players=["random", "greedy"],
        ranks=[1, 2],
        forfeits=0,
        seconds=0.1,
        record=big,
    )
    with pytest.raises(RecordTooLarge, match="v1-take4/999999.*not stored.*turn or round limit"):
        store.add_matches([match])
    assert store.db.execute("SELECT COUNT(*) FROM matches").fetchone()[0] == before
    store.close()


READERS = [
    ["export"],
    ["export", "--trajectories"],
    ["replay", VICTIM],
    ["tournament", "show", "v1-take4"],
]


@pytest.mark.parametrize("args", READERS, ids=" ".join)
def test_every_reader_refuses_the_claiming_frame_as_damage(db, huge_frame, args):
    put_frame(db, huge_frame)
    result, peak = peak_while(lambda: invoke(*args, "--db", db))
    assert not isinstance(result, Exception), result
    assert "Traceback" not in result.output  # type: ignore[union-attr]
    assert peak < HUGE // 4, f"{args}: {peak} bytes allocated"
    if args[0] in ("export", "replay"):  # these decode the victim's record
        assert result.exit_code == 2, result.output  # type: ignore[union-attr]
        assert "damaged" in result.output and "68.2 MB" in result.output  # type: ignore


def test_db_check_reports_the_claiming_frame_as_a_damaged_match(db, huge_frame):
    put_frame(db, huge_frame)
    result, peak = peak_while(lambda: invoke("db", "check", "--db", db))
    assert not isinstance(result, Exception), result
    assert result.exit_code == 2, result.output  # type: ignore[union-attr]
    assert VICTIM in result.output  # type: ignore[union-attr]
    assert peak < HUGE // 4


@settings(max_examples=40, deadline=None)
@given(
    data=st.binary(min_size=0, max_size=64),
    claim=st.one_of(st.none(), st.integers(0, 2**63)),
    number=st.sampled_from([codec.NO_DICT, 1, 7]),
)
def test_fuzzed_frames_never_allocate_past_the_bound(tmp_path_factory, data, claim, number):
    """Bytes that are (or start like) a zstd frame, any claimed size, any codec number, stored
    in a real database and read back: a refusal or the record, never a big allocation."""
    folder = tmp_path_factory.mktemp("fuzz")
    path = folder / "m.db"
    shutil.copy(V1, path)
    Store(path).close()
    blob = data
    if claim is not None:  # a frame header with an 8-byte content size, then the fuzz
        blob = b"\x28\xb5\x2f\xfd" + bytes([0xE0]) + claim.to_bytes(8, "little") + data
    put_frame(path, blob, number)
    store = Store(path, readonly=True)

    def read_all() -> int:
        n = 0
        for row in store.export():
            n += len(row["record"] or "")
        return n

    out, peak = peak_while(read_all)
    store.close()
    assert isinstance(out, (int, DamagedRecord)), repr(out)
    assert peak <= codec.MAX_RECORD_BYTES + (1 << 20)  # at most one record's bound
