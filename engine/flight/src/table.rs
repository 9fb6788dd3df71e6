//! Lookup tables: 1-D piecewise-linear and 2-D bilinear, both clamped at their edges.
//!
//! Owns: interpolation and the pack's clamping rule (outside the breakpoints the edge value holds,
//! no extrapolation). Must not: allocate during a lookup, or accept unsorted breakpoints (the
//! schema parser rejects those before a table is ever built).

/// A 1-D table `y(x)` over strictly increasing breakpoints.
#[derive(Debug, Clone, PartialEq)]
pub struct Table1D {
    xs: Vec<f64>,
    ys: Vec<f64>,
}

/// Finds the segment for `x`: returns `(i, t)` with the value between `xs[i]` and `xs[i+1]` at
/// fraction `t` in `[0, 1]`, clamped at both ends.
#[inline]
fn locate(xs: &[f64], x: f64) -> (usize, f64) {
    let n = xs.len();
    if n < 2 || x <= xs[0] || x.is_nan() {
        return (0, 0.0);
    }
    if x >= xs[n - 1] {
        return (n - 2, 1.0);
    }
    // Binary search for the last breakpoint <= x.
    let mut lo = 0usize;
    let mut hi = n - 1;
    while hi - lo > 1 {
        let mid = (lo + hi) / 2;
        if xs[mid] <= x {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let t = (x - xs[lo]) / (xs[lo + 1] - xs[lo]);
    (lo, t)
}

impl Table1D {
    /// Builds a table; callers guarantee `xs` strictly increasing and `xs.len() == ys.len() >= 1`.
    pub fn new(xs: Vec<f64>, ys: Vec<f64>) -> Self {
        Self { xs, ys }
    }
    /// A table that is `value` everywhere.
    pub fn constant(value: f64) -> Self {
        Self {
            xs: vec![0.0],
            ys: vec![value],
        }
    }
    /// The breakpoints.
    pub fn xs(&self) -> &[f64] {
        &self.xs
    }
    /// The values.
    pub fn ys(&self) -> &[f64] {
        &self.ys
    }
    /// Interpolated value, holding the edge value outside the breakpoints.
    #[inline]
    pub fn eval(&self, x: f64) -> f64 {
        if self.ys.len() == 1 {
            return self.ys[0];
        }
        let (i, t) = locate(&self.xs, x);
        self.ys[i] + (self.ys[i + 1] - self.ys[i]) * t
    }
}

/// A 2-D table `v(row, col)`, stored row-major (`values[r * cols + c]`), bilinear between nodes.
#[derive(Debug, Clone, PartialEq)]
pub struct Table2D {
    rows: Vec<f64>,
    cols: Vec<f64>,
    values: Vec<f64>,
}

impl Table2D {
    /// Builds a table; callers guarantee sorted axes with >= 1 entry and matching `values` length.
    pub fn new(rows: Vec<f64>, cols: Vec<f64>, values: Vec<f64>) -> Self {
        Self { rows, cols, values }
    }
    /// Row breakpoints.
    pub fn rows(&self) -> &[f64] {
        &self.rows
    }
    /// Column breakpoints.
    pub fn cols(&self) -> &[f64] {
        &self.cols
    }
    /// Value at a node.
    pub fn at(&self, r: usize, c: usize) -> f64 {
        self.values[r * self.cols.len() + c]
    }
    /// Multiplies every value by `k` (unit conversion at load time).
    pub fn scaled(mut self, k: f64) -> Self {
        for v in &mut self.values {
            *v *= k;
        }
        self
    }
    /// Locates a column coordinate once, for repeated [`Table2D::at_row`] lookups.
    #[inline]
    pub fn locate_col(&self, c: f64) -> (usize, f64) {
        if self.cols.len() > 1 {
            locate(&self.cols, c)
        } else {
            (0, 0.0)
        }
    }

    /// Value at row node `r` and a pre-located column.
    #[inline]
    pub fn at_row(&self, r: usize, (j, t): (usize, f64)) -> f64 {
        let nc = self.cols.len();
        let j1 = if nc > 1 { j + 1 } else { j };
        let a = self.values[r * nc + j];
        a + (self.values[r * nc + j1] - a) * t
    }

    /// Bilinear value at (`r`, `c`), clamped at the edges.
    #[inline]
    pub fn eval(&self, r: f64, c: f64) -> f64 {
        let nc = self.cols.len();
        let (i, ti) = if self.rows.len() > 1 {
            locate(&self.rows, r)
        } else {
            (0, 0.0)
        };
        let (j, tj) = if nc > 1 {
            locate(&self.cols, c)
        } else {
            (0, 0.0)
        };
        let i1 = if self.rows.len() > 1 { i + 1 } else { i };
        let j1 = if nc > 1 { j + 1 } else { j };
        let v00 = self.values[i * nc + j];
        let v01 = self.values[i * nc + j1];
        let v10 = self.values[i1 * nc + j];
        let v11 = self.values[i1 * nc + j1];
        let a = v00 + (v01 - v00) * tj;
        let b = v10 + (v11 - v10) * tj;
        a + (b - a) * ti
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_d_interpolates_and_clamps() {
        let t = Table1D::new(vec![0.0, 1.0, 3.0], vec![0.0, 10.0, 30.0]);
        assert_eq!(t.eval(-5.0), 0.0);
        assert_eq!(t.eval(0.5), 5.0);
        assert_eq!(t.eval(2.0), 20.0);
        assert_eq!(t.eval(9.0), 30.0);
    }

    #[test]
    fn two_d_bilinear_and_clamped() {
        let t = Table2D::new(vec![0.0, 10.0], vec![0.0, 1.0], vec![0.0, 1.0, 10.0, 11.0]);
        assert_eq!(t.eval(5.0, 0.5), 5.5);
        assert_eq!(t.eval(-1.0, -1.0), 0.0);
        assert_eq!(t.eval(20.0, 2.0), 11.0);
        assert_eq!(t.eval(10.0, 0.25), 10.25);
    }
}
