//! The dictionary being written: each string, attribute, stack and link once.

use super::index;
use crate::error::Result;
use crate::formats::otlp::proto;
use prost::Message;
use rustc_hash::FxHashMap;

/// The dictionary being built.
pub(super) struct Dictionary {
    pub(super) d: proto::ProfilesDictionary,
    strings: FxHashMap<String, i32>,
    attributes: FxHashMap<(i32, i32, Vec<u8>), i32>,
    stacks: FxHashMap<Vec<i32>, i32>,
    links: FxHashMap<(Vec<u8>, Vec<u8>), i32>,
}

impl Dictionary {
    pub(super) fn new() -> Self {
        let zero_link = proto::Link {
            trace_id: vec![0; 16],
            span_id: vec![0; 8],
        };
        let mut d = Dictionary {
            d: proto::ProfilesDictionary {
                mapping_table: vec![proto::Mapping::default()],
                location_table: vec![proto::Location::default()],
                function_table: vec![proto::Function::default()],
                link_table: vec![zero_link],
                string_table: vec![Vec::new()],
                attribute_table: vec![proto::KeyValueAndUnit::default()],
                stack_table: vec![proto::Stack::default()],
            },
            strings: FxHashMap::default(),
            attributes: FxHashMap::default(),
            stacks: FxHashMap::default(),
            links: FxHashMap::default(),
        };
        d.strings.insert(String::new(), 0);
        d.attributes.insert((0, 0, Vec::new()), 0);
        d.stacks.insert(Vec::new(), 0);
        d
    }

    pub(super) fn string(&mut self, s: &str) -> Result<i32> {
        if let Some(&i) = self.strings.get(s) {
            return Ok(i);
        }
        let i = index(self.d.string_table.len(), "string table")?;
        self.d.string_table.push(s.as_bytes().to_vec());
        self.strings.insert(s.to_string(), i);
        Ok(i)
    }

    pub(super) fn attribute(
        &mut self,
        key: &str,
        value: proto::AnyValue,
        unit: &str,
    ) -> Result<i32> {
        let key = self.string(key)?;
        let unit = if unit.is_empty() {
            0
        } else {
            self.string(unit)?
        };
        let encoded = if value.value.is_none() {
            Vec::new()
        } else {
            value.encode_to_vec()
        };
        let k = (key, unit, encoded);
        if let Some(&i) = self.attributes.get(&k) {
            return Ok(i);
        }
        let i = index(self.d.attribute_table.len(), "attribute table")?;
        self.d.attribute_table.push(proto::KeyValueAndUnit {
            key_strindex: key,
            value: Some(value),
            unit_strindex: unit,
        });
        self.attributes.insert(k, i);
        Ok(i)
    }

    pub(super) fn string_attribute(&mut self, key: &str, value: &str) -> Result<i32> {
        let v = proto::AnyValue {
            value: Some(proto::any_value::Value::StringValue(
                value.as_bytes().to_vec(),
            )),
        };
        self.attribute(key, v, "")
    }

    pub(super) fn bool_attribute(&mut self, key: &str, value: bool) -> Result<i32> {
        let v = proto::AnyValue {
            value: Some(proto::any_value::Value::BoolValue(value)),
        };
        self.attribute(key, v, "")
    }

    pub(super) fn stack(&mut self, locations: Vec<i32>) -> Result<i32> {
        if let Some(&i) = self.stacks.get(&locations) {
            return Ok(i);
        }
        let i = index(self.d.stack_table.len(), "stack table")?;
        self.d.stack_table.push(proto::Stack {
            location_indices: locations.clone(),
        });
        self.stacks.insert(locations, i);
        Ok(i)
    }

    pub(super) fn link(&mut self, trace: Vec<u8>, span: Vec<u8>) -> Result<i32> {
        let k = (trace, span);
        if let Some(&i) = self.links.get(&k) {
            return Ok(i);
        }
        let i = index(self.d.link_table.len(), "link table")?;
        self.d.link_table.push(proto::Link {
            trace_id: k.0.clone(),
            span_id: k.1.clone(),
        });
        self.links.insert(k, i);
        Ok(i)
    }
}
