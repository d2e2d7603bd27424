//! Keeping and dropping samples by their labels, as `go tool pprof -tagfocus`
//! and `-tagignore` do (`compileTagFilter()` and `parseTagFilterRange()` in
//! Go's `internal/driver/driver_focus.go`, `FilterSamplesByTag()` in
//! `profile/filter.go`).
//!
//! A filter is `"key=value"` or `"value"` ([`LabelFilter`]). A value that
//! reads as a number or a range of numbers, with a unit or without
//! (`"64b"`, `"1kb:1mb"`, `":10ms"`, `"3:"`), selects numeric labels in that
//! range ([`NumericRange`]); any other value is a comma-separated list of
//! regular expressions for string labels (Go's, see `pattern.rs`). They are
//! matched once against each of the distinct (key, value) pairs of string
//! labels that [`LabelPairs`] lists, which gives flags per pair: a
//! [`LabelCondition`] ([`LabelCondition::compile`]). [`filter_by_labels`]
//! keeps the samples that meet the focus condition and not the ignore
//! condition.

use super::keep::{keep_samples, ragged, SampleRows};
use super::pattern::Pattern;
use super::units::{default_label_unit, Conversion};
use crate::error::{ProfileError, Result};
use crate::model::{Profile, SampleLabels, StrId, StringPool};
use crate::resources::alloc::{try_collect, try_filled, try_with_capacity};
use rustc_hash::FxHashMap;

/// A label filter as Go reads one.
#[derive(Debug, Clone, PartialEq)]
pub struct LabelFilter {
    /// The key before the first "=" (None without one, or when it is empty):
    /// only labels of that key are looked at.
    pub key: Option<String>,
    pub test: LabelTest,
}

/// What a label filter asks of a label.
#[derive(Debug, Clone, PartialEq)]
pub enum LabelTest {
    /// A numeric label with a value in the range.
    Range(NumericRange),
    /// A string label matching one of the regular expressions (with a key:
    /// its value; without: `"key:value"`, each of the expressions matching
    /// some label of the sample, as Go has it).
    Patterns(Vec<String>),
}

impl LabelFilter {
    /// Reads a filter as Go's `compileTagFilter()` does.
    pub fn parse(text: &str) -> Result<Self> {
        let (key, value) = match text.split_once('=') {
            Some((key, value)) => (Some(key).filter(|k| !k.is_empty()), value),
            None => (None, text),
        };
        let test = match NumericRange::parse(value)? {
            Some(range) => LabelTest::Range(range),
            None => LabelTest::Patterns(value.split(',').map(str::to_string).collect()),
        };
        Ok(LabelFilter {
            key: key.map(str::to_string),
            test,
        })
    }
}

/// Values from `low` to `high` (both included), in `unit`, as Go names it
/// (`measurement.Scale()`; "" for a number without a unit).
#[derive(Debug, Clone, PartialEq)]
pub struct NumericRange {
    pub unit: String,
    pub low: f64,
    pub high: f64,
}

impl NumericRange {
    /// The range that `text` is, as Go's `parseTagFilterRange()` reads it:
    /// `"v"` (exactly v), `"v:"` (at least), `":v"` (at most) or `"v:w"`,
    /// where each number is an integer with an optional unit (`"32kb"`).
    /// None when the text is no range (Go then reads it as regular
    /// expressions), also when the two ends are in units of different kinds.
    /// A number too large for 64 bits is an error (Go's pprof stops there).
    pub fn parse(text: &str) -> Result<Option<Self>> {
        let found = numbers_with_units(text);
        let Some(first) = found.first() else {
            return Ok(None);
        };
        let one = |form: &str| form == text;
        let (low_at_most, high_open) = match found.as_slice() {
            [n] if one(n.text) => (false, false),
            [n] if one(&format!("{}:", n.text)) => (false, true),
            [n] if one(&format!(":{}", n.text)) => (true, false),
            [a, b] if one(&format!("{}:{}", a.text, b.text)) => (false, false),
            _ => return Ok(None),
        };
        let first_conversion = Conversion::new(first.unit, first.unit);
        let value = first_conversion.apply(first.number()?);
        let unit = first_conversion.unit;
        let (low, high) = match found.get(1) {
            Some(second) => {
                let conversion = Conversion::new(second.unit, &unit);
                if conversion.unit != unit {
                    return Ok(None);
                }
                (value, conversion.apply(second.number()?))
            }
            None if low_at_most => (f64::NEG_INFINITY, value),
            None if high_open => (value, f64::INFINITY),
            None => (value, value),
        };
        Ok(Some(NumericRange { unit, low, high }))
    }

