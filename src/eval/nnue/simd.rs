//! The network's inner loops over the hidden layer, in one portable form that the compiler
//! vectorises, compiled twice: for the baseline target and with AVX2 enabled, picked at run
//! time. Calling the AVX2 copy is the one `unsafe` act here: it is sound only on a processor
//! that has AVX2, which `Kernel::detect` checks before it ever chooses that copy.
#![allow(unsafe_code)]

use super::{HIDDEN, QA};

/// Which compiled copy of the loops to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kernel {
    Portable,
    #[cfg(target_arch = "x86_64")]
    Avx2,
}

impl Kernel {
    /// The fastest copy this processor can run.
    pub fn detect() -> Kernel {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            return Kernel::Avx2;
        }
        Kernel::Portable
    }

    /// `dst = src - removed rows + added rows`.
    #[inline]
    pub fn update(
        self,
        dst: &mut [i16; HIDDEN],
        src: &[i16; HIDDEN],
        removed: &[&[i16; HIDDEN]],
        added: &[&[i16; HIDDEN]],
    ) {
        match self {
            Kernel::Portable => update(dst, src, removed, added),
            // SAFETY: `Avx2` is only ever chosen by `detect` after the processor reported AVX2.
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx2 => unsafe { update_avx2(dst, src, removed, added) },
        }
    }

    /// `dst = bias + the sum of rows`.
    #[inline]
    pub fn refresh(self, dst: &mut [i16; HIDDEN], bias: &[i16; HIDDEN], rows: &[&[i16; HIDDEN]]) {
        self.update(dst, bias, &[], rows);
    }

    /// The output neuron's sum over both halves, clipped to `0..=QA` first.
    #[inline]
    pub fn output(
        self,
        us: &[i16; HIDDEN],
        them: &[i16; HIDDEN],
        w_us: &[i16; HIDDEN],
        w_them: &[i16; HIDDEN],
    ) -> i32 {
        match self {
            Kernel::Portable => output(us, w_us) + output(them, w_them),
            // SAFETY: as in `update`.
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx2 => unsafe { output_avx2(us, w_us) + output_avx2(them, w_them) },
        }
    }
}

#[inline(always)]
fn update(
    dst: &mut [i16; HIDDEN],
    src: &[i16; HIDDEN],
    removed: &[&[i16; HIDDEN]],
    added: &[&[i16; HIDDEN]],
) {
    *dst = *src;
    for row in removed {
        for (d, r) in dst.iter_mut().zip(row.iter()) {
            *d = d.wrapping_sub(*r);
        }
    }
    for row in added {
        for (d, a) in dst.iter_mut().zip(row.iter()) {
            *d = d.wrapping_add(*a);
        }
    }
}

#[inline(always)]
fn output(acc: &[i16; HIDDEN], w: &[i16; HIDDEN]) -> i32 {
    // Products of a clipped activation (0..=255) and an i16 weight, summed in pairs into i32:
    // the shape of the processor's multiply-add instruction, which the compiler finds.
    let mut sum = [0i32; 16];
    for (a, w) in acc.chunks_exact(16).zip(w.chunks_exact(16)) {
        for k in 0..16 {
            let x = i32::from(a[k].clamp(0, QA as i16));
            sum[k] = sum[k].wrapping_add(x * i32::from(w[k]));
        }
    }
    sum.iter().fold(0i32, |s, &x| s.wrapping_add(x))
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn update_avx2(
    dst: &mut [i16; HIDDEN],
    src: &[i16; HIDDEN],
    removed: &[&[i16; HIDDEN]],
    added: &[&[i16; HIDDEN]],
) {
    update(dst, src, removed, added)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn output_avx2(acc: &[i16; HIDDEN], w: &[i16; HIDDEN]) -> i32 {
    output(acc, w)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tune::selfplay::Rng;

    fn random_row(rng: &mut Rng, range: i64) -> [i16; HIDDEN] {
        let mut r = [0i16; HIDDEN];
        for x in r.iter_mut() {
            *x = (rng.below(2 * range as u64 + 1) as i64 - range) as i16;
        }
        r
    }

    /// The plain definition both compiled copies must match.
    fn reference_output(acc: &[i16; HIDDEN], w: &[i16; HIDDEN]) -> i64 {
        acc.iter()
            .zip(w)
            .map(|(&a, &w)| i64::from(a.clamp(0, QA as i16)) * i64::from(w))
            .sum()
    }

    #[test]
    fn every_kernel_this_processor_runs_equals_the_reference() {
        let mut rng = Rng(17);
        let kernels = [Kernel::Portable, Kernel::detect()];
        for _ in 0..500 {
            let src = random_row(&mut rng, 2000);
            let rows: Vec<[i16; HIDDEN]> = (0..4).map(|_| random_row(&mut rng, 500)).collect();
            let w = random_row(&mut rng, 127);
            let w2 = random_row(&mut rng, 127);
            let mut expected = src;
            for (k, x) in expected.iter_mut().enumerate() {
                *x = *x - rows[0][k] - rows[1][k] + rows[2][k] + rows[3][k];
            }
            for kernel in kernels {
                let mut dst = [0i16; HIDDEN];
                kernel.update(&mut dst, &src, &[&rows[0], &rows[1]], &[&rows[2], &rows[3]]);
                assert_eq!(dst, expected, "{kernel:?}");
                let out = kernel.output(&dst, &src, &w, &w2);
                let reference = reference_output(&dst, &w) + reference_output(&src, &w2);
                assert_eq!(i64::from(out), reference, "{kernel:?}");
            }
        }
    }
}
