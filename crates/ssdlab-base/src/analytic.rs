//! Closed-form references the simulator is validated against (independent of the engine):
//! write amplification of uniform random single-unit overwrites at steady state, with
//! α = physical / logical units (or physical / valid units when only part of the space holds
//! data) and b units per block.
//! - FIFO victim: X = exp(−α(1 − X)), WA = 1/(1 − X) (Desnoyers, SYSTOR'12).
//! - Random victim: WA = α/(α − 1).
//! - Greedy victim, mean-field (Van Houdt, d → ∞): for victim level k, x_j = c/j for
//!   k < j ≤ b, c = (b/α − k)/(b − k − k·H_k), H_k = Σ_{j=k+1..b} 1/j, WA = c·α, at the first
//!   admissible k (0 ≤ 1 − c·H_k ≤ 1), which reproduces the design notes' table.

/// FIFO victim selection.
pub fn fifo_waf(alpha: f64) -> f64 {
    let mut x = 0.5;
    for _ in 0..10_000 {
        x = (-alpha * (1.0 - x)).exp();
    }
    1.0 / (1.0 - x)
}

/// Random victim selection.
pub fn random_waf(alpha: f64) -> f64 {
    alpha / (alpha - 1.0)
}

/// Greedy victim selection, mean-field; NaN when no level is admissible.
pub fn greedy_waf(alpha: f64, b: usize) -> f64 {
    let bf = b as f64;
    // H_k for k = b-1 down to 0, summed once.
    let mut h = vec![0.0; b + 1];
    for k in (0..b).rev() {
        h[k] = h[k + 1] + 1.0 / (k + 1) as f64;
    }
    for (k, &hk) in h.iter().enumerate().take(b) {
        let kf = k as f64;
        let c = (bf / alpha - kf) / (bf - kf - kf * hk);
        let p = 1.0 - c * hk;
        if c > 0.0 && (0.0..=1.0).contains(&p) {
            return c * alpha;
        }
    }
    f64::NAN
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The design notes' table (DESIGN.md), every entry.
    #[test]
    fn models_reproduce_the_design_table() {
        let rows = [
            (1.07, 7.817, [6.347, 7.010, 7.392, 7.597], 15.286),
            (1.10, 5.677, [4.899, 5.247, 5.453, 5.562], 11.000),
            (1.15, 4.016, [3.609, 3.800, 3.905, 3.960], 7.667),
            (1.20, 3.188, [2.930, 3.053, 3.119, 3.153], 6.000),
            (1.28, 2.481, [2.330, 2.403, 2.441, 2.461], 4.571),
            (1.40, 1.957, [1.866, 1.910, 1.933, 1.945], 3.500),
        ];
        for (alpha, fifo, greedy, random) in rows {
            assert!((fifo_waf(alpha) - fifo).abs() < 0.0015, "fifo {alpha}");
            assert!((random_waf(alpha) - random).abs() < 0.0015, "random {alpha}");
            for (b, want) in [32, 64, 128, 256].into_iter().zip(greedy) {
                let got = greedy_waf(alpha, b);
                assert!((got - want).abs() < 0.0015, "greedy {alpha} b={b}: {got} vs {want}");
            }
        }
    }
}