    /// Whether a value converted by `conversion` (to this range's unit) is in
    /// the range.
    fn contains(&self, value: f64, conversion: &Conversion) -> bool {
        let v = conversion.apply(value);
        conversion.unit == self.unit && self.low <= v && v <= self.high
    }
}

/// A number with its unit in a filter: a match of Go's
/// `([+-]?[[:digit:]]+)([[:alpha:]]+)?`.
struct NumberText<'a> {
    text: &'a str,
    digits: &'a str,
    unit: &'a str,
}

impl NumberText<'_> {
    fn number(&self) -> Result<f64> {
        self.digits.parse::<i64>().map(|n| n as f64).map_err(|_| {
            ProfileError::argument(format!(
                "the number {} in a label filter does not fit in 64 bits",
                self.digits
            ))
        })
    }
}

/// The first two numbers with units in `text`, left to right (Go's
/// `FindAllStringSubmatch(text, 2)`; ASCII digits and letters).
#[allow(
    clippy::indexing_slicing,
    reason = "at, sign and the ends stay within bytes (at < len checked, the counts are of bytes \
              after them); every boundary is next to an ASCII byte"
)]
fn numbers_with_units(text: &str) -> Vec<NumberText<'_>> {
    let bytes = text.as_bytes();
    let mut found = Vec::new();
    let mut at = 0;
    while at < bytes.len() && found.len() < 2 {
        let sign = usize::from(matches!(bytes[at], b'+' | b'-'));
        let digits_end = at
            + sign
            + bytes[at + sign..]
                .iter()
                .take_while(|b| b.is_ascii_digit())
                .count();
        if digits_end == at + sign {
            at += 1;
            continue;
        }
        let end = digits_end
            + bytes[digits_end..]
                .iter()
                .take_while(|b| b.is_ascii_alphabetic())
                .count();
        // Every boundary is next to an ASCII byte: a character boundary.
        found.push(NumberText {
            text: &text[at..end],
            digits: &text[at..digits_end],
            unit: &text[digits_end..end],
        });
        at = end;
    }
    found
}

/// The distinct (key, value) pairs of the string labels of a profile (the
/// rows of `sample_labels` with a value), in the order they first appear,
/// for matching outside the core; `texts` holds each distinct text once, and
/// `key` and `value` are ids into it.
#[derive(Debug, Clone, Default)]
pub struct LabelPairs {
    pub texts: StringPool,
    pub key: Vec<StrId>,
    pub value: Vec<StrId>,
    /// The pair of each row of `sample_labels` (None: a numeric label).
    row_pair: Vec<Option<u32>>,
}

impl LabelPairs {
    pub fn of(p: &Profile) -> Result<Self> {
        let sl = &p.sample_labels;
        if !sl.is_rectangular() {
            return Err(ragged(SampleLabels::NAME));
        }
        let mut out = LabelPairs::default();
        let mut pair_of: FxHashMap<(StrId, StrId), u32> = FxHashMap::default();
        out.row_pair = try_with_capacity(sl.nrow(), "labels")?;
        for (&key, &value) in sl.key.iter().zip(&sl.value) {
            if value.is_na() {
                out.row_pair.push(None);
                continue;
            }
            let next = out.key.len() as u32;
            let pair = *pair_of.entry((key, value)).or_insert(next);
            if pair == next {
                out.key.push(out.texts.intern(p.str(key)));
                out.value.push(out.texts.intern(p.str(value)));
            }
            out.row_pair.push(Some(pair));
        }
        Ok(out)
    }

    pub fn len(&self) -> usize {
        self.key.len()
    }

    pub fn is_empty(&self) -> bool {
        self.key.is_empty()
    }
}

