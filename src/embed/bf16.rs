//! Matrix products in bfloat16 with f32 accumulation, for the CPUs that have AVX512-BF16
//! (AMD Zen 4 and later, Intel Cooper Lake and Sapphire Rapids and later).
//!
//! `VDPBF16PS` multiplies 32 pairs of bfloat16 values and adds each pair's two products into
//! one of 16 f32 sums: twice the multiply-adds of an f32 FMA in the same time. Inputs lose
//! their mantissa below 8 bits (a relative rounding of at most 2⁻⁹); the sums keep f32's.
//!
//! The layout follows from the instruction. A weight matrix (`[outputs × inputs]`, PyTorch's
//! layout) is packed once, at load, into panels of 48 outputs ([`Panel`]): for each pair of inputs
//! `(2q, 2q + 1)`, the panel holds the 32-bit pair of every output side by side, so one vector
//! load brings 16 outputs' pairs. The activations are converted to bfloat16 at each product, row
//! by row (32 values an instruction), and each row's pair is one 32-bit broadcast. A tile of
//! [`ROWS`] × 48 sums stays in registers for the whole inner dimension. On one Zen 4
//! core the tiles run at about 185 GFLOP/s, against about 85 for f32 products.
//!
//! `supported` says whether the CPU has the instructions; the products panic without them (the
//! caller picks f32 instead, see `native`).

/// Rows per block: 8 rows × 3 vectors (a weight panel) = 24 sums in registers, 3 loads and 8
/// broadcasts for every 24 products (of the 32 vector registers).
const ROWS: usize = 8;

/// The width of a panel, in vectors of 16 outputs: 3 for weights (the widest tile that fits
/// the registers), 2 for attention's operands (32 outputs: one head's width, no padding).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Panel {
    Wide = 3,
    Narrow = 2,
}

impl Panel {
    fn columns(self) -> usize {
        16 * self as usize
    }
}

/// Whether this CPU runs the bfloat16 products.
pub(super) fn supported() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512bf16")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// `x` rounded to the nearest bfloat16, ties to even (what `VCVTNE2PS2BF16` does); NaN stays
/// NaN.
#[inline(always)]
pub(super) fn round(x: f32) -> u16 {
    let bits = x.to_bits();
    if x.is_nan() {
        return ((bits >> 16) | 0x40) as u16;
    }
    ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) as u16
}

/// The f32 a bfloat16 stands for.
#[cfg(test)]
pub(super) fn widen(b: u16) -> f32 {
    f32::from_bits((b as u32) << 16)
}

/// Two bfloat16 values as one 32-bit pair, the first in the low half (the instruction's order).
#[inline(always)]
fn pair(first: f32, second: f32) -> u32 {
    round(first) as u32 | (round(second) as u32) << 16
}

/// A matrix packed for [`product`] as its right operand (`Wᵀ`, `W` being `[outputs × inputs]`).
pub(super) struct Packed {
    outputs: usize,
    inputs: usize,
    /// `inputs / 2`, rounded up (an odd last input is paired with a zero).
    pairs: usize,
    panel: Panel,
    /// Panel after panel, each `pairs × panel.columns()` pairs; the outputs past `outputs` in
    /// the last panel are zeros.
    data: Vec<u32>,
    /// Row-major pairs on their way into `data` (`pack_rows`).
    staging: Vec<u32>,
}

impl Packed {
    /// Packs `weight`, `[outputs × inputs]` row-major, in wide panels.
    pub(super) fn new(weight: &[f32], outputs: usize, inputs: usize) -> Self {
        assert_eq!(weight.len(), outputs * inputs, "weight of the wrong size");
        let mut packed = Packed::empty(Panel::Wide);
        packed.pack_rows(weight, outputs, inputs, inputs);
        packed.staging = Vec::new();
        packed
    }

    /// Nothing packed yet: a buffer for [`Packed::pack`] to fill and refill.
    pub(super) fn empty(panel: Panel) -> Self {
        Packed {
            outputs: 0,
            inputs: 0,
            pairs: 0,
            panel,
            data: Vec::new(),
            staging: Vec::new(),
        }
    }

