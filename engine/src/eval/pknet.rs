//! The pawn-king network: a small network over the pawns and the kings, fitted as the
//! residual of the hand-written terms (`tuner texel POSITIONS params/pknet.json`).
//!
//! Ethereal 12.75's idea (its `network.c`) in a colour-symmetric form. One network
//! sees the board from one side: our pawns on a2..h7 (48 inputs), their pawns (48),
//! our king (64) and theirs (64), every square as that side sees it (Black's mirrored).
//! The inputs feed [`HIDDEN`] rectified units, which feed a middlegame and an endgame
//! score; the evaluation adds White's view minus Black's, so a mirrored position
//! scores exactly the negative. The pawns and kings alone decide it, so the pawn
//! table keeps the hidden sums of its pawns and its score for the last pair of king
//! squares: a king move adds two rows of weights a view. It adds to the middlegame
//! and endgame scores after the complexity term (which reads the hand-written endgame
//! score alone), before the taper and the drawish scale, as its fit assumes.
//!
//! Every weight is a parameter of `params/pknet.json`, in integers: input weights and
//! biases in 1/[`INPUT_SCALE`] of an activation, output weights in 1/[`OUTPUT_SCALE`]
//! centipawn per activation. While every output weight is zero the network adds
//! nothing and is skipped.

use std::sync::OnceLock;

use shakmaty::Color;

use crate::params::{self, Params};
use crate::score::S;

/// Inputs: 48 + 48 pawn squares, 64 + 64 king squares.
pub const INPUTS: usize = 224;
/// Rectified hidden units.
pub const HIDDEN: usize = 16;
/// Input weights and biases are in 1/INPUT_SCALE of an activation.
pub const INPUT_SCALE: i64 = 256;
/// Output weights are in 1/OUTPUT_SCALE centipawn per activation.
pub const OUTPUT_SCALE: i64 = 64;
/// Weights in layout order: input i to unit j at `i * HIDDEN + j`, then the biases,
/// then the middlegame outputs, then the endgame outputs.
pub const WEIGHTS: usize = INPUTS * HIDDEN + 3 * HIDDEN;
/// Layout index of unit j's bias, and of its middlegame and endgame output weights.
pub const BIAS: usize = INPUTS * HIDDEN;
pub const OUT_MG: usize = BIAS + HIDDEN;
pub const OUT_EG: usize = OUT_MG + HIDDEN;
/// Most inputs one side's view has on: 16 pawns and 2 kings.
pub const MAX_ACTIVE: usize = 18;
/// The largest magnitude of an input weight or bias, and of an output weight
/// (`params/pknet.json`'s bounds): see [`PkNet`].
const INPUT_MAX: i32 = 1024;
const OUTPUT_MAX: i32 = 4096;

const THEIR_PAWN: usize = 48;
const OUR_KING: usize = 96;
const THEIR_KING: usize = 160;

/// The parameter name of layout index `k` (see `scripts/gen_pknet_params.py`).
pub fn weight_name(k: usize) -> String {
    let square = |sq: usize| format!("{}{}", (b'a' + (sq % 8) as u8) as char, sq / 8 + 1);
    let unit = k % HIDDEN;
    match k / HIDDEN {
        i if i < THEIR_PAWN => format!("pknet_our_pawn_{}_{unit}", square(i + 8)),
        i if i < OUR_KING => format!("pknet_their_pawn_{}_{unit}", square(i - THEIR_PAWN + 8)),
        i if i < THEIR_KING => format!("pknet_our_king_{}_{unit}", square(i - OUR_KING)),
        i if i < INPUTS => format!("pknet_their_king_{}_{unit}", square(i - THEIR_KING)),
        _ => match k {
            k if k < OUT_MG => format!("pknet_bias_{unit}"),
            k if k < OUT_EG => format!("pknet_out_mg_{unit}"),
            _ => format!("pknet_out_eg_{unit}"),
        },
    }
}

/// The parameter index of every weight in layout order; `None` when a build lacks
/// `params/pknet.json` (or any of its names), and then the network is off.
pub fn param_indices() -> Option<&'static [usize]> {
    static INDICES: OnceLock<Option<Vec<usize>>> = OnceLock::new();
    INDICES
        .get_or_init(|| {
            (0..WEIGHTS)
                .map(|k| params::index_of(&weight_name(k)))
                .collect()
        })
        .as_deref()
}

/// The most pawn inputs one side's view has on.
const MAX_PAWNS: usize = 16;

/// The pawn inputs on in `us`'s view: indices into the input layer, and how many.
#[inline]
fn pawn_inputs(white_pawns: u64, black_pawns: u64, us: Color) -> ([u8; MAX_PAWNS], usize) {
    // Black sees the board mirrored (rank r becomes 7 - r).
    let (ours, theirs, flip) = match us {
        Color::White => (white_pawns, black_pawns, 0),
        Color::Black => (black_pawns, white_pawns, 56),
    };
    let mut out = [0u8; MAX_PAWNS];
    let mut n = 0;
    for (pawns, base) in [(ours, 0), (theirs, THEIR_PAWN)] {
        let mut bb = pawns;
        while bb != 0 && n < MAX_PAWNS {
            let sq = bb.trailing_zeros() as usize ^ flip;
            out[n] = (base + sq - 8) as u8;
            n += 1;
            bb &= bb - 1;
        }
    }
    (out, n)
}

