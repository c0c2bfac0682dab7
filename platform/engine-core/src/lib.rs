//! mallows' compiled engine core, std only, behind a C ABI (loaded by `mallows/core.py` with
//! ctypes). Three parts: numpy-identical chance streams (`seeding`), Take4's state machine and
//! observation vector (`take4`), Arschmallows' state machine (`arschmallows`). Every function
//! here checks its pointers' lengths on the Python side; handles are boxed states freed by the
//! matching `*_free`.

pub mod arschmallows;
pub mod seeding;
pub mod take4;

use arschmallows::{Arschmallows, Options};
use seeding::{Fast, Rng};
use std::slice;
use take4::Take4;

/// The ABI's version: `mallows/core.py` refuses a core built for another one.
#[no_mangle]
pub extern "C" fn mc_abi() -> u32 {
    4
}

// -- chance streams ------------------------------------------------------------------------

/// # Safety
/// `key` points to `key_len` words.
#[no_mangle]
pub unsafe extern "C" fn mc_rng_new(seed: u64, key: *const u32, key_len: usize) -> *mut Rng {
    let key = if key_len == 0 { &[][..] } else { slice::from_raw_parts(key, key_len) };
    Box::into_raw(Box::new(Rng::new(seed, key)))
}

/// A generator's whole state, five words (`Rng::words`).
/// # Safety
/// `rng` from `mc_rng_new`; `out` holds 5 words.
#[no_mangle]
pub unsafe extern "C" fn mc_rng_get_state(rng: *const Rng, out: *mut u64) {
    slice::from_raw_parts_mut(out, 5).copy_from_slice(&(*rng).words());
}

/// A generator from the five words `mc_rng_get_state` gave.
/// # Safety
/// `words` holds 5 words.
#[no_mangle]
pub unsafe extern "C" fn mc_rng_from_state(words: *const u64) -> *mut Rng {
    Box::into_raw(Box::new(Rng::from_words(slice::from_raw_parts(words, 5))))
}

/// # Safety
/// `rng` from `mc_rng_new`, not yet freed.
#[no_mangle]
pub unsafe extern "C" fn mc_rng_free(rng: *mut Rng) {
    drop(Box::from_raw(rng));
}

/// # Safety
/// `out` holds `n` words.
#[no_mangle]
pub unsafe extern "C" fn mc_rng_permutation(rng: *mut Rng, n: usize, out: *mut u32) {
    (*rng).permutation(slice::from_raw_parts_mut(out, n));
}

/// # Safety
/// `rng` from `mc_rng_new`.
#[no_mangle]
pub unsafe extern "C" fn mc_rng_integers(rng: *mut Rng, n: u64) -> u64 {
    (*rng).integers(n)
}

/// # Safety
/// `rng` from `mc_rng_new`.
#[no_mangle]
pub unsafe extern "C" fn mc_rng_next_u64(rng: *mut Rng) -> u64 {
    (*rng).next_u64()
}

/// `SeedSequence(seed, spawn_key=key).generate_state(n, uint32)`.
/// # Safety
/// `key` holds `key_len` words, `out` `n`.
#[no_mangle]
pub unsafe extern "C" fn mc_generate_state(
    seed: u64,
    key: *const u32,
    key_len: usize,
    n: usize,
    out: *mut u32,
) {
    let key = if key_len == 0 { &[][..] } else { slice::from_raw_parts(key, key_len) };
    slice::from_raw_parts_mut(out, n).copy_from_slice(&seeding::generate_state(seed, key, n));
}

// -- the flat record log, shared by both games -------------------------------------------------

fn copy_log(log: &[i32], out: *mut i32, cap: usize) -> usize {
    if !out.is_null() && cap >= log.len() {
        unsafe { slice::from_raw_parts_mut(out, log.len()) }.copy_from_slice(log);
    }
    log.len()
}

// -- Take4 -------------------------------------------------------------------------------------

#[no_mangle]
pub extern "C" fn t4_new(seed: u64, players: usize, max_rounds: u32) -> *mut Take4 {
    Box::into_raw(Box::new(Take4::new(seed, players, max_rounds)))
}

/// # Safety
/// `s` from `t4_new`, not yet freed.
#[no_mangle]
pub unsafe extern "C" fn t4_free(s: *mut Take4) {
    drop(Box::from_raw(s));
}

