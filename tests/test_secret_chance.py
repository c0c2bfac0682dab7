"""Secret chance (issue 20, item 1): no hidden card is a function of what a bot sees or an author
knows in advance.

``tests/hostile_bots/seed_cracker.py`` searches small and common tournament seeds, schedule
places and ``play`` seeds for its match seed, by its own seed and by its own cards, and answers
the seed it found (an illegal answer the forfeit reason quotes). Under derivation 1 (what every
tournament stored before this used, kept as the control) it finds every match seed; under
derivation 2 it finds none, neither in a tournament without a seed, in a ``secret = true`` one,
nor under ``mallows play --seed``. Stored derivation 1 tournaments resume with the same matches.
"""

from __future__ import annotations

import dataclasses
import json
import re
import shutil
import sqlite3
import subprocess
from pathlib import Path

import pytest

from conftest import MALLOWS, REPO
from mallows import seeding
from mallows.agents.registry import load_bot
from mallows.agents.protocol import Limits
from mallows.games import get_game
from mallows.results.store import Store
from mallows.runner.executor import make_executor
from mallows.runner.match import play_match
from mallows.tournaments.run import run_tournament
from mallows.tournaments.secrecy import settle
from mallows.tournaments.roundrobin.spec import load_tournament

CRACKER = REPO / "tests" / "hostile_bots" / "seed_cracker.py"
CRACKED = re.compile(r'answered \{"type":"cracked","seed":(\d+),"how":"(\w+)"\}')


def tournament_file(
    tmp_path: Path, extra: str = "seed = 2026\n", name: str = "crack", bots: str | None = None
) -> Path:
    path = tmp_path / f"{name}.toml"
    bots = bots or f'["{CRACKER}", "random", "greedy"]'
    # 3 tables x 2 rotations x 2 deals = 12 matches, 8 with the cracker; places 0 to 5
    path.write_text(
        f'name = "{name}"\ngame = "take4"\nplayers = 2\ndeals = 2\n{extra}'
        f"bots = {bots}\n[limits]\ndecision_seconds = 10.0\n"
    )
    return path


def cracks(records) -> list[tuple[int, int, str]]:
    """(the record's real seed, the seed the cracker answered, how) for each match in which it
    answered one; asserts that the cracker played in some."""
    out, played = [], 0
    for record in records:
        seat = next((s for s, p in enumerate(record["players"]) if "seed_cracker" in p), None)
        if seat is None:
            continue
        played += 1
        reason = (record["result"].get("forfeits") or [None] * (seat + 1))[seat] or ""
        m = CRACKED.search(reason)
        if m:
            out.append((record["seed"], int(m[1]), m[2]))
        else:
            assert not reason, reason  # it plays legally when it found nothing
    assert played, "the cracker played no match"
    return out


def stored_records(db: Path, name: str) -> list[dict]:
    store = Store(db, readonly=True)
    try:
        return [json.loads(text) for _, text in store.records(name)]
    finally:
        store.close()


def run_api(t, db: Path) -> None:
    store = Store(db)
    try:
        with make_executor(1, None) as executor:
            run_tournament(t, store, executor)
    finally:
        store.close()


def run_cli(path: Path, db: Path, *extra: str, status: int = 0) -> subprocess.CompletedProcess:
    proc = subprocess.run(
        [
            MALLOWS,
            "tournament",
            "run",
            str(path),
            "--db",
            str(db),
            "--workers",
            "1",
            "--quiet",
            *extra,
        ],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=REPO,
    )
    assert proc.returncode == status, proc.stdout + proc.stderr
    return proc


def test_control_derivation_1_gives_every_deal_away(tmp_path):
    """What a tournament stored before secret keys plays: the cracker finds its match seed
    from its own seed in every match (so it could read every hidden card)."""
    t = load_tournament(tournament_file(tmp_path))
    t = dataclasses.replace(t, derivation=seeding.LEGACY, secret=False)  # as the old code
    run_api(t, tmp_path / "old.db")
    found = cracks(stored_records(tmp_path / "old.db", "crack"))
    assert len(found) == 8 and all(real == guess for real, guess, _ in found), found


