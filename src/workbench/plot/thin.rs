//! Thinning long curves to a drawable number of points, extrema kept.

use super::series::Series;

/// Points drawn per curve at most: longer curves are thinned by [`thin`].
pub const MAX_POINTS_PER_CURVE: usize = 4000;

/// `points` thinned to at most about `max` points, extrema kept: the index range is cut into
/// `max / 5` buckets, and each bucket keeps its first point and the points where `x` and `y`
/// are smallest and largest (in their original order). A spike or a dip of a single sample
/// therefore survives, and the drawn envelope is that of the data. Shorter inputs are
/// returned unchanged.
pub fn thin(points: &[(f64, f64)], max: usize) -> Vec<(f64, f64)> {
    let buckets = (max / 5).max(1);
    if points.len() <= max {
        return points.to_vec();
    }
    let mut out = Vec::with_capacity(5 * buckets + 1);
    let size = points.len().div_ceil(buckets);
    for chunk in points.chunks(size) {
        let pick = |key: &dyn Fn(&(f64, f64)) -> f64, largest: bool| {
            let mut best = 0;
            for (i, p) in chunk.iter().enumerate() {
                let (a, b) = (key(p), key(&chunk[best]));
                if (largest && a > b) || (!largest && a < b) {
                    best = i;
                }
            }
            best
        };
        let mut keep = [0, pick(&|p| p.0, false), pick(&|p| p.0, true), pick(&|p| p.1, false), pick(&|p| p.1, true)];
        keep.sort_unstable();
        let mut last = usize::MAX;
        for k in keep {
            if k != last {
                out.push(chunk[k]);
                last = k;
            }
        }
    }
    if let Some(&end) = points.last()
        && out.last() != Some(&end)
    {
        out.push(end);
    }
    out
}

/// `series` with every curve thinned to [`MAX_POINTS_PER_CURVE`] ([`thin`]).
pub(super) fn thinned(series: &[Series]) -> Vec<Series> {
    series.iter().map(|s| Series { points: thin(&s.points, MAX_POINTS_PER_CURVE), ..s.clone() }).collect()
}
