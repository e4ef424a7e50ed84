//! Axes: the linear and logarithmic scales, their ticks and tick labels, the floor row of a log
//! axis, and the map from scale units to pixels.

/// Errors below this floor (and exact zeros) go to the floor row of a log axis.
pub const FLOOR: f64 = 1e-18;

/// An axis title with its unit, `title [unit]`.
pub(super) fn with_unit(title: &str, unit: Option<&str>) -> String {
    match unit {
        Some(u) if !u.is_empty() => format!("{title} [{u}]"),
        _ => title.to_string(),
    }
}

/// Round tick values in `[lo, hi]`: multiples of a step `1, 2, 2.5 or 5 · 10^k` chosen for
/// about five intervals, e.g. `0, 500, 1000, 1500, 2000` for `[0, 2000]`.
pub fn nice_ticks(lo: f64, hi: f64) -> Vec<f64> {
    nice_ticks_n(lo, hi, 5)
}

/// [`nice_ticks`] for about `n` intervals.
fn nice_ticks_n(lo: f64, hi: f64, n: usize) -> Vec<f64> {
    if !(lo.is_finite() && hi.is_finite()) || hi <= lo {
        return if lo.is_finite() { vec![lo] } else { Vec::new() };
    }
    // the finest step `1, 2, 2.5, 5 · 10^k` with at most `n + 1` ticks in the range; a step that
    // underflows or overflows (subnormal or huge ranges) or gives too many ticks is skipped
    // before anything is allocated
    let e = ((hi - lo) / n as f64).log10().floor() as i32;
    let ticks = |step: f64| -> Option<Vec<f64>> {
        if !(step > 0.0 && step.is_finite()) {
            return None;
        }
        let (k0, k1) = ((lo / step - 1e-9).ceil(), (hi / step + 1e-9).floor());
        if !(k0.is_finite() && k1.is_finite()) || k1 - k0 > n as f64 {
            return None;
        }
        let (k0, k1) = (k0 as i64, k1 as i64);
        Some((k0..=k1).map(|k| if k == 0 { 0.0 } else { k as f64 * step }).collect())
    };
    (e - 1..=e + 2)
        .flat_map(|k| [1.0, 2.0, 2.5, 5.0].map(|m| m * 10f64.powi(k)))
        .find_map(ticks)
        .unwrap_or_else(|| vec![lo, hi])
}

/// The labels of [`nice_ticks`] values: no more decimals than the step needs (`500`, `0.25`),
/// scientific (`2e6`) for very large or very small values.
pub fn tick_labels(ticks: &[f64]) -> Vec<String> {
    if ticks.is_empty() {
        return Vec::new();
    }
    let step = if ticks.len() > 1 { ticks[1] - ticks[0] } else { ticks[0].abs().max(1.0) };
    let top = ticks.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    let clean = |v: f64| if v.abs() < step * 1e-6 { 0.0 } else { v };
    if top >= 1e6 || (top > 0.0 && top < 1e-3) {
        let e = top.log10().floor() as i32;
        let scale = 10f64.powi(e);
        let d = decimals(step / scale);
        return ticks
            .iter()
            .map(|&v| {
                let v = clean(v);
                if v == 0.0 { "0".into() } else { format!("{:.*}e{e}", d, v / scale) }
            })
            .collect();
    }
    let d = decimals(step);
    ticks.iter().map(|&v| format!("{:.*}", d, clean(v))).collect()
}

/// Decimals needed to write multiples of `step` exactly.
fn decimals(step: f64) -> usize {
    (0..12).find(|&d| ((step * 10f64.powi(d as i32)).round() - step * 10f64.powi(d as i32)).abs() < 1e-6).unwrap_or(12)
}

/// A tick on an axis: its position in scale units (`log10` of the value on a log axis), its
/// label, and whether it is a major one (with a grid line).
pub(super) struct Tick {
    pub(super) at: f64,
    pub(super) label: Option<String>,
    pub(super) major: bool,
}

/// An axis scale: linear `[lo, hi]`, or the decades `10^lo .. 10^hi`.
#[derive(Debug, Clone, Copy)]
pub(super) enum Scale {
    Lin { lo: f64, hi: f64 },
    Log { lo: i32, hi: i32 },
}

