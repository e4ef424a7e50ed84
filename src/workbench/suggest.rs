//! Nearest valid names for a mistyped one, by Levenshtein distance.

/// The edit distance between `a` and `b` (insertions, deletions, substitutions).
pub fn levenshtein(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != *cb)).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}

/// The initials of a hyphenated name: `stormer-verlet` → `sv`.
fn initials(name: &str) -> String {
    name.split('-').filter_map(|w| w.chars().next()).collect()
}

/// The (up to three) names nearest to `name`, nearest first; names containing `name`, or whose
/// initials are `name`, count as nearest.
pub fn nearest<'a>(name: &str, names: &[&'a str]) -> Vec<&'a str> {
    let mut scored: Vec<(usize, &str)> = names
        .iter()
        .map(|n| {
            let near = !name.is_empty() && (n.contains(name) || initials(n) == name);
            (if near { 0 } else { levenshtein(name, n) }, *n)
        })
        .collect();
    scored.sort();
    let cut = (name.chars().count() / 2).max(3);
    scored.into_iter().filter(|(d, _)| *d <= cut).take(3).map(|(_, n)| n).collect()
}

/// `did you mean 'a' or 'b'? valid: …` for an error message.
pub fn did_you_mean(name: &str, names: &[&str]) -> String {
    let near = nearest(name, names);
    let valid = format!("valid: {}", names.join(", "));
    if near.is_empty() {
        valid
    } else {
        let quoted: Vec<String> = near.iter().map(|n| format!("'{n}'")).collect();
        format!("did you mean {}? ({valid})", quoted.join(" or "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances_and_suggestions() {
        assert_eq!(levenshtein("kitten", "sitting"), 3);
        assert_eq!(levenshtein("", "abc"), 3);
        assert_eq!(nearest("keppler", &["kepler", "pendulum", "heavy-top"]), vec!["kepler"]);
        assert_eq!(nearest("sv", &["hp-sv", "hp-sv-exp", "rk4"])[..2], ["hp-sv", "hp-sv-exp"]);
        assert!(did_you_mean("zzzzzzzz", &["kepler"]).starts_with("valid:"));
        assert_eq!(nearest("sv", &["rk4", "stormer-verlet"])[0], "stormer-verlet");
    }
}
