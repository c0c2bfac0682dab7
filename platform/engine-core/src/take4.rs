//! Take4's state machine over a compact state (characters as 0..15 in `CHARACTERS` order):
//! the same rulings as `mallows/games/take4/rules.py`, the same chance streams, the same record
//! events (as a flat log the Python side turns into the record's dicts), and the observation
//! vector of `mallows/games/take4/encoding.py` computed from the state.

use crate::seeding::{Fast, Rng};

pub const SIZE: usize = 157;
const C: usize = 16;
const NONE: i8 = -1;

pub const REASON_SQUAD: i32 = 0;
pub const REASON_DECK_EMPTY: i32 = 1;
pub const REASON_ROUND_LIMIT: i32 = 2;

// the flat log: tag, then the fields
pub const EV_DEAL: i32 = 1; // 64 characters
pub const EV_PICKS: i32 = 2; // round, players picks
pub const EV_RACE: i32 = 3; // position, k, k contenders, winner
pub const EV_END: i32 = 4; // reason, k, k winners

pub struct Take4 {
    pub players: usize,
    seed: u64,
    max_rounds: u32,
    pub deck: std::collections::VecDeque<u8>,
    pub positions: [i8; 4],
    pub collections: Vec<Vec<u8>>,
    pub counts: [[u8; C]; 4],
    pub round: u32,
    pub pending: [i8; 4],
    pub to_move: u8, // bit per seat
    pub winners: Vec<u8>,
    pub reason: i32, // -1 while playing
    pub log: Vec<i32>,
}

fn squad(c: usize) -> usize {
    c / 4
}

impl Take4 {
    pub fn new(seed: u64, players: usize, max_rounds: u32) -> Take4 {
        let mut perm = [0u32; 64];
        Rng::stream(seed, 0, 0).permutation(&mut perm);
        let deck: std::collections::VecDeque<u8> = perm.iter().map(|&i| (i / 4) as u8).collect();
        let mut log = Vec::with_capacity(512);
        log.push(EV_DEAL);
        log.extend(deck.iter().map(|&c| c as i32));
        let mut s = Take4 {
            players,
            seed,
            max_rounds,
            deck,
            positions: [NONE; 4],
            collections: vec![Vec::new(); players],
            counts: [[0; C]; 4],
            round: 0,
            pending: [NONE; 4],
            to_move: 0,
            winners: Vec::new(),
            reason: -1,
            log,
        };
        s.start_round();
        s
    }

    fn start_round(&mut self) {
        for p in 0..4 {
            self.positions[p] = match self.deck.pop_front() {
                Some(c) => c as i8,
                None => NONE,
            };
        }
        self.pending = [NONE; 4];
        self.to_move = ((1u32 << self.players) - 1) as u8;
    }

    /// The seats to move after the pick (one bit each, 0 once the game is over), or -1 game
    /// over, -2 no such seat, -3 already picked, -4 empty or no such position.
    pub fn pick(&mut self, seat: usize, position: usize) -> i32 {
        if self.reason >= 0 {
            return -1;
        }
        if seat >= self.players {
            return -2;
        }
        if self.to_move & (1 << seat) == 0 {
            return -3;
        }
        if !(1..=4).contains(&position) || self.positions[position - 1] == NONE {
            return -4;
        }
        self.pending[seat] = position as i8;
        self.to_move &= !(1 << seat);
        if self.to_move == 0 {
            self.resolve();
        }
        self.to_move as i32
    }