/// The seats still to pick afterwards (one bit each), or a negative refusal (`Take4::pick`).
/// # Safety
/// `s` from `t4_new`.
#[no_mangle]
pub unsafe extern "C" fn t4_pick(s: *mut Take4, seat: usize, position: usize) -> i32 {
    (*s).pick(seat, position)
}

/// The seats still to pick, one bit each (0 once the game is over).
/// # Safety
/// `s` from `t4_new`.
#[no_mangle]
pub unsafe extern "C" fn t4_to_move(s: *const Take4) -> u32 {
    (*s).to_move as u32
}

/// -1 while the game goes on, else the end reason (0 squad, 1 deck empty, 2 round limit).
/// # Safety
/// `s` from `t4_new`.
#[no_mangle]
pub unsafe extern "C" fn t4_reason(s: *const Take4) -> i32 {
    (*s).reason
}

/// # Safety
/// `s` from `t4_new`; `out` holds 157 floats.
#[no_mangle]
pub unsafe extern "C" fn t4_encode(s: *const Take4, seat: usize, out: *mut f32) {
    (*s).encode(seat, slice::from_raw_parts_mut(out, take4::SIZE));
}

/// # Safety
/// `s` from `t4_new`; `vector` holds 157 floats, `mask` 4 bytes.
#[no_mangle]
pub unsafe extern "C" fn t4_observe(s: *const Take4, seat: usize, vector: *mut f32, mask: *mut i8) {
    (*s).observe(seat, slice::from_raw_parts_mut(vector, take4::SIZE), slice::from_raw_parts_mut(mask, 4));
}

/// # Safety
/// `s` from `t4_new`; `out` holds 4 bytes.
#[no_mangle]
pub unsafe extern "C" fn t4_mask(s: *const Take4, seat: usize, out: *mut i8) {
    (*s).mask(seat, slice::from_raw_parts_mut(out, 4));
}

/// The state in numbers: round, deck left, positions (4, -1 empty), then per seat its count
/// and its characters in the order taken. Returns the length (written when `cap` suffices).
/// # Safety
/// `s` from `t4_new`; `out` holds `cap` numbers or is null.
#[no_mangle]
pub unsafe extern "C" fn t4_state(s: *const Take4, out: *mut i32, cap: usize) -> usize {
    let s = &*s;
    let mut v = vec![s.round as i32, s.deck.len() as i32];
    v.extend(s.positions.iter().map(|&p| p as i32));
    for held in &s.collections {
        v.push(held.len() as i32);
        v.extend(held.iter().map(|&c| c as i32));
    }
    copy_log(&v, out, cap)
}

/// # Safety
/// `s` from `t4_new`; `out` holds `cap` numbers or is null.
#[no_mangle]
pub unsafe extern "C" fn t4_log(s: *const Take4, out: *mut i32, cap: usize) -> usize {
    copy_log(&(*s).log, out, cap)
}

/// Play this match to its end inside the core, random picks from generator seed `policy`;
/// returns the decisions taken.
/// # Safety
/// `s` from `t4_new`.
#[no_mangle]
pub unsafe extern "C" fn t4_play_random(s: *mut Take4, policy: u64) -> u64 {
    (*s).play_random(&mut Fast(policy))
}

/// Random playouts in the core: matches of seeds `seed0 ..`, picks from the core's own
/// generator; returns the decisions taken.
#[no_mangle]
pub extern "C" fn t4_playouts(seed0: u64, matches: u64, players: usize, max_rounds: u32) -> u64 {
    let mut rng = Fast(seed0 ^ 0x5eed);
    (0..matches).map(|m| Take4::new(seed0 + m, players, max_rounds).play_random(&mut rng)).sum()
}

// -- Arschmallows --------------------------------------------------------------------------------

fn ars_options(o: *const i64) -> Options {
    let o = unsafe { slice::from_raw_parts(o, 7) };
    Options {
        rounds: o[0] as u32,
        table_cards: o[1] as usize,
        final_turns: o[2] != 0,
        next_by_round: o[3] != 0,
        strictly_lowest: o[4] != 0,
        double_negative: o[5] != 0,
        max_turns: o[6] as u32,
    }
}

