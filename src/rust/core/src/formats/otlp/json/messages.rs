//! The messages of OTLP/JSON: each object's members by their names,
//! lowerCamelCase or snake_case.

use super::parse::Parser;
use crate::formats::otlp::proto;
use crate::io::wire::Decoded;

impl Parser<'_, '_, '_> {
    pub(super) fn profiles_data(&mut self) -> Decoded<proto::ProfilesData> {
        let mut m = proto::ProfilesData::default();
        let mut dictionaries = 0;
        self.object("ProfilesData", |p, k| {
            if k.is("resourceprofiles") {
                p.list(&mut m.resource_profiles, "ProfilesData", |p| {
                    p.resource_profiles()
                })?;
            } else if k.is("dictionary") {
                dictionaries += 1;
                m.dictionary = Some(p.dictionary()?);
            } else {
                let data = p.data;
                p.traces
                    .other_member(data.get(k.raw.clone()).unwrap_or_default());
                return Ok(false);
            }
            p.traces.profiles_member = true;
            Ok(true)
        })?;
        if dictionaries > 1 {
            return Err(self.defect("a message has two dictionaries"));
        }
        Ok(m)
    }

    pub(super) fn dictionary(&mut self) -> Decoded<proto::ProfilesDictionary> {
        let mut d = proto::ProfilesDictionary::default();
        let what = "ProfilesDictionary";
        self.object(what, |p, k| {
            if k.is("mappingtable") {
                p.list(&mut d.mapping_table, what, Self::mapping)?;
            } else if k.is("locationtable") {
                p.list(&mut d.location_table, what, Self::location)?;
            } else if k.is("functiontable") {
                p.list(&mut d.function_table, what, Self::function)?;
            } else if k.is("linktable") {
                p.list(&mut d.link_table, what, Self::link)?;
            } else if k.is("stringtable") {
                p.list(&mut d.string_table, what, Self::string)?;
            } else if k.is("attributetable") {
                p.list(&mut d.attribute_table, what, Self::key_value_and_unit)?;
            } else if k.is("stacktable") {
                p.list(&mut d.stack_table, what, |p| {
                    let mut s = proto::Stack::default();
                    p.object("Stack", |p, k| {
                        if k.is("locationindices") {
                            p.int32s(&mut s.location_indices, "Stack.location_indices")?;
                            return Ok(true);
                        }
                        Ok(false)
                    })?;
                    Ok(s)
                })?;
            } else {
                return Ok(false);
            }
            Ok(true)
        })?;
        Ok(d)
    }

    pub(super) fn mapping(&mut self) -> Decoded<proto::Mapping> {
        let mut m = proto::Mapping::default();
        self.object("Mapping", |p, k| {
            if k.is("memorystart") {
                m.memory_start = p.uint64("Mapping.memory_start")?;
            } else if k.is("memorylimit") {
                m.memory_limit = p.uint64("Mapping.memory_limit")?;
            } else if k.is("fileoffset") {
                m.file_offset = p.uint64("Mapping.file_offset")?;
            } else if k.is("filenamestrindex") {
                m.filename_strindex = p.int32("Mapping.filename_strindex")?;
            } else if k.is("attributeindices") {
                p.int32s(&mut m.attribute_indices, "Mapping.attribute_indices")?;
            } else {
                return Ok(false);
            }
            Ok(true)
        })?;
        Ok(m)
    }

    pub(super) fn location(&mut self) -> Decoded<proto::Location> {
        let mut l = proto::Location::default();
        self.object("Location", |p, k| {
            if k.is("mappingindex") {
                l.mapping_index = p.int32("Location.mapping_index")?;
            } else if k.is("address") {
                l.address = p.uint64("Location.address")?;
            } else if k.is("lines") {
                p.list(&mut l.lines, "Location", |p| {
                    let mut line = proto::Line::default();
                    p.object("Line", |p, k| {
                        if k.is("functionindex") {
                            line.function_index = p.int32("Line.function_index")?;
                        } else if k.is("line") {
                            line.line = p.int64("Line.line")?;
                        } else if k.is("column") {
                            line.column = p.int64("Line.column")?;
                        } else {
                            return Ok(false);
                        }
                        Ok(true)
                    })?;
                    Ok(line)
                })?;
            } else if k.is("attributeindices") {
                p.int32s(&mut l.attribute_indices, "Location.attribute_indices")?;
            } else {
                return Ok(false);
            }
            Ok(true)
        })?;
        Ok(l)
    }

    pub(super) fn function(&mut self) -> Decoded<proto::Function> {
        let mut f = proto::Function::default();
        self.object("Function", |p, k| {
            if k.is("namestrindex") {
                f.name_strindex = p.int32("Function.name_strindex")?;
            } else if k.is("systemnamestrindex") {
                f.system_name_strindex = p.int32("Function.system_name_strindex")?;
            } else if k.is("filenamestrindex") {
                f.filename_strindex = p.int32("Function.filename_strindex")?;
            } else if k.is("startline") {
                f.start_line = p.int64("Function.start_line")?;
            } else {
                return Ok(false);
            }
            Ok(true)
        })?;
        Ok(f)
    }

    pub(super) fn link(&mut self) -> Decoded<proto::Link> {
        let mut l = proto::Link::default();
        self.object("Link", |p, k| {
            if k.is("traceid") {
                l.trace_id = p.id(16)?;
            } else if k.is("spanid") {
                l.span_id = p.id(8)?;
            } else {
                return Ok(false);
            }
            Ok(true)
        })?;
        Ok(l)
    }

    pub(super) fn key_value_and_unit(&mut self) -> Decoded<proto::KeyValueAndUnit> {
        let mut a = proto::KeyValueAndUnit::default();
        self.object("KeyValueAndUnit", |p, k| {
            if k.is("keystrindex") {
                a.key_strindex = p.int32("KeyValueAndUnit.key_strindex")?;
            } else if k.is("value") {
                a.value = Some(p.any_value()?);
            } else if k.is("unitstrindex") {
                a.unit_strindex = p.int32("KeyValueAndUnit.unit_strindex")?;
            } else {
                return Ok(false);
            }
            Ok(true)
        })?;
        Ok(a)
    }

    pub(super) fn resource_profiles(&mut self) -> Decoded<proto::ResourceProfiles> {
        let mut r = proto::ResourceProfiles::default();
        self.object("ResourceProfiles", |p, k| {
            if k.is("resource") {
                let mut res = proto::Resource::default();
                p.object("Resource", |p, k| {
                    if k.is("attributes") {
                        p.list(&mut res.attributes, "Resource", Self::key_value)?;
                    } else if k.is("droppedattributescount") {
                        res.dropped_attributes_count =
                            p.uint32("Resource.dropped_attributes_count")?;
                    } else if k.is("entityrefs") {
                        p.list(&mut res.entity_refs, "Resource", Self::entity_ref)?;
                    } else {
                        return Ok(false);
                    }
                    Ok(true)
                })?;
                r.resource = Some(res);
            } else if k.is("scopeprofiles") {
                p.list(
                    &mut r.scope_profiles,
                    "ResourceProfiles",
                    Self::scope_profiles,
                )?;
            } else if k.is("schemaurl") {
                r.schema_url = p.string()?;
            } else {
                return Ok(false);
            }
            Ok(true)
        })?;
        Ok(r)
    }

    pub(super) fn entity_ref(&mut self) -> Decoded<proto::EntityRef> {
        let mut e = proto::EntityRef::default();
        self.object("EntityRef", |p, k| {
            if k.is("schemaurl") {
                e.schema_url = p.string()?;
            } else if k.is("type") {
                e.r#type = p.string()?;
            } else if k.is("idkeys") {
                p.list(&mut e.id_keys, "EntityRef", Self::string)?;
            } else if k.is("descriptionkeys") {
                p.list(&mut e.description_keys, "EntityRef", Self::string)?;
            } else {
                return Ok(false);
            }
            Ok(true)
        })?;
        Ok(e)
    }

    pub(super) fn scope_profiles(&mut self) -> Decoded<proto::ScopeProfiles> {
        let mut s = proto::ScopeProfiles::default();
        self.object("ScopeProfiles", |p, k| {
            if k.is("scope") {
                let mut scope = proto::InstrumentationScope::default();
                p.object("InstrumentationScope", |p, k| {
                    if k.is("name") {
                        scope.name = p.string()?;
                    } else if k.is("version") {
                        scope.version = p.string()?;
                    } else if k.is("attributes") {
                        p.list(
                            &mut scope.attributes,
                            "InstrumentationScope",
                            Self::key_value,
                        )?;
                    } else if k.is("droppedattributescount") {
                        scope.dropped_attributes_count =
                            p.uint32("InstrumentationScope.dropped_attributes_count")?;
                    } else {
                        return Ok(false);
                    }
                    Ok(true)
                })?;
                s.scope = Some(scope);
            } else if k.is("profiles") {
                p.list(&mut s.profiles, "ScopeProfiles", Self::profile)?;
            } else if k.is("schemaurl") {
                s.schema_url = p.string()?;
            } else {
                return Ok(false);
            }
            Ok(true)
        })?;
        Ok(s)
    }

    pub(super) fn value_type(&mut self) -> Decoded<proto::ValueType> {
        let mut v = proto::ValueType::default();
        self.object("ValueType", |p, k| {
            if k.is("typestrindex") {
                v.type_strindex = p.int32("ValueType.type_strindex")?;
            } else if k.is("unitstrindex") {
                v.unit_strindex = p.int32("ValueType.unit_strindex")?;
            } else {
                return Ok(false);
            }
            Ok(true)
        })?;
        Ok(v)
    }

    pub(super) fn profile(&mut self) -> Decoded<proto::Profile> {
        let mut m = proto::Profile::default();
        self.object("Profile", |p, k| {
            if k.is("sampletype") {
                if p.peek() == Some(b'[') {
                    // Up to v1.7, a list of sample types.
                    if p.traces.draft.is_none() {
                        p.traces.draft =
                            Some(("v1.7 or older (a list of sample types per Profile)", p.pos));
                    }
                    return Ok(false);
                }
                m.sample_type = Some(p.value_type()?);
            } else if k.is("samples") {
                p.list(&mut m.samples, "Profile", Self::sample)?;
            } else if k.is("timeunixnano") {
                m.time_unix_nano = p.uint64("Profile.time_unix_nano")?;
            } else if k.is("durationnano") {
                m.duration_nano = p.uint64("Profile.duration_nano")?;
            } else if k.is("periodtype") {
                m.period_type = Some(p.value_type()?);
            } else if k.is("period") {
                m.period = p.int64("Profile.period")?;
            } else if k.is("profileid") {
                m.profile_id = p.id(0)?;
            } else if k.is("droppedattributescount") {
                m.dropped_attributes_count = p.uint32("Profile.dropped_attributes_count")?;
            } else if k.is("originalpayloadformat") {
                m.original_payload_format = p.string()?;
            } else if k.is("originalpayload") {
                m.original_payload = p.base64()?;
            } else if k.is("attributeindices") {
                p.int32s(&mut m.attribute_indices, "Profile.attribute_indices")?;
            } else {
                return Ok(false);
            }
            Ok(true)
        })?;
        Ok(m)
    }

    pub(super) fn sample(&mut self) -> Decoded<proto::Sample> {
        let mut s = proto::Sample::default();
        self.object("Sample", |p, k| {
            if k.is("stackindex") {
                s.stack_index = p.int32("Sample.stack_index")?;
            } else if k.is("attributeindices") {
                p.int32s(&mut s.attribute_indices, "Sample.attribute_indices")?;
            } else if k.is("linkindex") {
                s.link_index = p.int32("Sample.link_index")?;
            } else if k.is("values") {
                p.list(&mut s.values, "Sample", |p| p.int64("Sample.values"))?;
            } else if k.is("timestampsunixnano") {
                p.list(&mut s.timestamps_unix_nano, "Sample", |p| {
                    p.uint64("Sample.timestamps_unix_nano")
                })?;
            } else {
                return Ok(false);
            }
            Ok(true)
        })?;
        Ok(s)
    }

    pub(super) fn key_value(&mut self) -> Decoded<proto::KeyValue> {
        let mut kv = proto::KeyValue::default();
        self.object("KeyValue", |p, k| {
            if k.is("key") {
                kv.key = p.string()?;
            } else if k.is("value") {
                kv.value = Some(p.any_value()?);
            } else if k.is("keystrindex") {
                kv.key_strindex = p.int32("KeyValue.key_strindex")?;
            } else {
                return Ok(false);
            }
            Ok(true)
        })?;
        Ok(kv)
    }

    pub(super) fn any_value(&mut self) -> Decoded<proto::AnyValue> {
        use proto::any_value::Value;
        let mut v = proto::AnyValue::default();
        self.object("AnyValue", |p, k| {
            let value = if k.is("stringvalue") {
                Value::StringValue(p.string()?)
            } else if k.is("boolvalue") {
                Value::BoolValue(p.boolean()?)
            } else if k.is("intvalue") {
                Value::IntValue(p.int64("AnyValue.int_value")?)
            } else if k.is("doublevalue") {
                Value::DoubleValue(p.double()?)
            } else if k.is("arrayvalue") {
                let mut a = proto::ArrayValue::default();
                p.object("ArrayValue", |p, k| {
                    if k.is("values") {
                        p.list(&mut a.values, "ArrayValue", Self::any_value)?;
                        return Ok(true);
                    }
                    Ok(false)
                })?;
                Value::ArrayValue(a)
            } else if k.is("kvlistvalue") {
                let mut l = proto::KeyValueList::default();
                p.object("KeyValueList", |p, k| {
                    if k.is("values") {
                        p.list(&mut l.values, "KeyValueList", Self::key_value)?;
                        return Ok(true);
                    }
                    Ok(false)
                })?;
                Value::KvlistValue(l)
            } else if k.is("bytesvalue") {
                Value::BytesValue(p.base64()?)
            } else if k.is("stringvaluestrindex") {
                Value::StringValueStrindex(p.int32("AnyValue.string_value_strindex")?)
            } else {
                return Ok(false);
            };
            v.value = Some(value);
            Ok(true)
        })?;
        Ok(v)
    }
}
