//! The message as binary protobuf: the bytes prost's `encode_to_vec` writes,
//! with the length of each Profile computed once. prost computes the length
//! of a nested message at every level above it before it writes it, and a
//! Sample is four levels down (`ProfilesData`, `ResourceProfiles`,
//! `ScopeProfiles`, `Profile`): its length would be computed five times.

use crate::error::Result;
use crate::formats::otlp::proto;
use crate::resources::alloc::try_with_capacity;
use prost::encoding::WireType::LengthDelimited;
use prost::encoding::{bytes, encode_key, encode_varint, encoded_len_varint, key_len, message};
use prost::Message;

/// Length of a length-delimited field of tag `tag` whose content has `len` bytes.
fn field_len(tag: u32, len: usize) -> usize {
    key_len(tag) + encoded_len_varint(len as u64) + len
}

/// Key and length of a length-delimited field.
fn field_head(tag: u32, len: usize, buf: &mut Vec<u8>) {
    encode_key(tag, LengthDelimited, buf);
    encode_varint(len as u64, buf);
}

/// The lengths of the message's resources, scopes and Profiles, each list in
/// message order.
#[derive(Default)]
struct Lengths {
    resources: Vec<usize>,
    scopes: Vec<usize>,
    profiles: Vec<usize>,
}

impl Lengths {
    fn of(m: &proto::ProfilesData) -> Self {
        let mut n = Lengths::default();
        for rp in &m.resource_profiles {
            let mut rp_len = rp
                .resource
                .as_ref()
                .map_or(0, |r| message::encoded_len(1, r));
            for sp in &rp.scope_profiles {
                let mut sp_len = sp.scope.as_ref().map_or(0, |s| message::encoded_len(1, s));
                for p in &sp.profiles {
                    let len = p.encoded_len();
                    n.profiles.push(len);
                    sp_len += field_len(2, len);
                }
                if !sp.schema_url.is_empty() {
                    sp_len += bytes::encoded_len(3, &sp.schema_url);
                }
                n.scopes.push(sp_len);
                rp_len += field_len(2, sp_len);
            }
            if !rp.schema_url.is_empty() {
                rp_len += bytes::encoded_len(3, &rp.schema_url);
            }
            n.resources.push(rp_len);
        }
        n
    }
}

/// The message as binary protobuf, byte for byte what `encode_to_vec` gives
/// (a buffer the size of the file, asked for fallibly).
pub fn encode_message(m: &proto::ProfilesData) -> Result<Vec<u8>> {
    let n = Lengths::of(m);
    let dictionary_len = m
        .dictionary
        .as_ref()
        .map_or(0, |d| message::encoded_len(2, d));
    let total = n.resources.iter().map(|&l| field_len(1, l)).sum::<usize>() + dictionary_len;
    let mut buf = try_with_capacity(total, "the OTLP message")?;
    let (mut resources, mut scopes, mut profiles) =
        (n.resources.iter(), n.scopes.iter(), n.profiles.iter());
    for rp in &m.resource_profiles {
        field_head(1, resources.next().copied().unwrap_or(0), &mut buf);
        if let Some(r) = &rp.resource {
            message::encode(1, r, &mut buf);
        }
        for sp in &rp.scope_profiles {
            field_head(2, scopes.next().copied().unwrap_or(0), &mut buf);
            if let Some(s) = &sp.scope {
                message::encode(1, s, &mut buf);
            }
            for p in &sp.profiles {
                field_head(2, profiles.next().copied().unwrap_or(0), &mut buf);
                p.encode_raw(&mut buf);
            }
            if !sp.schema_url.is_empty() {
                bytes::encode(3, &sp.schema_url, &mut buf);
            }
        }
        if !rp.schema_url.is_empty() {
            bytes::encode(3, &rp.schema_url, &mut buf);
        }
    }
    if let Some(d) = &m.dictionary {
        message::encode(2, d, &mut buf);
    }
    Ok(buf)
}
