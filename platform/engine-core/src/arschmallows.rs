//! Arschmallows' state machine over a compact state: the same turns, triggers, final turns,
//! reshuffles and scoring as `mallows/games/arschmallows/state.py` and `rules.py`, the same
//! chance streams, and the same record events (as a flat log the Python side turns into the
//! record's dicts). What each seat knows is not kept here: it changes no ruling, only an
//! observation, and the observations stay the Python engine's.

use crate::seeding::{Fast, Rng};
use std::collections::VecDeque;

pub const SPY: i8 = 9;
pub const EXCHANGE: i8 = 10;
pub const PLAY_TWICE: i8 = 11;

// action kinds, in `state.SHAPES` order
pub const PEEK: i32 = 0;
pub const DRAW: i32 = 1;
pub const TAKE_DISCARD: i32 = 2;
pub const SWAP: i32 = 3;
pub const REFUSE: i32 = 4;
pub const A_SPY: i32 = 5;
pub const A_EXCHANGE: i32 = 6;
pub const A_PLAY_TWICE: i32 = 7;
pub const GET_RID: i32 = 8;
pub const CALL: i32 = 9;
pub const PASS: i32 = 10;

// phases
pub const P_PEEK: i32 = 0;
pub const P_TAKE: i32 = 1;
pub const P_USE: i32 = 2;
pub const P_END: i32 = 3;
pub const P_OVER: i32 = -1;

// round-end reasons
pub const R_CALL: i32 = 0;
pub const R_ALL_FACE_UP: i32 = 1;
pub const R_TURN_LIMIT: i32 = 2;
pub const R_EXHAUSTED: i32 = 3;

// the flat log: tag, then the fields
pub const EV_DEAL: i32 = 1; // round, 62 values
pub const EV_ACTION: i32 = 2; // seat, kind, k, k numbers (the action's fields in key order)
pub const EV_RESHUFFLE: i32 = 3; // k, k values
pub const EV_ROUND_END: i32 = 4; // round, reason, caller (-1: none), players scores

/// The 62 card values, lowest first (`cards.VALUES`).
pub fn values() -> Vec<i8> {
    let mut v = vec![-4, -2];
    for x in 0..8 {
        v.extend([x; 4]);
    }
    v.extend([8; 8]);
    v.extend([SPY; 8]);
    v.extend([EXCHANGE; 8]);
    v.extend([PLAY_TWICE; 4]);
    v
}

#[derive(Clone, Copy)]
pub struct Options {
    pub rounds: u32,
    pub table_cards: usize,
    pub final_turns: bool,
    pub next_by_round: bool,
    pub strictly_lowest: bool,
    pub double_negative: bool,
    pub max_turns: u32,
}

pub struct Arschmallows {
    pub players: usize,
    seed: u64,
    pub o: Options,
    pub values: Vec<i8>,
    pub rows: Vec<Vec<u8>>,
    pub up: [bool; 62],
    pub down: Vec<Vec<u8>>,
    pub discard: Vec<u8>,
    pub draw: Vec<u8>,
    pub held: i32,        // -1: none
    pub from_draw: bool,  // the held card's source
    pub turns: u32,
    pub extra: u32,
    pub final_extra: u32, // extra turns taken after the trigger (RULES.md 1.12's own cap)
    pub caller: i32,
    pub trigger: i32, // -1: none
    final_queue: VecDeque<usize>,
    pub phase: i32,
    pub current: usize,
    pub round: u32,
    pub starting: usize,
    pub totals: Vec<i64>,
    pub round_scores: Vec<Vec<i64>>,
    pub round_wins: Vec<u32>,
    reshuffle: Option<Rng>,
    pub log: Vec<i32>,
}