/// A label filter ready to be applied: for a numeric range, the filter
/// itself; for regular expressions, what they matched.
#[derive(Debug, Clone, PartialEq)]
pub enum LabelCondition {
    /// A numeric label (of `key`, or of any key) in the range, its value in
    /// the unit of its key: the first unit that a numeric label of the key
    /// has in the profile, else Go's default for the key
    /// ([`default_label_unit`]), as Go's `NumLabelUnits()` decides it.
    Numeric {
        key: Option<String>,
        range: NumericRange,
    },
    /// For each clause, one flag per pair of [`LabelPairs`]: a sample meets
    /// the condition when, for every clause, one of its string labels has
    /// its flag set.
    Text { clauses: Vec<Vec<bool>> },
}

impl LabelCondition {
    /// The condition of `filter`, with, for regular expressions, the clauses
    /// their matches make: one (flags of the pairs of the filter's key whose
    /// value matches one of the expressions) with a key, one per expression
    /// (flags of the pairs whose `"key:value"` it matches) without.
    pub fn new(filter: LabelFilter, clauses: Vec<Vec<bool>>) -> Result<Self> {
        let expected = match (&filter.test, &filter.key) {
            (LabelTest::Range(_), _) => 0,
            (LabelTest::Patterns(_), Some(_)) => 1,
            (LabelTest::Patterns(patterns), None) => patterns.len(),
        };
        if clauses.len() != expected {
            return Err(ProfileError::argument(format!(
                "a label filter with {expected} sets of matches was given {}",
                clauses.len()
            )));
        }
        Ok(match filter.test {
            LabelTest::Range(range) => LabelCondition::Numeric {
                key: filter.key,
                range,
            },
            LabelTest::Patterns(_) => LabelCondition::Text { clauses },
        })
    }

    /// The condition of `filter` on a profile with the string labels `pairs`:
    /// its regular expressions compiled (an error of kind `argument` for one
    /// Go refuses; an empty one matches every value, as in Go) and matched
    /// once against each pair. With a key, one clause: the pairs of that key
    /// whose value one of the expressions matches; without, one clause per
    /// expression: the pairs whose `"key:value"` it matches (Go's
    /// `compileTagFilter()`).
    pub fn compile(filter: LabelFilter, pairs: &LabelPairs) -> Result<Self> {
        let LabelTest::Patterns(texts) = &filter.test else {
            return Self::new(filter, Vec::new());
        };
        let patterns = texts
            .iter()
            .map(|t| Pattern::new(t))
            .collect::<Result<Vec<_>>>()?;
        let text = |id: StrId| pairs.texts.str(id);
        let clauses = match &filter.key {
            Some(key) => {
                let flags =
                    pairs.key.iter().zip(&pairs.value).map(|(&k, &v)| {
                        text(k) == key && patterns.iter().any(|p| p.is_match(text(v)))
                    });
                vec![try_collect(flags, "labels")?]
            }
            None => {
                let joined: Vec<String> = try_collect(
                    pairs
                        .key
                        .iter()
                        .zip(&pairs.value)
                        .map(|(&k, &v)| format!("{}:{}", text(k), text(v))),
                    "labels",
                )?;
                patterns
                    .iter()
                    .map(|p| try_collect(joined.iter().map(|kv| p.is_match(kv)), "labels"))
                    .collect::<Result<Vec<_>>>()?
            }
        };
        Self::new(filter, clauses)
    }

