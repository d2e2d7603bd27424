//! OTLP/JSON written from the messages.

use crate::formats::otlp::{hex, proto};

#[derive(Default)]
pub(super) struct Writer {
    pub(super) out: String,
    /// Whether the object being written has a member already.
    first: Vec<bool>,
}

impl Writer {
    fn open(&mut self) {
        self.out.push('{');
        self.first.push(true);
    }

    fn close(&mut self) {
        self.out.push('}');
        self.first.pop();
    }

    fn key(&mut self, key: &str) {
        if let Some(first) = self.first.last_mut() {
            if !*first {
                self.out.push(',');
            }
            *first = false;
        }
        self.out.push('"');
        self.out.push_str(key);
        self.out.push_str("\":");
    }

    fn string(&mut self, key: &str, s: &[u8]) {
        if !s.is_empty() {
            self.key(key);
            crate::io::json::push_string(&mut self.out, &String::from_utf8_lossy(s));
        }
    }

    fn hex(&mut self, key: &str, b: &[u8]) {
        if !b.is_empty() {
            self.key(key);
            self.out.push('"');
            self.out.push_str(&hex(b));
            self.out.push('"');
        }
    }

    fn base64(&mut self, key: &str, b: &[u8]) {
        if !b.is_empty() {
            self.key(key);
            self.out.push('"');
            crate::io::json::push_base64(&mut self.out, b);
            self.out.push('"');
        }
    }

    fn int32(&mut self, key: &str, v: i64) {
        if v != 0 {
            self.key(key);
            self.out.push_str(itoa::Buffer::new().format(v));
        }
    }

    fn int64(&mut self, key: &str, v: i64) {
        if v != 0 {
            self.key(key);
            self.quoted(v);
        }
    }

    fn uint64(&mut self, key: &str, v: u64) {
        if v != 0 {
            self.key(key);
            self.out.push('"');
            self.out.push_str(itoa::Buffer::new().format(v));
            self.out.push('"');
        }
    }

    fn quoted(&mut self, v: i64) {
        self.out.push('"');
        self.out.push_str(itoa::Buffer::new().format(v));
        self.out.push('"');
    }

    fn int32s(&mut self, key: &str, v: &[i32]) {
        if !v.is_empty() {
            self.key(key);
            self.out.push('[');
            for (i, x) in v.iter().enumerate() {
                if i > 0 {
                    self.out.push(',');
                }
                self.out.push_str(itoa::Buffer::new().format(*x));
            }
            self.out.push(']');
        }
    }

    fn list<T>(&mut self, key: &str, items: &[T], mut each: impl FnMut(&mut Self, &T)) {
        if !items.is_empty() {
            self.key(key);
            self.out.push('[');
            for (i, x) in items.iter().enumerate() {
                if i > 0 {
                    self.out.push(',');
                }
                each(self, x);
            }
            self.out.push(']');
        }
    }

    fn message<T>(&mut self, key: &str, m: &Option<T>, each: impl FnOnce(&mut Self, &T)) {
        if let Some(m) = m {
            self.key(key);
            each(self, m);
        }
    }

    pub(super) fn profiles_data(&mut self, m: &proto::ProfilesData) {
        self.open();
        self.list(
            "resourceProfiles",
            &m.resource_profiles,
            Self::resource_profiles,
        );
        self.message("dictionary", &m.dictionary, Self::dictionary);
        self.close();
    }

    fn dictionary(&mut self, d: &proto::ProfilesDictionary) {
        self.open();
        self.list("mappingTable", &d.mapping_table, |w, m| {
            w.open();
            w.uint64("memoryStart", m.memory_start);
            w.uint64("memoryLimit", m.memory_limit);
            w.uint64("fileOffset", m.file_offset);
            w.int32("filenameStrindex", m.filename_strindex.into());
            w.int32s("attributeIndices", &m.attribute_indices);
            w.close();
        });
        self.list("locationTable", &d.location_table, |w, l| {
            w.open();
            w.int32("mappingIndex", l.mapping_index.into());
            w.uint64("address", l.address);
            w.list("lines", &l.lines, |w, line| {
                w.open();
                w.int32("functionIndex", line.function_index.into());
                w.int64("line", line.line);
                w.int64("column", line.column);
                w.close();
            });
            w.int32s("attributeIndices", &l.attribute_indices);
            w.close();
        });
        self.list("functionTable", &d.function_table, |w, f| {
            w.open();
            w.int32("nameStrindex", f.name_strindex.into());
            w.int32("systemNameStrindex", f.system_name_strindex.into());
            w.int32("filenameStrindex", f.filename_strindex.into());
            w.int64("startLine", f.start_line);
            w.close();
        });
        self.list("linkTable", &d.link_table, |w, l| {
            w.open();
            w.hex("traceId", &l.trace_id);
            w.hex("spanId", &l.span_id);
            w.close();
        });
        self.list("stringTable", &d.string_table, |w, s| {
            crate::io::json::push_string(&mut w.out, &String::from_utf8_lossy(s));
        });
        self.list("attributeTable", &d.attribute_table, |w, a| {
            w.open();
            w.int32("keyStrindex", a.key_strindex.into());
            w.message("value", &a.value, Self::any_value);
            w.int32("unitStrindex", a.unit_strindex.into());
            w.close();
        });
        self.list("stackTable", &d.stack_table, |w, s| {
            w.open();
            w.int32s("locationIndices", &s.location_indices);
            w.close();
        });
        self.close();
    }