/// `options`: rounds, table_cards, final_turns, next_starter is highest_round,
/// caller_strictly_lowest, double_negative, max_turns_per_round.
/// # Safety
/// `options` holds 7 numbers.
#[no_mangle]
pub unsafe extern "C" fn ars_new(seed: u64, players: usize, options: *const i64) -> *mut Arschmallows {
    Box::into_raw(Box::new(Arschmallows::new(seed, players, ars_options(options))))
}

/// # Safety
/// `s` from `ars_new`, not yet freed.
#[no_mangle]
pub unsafe extern "C" fn ars_free(s: *mut Arschmallows) {
    drop(Box::from_raw(s));
}

/// The phase (-1 over, 0 peek, 1 take, 2 use, 3 end) times 16 plus the seat to move.
/// # Safety
/// `s` from `ars_new`.
#[no_mangle]
pub unsafe extern "C" fn ars_turn(s: *const Arschmallows) -> i32 {
    let s = &*s;
    if s.phase < 0 {
        -1
    } else {
        s.phase * 16 + s.current as i32
    }
}

/// The legal actions, 4 numbers each (kind, a, b, c); returns how many numbers.
/// # Safety
/// `s` from `ars_new`; `out` holds `cap` numbers or is null.
#[no_mangle]
pub unsafe extern "C" fn ars_legal(s: *const Arschmallows, out: *mut i32, cap: usize) -> usize {
    let mut v = Vec::new();
    (*s).legal(&mut v);
    copy_log(&v, out, cap)
}

/// # Safety
/// `s` from `ars_new`; `slots` holds `n` numbers.
#[no_mangle]
pub unsafe extern "C" fn ars_apply(
    s: *mut Arschmallows,
    kind: i32,
    a: i32,
    b: i32,
    c: i32,
    slots: *const i32,
    n: usize,
) -> i32 {
    let slots = if n == 0 { &[][..] } else { slice::from_raw_parts(slots, n) };
    (*s).apply(kind, a, b, c, slots)
}

/// # Safety
/// `s` from `ars_new`; `out` holds `cap` numbers or is null.
#[no_mangle]
pub unsafe extern "C" fn ars_log(s: *const Arschmallows, out: *mut i32, cap: usize) -> usize {
    copy_log(&(*s).log, out, cap)
}

/// Totals then round wins, per seat.
/// # Safety
/// `s` from `ars_new`; `out` holds 2 * players numbers.
#[no_mangle]
pub unsafe extern "C" fn ars_totals(s: *const Arschmallows, out: *mut i64) {
    let s = &*s;
    let out = slice::from_raw_parts_mut(out, 2 * s.players);
    for p in 0..s.players {
        out[p] = s.totals[p];
        out[s.players + p] = s.round_wins[p] as i64;
    }
}

/// Play this match to its end inside the core (`Arschmallows::play_random`, generator seed
/// `policy`); returns the decisions taken.
/// # Safety
/// `s` from `ars_new`.
#[no_mangle]
pub unsafe extern "C" fn ars_play_random(s: *mut Arschmallows, policy: u64) -> u64 {
    (*s).play_random(&mut Fast(policy))
}

/// Random playouts in the core (see `Arschmallows::play_random`); returns the decisions.
/// # Safety
/// `options` holds 7 numbers.
#[no_mangle]
pub unsafe extern "C" fn ars_playouts(seed0: u64, matches: u64, players: usize, options: *const i64) -> u64 {
    let o = ars_options(options);
    let mut rng = Fast(seed0 ^ 0x5eed);
    (0..matches).map(|m| Arschmallows::new(seed0 + m, players, o).play_random(&mut rng)).sum()
}

/// The table in numbers: per seat its slot count then (value, face up) per slot; then the
/// held card's value (-99: none), the discard pile's size and the draw pile's. Returns the
/// length (written when `cap` suffices).
/// # Safety
/// `s` from `ars_new`; `out` holds `cap` numbers or is null.
#[no_mangle]
pub unsafe extern "C" fn ars_table(s: *const Arschmallows, out: *mut i32, cap: usize) -> usize {
    let s = &*s;
    let mut v = Vec::with_capacity(128);
    for row in &s.rows {
        v.push(row.len() as i32);
        for &c in row {
            v.push(s.values[c as usize] as i32);
            v.push(s.up[c as usize] as i32);
        }
    }
    v.push(if s.held >= 0 { s.values[s.held as usize] as i32 } else { -99 });
    v.push(s.discard.len() as i32);
    v.push(s.draw.len() as i32);
    copy_log(&v, out, cap)
}