impl Arschmallows {
    pub fn new(seed: u64, players: usize, o: Options) -> Arschmallows {
        let mut s = Arschmallows {
            players,
            seed,
            o,
            values: Vec::new(),
            rows: Vec::new(),
            up: [false; 62],
            down: Vec::new(),
            discard: Vec::new(),
            draw: Vec::new(),
            held: -1,
            from_draw: false,
            turns: 0,
            extra: 0,
            final_extra: 0,
            caller: -1,
            trigger: -1,
            final_queue: VecDeque::new(),
            phase: P_PEEK,
            current: 0,
            round: 0,
            starting: 0,
            totals: vec![0; players],
            round_scores: Vec::new(),
            round_wins: vec![0; players],
            reshuffle: None,
            log: Vec::with_capacity(4096),
        };
        s.start_round();
        s
    }

    fn start_round(&mut self) {
        let base = values();
        let mut perm = [0u32; 62];
        Rng::stream(self.seed, 0, self.round).permutation(&mut perm);
        self.values = perm.iter().map(|&i| base[i as usize]).collect();
        self.reshuffle = None;
        self.log.push(EV_DEAL);
        self.log.push(self.round as i32);
        self.log.extend(self.values.iter().map(|&v| v as i32));
        let (n, t) = (self.players, self.o.table_cards);
        self.rows = (0..n).map(|s| ((s * t) as u8..((s + 1) * t) as u8).collect()).collect();
        self.up = [false; 62];
        self.down = (0..n).map(|_| (0..t as u8).collect()).collect();
        let first = n * t;
        self.discard = vec![first as u8];
        self.draw = ((first + 1) as u8..62).rev().collect();
        self.held = -1;
        self.from_draw = false;
        self.turns = 0;
        self.extra = 0;
        self.final_extra = 0;
        self.caller = -1;
        self.trigger = -1;
        self.final_queue.clear();
        self.phase = P_PEEK;
        self.current = 0;
    }

    fn face_down(&self, seat: usize) -> Vec<u8> {
        let row = &self.rows[seat];
        (0..row.len() as u8).filter(|&i| !self.up[row[i as usize] as usize]).collect()
    }

    fn own_down(&self, seat: usize, slot: i32) -> Option<u8> {
        let row = &self.rows[seat];
        if slot < 0 || slot as usize >= row.len() {
            return None;
        }
        let card = row[slot as usize];
        (!self.up[card as usize]).then_some(card)
    }

    fn log_action(&mut self, seat: usize, kind: i32, fields: &[i32]) {
        self.log.push(EV_ACTION);
        self.log.push(seat as i32);
        self.log.push(kind);
        self.log.push(fields.len() as i32);
        self.log.extend_from_slice(fields);
    }

    /// Every legal action of the seat to move, flat: kind, a, b, c per action (unused fields
    /// -1; `get_rid` once, as the template over the seat's face-down slots).
    pub fn legal(&self, out: &mut Vec<i32>) {
        out.clear();
        if self.phase == P_OVER {
            return;
        }
        let seat = self.current;
        let mut push = |k: i32, a: i32, b: i32, c: i32| out.extend_from_slice(&[k, a, b, c]);
        match self.phase {
            P_TAKE => {
                if self.draw.is_empty() {
                    push(TAKE_DISCARD, -1, -1, -1);
                } else {
                    push(DRAW, -1, -1, -1);
                    if !self.discard.is_empty() {
                        push(TAKE_DISCARD, -1, -1, -1);
                    }
                }
            }
            P_END => {
                push(CALL, -1, -1, -1);
                push(PASS, -1, -1, -1);
            }
            P_PEEK => {
                let t = self.o.table_cards as i32;
                for i in 0..t {
                    for j in i + 1..t {
                        push(PEEK, i, j, -1);
                    }
                }
            }
            _ => {
                let down = &self.down[seat];
                for &i in down {
                    push(SWAP, i as i32, -1, -1);
                }
                for &i in down {
                    push(REFUSE, i as i32, -1, -1);
                }
                if self.from_draw {
                    let v = self.values[self.held as usize];
                    if v == SPY {
                        for p in 0..self.players {
                            for &j in &self.down[p] {
                                push(A_SPY, p as i32, j as i32, -1);
                            }
                        }
                    } else if v == EXCHANGE {
                        for &i in down {
                            for p in (0..self.players).filter(|&p| p != seat) {
                                for &j in &self.down[p] {
                                    push(A_EXCHANGE, i as i32, p as i32, j as i32);
                                }
                            }
                        }
                    } else if v == PLAY_TWICE {
                        push(A_PLAY_TWICE, -1, -1, -1);
                    }
                }
                if down.len() >= 2 {
                    push(GET_RID, -1, -1, -1);
                }
            }
        }
    }