impl Scale {
    pub(super) fn linear(values: impl Iterator<Item = f64>) -> Self {
        let (lo, hi) = min_max(values.filter(|v| v.is_finite()));
        match (lo, hi) {
            (Some(lo), Some(hi)) if hi > lo => Scale::Lin { lo, hi },
            (Some(v), _) => {
                let d = if v == 0.0 { 1.0 } else { v.abs() * 0.5 };
                Scale::Lin { lo: v - d, hi: v + d }
            }
            _ => Scale::Lin { lo: 0.0, hi: 1.0 },
        }
    }

    /// Whole decades around the values at or above [`FLOOR`].
    pub(super) fn decades(values: impl Iterator<Item = f64>) -> Self {
        let (lo, hi) = min_max(values.filter(|v| v.is_finite() && *v >= FLOOR));
        match (lo, hi) {
            (Some(lo), Some(hi)) => {
                let a = (lo.log10() + 1e-9).floor() as i32;
                let b = (hi.log10() - 1e-9).ceil() as i32;
                Scale::Log { lo: a, hi: b.max(a + 1) }
            }
            _ => {
                let f = FLOOR.log10().round() as i32;
                Scale::Log { lo: f, hi: f + 2 }
            }
        }
    }

    /// `(lo, hi)` in scale units.
    pub(super) fn span(self) -> (f64, f64) {
        match self {
            Scale::Lin { lo, hi } => (lo, hi),
            Scale::Log { lo, hi } => (f64::from(lo), f64::from(hi)),
        }
    }

    /// The value `v` in scale units, if the scale can show it.
    pub(super) fn unit(self, v: f64) -> Option<f64> {
        match self {
            Scale::Lin { .. } => v.is_finite().then_some(v),
            Scale::Log { .. } => (v.is_finite() && v > 0.0).then(|| v.log10()),
        }
    }

    /// Ticks for an axis `len` pixels long, on which a label needs `room(label)` pixels along
    /// the axis.
    pub(super) fn ticks(self, len: f64, room: &dyn Fn(&str) -> f64) -> Vec<Tick> {
        match self {
            Scale::Lin { lo, hi } => {
                // about five intervals, fewer if the labels would not fit between the ticks
                let fits = |v: &[f64], l: &[String]| {
                    v.len() < 2 || l.iter().map(|l| room(l)).fold(0.0, f64::max) <= len * (v[1] - v[0]) / (hi - lo)
                };
                let (values, labels) = [5, 4, 3, 2, 1]
                    .into_iter()
                    .map(|n| {
                        let v = nice_ticks_n(lo, hi, n);
                        let l = tick_labels(&v);
                        (v, l)
                    })
                    .find(|(v, l)| fits(v, l))
                    .unwrap_or_else(|| (vec![lo], tick_labels(&[lo])));
                values.into_iter().zip(labels).map(|(at, l)| Tick { at, label: Some(l), major: true }).collect()
            }
            Scale::Log { lo, hi } => {
                let per_decade = len / f64::from(hi - lo);
                let need = (lo..=hi).map(|k| room(&format!("1e{k}"))).fold(0.0, f64::max);
                let every =
                    [1, 2, 3, 5, 10, 20, 50].into_iter().find(|&k| per_decade * f64::from(k) >= need).unwrap_or(100);
                let mut v = Vec::new();
                for k in lo..=hi {
                    v.push(Tick {
                        at: f64::from(k),
                        label: (k.rem_euclid(every) == 0).then(|| format!("1e{k}")),
                        major: true,
                    });
                    if per_decade >= 36.0 && k < hi {
                        v.extend((2..=9).map(|m| Tick {
                            at: f64::from(k) + f64::from(m).log10(),
                            label: None,
                            major: false,
                        }));
                    }
                }
                v
            }
        }
    }
}

pub(super) fn min_max(values: impl Iterator<Item = f64>) -> (Option<f64>, Option<f64>) {
    values.fold((None, None), |(lo, hi): (Option<f64>, Option<f64>), v| {
        (Some(lo.map_or(v, |l| l.min(v))), Some(hi.map_or(v, |h| h.max(v))))
    })
}

/// Maps scale units to pixels along one axis: `a ↦ p0`, `b ↦ p1`.
#[derive(Clone, Copy)]
pub(super) struct Map {
    pub(super) a: f64,
    pub(super) b: f64,
    pub(super) p0: f64,
    pub(super) p1: f64,
}

impl Map {
    pub(super) fn px(self, u: f64) -> f64 {
        self.p0 + (u - self.a) / (self.b - self.a) * (self.p1 - self.p0)
    }
}