    fn resolve(&mut self) {
        let r = self.round;
        let n = self.players;
        self.log.push(EV_PICKS);
        self.log.push(r as i32);
        for s in 0..n {
            self.log.push(self.pending[s] as i32);
        }
        let mut race: Option<Rng> = None;
        let mut took = 0u8;
        let mut leftovers = [0u8; 4];
        let mut nleft = 0;
        for p in 1..=4usize {
            let card = self.positions[p - 1];
            if card == NONE {
                continue;
            }
            let mut seats = [0u8; 4];
            let mut k = 0;
            for s in 0..n {
                if self.pending[s] as usize == p {
                    seats[k] = s as u8;
                    k += 1;
                }
            }
            let winner = match k {
                0 => {
                    leftovers[nleft] = card as u8;
                    nleft += 1;
                    continue;
                }
                1 => seats[0] as usize,
                _ => {
                    let rng = race.get_or_insert_with(|| Rng::stream(self.seed, 2, r));
                    let w = seats[rng.integers(k as u64) as usize] as usize;
                    self.log.push(EV_RACE);
                    self.log.push(p as i32);
                    self.log.push(k as i32);
                    self.log.extend(seats[..k].iter().map(|&s| s as i32));
                    self.log.push(w as i32);
                    w
                }
            };
            self.collections[winner].push(card as u8);
            self.counts[winner][card as usize] += 1;
            took |= 1 << winner;
        }
        self.deck.extend(&leftovers[..nleft]);
        self.positions = [NONE; 4];
        self.pending = [NONE; 4];
        self.to_move = 0;
        self.winners.clear();
        for s in 0..n {
            if took & (1 << s) != 0 && self.completes(s) {
                self.winners.push(s as u8);
            }
        }
        let reason = if !self.winners.is_empty() {
            REASON_SQUAD
        } else if self.deck.is_empty() {
            REASON_DECK_EMPTY
        } else if r + 1 >= self.max_rounds {
            REASON_ROUND_LIMIT
        } else {
            -1
        };
        if reason >= 0 {
            self.reason = reason;
            self.log.push(EV_END);
            self.log.push(reason);
            self.log.push(self.winners.len() as i32);
            self.log.extend(self.winners.iter().map(|&s| s as i32));
            return;
        }
        self.round = r + 1;
        self.start_round();
    }

    fn completes(&self, seat: usize) -> bool {
        (0..4).any(|q| (0..4).all(|m| self.counts[seat][q * 4 + m] > 0))
    }

    fn distinct_in(&self, seat: usize, q: usize) -> usize {
        (0..4).filter(|&m| self.counts[seat][q * 4 + m] > 0).count()
    }

    /// `encoding.encode` of `seat`'s observation, from the state (the same float32 values).
    pub fn encode(&self, seat: usize, out: &mut [f32]) {
        out[..SIZE].fill(0.0);
        for (k, &c) in self.positions.iter().enumerate() {
            if c != NONE {
                out[k * C + c as usize] = 1.0;
            }
        }
        let n = self.players;
        for rel in 0..n {
            let s = (seat + rel) % n;
            let start = 64 + rel * C;
            for c in 0..C {
                out[start + c] = self.counts[s][c] as f32 / 4.0;
            }
            out[128 + rel] = 1.0;
            let best = (0..4).map(|q| self.distinct_in(s, q)).max().unwrap_or(0);
            out[132 + rel] = best as f32 / 4.0;
        }
        out[136] = self.deck.len() as f32 / 64.0;
        for (k, &c) in self.positions.iter().enumerate() {
            if c == NONE {
                continue;
            }
            let c = c as usize;
            let q = squad(c);
            let have = self.distinct_in(seat, q);
            let mine = self.counts[seat][c] > 0;
            let mut most = 0;
            for rel in 1..4 {
                if rel < n {
                    most = most.max(self.distinct_in((seat + rel) % n, q));
                }
            }
            let at = 137 + k * 5;
            out[at] = 1.0;
            out[at + 1] = if mine { 1.0 } else { 0.0 };
            out[at + 2] = have as f32 / 4.0;
            out[at + 3] = most as f32 / 4.0;
            out[at + 4] = if have == 3 && !mine { 1.0 } else { 0.0 };
        }
    }

    /// `encode` and `mask` in one call.
    pub fn observe(&self, seat: usize, vector: &mut [f32], mask: &mut [i8]) {
        self.encode(seat, vector);
        self.mask(seat, mask);
    }

    /// One seat's legal positions as a mask (all zero when it is not to move).
    pub fn mask(&self, seat: usize, out: &mut [i8]) {
        let moving = self.reason < 0 && seat < self.players && self.to_move & (1 << seat) != 0;
        for k in 0..4 {
            out[k] = (moving && self.positions[k] != NONE) as i8;
        }
    }

    /// A uniformly random pick for every seat still to move, until the game ends; returns the
    /// number of decisions taken.
    pub fn play_random(&mut self, rng: &mut Fast) -> u64 {
        let mut decisions = 0;
        while self.reason < 0 {
            let filled: Vec<usize> = (1..=4).filter(|&p| self.positions[p - 1] != NONE).collect();
            for s in 0..self.players {
                if self.to_move & (1 << s) != 0 {
                    let p = filled[rng.below(filled.len())];
                    self.pick(s, p);
                    decisions += 1;
                }
            }
        }
        decisions
    }
}
