//! The traces older drafts of the signal leave in a message (see the
//! module documentation of `decode`).

use super::OTLP;
use crate::io::wire::{Fields, FIXED64, LENGTH_DELIMITED, VARINT};

/// Traces of older drafts of the signal met while decoding (see the module
/// documentation). Each is the offset where it was first seen.
#[derive(Debug, Default, Clone)]
pub(crate) struct Traces {
    /// v1.3: `ProfileContainer` (its start time, fixed64, at field 2) where
    /// `Profile` is now.
    container: Option<usize>,
    /// `Profile` field 8 holding bytes: v1.3's pprofextended `Profile` in its
    /// container (a message without a dictionary) or v1.8's `profile_id`.
    field8_bytes: Option<usize>,
    /// `ProfilesData` fields beyond 2 (v1.6: the lookup tables), or 2 of
    /// the wrong kind.
    tables_in_profiles_data: Option<usize>,
    /// `Profile` fields 3 to 6 holding lists or tables (v1.4 to v1.7: lookup
    /// tables in the Profile, `location_indices`).
    tables_in_profile: Option<usize>,
    /// Attribute table entries with a string key (v1.6, v1.7: `KeyValue`).
    string_keyed_attributes: Option<usize>,
    /// `ValueType.aggregation_temporality` (field 3, up to v1.8).
    aggregation_temporality: Option<usize>,
    /// v1.8 `Profile` fields: `profile_id` at 8, `dropped_attributes_count`
    /// at 9, `attribute_indices` at 12.
    profile_v18: Option<usize>,
    /// v1.8/v1.9 `Sample`: attribute indices (a list) at field 3, values at 2.
    sample_v18: Option<usize>,
    /// `Sample` fields beyond 5 (v1.4 to v1.7: timestamps at 6).
    sample_v17: Option<usize>,
    /// `Sample` field 4 as one varint (a v1.8/v1.9 `link_index`; a current
    /// writer packs its values).
    pub(crate) sample_unpacked_value: Option<usize>,
    /// Whether the message has a dictionary.
    pub(crate) dictionary: bool,
}

impl Traces {
    /// The draft the traces point to, if any, and where it shows.
    pub(crate) fn draft(&self) -> Option<(&'static str, usize)> {
        let container = self
            .container
            .or(self.field8_bytes.filter(|_| !self.dictionary));
        if let Some(at) = container {
            return Some((
                "v1.3 (`v1experimental`: a ProfileContainer around a pprofextended Profile)",
                at,
            ));
        }
        if let Some(at) = self.tables_in_profiles_data {
            return Some((
                "v1.6 (lookup tables as fields of ProfilesData, samples with location ranges)",
                at,
            ));
        }
        if let Some(at) = self.string_keyed_attributes {
            return Some((
                "v1.7 (a ProfilesDictionary with attribute tables of KeyValue, samples with \
                 location ranges)",
                at,
            ));
        }
        if let Some(at) = self.tables_in_profile {
            return Some(if self.dictionary {
                (
                    "v1.7 (ProfilesDictionary without stack_table, samples with location ranges)",
                    at,
                )
            } else {
                (
                    "v1.4/v1.5 (lookup tables inside each Profile, samples with location ranges)",
                    at,
                )
            });
        }
        if let Some(at) = self.sample_v17 {
            return Some(("v1.4 to v1.7 (samples with location ranges)", at));
        }
        let v18 = self
            .aggregation_temporality
            .or(self.profile_v18)
            .or(self.field8_bytes);
        if let Some(at) = v18 {
            return Some((
                "v1.8 (ValueType with aggregation_temporality; Sample values at field 2, \
                 attribute_indices at 3, link_index at 4)",
                at,
            ));
        }
        if let Some(at) = self.sample_v18 {
            return Some((
                "v1.8/v1.9 (Sample values at field 2, attribute_indices at 3, link_index at 4)",
                at,
            ));
        }
        None
    }
}

fn note(trace: &mut Option<usize>, at: usize) {
    trace.get_or_insert(at);
}

impl Traces {
    /// Notes what field `number` of wire type `wire_type` at `at` in a
    /// message `message` tells of the drafts; true if it is a trace of one.
    pub(super) fn observe(
        &mut self,
        message: &str,
        number: u64,
        wire_type: u64,
        at: usize,
    ) -> bool {
        let trace = match (message, number, wire_type) {
            ("ProfilesData", 2, LENGTH_DELIMITED) => {
                self.dictionary = true;
                return false;
            }
            ("ProfilesData", 1, LENGTH_DELIMITED) => return false,
            ("ProfilesData", 1 | 2, _) | ("ProfilesData", 3..=8, _) => {
                &mut self.tables_in_profiles_data
            }
            ("Profile", 2, FIXED64) => &mut self.container,
            ("Profile", 8, LENGTH_DELIMITED) => &mut self.field8_bytes,
            ("Profile", 3 | 4 | 6, LENGTH_DELIMITED) | ("Profile", 15.., _) => {
                &mut self.tables_in_profile
            }
            ("Profile", 9, VARINT) | ("Profile", 12..=14, _) => &mut self.profile_v18,
            ("ValueType", 3, _) => &mut self.aggregation_temporality,
            ("Sample", 3, LENGTH_DELIMITED) => &mut self.sample_v18,
            ("Sample", 4, VARINT) => &mut self.sample_unpacked_value,
            ("Sample", 6.., _) => &mut self.sample_v17,
            ("KeyValueAndUnit", 1, LENGTH_DELIMITED) => &mut self.string_keyed_attributes,
            _ => return false,
        };
        note(trace, at);
        true
    }

    /// Whether any trace of a draft was seen.
    pub(crate) fn any(&self) -> bool {
        self.draft().is_some() || self.sample_unpacked_value.is_some()
    }
}

/// The traces of drafts in the whole message `data`, walked leniently (a
/// defect ends the walk of its message only), so that they are all known
/// when one is found, whatever the decoder met first.
pub(crate) fn scan(data: &[u8]) -> Traces {
    let mut traces = Traces::default();
    scan_message(&mut traces, data, "ProfilesData");
    traces
}

fn scan_message(traces: &mut Traces, data: &[u8], message: &'static str) {
    let mut fields = Fields::new(data, 0, message, &OTLP);
    while let Ok(Some(f)) = fields.next_field() {
        traces.observe(message, f.number, f.wire_type, f.at);
        let inner = match (message, f.number) {
            ("ProfilesData", 1) => "ResourceProfiles",
            ("ProfilesData", 2) => "ProfilesDictionary",
            ("ResourceProfiles", 2) => "ScopeProfiles",
            ("ScopeProfiles", 2) => "Profile",
            ("Profile", 1 | 5) => "ValueType",
            ("Profile", 2) => "Sample",
            ("ProfilesDictionary", 6) => "KeyValueAndUnit",
            _ => continue,
        };
        if let Ok((content, _)) = f.bytes() {
            scan_message(traces, content, inner);
        }
    }
}