    /// Apply the seat to move's action: `kind` with fields `a, b, c` (peek: a, b; swap,
    /// refuse: a; spy: a = player, b = slot; exchange: a = slot, b = player, c = their slot)
    /// or, for get_rid, `slots`. 0, or a negative number when it is not legal (the state
    /// unchanged).
    pub fn apply(&mut self, kind: i32, a: i32, b: i32, c: i32, slots: &[i32]) -> i32 {
        if self.phase == P_OVER {
            return -1;
        }
        let seat = self.current;
        let phase_ok = match kind {
            PEEK => self.phase == P_PEEK,
            DRAW | TAKE_DISCARD => self.phase == P_TAKE,
            SWAP | REFUSE | A_SPY | A_EXCHANGE | A_PLAY_TWICE | GET_RID => self.phase == P_USE,
            CALL | PASS => self.phase == P_END,
            _ => false,
        };
        if !phase_ok {
            return -2;
        }
        let held_value = if self.held >= 0 { self.values[self.held as usize] } else { 0 };
        let needs = |v: i8| self.from_draw && held_value == v;
        match kind {
            PEEK => {
                if a == b || self.own_down(seat, a).is_none() || self.own_down(seat, b).is_none() {
                    return -3;
                }
                let (i, j) = if a < b { (a, b) } else { (b, a) };
                self.log_action(seat, PEEK, &[i, j]);
                if seat + 1 < self.players {
                    self.current = seat + 1;
                } else {
                    self.current = self.starting;
                    self.begin_turn();
                }
            }
            DRAW => {
                let Some(card) = self.draw.pop() else { return -3 };
                self.hold(seat, card, true, DRAW);
            }
            TAKE_DISCARD => {
                let Some(card) = self.discard.pop() else { return -3 };
                self.hold(seat, card, false, TAKE_DISCARD);
            }
            SWAP => {
                let Some(old) = self.own_down(seat, a) else { return -3 };
                self.rows[seat][a as usize] = self.held as u8;
                self.log_action(seat, SWAP, &[a]);
                self.discard.push(old);
                self.used(seat);
            }
            REFUSE => {
                let Some(card) = self.own_down(seat, a) else { return -3 };
                self.log_action(seat, REFUSE, &[a]);
                self.discard.push(self.held as u8);
                self.up[card as usize] = true;
                self.down[seat] = self.face_down(seat);
                self.used(seat);
            }
            A_SPY => {
                if !needs(SPY) || a < 0 || a as usize >= self.players {
                    return -3;
                }
                if self.own_down(a as usize, b).is_none() {
                    return -3;
                }
                self.log_action(seat, A_SPY, &[a, b]);
                self.discard.push(self.held as u8);
                self.used(seat);
            }
            A_EXCHANGE => {
                if !needs(EXCHANGE) || self.own_down(seat, a).is_none() {
                    return -3;
                }
                if b < 0 || b as usize >= self.players || b as usize == seat {
                    return -3;
                }
                if self.own_down(b as usize, c).is_none() {
                    return -3;
                }
                self.log_action(seat, A_EXCHANGE, &[a, b, c]);
                let (p, i, j) = (b as usize, a as usize, c as usize);
                let mine = self.rows[seat][i];
                self.rows[seat][i] = self.rows[p][j];
                self.rows[p][j] = mine;
                self.discard.push(self.held as u8);
                self.used(seat);
            }
            A_PLAY_TWICE => {
                if !needs(PLAY_TWICE) {
                    return -3;
                }
                self.log_action(seat, A_PLAY_TWICE, &[]);
                self.extra += 2;
                self.discard.push(self.held as u8);
                self.used(seat);
            }
            GET_RID => {
                if slots.len() < 2 {
                    return -3;
                }
                for (k, &s) in slots.iter().enumerate() {
                    if slots[..k].contains(&s) || self.own_down(seat, s).is_none() {
                        return -3;
                    }
                }
                self.log_action(seat, GET_RID, slots);
                let listed: Vec<u8> = slots.iter().map(|&s| self.rows[seat][s as usize]).collect();
                let first = self.values[listed[0] as usize];
                let same = listed.iter().all(|&c| self.values[c as usize] == first);
                let action_card = first == SPY || first == EXCHANGE || first == PLAY_TWICE;
                if same && listed.len() >= if action_card { 2 } else { 3 } {
                    self.discard.extend_from_slice(&listed);
                    self.rows[seat][slots[0] as usize] = self.held as u8;
                    let gone = &slots[1..];
                    let row = std::mem::take(&mut self.rows[seat]);
                    self.rows[seat] = row
                        .into_iter()
                        .enumerate()
                        .filter(|(i, _)| !gone.contains(&(*i as i32)))
                        .map(|(_, c)| c)
                        .collect();
                } else {
                    self.rows[seat].push(self.held as u8);
                }
                self.down[seat] = self.face_down(seat);
                self.used(seat);
            }
            CALL => {
                self.log_action(seat, CALL, &[]);
                self.caller = seat as i32;
                if !self.trigger(seat, R_CALL) {
                    self.end_turn();
                }
            }
            PASS => {
                self.log_action(seat, PASS, &[]);
                self.end_turn();
            }
            _ => return -2,
        }
        0
    }

