//! numpy's chance, bit for bit: `SeedSequence` (pool size 4), `PCG64` seeded from it, and the
//! two `Generator` draws the games use, `permutation(n)` and `integers(n)`. Mirrors
//! `mallows.seeding.stream_rng(seed, name, round)`; tests in the Python suite compare every
//! draw with numpy's.

const INIT_A: u32 = 0x43b0_d7e5;
const MULT_A: u32 = 0x931e_8875;
const INIT_B: u32 = 0x8b51_f9dd;
const MULT_B: u32 = 0x58f3_8ded;
const MIX_MULT_L: u32 = 0xca01_f9dd;
const MIX_MULT_R: u32 = 0x4973_f715;
const XSHIFT: u32 = 16;
const POOL: usize = 4;

fn hashmix(value: u32, hash_const: &mut u32) -> u32 {
    let mut v = value ^ *hash_const;
    *hash_const = hash_const.wrapping_mul(MULT_A);
    v = v.wrapping_mul(*hash_const);
    v ^ (v >> XSHIFT)
}

fn mix(x: u32, y: u32) -> u32 {
    let r = MIX_MULT_L.wrapping_mul(x).wrapping_sub(MIX_MULT_R.wrapping_mul(y));
    r ^ (r >> XSHIFT)
}

/// An integer as numpy's 32-bit words, least significant first (0 is one word, 0).
fn words(mut n: u64, out: &mut Vec<u32>) {
    if n == 0 {
        out.push(0);
        return;
    }
    while n > 0 {
        out.push(n as u32);
        n >>= 32;
    }
}

/// `SeedSequence(seed, spawn_key=key).generate_state(words)` as uint32 words.
pub fn generate_state(seed: u64, key: &[u32], n_words: usize) -> Vec<u32> {
    let mut entropy = Vec::with_capacity(POOL + key.len());
    words(seed, &mut entropy);
    if !key.is_empty() {
        while entropy.len() < POOL {
            entropy.push(0);
        }
        // every key element is a small whole number (one word each); a larger one is split
        // the way numpy splits it
    }
    for &k in key {
        words(k as u64, &mut entropy);
    }
    let mut pool = [0u32; POOL];
    let mut hc = INIT_A;
    for (i, slot) in pool.iter_mut().enumerate() {
        *slot = hashmix(if i < entropy.len() { entropy[i] } else { 0 }, &mut hc);
    }
    for src in 0..POOL {
        for dst in 0..POOL {
            if src != dst {
                let h = hashmix(pool[src], &mut hc);
                pool[dst] = mix(pool[dst], h);
            }
        }
    }
    for &e in entropy.iter().skip(POOL) {
        for dst in 0..POOL {
            let h = hashmix(e, &mut hc);
            pool[dst] = mix(pool[dst], h);
        }
    }
    let mut hb = INIT_B;
    (0..n_words)
        .map(|i| {
            let mut v = pool[i % POOL] ^ hb;
            hb = hb.wrapping_mul(MULT_B);
            v = v.wrapping_mul(hb);
            v ^ (v >> XSHIFT)
        })
        .collect()
}

const PCG_MULT: u128 = 0x2360_ed05_1fc6_5da4_4385_df64_9fcc_f645;

/// numpy's `Generator(PCG64(SeedSequence(seed, spawn_key=key)))`, for the draws the games use.
pub struct Rng {
    state: u128,
    inc: u128,
    half: Option<u32>,
}

impl Rng {
    pub fn new(seed: u64, key: &[u32]) -> Rng {
        let w = generate_state(seed, key, 8);
        let v = |k: usize| (w[2 * k] as u64) | ((w[2 * k + 1] as u64) << 32);
        let initstate = ((v(0) as u128) << 64) | v(1) as u128;
        let initseq = ((v(2) as u128) << 64) | v(3) as u128;
        let mut rng = Rng { state: 0, inc: (initseq << 1) | 1, half: None };
        rng.step();
        rng.state = rng.state.wrapping_add(initstate);
        rng.step();
        rng
    }

    /// The whole state as five words (state high and low, increment high and low, the
    /// buffered half: bit 32 set when there is one), for a copy (pickle) of a generator.
    pub fn words(&self) -> [u64; 5] {
        let half = self.half.map_or(0, |h| (1u64 << 32) | h as u64);
        let w = |x: u128| [(x >> 64) as u64, x as u64];
        let (s, i) = (w(self.state), w(self.inc));
        [s[0], s[1], i[0], i[1], half]
    }

    pub fn from_words(w: &[u64]) -> Rng {
        let join = |hi: u64, lo: u64| ((hi as u128) << 64) | lo as u128;
        let half = (w[4] >> 32 & 1 == 1).then_some(w[4] as u32);
        Rng { state: join(w[0], w[1]), inc: join(w[2], w[3]), half }
    }

    /// The stream `name` of round `round` (`mallows.seeding.stream_key`).
    pub fn stream(seed: u64, fixed: u32, round: u32) -> Rng {
        Rng::new(seed, &[fixed, round])
    }

    fn step(&mut self) {
        self.state = self.state.wrapping_mul(PCG_MULT).wrapping_add(self.inc);
    }

    pub fn next_u64(&mut self) -> u64 {
        self.step();
        let s = self.state;
        let x = ((s >> 64) as u64) ^ (s as u64);
        x.rotate_right((s >> 122) as u32)
    }

    pub fn next_u32(&mut self) -> u32 {
        if let Some(h) = self.half.take() {
            return h;
        }
        let n = self.next_u64();
        self.half = Some((n >> 32) as u32);
        n as u32
    }

    /// numpy's `random_interval(max)`: uniform on 0..=max by masked rejection.
    fn interval(&mut self, max: u64) -> u64 {
        if max == 0 {
            return 0;
        }
        let mut mask = max;
        for s in [1, 2, 4, 8, 16, 32] {
            mask |= mask >> s;
        }
        if max <= 0xffff_ffff {
            loop {
                let v = (self.next_u32() as u64) & mask;
                if v <= max {
                    return v;
                }
            }
        }
        loop {
            let v = self.next_u64() & mask;
            if v <= max {
                return v;
            }
        }
    }

    /// `Generator.permutation(n)` written into `out` (numpy's in-place Fisher-Yates shuffle).
    pub fn permutation(&mut self, out: &mut [u32]) {
        for (i, x) in out.iter_mut().enumerate() {
            *x = i as u32;
        }
        for i in (1..out.len()).rev() {
            let j = self.interval(i as u64) as usize;
            out.swap(i, j);
        }
    }

    /// `Generator.integers(n)` for 1 <= n <= 2**32 (Lemire's bounded draw on 32 bits).
    pub fn integers(&mut self, n: u64) -> u64 {
        let rng = n - 1;
        if rng == 0 {
            return 0;
        }
        if rng == 0xffff_ffff {
            return self.next_u32() as u64;
        }
        let excl = rng + 1;
        let mut m = (self.next_u32() as u64) * excl;
        let mut left = m & 0xffff_ffff;
        if left < excl {
            let threshold = (0xffff_ffff - rng) % excl;
            while left < threshold {
                m = (self.next_u32() as u64) * excl;
                left = m & 0xffff_ffff;
            }
        }
        m >> 32
    }
}

/// A small, fast generator for the core's own random policy (not numpy's: the policy's draws
/// are not part of any record's chance). SplitMix64.
pub struct Fast(pub u64);

impl Fast {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    pub fn below(&mut self, n: usize) -> usize {
        ((self.next() >> 11) as u128 * n as u128 >> 53) as usize
    }

    pub fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}