    /// Packs the `outputs × inputs` matrix whose row `o` is `src[o × stride..][..inputs]`
    /// (a weight, or one head's keys), reusing the buffer.
    pub(super) fn pack_rows(&mut self, src: &[f32], outputs: usize, inputs: usize, stride: usize) {
        assert!(supported(), "the CPU has no AVX512-BF16");
        let rows = Rows {
            values: src,
            rows: outputs,
            stride,
        };
        let mut staging = std::mem::take(&mut self.staging);
        // Row-major pairs first (vectorized), then each into its panel's column.
        convert(rows, inputs, &mut staging);
        let pairs = self.reset(outputs, inputs);
        let columns = self.panel.columns();
        for (o, row) in staging.chunks_exact(pairs).enumerate() {
            let at = (o / columns) * pairs * columns + o % columns;
            for (q, &two) in row.iter().enumerate() {
                self.data[at + q * columns] = two;
            }
        }
        self.staging = staging;
    }

    /// Packs the `outputs × inputs` matrix whose column `i` is `src[i × stride..][..outputs]`
    /// (one head's values, transposed), reusing the buffer.
    pub(super) fn pack_columns(
        &mut self,
        src: &[f32],
        outputs: usize,
        inputs: usize,
        stride: usize,
    ) {
        assert!(supported(), "the CPU has no AVX512-BF16");
        let pairs = self.reset(outputs, inputs);
        let columns = self.panel.columns();
        for q in 0..pairs {
            let first = &src[2 * q * stride..][..outputs];
            let second = (2 * q + 1 < inputs).then(|| &src[(2 * q + 1) * stride..][..outputs]);
            for (panel, o) in (0..outputs).step_by(columns).enumerate() {
                let n = columns.min(outputs - o);
                let out = &mut self.data[(panel * pairs + q) * columns..][..n];
                pair_slices(&first[o..o + n], second.map(|s| &s[o..o + n]), out);
            }
        }
    }

    /// Zeroes the buffer for an `outputs × inputs` matrix; returns its pairs per output.
    fn reset(&mut self, outputs: usize, inputs: usize) -> usize {
        let pairs = inputs.div_ceil(2);
        let columns = self.panel.columns();
        self.data.clear();
        self.data
            .resize(outputs.div_ceil(columns) * pairs * columns, 0);
        (self.outputs, self.inputs, self.pairs) = (outputs, inputs, pairs);
        pairs
    }

    /// The matrix as f32 again (each value rounded to bfloat16), `[outputs × inputs]`.
    #[cfg(test)]
    pub(super) fn unpacked(&self) -> Vec<f32> {
        let columns = self.panel.columns();
        let mut weight = vec![0f32; self.outputs * self.inputs];
        for (output, row) in weight.chunks_exact_mut(self.inputs).enumerate() {
            let (panel, c) = (output / columns, output % columns);
            for (i, w) in row.iter_mut().enumerate() {
                let slot = self.data[(panel * self.pairs + i / 2) * columns + c];
                *w = widen((slot >> (16 * (i % 2))) as u16);
            }
        }
        weight
    }
}

/// A left operand: `rows` rows of `Packed::inputs` values, `stride` apart.
#[derive(Clone, Copy)]
pub(super) struct Rows<'a> {
    pub values: &'a [f32],
    pub rows: usize,
    pub stride: usize,
}

/// Where a product goes: row `r` at `values[r × stride..]`; `accumulate` adds to what is there,
/// else overwrites it; `bias` (one value per output) is added to every row.
pub(super) struct Target<'a> {
    pub values: &'a mut [f32],
    pub stride: usize,
    pub accumulate: bool,
    pub bias: Option<&'a [f32]>,
}

/// `out[rows × outputs] = x[rows × inputs] · Wᵀ + bias`, the products in bfloat16, the sums in
/// f32 (the bias added in the tile: no pass that copies it into `out` first). `threads` > 1
/// divides the panels among that many threads.
///
/// Panics if the CPU lacks AVX512-BF16 (see [`supported`]) or a slice is too short.
pub(super) fn product(
    x: &[f32],
    rows: usize,
    w: &Packed,
    bias: &[f32],
    out: &mut [f32],
    threads: usize,
) {
    let x = Rows {
        values: x,
        rows,
        stride: w.inputs,
    };
    let out = Target {
        values: out,
        stride: w.outputs,
        accumulate: false,
        bias: Some(bias),
    };
    product_into(x, w, out, threads);
}