    fn hold(&mut self, seat: usize, card: u8, from_draw: bool, kind: i32) {
        self.held = card as i32;
        self.from_draw = from_draw;
        self.phase = P_USE;
        self.log_action(seat, kind, &[]);
    }

    fn used(&mut self, seat: usize) {
        self.held = -1;
        self.from_draw = false;
        if !self.down[seat].is_empty() {
            if self.trigger < 0 {
                self.phase = P_END;
            } else {
                self.end_turn();
            }
            return;
        }
        if self.trigger < 0 {
            if self.trigger(seat, R_ALL_FACE_UP) {
                return;
            }
        } else {
            self.extra = 0;
        }
        self.end_turn();
    }

    fn trigger(&mut self, seat: usize, reason: i32) -> bool {
        self.trigger = reason;
        self.extra = 0;
        self.final_extra = 0;
        if !self.o.final_turns {
            self.end_round(reason);
            return true;
        }
        self.final_queue = (1..self.players).map(|k| (seat + k) % self.players).collect();
        false
    }

    fn end_turn(&mut self) {
        self.turns += 1;
        if self.trigger < 0 {
            if self.turns >= self.o.max_turns {
                self.end_round(R_TURN_LIMIT);
                return;
            }
            if self.extra > 0 {
                self.extra -= 1;
            } else {
                self.current = (self.current + 1) % self.players;
            }
        } else if self.extra > 0 {
            if self.final_extra >= self.o.max_turns {
                self.end_round(self.trigger); // 1.12: the final turns' own cap
                return;
            }
            self.final_extra += 1;
            self.extra -= 1;
        } else if let Some(next) = self.final_queue.pop_front() {
            self.current = next;
        } else {
            self.end_round(self.trigger);
            return;
        }
        if self.draw.is_empty() && self.discard.len() >= 2 {
            self.reshuffle();
        }
        self.begin_turn();
    }

    fn begin_turn(&mut self) {
        if self.draw.is_empty() && self.discard.is_empty() {
            let reason = if self.trigger >= 0 { self.trigger } else { R_EXHAUSTED };
            self.end_round(reason);
        } else {
            self.phase = P_TAKE;
        }
    }