    /// One flag per row of `samples`: whether the sample meets the condition.
    #[allow(
        clippy::indexing_slicing,
        reason = "positions of samples come from SampleRows (below rows.len()); rows below nrow() \
                  of a table checked rectangular; clause flags are checked to be one per distinct \
                  pair, which row_pair numbers"
    )]
    fn samples_meeting(&self, p: &Profile, rows: &SampleRows) -> Result<Vec<bool>> {
        let sl = &p.sample_labels;
        if !sl.is_rectangular() {
            return Err(ragged(SampleLabels::NAME));
        }
        let row_samples = || rows.of(SampleLabels::NAME, &sl.sample_id);
        match self {
            LabelCondition::Numeric { key, range } => {
                let want_key = match key {
                    Some(k) => match p.strings.lookup(k) {
                        Some(id) => Some(id),
                        None => return try_filled(rows.len(), false, "samples"),
                    },
                    None => None,
                };
                let conversions = key_conversions(p, &range.unit);
                let mut out = try_filled(rows.len(), false, "samples")?;
                for (row, s) in row_samples().enumerate() {
                    let s = s?;
                    let k = sl.key[row];
                    if !is_numeric(sl, row) || want_key.is_some_and(|w| w != k) {
                        continue;
                    }
                    if conversions
                        .get(&k)
                        .is_some_and(|c| range.contains(sl.num[row], c))
                    {
                        out[s] = true;
                    }
                }
                Ok(out)
            }
            LabelCondition::Text { clauses } => {
                let pairs = LabelPairs::of(p)?;
                if let Some(bad) = clauses.iter().find(|c| c.len() != pairs.len()) {
                    return Err(ProfileError::argument(format!(
                        "{} label match flags for {} distinct labels",
                        bad.len(),
                        pairs.len()
                    )));
                }
                let mut out = try_filled(rows.len(), true, "samples")?;
                let mut has = try_filled(rows.len(), false, "samples")?;
                for clause in clauses {
                    has.fill(false);
                    for (s, pair) in row_samples().zip(&pairs.row_pair) {
                        let s = s?;
                        if pair.is_some_and(|pair| clause[pair as usize]) {
                            has[s] = true;
                        }
                    }
                    out.iter_mut().zip(&has).for_each(|(o, &h)| *o &= h);
                }
                Ok(out)
            }
        }
    }
}

/// Whether a row of `sample_labels` is a numeric label: no string, and a
/// number (a label with a string is a string label, as Go reads labels).
#[allow(
    clippy::indexing_slicing,
    reason = "callers pass rows below nrow() of the rectangular table"
)]
fn is_numeric(sl: &SampleLabels, row: usize) -> bool {
    sl.value[row].is_na() && !sl.num[row].is_nan()
}

/// For each key of a numeric label, the conversion of its values to `unit`
/// from the key's unit (see [`LabelCondition::Numeric`]).
#[allow(
    clippy::indexing_slicing,
    reason = "rows below nrow() of sample_labels, checked rectangular"
)]
fn key_conversions(p: &Profile, unit: &str) -> FxHashMap<StrId, Conversion> {
    let sl = &p.sample_labels;
    let mut key_unit: FxHashMap<StrId, StrId> = FxHashMap::default();
    for row in (0..sl.nrow()).filter(|&row| is_numeric(sl, row)) {
        let own = sl.num_unit[row];
        let known = key_unit.entry(sl.key[row]).or_insert(StrId::NA);
        if known.is_na() && !p.str(own).is_empty() {
            *known = own;
        }
    }
    key_unit
        .into_iter()
        .map(|(key, own)| {
            let key_text = p.str(key);
            let from = if own.is_na() {
                default_label_unit(key_text)
            } else {
                p.str(own)
            };
            (key, Conversion::new(from, unit))
        })
        .collect()
}

/// Whether the focus and the ignore condition of [`filter_by_labels`] each
/// matched some sample (false for a condition not given).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct LabelMatches {
    pub focus: bool,
    pub ignore: bool,
}

/// Keeps the samples that meet `focus` (every sample, without it) and do not
/// meet `ignore` (`-tagfocus`, `-tagignore`).
#[allow(
    clippy::indexing_slicing,
    reason = "focused and ignored hold one flag per sample position"
)]
pub fn filter_by_labels(
    p: &mut Profile,
    focus: Option<&LabelCondition>,
    ignore: Option<&LabelCondition>,
) -> Result<LabelMatches> {
    let rows = SampleRows::new(p)?;
    let focused = focus.map(|c| c.samples_meeting(p, &rows)).transpose()?;
    let ignored = ignore.map(|c| c.samples_meeting(p, &rows)).transpose()?;
    let keep = try_collect(
        (0..rows.len()).map(|s| {
            focused.as_ref().is_none_or(|f| f[s]) && !ignored.as_ref().is_some_and(|i| i[s])
        }),
        "samples",
    )?;
    let any = |flags: &Option<Vec<bool>>| flags.as_ref().is_some_and(|f| f.contains(&true));
    let matches = LabelMatches {
        focus: any(&focused),
        ignore: any(&ignored),
    };
    keep_samples(p, &keep)?;
    Ok(matches)
}

#[cfg(test)]
mod tests;