/// `out = x · Wᵀ` (or `out += x · Wᵀ`), plus `out.bias` if given, for strided operands; see
/// [`product`].
pub(super) fn product_into(x: Rows<'_>, w: &Packed, out: Target<'_>, threads: usize) {
    assert!(supported(), "the CPU has no AVX512-BF16");
    let rows = x.rows;
    if rows == 0 || w.outputs == 0 {
        return;
    }
    assert!(
        x.stride >= w.inputs && out.stride >= w.outputs,
        "inconsistent strides"
    );
    assert!(
        x.values.len() >= (rows - 1) * x.stride + w.inputs,
        "x is too short"
    );
    assert!(
        out.values.len() >= (rows - 1) * out.stride + w.outputs,
        "out is too short"
    );
    assert!(
        out.bias.is_none_or(|b| b.len() >= w.outputs),
        "bias is too short"
    );
    ACTIVATIONS.with(|activations| {
        let mut activations = activations.borrow_mut();
        convert(x, w.inputs, &mut activations);
        let panels = w.outputs.div_ceil(w.panel.columns());
        let threads = threads.clamp(1, panels);
        // Below this many multiply-adds a second thread costs more than it saves.
        let threads = if rows * w.outputs * w.inputs < 1 << 20 {
            1
        } else {
            threads
        };
        let out = Output {
            ptr: out.values.as_mut_ptr(),
            rows,
            ldc: out.stride,
            accumulate: out.accumulate,
            bias: out.bias,
        };
        // SAFETY (the calls below): the CPU has the features (asserted); `a` is the
        // conversion of `rows` rows; `out` covers `rows` rows of `w.outputs` (asserted).
        let a = activations.as_slice();
        if threads == 1 {
            // This thread alone writes `out`.
            unsafe { panels_of(a, w, 0..panels, &out) };
            return;
        }
        let share = panels.div_ceil(threads);
        std::thread::scope(|scope| {
            for first in (share..panels).step_by(share) {
                let out = &out;
                let range = first..(first + share).min(panels);
                // Each thread writes the columns of its own panels only: disjoint.
                scope.spawn(move || unsafe { panels_of(a, w, range, out) });
            }
            unsafe { panels_of(a, w, 0..share.min(panels), &out) };
        });
    });
}

thread_local! {
    /// The activations of the last product, converted: kept from one product to the next.
    static ACTIVATIONS: std::cell::RefCell<Vec<u32>> = std::cell::RefCell::default();
}

/// Where the sums go: `rows × ldc` f32, shared by the threads of one product (each writes its
/// own columns).
struct Output<'a> {
    ptr: *mut f32,
    rows: usize,
    ldc: usize,
    accumulate: bool,
    bias: Option<&'a [f32]>,
}

// SAFETY: the threads of one product write disjoint columns of the buffer `ptr` points into,
// which outlives them (`std::thread::scope`).
unsafe impl Sync for Output<'_> {}

/// Converts the first `inputs` values of each row of `x` to bfloat16 pairs, row after row,
/// each row `inputs / 2` pairs rounded up (an odd last input is paired with a zero).
fn convert(x: Rows<'_>, inputs: usize, pairs: &mut Vec<u32>) {
    let width = inputs.div_ceil(2);
    pairs.clear();
    pairs.resize(x.rows * width, 0);
    for (r, out) in pairs.chunks_exact_mut(width).enumerate() {
        let row = &x.values[r * x.stride..r * x.stride + inputs];
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `product_into` asserted the CPU's features.
        let done = unsafe { convert_row(row, out) };
        #[cfg(not(target_arch = "x86_64"))]
        let done = 0;
        let mut rest = row[2 * done..].chunks(2);
        for (slot, two) in out[done..].iter_mut().zip(&mut rest) {
            *slot = pair(two[0], two.get(1).copied().unwrap_or(0.0));
        }
    }
}