def test_a_published_seed_gives_nothing_away_now_the_deals_are_secret_by_default(tmp_path):
    """Issue 32: a file with a seed and no `secret` keys its deals too (the default): neither
    the bots' seeds nor the deals are the file's, and there is nothing to warn about."""
    proc = run_cli(tournament_file(tmp_path), tmp_path / "m.db")
    assert "authors who know the seed" not in proc.stderr
    records = stored_records(tmp_path / "m.db", "crack")
    assert not [f for f in cracks(records) if f[0] == f[1]], cracks(records)
    public = [seeding.child_seed(2026, k) for k in range(6)]
    assert not {r["seed"] for r in records} & set(public)  # not the file's deals
    definition = json.loads(
        sqlite3.connect(tmp_path / "m.db")
        .execute("SELECT definition FROM tournaments")
        .fetchone()[0]
    )
    assert definition["secret"] is True


def test_secret_false_is_refused_with_bots_not_shipped_and_allowed_with_shipped_ones(tmp_path):
    path = tournament_file(tmp_path, extra="seed = 2026\nsecret = false\n", name="open")
    proc = run_cli(path, tmp_path / "m.db", status=2)
    text = " ".join(proc.stderr.split())
    assert "`secret = false` with bots not shipped with mallows (" in text, text
    assert "seed_cracker" in text and "Leave `secret` out" in text and "Traceback" not in text
    assert not (tmp_path / "m.db").exists() or not stored_records(tmp_path / "m.db", "open")
    shipped = tournament_file(
        tmp_path, extra="seed = 2026\nsecret = false\n", name="pub", bots='["random", "greedy"]'
    )
    run_cli(shipped, tmp_path / "s.db")
    records = stored_records(tmp_path / "s.db", "pub")
    assert {r["seed"] for r in records} <= {seeding.child_seed(2026, k) for k in range(4)}


def test_a_tournament_stored_with_public_deals_resumes_with_them(tmp_path):
    """A tournament stored before `secret` became the default (a seed, no `secret`) resumes
    with the same unkeyed deals from the same file: nothing is played again or differently."""
    path = tournament_file(tmp_path, name="old")
    db = tmp_path / "m.db"
    t = dataclasses.replace(load_tournament(path), secret=False)  # what the old code stored
    run_api(t, db)
    before = stored_records(db, "old")
    con = sqlite3.connect(db)
    con.execute("DELETE FROM matches WHERE idx = 0")
    con.execute("UPDATE tournaments SET finished = NULL")
    con.commit()
    con.close()
    again = run_cli(path, db)
    assert "played 1 matches (11 already stored)" in again.stdout, again.stdout
    after = stored_records(db, "old")
    key = lambda r: (r["seed"], r["players"])  # noqa: E731
    assert sorted(map(key, after)) == sorted(map(key, before))
    assert {r["seed"] for r in after} <= {seeding.child_seed(2026, k) for k in range(6)}


def test_a_file_without_seed_gives_nothing_away_and_resumes_with_its_drawn_seed(tmp_path):
    path = tournament_file(tmp_path, extra="", name="fresh")
    db = tmp_path / "m.db"
    proc = run_cli(path, db)
    assert "authors who know the seed" not in proc.stderr  # a drawn seed is nobody's
    assert "secret key commitment sha256:" in proc.stderr
    records = stored_records(db, "fresh")
    assert len(records) == 12
    assert not [f for f in cracks(records) if f[0] == f[1]]
    definition = json.loads(
        sqlite3.connect(db).execute("SELECT definition FROM tournaments").fetchone()[0]
    )
    assert definition["drawn_seed"] is True and definition["chance"] == 2
    assert definition["seed"] not in range(0, 100000)  # drawn from the OS, 53 bits
    # the same file again (no seed in it): the stored drawn seed, nothing to play
    again = run_cli(path, db)
    assert "played 0 matches (12 already stored)" in again.stdout