    fn resource_profiles(&mut self, r: &proto::ResourceProfiles) {
        self.open();
        self.message("resource", &r.resource, |w, res| {
            w.open();
            w.list("attributes", &res.attributes, Self::key_value);
            w.int32(
                "droppedAttributesCount",
                res.dropped_attributes_count.into(),
            );
            w.list("entityRefs", &res.entity_refs, Self::entity_ref);
            w.close();
        });
        self.list("scopeProfiles", &r.scope_profiles, |w, s| {
            w.open();
            w.message("scope", &s.scope, |w, scope| {
                w.open();
                w.string("name", &scope.name);
                w.string("version", &scope.version);
                w.list("attributes", &scope.attributes, Self::key_value);
                w.int32(
                    "droppedAttributesCount",
                    scope.dropped_attributes_count.into(),
                );
                w.close();
            });
            w.list("profiles", &s.profiles, Self::profile);
            w.string("schemaUrl", &s.schema_url);
            w.close();
        });
        self.string("schemaUrl", &r.schema_url);
        self.close();
    }

    pub(super) fn entity_ref(&mut self, e: &proto::EntityRef) {
        self.open();
        self.string("schemaUrl", &e.schema_url);
        self.string("type", &e.r#type);
        for (key, list) in [
            ("idKeys", &e.id_keys),
            ("descriptionKeys", &e.description_keys),
        ] {
            self.list(key, list, |w, k| {
                crate::io::json::push_string(&mut w.out, &String::from_utf8_lossy(k));
            });
        }
        self.close();
    }

    fn value_type(&mut self, v: &proto::ValueType) {
        self.open();
        self.int32("typeStrindex", v.type_strindex.into());
        self.int32("unitStrindex", v.unit_strindex.into());
        self.close();
    }

    fn profile(&mut self, p: &proto::Profile) {
        self.open();
        self.message("sampleType", &p.sample_type, Self::value_type);
        self.list("samples", &p.samples, |w, s| {
            w.open();
            w.int32("stackIndex", s.stack_index.into());
            w.int32s("attributeIndices", &s.attribute_indices);
            w.int32("linkIndex", s.link_index.into());
            w.list("values", &s.values, |w, v| w.quoted(*v));
            w.list("timestampsUnixNano", &s.timestamps_unix_nano, |w, t| {
                w.out.push('"');
                w.out.push_str(itoa::Buffer::new().format(*t));
                w.out.push('"');
            });
            w.close();
        });
        self.uint64("timeUnixNano", p.time_unix_nano);
        self.uint64("durationNano", p.duration_nano);
        self.message("periodType", &p.period_type, Self::value_type);
        self.int64("period", p.period);
        self.hex("profileId", &p.profile_id);
        self.int32("droppedAttributesCount", p.dropped_attributes_count.into());
        self.string("originalPayloadFormat", &p.original_payload_format);
        self.base64("originalPayload", &p.original_payload);
        self.int32s("attributeIndices", &p.attribute_indices);
        self.close();
    }

    fn key_value(&mut self, kv: &proto::KeyValue) {
        self.open();
        self.string("key", &kv.key);
        self.message("value", &kv.value, Self::any_value);
        self.int32("keyStrindex", kv.key_strindex.into());
        self.close();
    }

    pub(super) fn any_value(&mut self, v: &proto::AnyValue) {
        use proto::any_value::Value;
        self.open();
        match &v.value {
            None => {}
            Some(Value::StringValue(s)) => {
                self.key("stringValue");
                crate::io::json::push_string(&mut self.out, &String::from_utf8_lossy(s));
            }
            Some(Value::BoolValue(b)) => {
                self.key("boolValue");
                self.out.push_str(if *b { "true" } else { "false" });
            }
            Some(Value::IntValue(i)) => {
                self.key("intValue");
                self.quoted(*i);
            }
            Some(Value::DoubleValue(d)) => {
                self.key("doubleValue");
                if d.is_nan() {
                    self.out.push_str("\"NaN\"");
                } else if d.is_infinite() {
                    self.out.push_str(if *d > 0.0 {
                        "\"Infinity\""
                    } else {
                        "\"-Infinity\""
                    });
                } else {
                    self.out.push_str(ryu::Buffer::new().format_finite(*d));
                }
            }
            Some(Value::ArrayValue(a)) => {
                self.key("arrayValue");
                self.open();
                self.list("values", &a.values, Self::any_value);
                self.close();
            }
            Some(Value::KvlistValue(l)) => {
                self.key("kvlistValue");
                self.open();
                self.list("values", &l.values, Self::key_value);
                self.close();
            }
            Some(Value::BytesValue(b)) => {
                self.key("bytesValue");
                self.out.push('"');
                crate::io::json::push_base64(&mut self.out, b);
                self.out.push('"');
            }
            Some(Value::StringValueStrindex(i)) => {
                self.key("stringValueStrindex");
                self.out.push_str(itoa::Buffer::new().format(*i));
            }
        }
        self.close();
    }
}