/// Converts the leading 32-value chunks of `row` into `out` with `VCVTNE2PS2BF16` (rounding to
/// the nearest even, as [`round`]; it reads subnormal inputs as zeros); returns the pairs
/// written.
///
/// # Safety
/// AVX512-F and AVX512-BF16.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bf16")]
unsafe fn convert_row(row: &[f32], out: &mut [u32]) -> usize {
    use std::arch::x86_64::*;
    let chunks = (row.len() / 32).min(out.len() / 16);
    for c in 0..chunks {
        // SAFETY: chunk `c` of 32 values and 16 pairs is inside both slices.
        unsafe {
            let low = _mm512_loadu_ps(row.as_ptr().add(32 * c));
            let high = _mm512_loadu_ps(row.as_ptr().add(32 * c + 16));
            // The second operand fills the low half: values 0..16, then 16..32, in order.
            let both = _mm512_cvtne2ps_pbh(high, low);
            _mm512_storeu_si512(
                out.as_mut_ptr().add(16 * c).cast(),
                std::mem::transmute::<__m512bh, __m512i>(both),
            );
        }
    }
    16 * chunks
}

/// `out[j] = pair(first[j], second[j])` (a zero for a missing `second`).
fn pair_slices(first: &[f32], second: Option<&[f32]>, out: &mut [u32]) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: the callers asserted the CPU's features.
    let done = unsafe { pair_slices_avx512(first, second, out) };
    #[cfg(not(target_arch = "x86_64"))]
    let done = 0;
    for j in done..out.len() {
        out[j] = pair(first[j], second.map_or(0.0, |s| s[j]));
    }
}

/// [`pair_slices`] 16 values at a time (`VCVTNEPS2BF16`, as [`round`]; subnormals read as
/// zeros); returns how many it wrote.
///
/// # Safety
/// AVX512-F and AVX512-BF16.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bf16")]
unsafe fn pair_slices_avx512(first: &[f32], second: Option<&[f32]>, out: &mut [u32]) -> usize {
    use std::arch::x86_64::*;
    let n = out
        .len()
        .min(first.len())
        .min(second.map_or(usize::MAX, <[f32]>::len));
    let chunks = n / 16;
    for c in 0..chunks {
        // SAFETY: chunk `c` of 16 is inside every slice (`n`).
        unsafe {
            let low = _mm512_cvtneps_pbh(_mm512_loadu_ps(first.as_ptr().add(16 * c)));
            let low = _mm512_cvtepu16_epi32(std::mem::transmute::<__m256bh, __m256i>(low));
            let both = match second {
                Some(second) => {
                    let high = _mm512_cvtneps_pbh(_mm512_loadu_ps(second.as_ptr().add(16 * c)));
                    let high =
                        _mm512_cvtepu16_epi32(std::mem::transmute::<__m256bh, __m256i>(high));
                    _mm512_or_si512(low, _mm512_slli_epi32::<16>(high))
                }
                None => low,
            };
            _mm512_storeu_si512(out.as_mut_ptr().add(16 * c).cast(), both);
        }
    }
    16 * chunks
}

/// Every block of [`ROWS`] rows against the panels `range`.
///
/// # Safety
/// The CPU has AVX512-F and AVX512-BF16; `out` covers `out.rows` rows of `w.outputs` f32
/// (`out.ldc` apart) that no other thread writes in these panels' columns; `a` is `convert`'s
/// output for `out.rows` rows of `w.inputs`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bf16")]
unsafe fn panels_of(a: &[u32], w: &Packed, range: std::ops::Range<usize>, out: &Output<'_>) {
    let pairs = w.pairs;
    let width = w.panel.columns();
    assert!(a.len() >= out.rows * pairs, "activations are too short");
    for panel in range {
        let b = &w.data[panel * pairs * width..(panel + 1) * pairs * width];
        let first = panel * width;
        let columns = width.min(w.outputs - first);
        for row in (0..out.rows).step_by(ROWS) {
            let t = Tile {
                a: &a[row * pairs..],
                b,
                pairs,
                // SAFETY: row `row`, column `first` is inside `out` (the caller's contract).
                c: unsafe { out.ptr.add(row * out.ldc + first) },
                ldc: out.ldc,
                columns,
                accumulate: out.accumulate,
                bias: out.bias.map(|b| &b[first..first + columns]),
            };
            // SAFETY: the tile's rows and columns are inside `out` and `a` (the contract).
            unsafe {
                match (out.rows - row, w.panel) {
                    (1, Panel::Wide) => t.run::<1, 3>(),
                    (2, Panel::Wide) => t.run::<2, 3>(),
                    (3, Panel::Wide) => t.run::<3, 3>(),
                    (4, Panel::Wide) => t.run::<4, 3>(),
                    (5, Panel::Wide) => t.run::<5, 3>(),
                    (6, Panel::Wide) => t.run::<6, 3>(),
                    (7, Panel::Wide) => t.run::<7, 3>(),
                    (_, Panel::Wide) => t.run::<ROWS, 3>(),
                    (1, Panel::Narrow) => t.run::<1, 2>(),
                    (2, Panel::Narrow) => t.run::<2, 2>(),
                    (3, Panel::Narrow) => t.run::<3, 2>(),
                    (4, Panel::Narrow) => t.run::<4, 2>(),
                    (5, Panel::Narrow) => t.run::<5, 2>(),
                    (6, Panel::Narrow) => t.run::<6, 2>(),
                    (7, Panel::Narrow) => t.run::<7, 2>(),
                    (_, Panel::Narrow) => t.run::<ROWS, 2>(),
                }
            }
        }
    }
}

