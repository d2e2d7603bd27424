//! Units of measurement as `go tool pprof` converts them (`Scale()` in Go's
//! `internal/measurement/measurement.go`, as vendored in Go 1.19's `cmd/pprof`),
//! for the numeric label filters: `"bytes=1kb:1mb"` compares a label's value,
//! in its key's unit, with bounds in the filter's unit.
//!
//! Three families of units (memory, time, Google compute units), each with
//! aliases and a factor to the family's base unit. A unit that is in no family
//! is compared as it is: a value in it can only be compared with a bound
//! written in that same unit, or with none.

/// One unit: the name Go prints, the aliases it recognises, and its size in
/// the family's base unit.
struct Unit {
    name: &'static str,
    aliases: &'static [&'static str],
    factor: f64,
}

/// A family of units, with the unit a value goes to when the wanted unit is
/// not of the family.
struct Family {
    units: &'static [Unit],
    default_name: &'static str,
    default_factor: f64,
}

/// A [`Unit`], written on one line in the tables below.
const fn unit(name: &'static str, aliases: &'static [&'static str], factor: f64) -> Unit {
    Unit {
        name,
        aliases,
        factor,
    }
}

const NANOSECOND: f64 = 1.0;

const FAMILIES: [Family; 3] = [
    Family {
        units: &[
            unit("B", &["b", "byte"], 1.0),
            unit("kB", &["kb", "kbyte", "kilobyte"], (1u64 << 10) as f64),
            unit("MB", &["mb", "mbyte", "megabyte"], (1u64 << 20) as f64),
            unit("GB", &["gb", "gbyte", "gigabyte"], (1u64 << 30) as f64),
            unit("TB", &["tb", "tbyte", "terabyte"], (1u64 << 40) as f64),
            unit("PB", &["pb", "pbyte", "petabyte"], (1u64 << 50) as f64),
        ],
        default_name: "B",
        default_factor: 1.0,
    },
    Family {
        units: &[
            unit("ns", &["ns", "nanosecond"], NANOSECOND),
            unit("us", &["\u{3bc}s", "us", "microsecond"], 1e3 * NANOSECOND),
            unit("ms", &["ms", "millisecond"], 1e6 * NANOSECOND),
            unit("s", &["s", "sec", "second"], 1e9 * NANOSECOND),
            unit("hrs", &["hour", "hr"], 3600e9 * NANOSECOND),
        ],
        default_name: "s",
        default_factor: 1e9 * NANOSECOND,
    },
    Family {
        units: &[
            unit("n*GCU", &["nanogcu"], 1e-9),
            unit("u*GCU", &["microgcu"], 1e-6),
            unit("m*GCU", &["milligcu"], 1e-3),
            unit("GCU", &["gcu"], 1.0),
            unit("k*GCU", &["kilogcu"], 1e3),
            unit("M*GCU", &["megagcu"], 1e6),
            unit("G*GCU", &["gigagcu"], 1e9),
            unit("T*GCU", &["teragcu"], 1e12),
            unit("P*GCU", &["petagcu"], 1e15),
        ],
        default_name: "GCU",
        default_factor: 1.0,
    },
];

impl Family {
    /// The unit `text` names in this family, as Go recognises it: lower case,
    /// a trailing "s" dropped from names longer than two bytes ("bytes",
    /// "hrs"; Go counts bytes, so "μs", three of them, loses its "s" too and
    /// is no unit).
    fn unit(&self, text: &str) -> Option<&Unit> {
        let lower = text.to_lowercase();
        let name = if lower.len() > 2 {
            lower.strip_suffix('s').unwrap_or(&lower)
        } else {
            &lower
        };
        self.units.iter().find(|u| u.aliases.contains(&name))
    }
}

/// `value` in `from` converted to `to`, and the name of the unit it is in
/// then ("" when that unit says nothing, such as "count"), as Go's
/// `measurement.Scale()`: a value in a unit of a family goes to `to` if `to`
/// is of the same family, else to the family's default unit; a value in no
/// family's unit stays as it is, in `to`.
pub fn scale(value: f64, from: &str, to: &str) -> (f64, String) {
    let conversion = Conversion::new(from, to);
    (conversion.apply(value), conversion.unit)
}

/// A conversion from one unit to another, found once for many values.
#[derive(Debug, Clone, PartialEq)]
pub struct Conversion {
    from_factor: f64,
    to_factor: f64,
    /// The unit of the converted values, as [`scale`] names it.
    pub unit: String,
}

impl Conversion {
    pub fn new(from: &str, to: &str) -> Self {
        for family in &FAMILIES {
            let Some(from_unit) = family.unit(from) else {
                continue;
            };
            let (to_factor, unit) = match family.unit(to) {
                Some(to_unit) => (to_unit.factor, to_unit.name),
                None => (family.default_factor, family.default_name),
            };
            return Conversion {
                from_factor: from_unit.factor,
                to_factor,
                unit: unit.to_string(),
            };
        }
        let unit = match to {
            "count" | "sample" | "unit" | "minimum" | "auto" => "",
            _ => to,
        };
        Conversion {
            from_factor: 1.0,
            to_factor: 1.0,
            unit: unit.to_string(),
        }
    }

    /// `value` converted: multiplied by the factor of its unit, then divided by
    /// that of the other, in that order, as Go computes it (the result is
    /// rounded as Go rounds it).
    pub fn apply(&self, value: f64) -> f64 {
        value * self.from_factor / self.to_factor
    }
}

/// The unit of the numeric labels of key `key` that have no unit of their
/// own, as Go's `Profile.NumLabelUnits()` infers it.
pub fn default_label_unit(key: &str) -> &str {
    match key {
        "alignment" | "request" => "bytes",
        _ => key,
    }
}

#[cfg(test)]
mod tests;