/// The two king inputs on in `us`'s view (ours, then theirs). `kings`: White's
/// square, then Black's.
#[inline]
fn king_inputs(kings: [u8; 2], us: Color) -> [u8; 2] {
    let (own, enemy, flip) = match us {
        Color::White => (kings[0], kings[1], 0),
        Color::Black => (kings[1], kings[0], 56),
    };
    [
        (OUR_KING + (own as usize ^ flip)) as u8,
        (THEIR_KING + (enemy as usize ^ flip)) as u8,
    ]
}

/// The inputs on in `us`'s view: indices into the input layer, and how many.
/// `kings`: White's square, then Black's.
pub fn active_inputs(
    white_pawns: u64,
    black_pawns: u64,
    kings: [u8; 2],
    us: Color,
) -> ([u8; MAX_ACTIVE], usize) {
    let (pawns, n) = pawn_inputs(white_pawns, black_pawns, us);
    let mut out = [0u8; MAX_ACTIVE];
    out[..n].copy_from_slice(&pawns[..n]);
    out[n..n + 2].copy_from_slice(&king_inputs(kings, us));
    (out, n + 2)
}

/// Each view's hidden sums over the pawns alone, the biases included (White's view,
/// then Black's): the part the kings leave unchanged. The pawn table keeps them, so a
/// king move costs two rows of weights a view.
pub type PawnSums = [[i16; HIDDEN]; 2];

/// The network's integer weights, read from the parameters: 16 bits each, as their
/// bounds allow (inputs and biases within ±1024, so 18 inputs and the bias sum within
/// ±19456; outputs within ±4096, so the 16 products sum within i32), which lets the
/// sums run eight lanes at a time.
#[derive(Clone, Debug)]
pub struct PkNet {
    /// Any output weight not zero: otherwise the network adds nothing.
    pub on: bool,
    input: Box<[[i16; HIDDEN]; INPUTS]>,
    bias: [i16; HIDDEN],
    output: [[i16; HIDDEN]; 2],
}

impl PkNet {
    /// The network of zeros: off.
    pub fn off() -> PkNet {
        PkNet {
            on: false,
            input: Box::new([[0; HIDDEN]; INPUTS]),
            bias: [0; HIDDEN],
            output: [[0; HIDDEN]; 2],
        }
    }

    pub fn new(params: &Params) -> PkNet {
        let mut net = PkNet::off();
        let Some(indices) = param_indices() else {
            return net;
        };
        // The file's bounds, which setting a value checks; clamped again, as the sums'
        // range depends on them.
        let w = |k: usize| {
            let max = if k < OUT_MG { INPUT_MAX } else { OUTPUT_MAX };
            params.get(indices[k]).clamp(-max, max) as i16
        };
        for (i, row) in net.input.iter_mut().enumerate() {
            for (j, x) in row.iter_mut().enumerate() {
                *x = w(i * HIDDEN + j);
            }
        }
        for j in 0..HIDDEN {
            net.bias[j] = w(BIAS + j);
            net.output[0][j] = w(OUT_MG + j);
            net.output[1][j] = w(OUT_EG + j);
        }
        net.on = net.output.iter().flatten().any(|&x| x != 0);
        net
    }

    /// `acc` plus the input weights of `inputs`.
    #[inline]
    fn add_inputs(&self, mut acc: [i16; HIDDEN], inputs: &[u8]) -> [i16; HIDDEN] {
        for &i in inputs {
            for (a, w) in acc.iter_mut().zip(&self.input[i as usize]) {
                *a += w;
            }
        }
        acc
    }

    /// A view's (mg, eg) score in centipawns (rounded towards zero) from its hidden sums.
    #[inline]
    fn output(&self, acc: [i16; HIDDEN]) -> S {
        let hidden = acc.map(|a| i32::from(a.max(0)));
        let sum = |out: &[i16; HIDDEN]| -> i32 {
            hidden.iter().zip(out).map(|(h, w)| h * i32::from(*w)).sum()
        };
        let cp = |x: i32| x / (INPUT_SCALE * OUTPUT_SCALE) as i32;
        S::new(cp(sum(&self.output[0])), cp(sum(&self.output[1])))
    }

    /// The hidden sums of the pawns, for [`PkNet::views_with_kings`].
    pub fn pawn_sums(&self, white_pawns: u64, black_pawns: u64) -> PawnSums {
        [Color::White, Color::Black].map(|us| {
            let (inputs, n) = pawn_inputs(white_pawns, black_pawns, us);
            self.add_inputs(self.bias, &inputs[..n])
        })
    }

    /// White's view and Black's, from the pawns' hidden sums and the king squares
    /// (White's, then Black's).
    #[inline]
    pub fn views_with_kings(&self, pawn_sums: &PawnSums, kings: [u8; 2]) -> [S; 2] {
        let view = |k: usize, us: Color| {
            self.output(self.add_inputs(pawn_sums[k], &king_inputs(kings, us)))
        };
        [view(0, Color::White), view(1, Color::Black)]
    }

    /// White's view and Black's. `kings`: White's square, then Black's.
    pub fn views(&self, white_pawns: u64, black_pawns: u64, kings: [u8; 2]) -> [S; 2] {
        self.views_with_kings(&self.pawn_sums(white_pawns, black_pawns), kings)
    }

    /// White's score, White's view minus Black's, from the pawns' hidden sums and the
    /// king squares.
    #[inline]
    pub fn evaluate_with_kings(&self, pawn_sums: &PawnSums, kings: [u8; 2]) -> S {
        let [white, black] = self.views_with_kings(pawn_sums, kings);
        white - black
    }

    /// White's score: White's view minus Black's.
    pub fn evaluate(&self, white_pawns: u64, black_pawns: u64, kings: [u8; 2]) -> S {
        self.evaluate_with_kings(&self.pawn_sums(white_pawns, black_pawns), kings)
    }
}