#[cfg(not(target_arch = "x86_64"))]
unsafe fn panels_of(_: &[u32], _: &Packed, _: std::ops::Range<usize>, _: &Output<'_>) {
    unreachable!("bfloat16 products run on x86-64 only; `supported` is false elsewhere")
}

/// One tile's operands: `R` rows of `a` (`pairs` apart) against one panel `b` of `V` vectors,
/// into `c`.
#[cfg(target_arch = "x86_64")]
struct Tile<'a> {
    a: &'a [u32],
    b: &'a [u32],
    pairs: usize,
    c: *mut f32,
    ldc: usize,
    columns: usize,
    accumulate: bool,
    /// The panel's `columns` biases.
    bias: Option<&'a [f32]>,
}

#[cfg(target_arch = "x86_64")]
impl Tile<'_> {
    /// `c[R × columns] (+)= a · b`, over all `pairs`.
    ///
    /// # Safety
    /// AVX512-F and AVX512-BF16; `a` holds `R` rows of `pairs` pairs, `b` `pairs × 16V`; `c`
    /// points at `R` rows of `columns` writable f32, `ldc` apart.
    #[target_feature(enable = "avx512f,avx512bf16")]
    #[inline]
    unsafe fn run<const R: usize, const V: usize>(&self) {
        use std::arch::x86_64::*;
        /// The same 512 bits read as 32 bfloat16 values.
        #[inline(always)]
        fn bh(v: __m512i) -> __m512bh {
            // SAFETY: both are 64 bytes of plain data; every bit pattern is valid for either.
            unsafe { std::mem::transmute::<__m512i, __m512bh>(v) }
        }
        let pairs = self.pairs;
        let width = 16 * V;
        assert!(self.a.len() >= R * pairs && self.b.len() >= pairs * width);
        let mut sums = [[_mm512_setzero_ps(); V]; R];
        let (a, b) = (self.a.as_ptr(), self.b.as_ptr());
        for q in 0..pairs {
            let mut panel = [_mm512_setzero_si512(); V];
            for (v, p) in panel.iter_mut().enumerate() {
                // SAFETY: inside `b` (asserted).
                *p = unsafe { _mm512_loadu_si512(b.add(q * width + 16 * v).cast()) };
            }
            for (r, row) in sums.iter_mut().enumerate() {
                // SAFETY: inside `a` (asserted).
                let x = _mm512_set1_epi32(unsafe { *a.add(r * pairs + q) } as i32);
                for (sum, p) in row.iter_mut().zip(&panel) {
                    *sum = _mm512_dpbf16_ps(*sum, bh(x), bh(*p));
                }
            }
        }
        let mask = |v: usize| -> __mmask16 {
            match self.columns.saturating_sub(16 * v).min(16) {
                16 => 0xFFFF,
                left => (1 << left) - 1,
            }
        };
        let mut bias = [_mm512_setzero_ps(); V];
        if let Some(b) = self.bias {
            for (v, lane) in bias.iter_mut().enumerate() {
                // SAFETY: the mask keeps the read inside the panel's `columns` biases.
                *lane = unsafe { _mm512_maskz_loadu_ps(mask(v), b.as_ptr().wrapping_add(16 * v)) };
            }
        }
        for (r, row) in sums.iter().enumerate() {
            for (v, (sum, bias)) in row.iter().zip(&bias).enumerate() {
                let mask = mask(v);
                if mask == 0 {
                    break;
                }
                // SAFETY: the mask keeps the access inside the row's `columns`.
                unsafe {
                    let at = self.c.add(r * self.ldc + 16 * v);
                    let mut value = _mm512_add_ps(*sum, *bias);
                    if self.accumulate {
                        value = _mm512_add_ps(_mm512_maskz_loadu_ps(mask, at), value);
                    }
                    _mm512_mask_storeu_ps(at, mask, value);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use rand::{Rng, SeedableRng};

    use super::*;

    #[test]
    fn rounding_is_to_the_nearest_even_bfloat16() {
        assert_eq!(round(1.0), 0x3F80);
        // 1 + 2⁻⁸ lies halfway between 1 and 1 + 2⁻⁷: to the even one, 1.
        assert_eq!(round(1.0 + 1.0 / 256.0), 0x3F80);
        // 1 + 3·2⁻⁸ lies halfway between 1 + 2⁻⁷ and 1 + 2⁻⁶: to the even one, up.
        assert_eq!(round(1.0 + 3.0 / 256.0), 0x3F82);
        assert_eq!(widen(round(-2.5)), -2.5);
        assert!(widen(round(f32::NAN)).is_nan());
        assert_eq!(widen(round(f32::INFINITY)), f32::INFINITY);
        let mut rng = rand::rngs::StdRng::seed_from_u64(3);
        for _ in 0..10_000 {
            let x: f32 = rng.random_range(-1e4..1e4);
            let error = (widen(round(x)) - x).abs();
            assert!(
                error <= x.abs() / 256.0,
                "{x} rounded to {}",
                widen(round(x))
            );
        }
    }

    /// The product of the rounded operands, in f64: what the kernel must match up to the
    /// order of its f32 sums.
    fn reference(x: &[f32], rows: usize, w: &Packed, start: &[f32]) -> Vec<f64> {
        let weight = w.unpacked();
        let mut out: Vec<f64> = start.iter().map(|&v| v as f64).collect();
        for r in 0..rows {
            for o in 0..w.outputs {
                let mut sum = 0f64;
                for i in 0..w.inputs {
                    let a = widen(round(x[r * w.inputs + i])) as f64;
                    sum += a * weight[o * w.inputs + i] as f64;
                }
                out[r * w.outputs + o] += sum;
            }
        }
        out
    }

    #[test]
    fn products_match_the_definition_on_every_edge() {
        if !supported() {
            eprintln!("skipped: this CPU has no AVX512-BF16");
            return;
        }
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        // Rows and outputs off the block and panel sizes, an odd inner dimension, one thread
        // and several.
        for &(rows, outputs, inputs, threads) in &[
            (1, 1, 1, 1),
            (7, 5, 3, 1),
            (8, 48, 2, 1),
            (9, 49, 17, 2),
            (23, 100, 64, 2),
            (64, 384, 384, 2),
            (33, 1152, 385, 3),
        ] {
            let x: Vec<f32> = (0..rows * inputs)
                .map(|_| rng.random_range(-2.0..2.0))
                .collect();
            let weight: Vec<f32> = (0..outputs * inputs)
                .map(|_| rng.random_range(-0.5..0.5))
                .collect();
            let w = Packed::new(&weight, outputs, inputs);
            assert_eq!((w.outputs, w.inputs), (outputs, inputs));
            let rounded: Vec<f32> = weight.iter().map(|&v| widen(round(v))).collect();
            assert_eq!(w.unpacked(), rounded);
            let bias: Vec<f32> = (0..outputs).map(|_| rng.random_range(-1.0..1.0)).collect();
            let start: Vec<f32> = (0..rows * outputs).map(|o| bias[o % outputs]).collect();
            // What was in `out` is overwritten.
            let mut out = vec![f32::NAN; rows * outputs];
            product(&x, rows, &w, &bias, &mut out, threads);
            let want = reference(&x, rows, &w, &start);
            for (i, (&got, &want)) in out.iter().zip(&want).enumerate() {
                // f32 sums of `inputs` products of magnitude ≤ 1.
                let tolerance = 1e-5 * (inputs as f64 + 1.0);
                assert!(
                    (got as f64 - want).abs() <= tolerance,
                    "{rows}×{outputs}×{inputs}: element {i} is {got}, want {want}"
                );
            }
        }
    }

    #[test]
    fn strided_operands_and_narrow_panels_overwrite_or_add() {
        if !supported() {
            eprintln!("skipped: this CPU has no AVX512-BF16");
            return;
        }
        let mut rng = rand::rngs::StdRng::seed_from_u64(5);
        let (rows, outputs, inputs, stride, ldc) = (13, 37, 21, 30, 50);
        let x: Vec<f32> = (0..rows * stride)
            .map(|_| rng.random_range(-1.0..1.0))
            .collect();
        // The right operand read through an accessor, transposed: element (o, i) at i × 40 + o.
        let source: Vec<f32> = (0..inputs * 40)
            .map(|_| rng.random_range(-1.0..1.0))
            .collect();
        let mut w = Packed::empty(Panel::Narrow);
        // Packed twice: the second fill replaces the first (a buffer reused head after head).
        w.pack_rows(&[9.0; 15], 3, 5, 5);
        w.pack_columns(&source, outputs, inputs, 40);
        let unpacked = w.unpacked();
        for o in 0..outputs {
            for i in 0..inputs {
                assert_eq!(unpacked[o * inputs + i], widen(round(source[i * 40 + o])));
            }
        }
        let dense: Vec<f32> = (0..rows)
            .flat_map(|r| x[r * stride..r * stride + inputs].to_vec())
            .collect();
        let want = reference(&dense, rows, &w, &vec![0.0; rows * outputs]);
        for accumulate in [false, true] {
            let mut out = vec![1.0f32; rows * ldc];
            let x = Rows {
                values: &x,
                rows,
                stride,
            };
            let target = Target {
                values: &mut out,
                stride: ldc,
                accumulate,
                bias: None,
            };
            product_into(x, &w, target, 1);
            for r in 0..rows {
                for o in 0..ldc {
                    let got = out[r * ldc + o] as f64;
                    if o >= outputs {
                        assert_eq!(got, 1.0, "column {o} past the outputs was written");
                        continue;
                    }
                    let want = want[r * outputs + o] + if accumulate { 1.0 } else { 0.0 };
                    assert!(
                        (got - want).abs() < 1e-4,
                        "({r}, {o}): {got} against {want}"
                    );
                }
            }
        }
    }

    #[test]
    fn products_stay_within_bfloat16_rounding_of_f32() {
        if !supported() {
            eprintln!("skipped: this CPU has no AVX512-BF16");
            return;
        }
        let mut rng = rand::rngs::StdRng::seed_from_u64(11);
        let (rows, outputs, inputs) = (16, 96, 384);
        let x: Vec<f32> = (0..rows * inputs)
            .map(|_| rng.random_range(-1.0..1.0))
            .collect();
        let weight: Vec<f32> = (0..outputs * inputs)
            .map(|_| rng.random_range(-0.1..0.1))
            .collect();
        let w = Packed::new(&weight, outputs, inputs);
        let mut out = vec![0f32; rows * outputs];
        product(&x, rows, &w, &vec![0.0; outputs], &mut out, 1);
        for r in 0..rows {
            for o in 0..outputs {
                let exact: f64 = (0..inputs)
                    .map(|i| x[r * inputs + i] as f64 * weight[o * inputs + i] as f64)
                    .sum();
                // Each product is off by at most 2 × 2⁻⁹ relative; bound by the sum of their
                // magnitudes.
                let magnitude: f64 = (0..inputs)
                    .map(|i| (x[r * inputs + i] as f64 * weight[o * inputs + i] as f64).abs())
                    .sum();
                let got = out[r * outputs + o] as f64;
                assert!((got - exact).abs() <= magnitude / 256.0 + 1e-6);
            }
        }
    }
}