def test_secret_deals_give_nothing_away_and_replay_with_the_key(tmp_path):
    path = tournament_file(tmp_path, extra="seed = 2026\nsecret = true\n", name="hush")
    db = tmp_path / "m.db"
    proc = run_cli(path, db)
    assert "authors who know the seed" not in proc.stderr
    records = stored_records(db, "hush")
    assert not [f for f in cracks(records) if f[0] == f[1]]
    public = [seeding.child_seed(2026, k) for k in range(6)]
    assert not {r["seed"] for r in records} & set(public)  # not the file's deals
    # the key stays secret until the tournament is finished; then anyone can check it
    shown = subprocess.run(
        [MALLOWS, "tournament", "show", "hush", "--db", str(db), "--reveal-key"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert shown.returncode == 0, shown.stderr
    key = re.search(r"secret key: ([0-9a-f]{64})", shown.stdout)[1]
    promise = re.search(r"key commitment (sha256:[0-9a-f]{64})", proc.stderr)[1]
    assert seeding.verify_key(bytes.fromhex(key), promise)
    # ... and rerun the published file with it in a database of their own: the same matches
    other = tmp_path / "other.db"
    run_cli(path, other, "--key", key)
    assert [
        (r["seed"], r["players"], r["result"]["ranks"]) for r in stored_records(other, "hush")
    ] == [(r["seed"], r["players"], r["result"]["ranks"]) for r in records]


def test_run_tournament_with_one_key_plays_the_same_matches_in_fresh_databases(tmp_path):
    """What the benchmarks that compare runs rely on (``bench_tournament``'s "same table"): the
    API takes ``--key``'s key too; without it, each fresh database draws its own."""
    t = load_tournament(
        tournament_file(
            tmp_path, extra="secret = true\n", bots='["random", "greedy", "random:call=0.3"]'
        )
    )
    key = seeding.fresh_key()

    def played(db: Path, key: bytes | None) -> list:
        store = Store(db)
        try:
            with make_executor(1, None) as executor:
                run_tournament(t, store, executor, key=key)
        finally:
            store.close()
        return [
            (r["seed"], r["players"], r["result"]["ranks"]) for r in stored_records(db, "crack")
        ]

    same = played(tmp_path / "a.db", key)
    assert len(same) == 12 and played(tmp_path / "b.db", key) == same
    assert played(tmp_path / "c.db", None) != same  # the control: a key of its own


def test_the_key_is_not_revealed_before_the_end(tmp_path):
    path = tournament_file(
        tmp_path, extra="secret = true\n", name="early", bots='["random", "greedy"]'
    )
    db = tmp_path / "m.db"
    run_cli(path, db)
    con = sqlite3.connect(db)
    con.execute("DELETE FROM matches WHERE idx = 0")
    con.execute("UPDATE tournaments SET finished = NULL")
    con.commit()
    con.close()
    shown = subprocess.run(
        [MALLOWS, "tournament", "show", "early", "--db", str(db), "--reveal-key"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert shown.returncode == 2 and "is not finished: its key stays secret" in shown.stderr
    assert "secret key:" not in shown.stdout


def test_play_seed_gives_nothing_away_and_repeats_on_this_machine(tmp_path):
    out = []
    for n in range(2):
        record = tmp_path / f"m{n}.json"
        proc = subprocess.run(
            [
                MALLOWS,
                "play",
                "take4",
                "--bot",
                str(CRACKER),
                "--bot",
                "random",
                "--seed",
                "5",
                "--record",
                str(record),
                "--decision-seconds",  # generous: a loaded machine must not make a forfeit
                "60",
            ],
            capture_output=True,
            text=True,
            timeout=600,
            cwd=REPO,
        )
        assert proc.returncode == 0, proc.stdout + proc.stderr
        out.append(json.loads(record.read_text()))
    assert out[0] == out[1]  # the same --seed, the same match (this user's key)
    assert not [f for f in cracks(out) if f[0] == f[1]]


def test_control_an_unkeyed_play_seed_gives_the_deal_away():
    module = get_game("take4")
    handles = [
        load_bot(str(CRACKER)).handle(Limits(decision_seconds=10.0)),
        load_bot("random").handle(Limits()),
    ]
    record = play_match(
        "take4",
        module.make_options(None, None),
        5,
        handles,
        ["seed_cracker", "random"],
        chance=seeding.UNKEYED,
    )
    assert cracks([record]) == [(5, 5, "bot_seed")]


def test_keyed_seeds_are_independent_of_the_seat_and_of_the_match_seed():
    key = seeding.fresh_key()
    chance = seeding.Chance(seeding.KEYED, key)
    seeds = {chance.bot_seed(m, s) for m in range(50) for s in range(6)}
    assert len(seeds) == 300  # no two seats or matches share one
    other = seeding.Chance(seeding.KEYED, seeding.fresh_key())
    assert all(chance.bot_seed(7, s) != other.bot_seed(7, s) for s in range(6))
    assert chance.bot_seed(7, 0) != seeding.bot_seed(7, 0)
    assert chance.fallback_seed(7, 0) != chance.bot_seed(7, 0)
    assert "key=<secret>" in repr(chance) and key.hex() not in repr(chance)


def test_a_tournament_stored_before_secret_keys_resumes_with_the_same_matches(tmp_path):
    """Derivation 1 stays for what was stored under it: half the matches of an old tournament
    are removed, the file is run again by today's code, and the matches are those of the
    uninterrupted old run, record for record."""
    path = tournament_file(tmp_path, bots='["random", "greedy", "random:call=0.2"]', name="old")
    # as the old code stored it: derivation 1, unkeyed deals
    t = dataclasses.replace(load_tournament(path), derivation=seeding.LEGACY, secret=False)
    full, half = tmp_path / "full.db", tmp_path / "half.db"
    run_api(t, full)
    assert "chance" not in json.loads(
        sqlite3.connect(full).execute("SELECT definition FROM tournaments").fetchone()[0]
    )
    shutil.copy(full, half)
    con = sqlite3.connect(half)
    con.execute("DELETE FROM matches WHERE idx % 2 = 1")
    con.commit()
    con.close()
    proc = run_cli(path, half)
    assert "played 6 matches (6 already stored)" in proc.stdout
    assert stored_records(half, "old") == stored_records(full, "old")
    store = Store(half, readonly=True)
    try:
        assert settle(store, load_tournament(path)).chance == seeding.UNKEYED
    finally:
        store.close()


@pytest.mark.parametrize(
    "bad,message", [("nothex", "is not a secret key"), ("ab" * 4, "is not a secret key")]
)
def test_a_bad_key_is_refused(tmp_path, bad, message):
    path = tournament_file(tmp_path, bots='["random", "greedy"]', name="k")
    proc = subprocess.run(
        [
            MALLOWS,
            "tournament",
            "run",
            str(path),
            "--db",
            str(tmp_path / "m.db"),
            "--workers",
            "1",
            "--key",
            bad,
        ],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=REPO,
    )
    assert proc.returncode == 2 and message in proc.stderr, proc.stderr


def test_a_comparison_gives_nothing_away_and_the_control_does(tmp_path):
    """``mallows compare`` keys its deals and the bots' seeds too (derivation 2); one stored
    before (derivation 1, its definition without ``chance``) gives them away."""
    from mallows.tournaments.compare.spec import make_comparison
    from mallows.tournaments.compare.run import run_comparison

    limits = {"decision_seconds": 10.0}
    found = {}
    for derivation in (seeding.LEGACY, seeding.KEYED):
        c = make_comparison(
            str(CRACKER),
            "random",
            game="take4",
            max_matches=8,
            limits=limits,
            name=f"c{derivation}",
        )
        c = dataclasses.replace(c, derivation=derivation)
        db = tmp_path / f"c{derivation}.db"
        store = Store(db)
        try:
            with make_executor(1, None) as executor:
                run_comparison(c, store, executor)
            assert ("chance" in json.loads(store.tournament(c.name)["definition"])) == (
                derivation == seeding.KEYED
            )
        finally:
            store.close()
        found[derivation] = cracks(stored_records(db, c.name))
    assert len(found[seeding.LEGACY]) == 8 and all(a == b for a, b, _ in found[seeding.LEGACY])
    assert not [f for f in found[seeding.KEYED] if f[0] == f[1]]


def test_a_file_may_ask_for_derivation_1_to_replay_an_old_tournament_and_is_warned(tmp_path):
    """``chance = 1``: what a tournament stored before keys used, for replaying one in a new
    database; with bots not shipped it warns, and the cracker shows why."""
    path = tournament_file(tmp_path, extra="seed = 2026\nchance = 1\n", name="replay")
    proc = run_cli(path, tmp_path / "m.db")
    assert "runs under seed derivation 1 (unkeyed)" in proc.stderr
    found = cracks(stored_records(tmp_path / "m.db", "replay"))
    assert len(found) == 8 and all(real == guess for real, guess, _ in found)


@pytest.mark.parametrize(
    "extra,message",
    [
        ("seed = 1\nchance = 3\n", "`chance` must be one of 1, 2"),
        ("chance = 1\n", "takes the old file's `seed` and no `secret`"),
        ("seed = 1\nsecret = true\nchance = 1\n", "takes the old file's `seed` and no `secret`"),
    ],
)
def test_a_bad_chance_is_refused(tmp_path, extra, message):
    path = tournament_file(tmp_path, extra=extra, bots='["random", "greedy"]', name="bad")
    proc = subprocess.run(
        [MALLOWS, "tournament", "run", str(path), "--db", str(tmp_path / "m.db")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 2 and message in proc.stderr, proc.stderr