    fn reshuffle(&mut self) {
        let n = self.discard.len();
        let mut perm = vec![0u32; n];
        let (seed, round) = (self.seed, self.round);
        self.reshuffle.get_or_insert_with(|| Rng::stream(seed, 1, round)).permutation(&mut perm);
        let deck: Vec<i8> = perm.iter().map(|&i| self.values[self.discard[i as usize] as usize]).collect();
        self.log.push(EV_RESHUFFLE);
        self.log.push(n as i32);
        self.log.extend(deck.iter().map(|&v| v as i32));
        // the card ids: per value, the discard's cards of that value, taken from the last
        let mut pool: Vec<Vec<u8>> = vec![Vec::new(); 16];
        for &c in &self.discard {
            pool[(self.values[c as usize] + 4) as usize].push(c);
        }
        let ids: Vec<u8> = deck.iter().map(|&v| pool[(v + 4) as usize].pop().unwrap()).collect();
        self.discard = vec![ids[0]];
        self.draw = ids[1..].iter().rev().copied().collect();
    }

    fn end_round(&mut self, reason: i32) {
        let n = self.players;
        let raw: Vec<i64> = self
            .rows
            .iter()
            .map(|row| row.iter().map(|&c| self.values[c as usize] as i64).sum())
            .collect();
        let mut scores = raw.clone();
        if self.caller >= 0 {
            let c = self.caller as usize;
            let mine = raw[c];
            let lowest = (0..n).filter(|&s| s != c).map(|s| raw[s]).min().unwrap();
            let is_lowest = if self.o.strictly_lowest { mine < lowest } else { mine <= lowest };
            if !(is_lowest || (mine <= 0 && !self.o.double_negative)) {
                scores[c] = 2 * mine;
            }
        }
        self.log.push(EV_ROUND_END);
        self.log.push(self.round as i32);
        self.log.push(reason);
        self.log.push(self.caller);
        self.log.extend(scores.iter().map(|&s| s as i32));
        let low = *scores.iter().min().unwrap();
        for s in 0..n {
            if scores[s] == low {
                self.round_wins[s] += 1;
            }
            self.totals[s] += scores[s];
        }
        let by = if self.o.next_by_round { &scores } else { &self.totals };
        let best = *by.iter().max().unwrap();
        let start = (0..n).map(|k| (self.starting + k) % n).find(|&s| by[s] == best).unwrap();
        self.round_scores.push(scores);
        self.round += 1;
        if self.round >= self.o.rounds {
            self.phase = P_OVER;
            self.held = -1;
            return;
        }
        self.starting = start;
        self.start_round();
    }

    /// The shipped random policy's shape, on the core's own generator: at the end decision
    /// call with probability 1/20, else uniform over the legal actions, a get_rid expanded
    /// into a random ordered choice of two or more of its slots. Returns the decisions taken.
    pub fn play_random(&mut self, rng: &mut Fast) -> u64 {
        let mut legal = Vec::with_capacity(1024);
        let mut decisions = 0;
        while self.phase != P_OVER {
            decisions += 1;
            if self.phase == P_END {
                let kind = if rng.unit() < 1.0 / 20.0 { CALL } else { PASS };
                self.apply(kind, -1, -1, -1, &[]);
                continue;
            }
            self.legal(&mut legal);
            let k = legal.len() / 4;
            let i = if k > 1 { rng.below(k) } else { 0 };
            let a = &legal[4 * i..4 * i + 4];
            if a[0] == GET_RID {
                let mut slots: Vec<i32> = self.down[self.current].iter().map(|&s| s as i32).collect();
                for j in (1..slots.len()).rev() {
                    slots.swap(j, rng.below(j + 1));
                }
                let take = 2 + rng.below(slots.len() - 1);
                slots.truncate(take);
                self.apply(GET_RID, -1, -1, -1, &slots);
            } else {
                self.apply(a[0], a[1], a[2], a[3], &[]);
            }
        }
        decisions
    }
}
