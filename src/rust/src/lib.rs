//! The R binding: thin functions that move columns between R and `profile_core`.
//!
//! Every function registered with R but `ffi_profile_schema()` (made of
//! constants, it cannot fail) returns an envelope (see [`envelope`]), never an
//! error or a panic through extendr. The modules, each depending only on those
//! before it (see `dev/ARCHITECTURE.md`; `dev/rust-layers.R` checks that no two
//! use each other): `rapi` (R's C API), `envelope`, `compact` (compact
//! columns), `text` (strings from R), `args`, `bundle` (profiles across the
//! boundary), `files` (the read and write of a file that the formats' modules
//! share), then one module per core module: `summary`, `folded`, `rprof`,
//! `pprof`, `otlp`, `combine`, `verbs`, `view` (the browser view and speedscope
//! files); `record` (whether a profiler runs), `waits` (the recording process's
//! waits).

use extendr_api::prelude::*;
use profile_core::model::schema;

mod args;
mod bundle;
mod combine;
mod compact;
mod envelope;
mod files;
mod folded;
mod otlp;
mod pprof;
mod rapi;
mod record;
mod rprof;
mod rprofmem;
mod summary;
mod text;
mod verbs;
mod view;
mod waits;

use envelope::envelope;

/// The data rules of the v2 format, for the R wrapper (keys of the `dm`).
/// @noRd
#[extendr]
fn ffi_profile_schema() -> Robj {
    let pks_t: Vec<&str> = schema::PRIMARY_KEYS.iter().map(|(t, _)| *t).collect();
    let pks_c: Vec<&str> = schema::PRIMARY_KEYS.iter().map(|(_, c)| *c).collect();
    let fk_t: Vec<&str> = schema::FOREIGN_KEYS.iter().map(|k| k.table).collect();
    let fk_c: Vec<&str> = schema::FOREIGN_KEYS.iter().map(|k| k.column).collect();
    let fk_rt: Vec<&str> = schema::FOREIGN_KEYS.iter().map(|k| k.ref_table).collect();
    let fk_rc: Vec<&str> = schema::FOREIGN_KEYS.iter().map(|k| k.ref_column).collect();
    let empty = profile_core::Profile::default();
    let mut table_names = Vec::new();
    let mut columns = Vec::new();
    for (name, cols) in empty.tables() {
        table_names.push(name);
        let names: Vec<&str> = cols.iter().map(|(c, _)| *c).collect();
        let types: Vec<&str> = cols
            .iter()
            .map(|(_, c)| match c {
                profile_core::model::ColRef::Int(_) => "integer",
                profile_core::model::ColRef::Dbl(_) => "double",
                profile_core::model::ColRef::Chr(_) => "character",
                profile_core::model::ColRef::Lgl(_) => "logical",
            })
            .collect();
        let required = schema::required_column_count(name) as i32;
        columns.push(list!(name = names, col_type = types, required = required));
    }
    let mut column_list = List::from_values(columns);
    let _ = column_list.set_names(table_names.clone());
    list!(
        tables = table_names,
        required_tables = profile_core::model::REQUIRED_TABLES.to_vec(),
        columns = column_list,
        primary_keys = list!(table = pks_t, column = pks_c),
        not_na = column_list_of(schema::NOT_NA),
        positive = column_list_of(schema::POSITIVE),
        non_negative = column_list_of(schema::NON_NEGATIVE),
        foreign_keys = list!(
            table = fk_t,
            column = fk_c,
            ref_table = fk_rt,
            ref_column = fk_rc
        ),
        gauge_types = schema::GAUGE_TYPES.to_vec(),
        memory_types = schema::MEMORY_TYPES
            .iter()
            .map(|(t, _)| *t)
            .collect::<Vec<_>>(),
        top_level_name = profile_core::model::TOP_LEVEL_NAME,
        source_types = schema::SOURCE_TYPES.to_vec(),
        otlp_tables = profile_core::model::OTLP_TABLES.to_vec(),
        recording_tables = profile_core::model::RECORDING_TABLES.to_vec(),
        limits = limits(),
        rprof_warnings = rprof_warnings()
    )
    .into()
}

/// `(table, column)` pairs as `list(table = chr, column = chr)`: the columns
/// that have one of the content rules, for the checks that R runs as SQL in a
/// database (`R/db.R`).
fn column_list_of(columns: &[(&str, &str)]) -> Robj {
    let tables: Vec<&str> = columns.iter().map(|(t, _)| *t).collect();
    let names: Vec<&str> = columns.iter().map(|(_, c)| *c).collect();
    list!(table = tables, column = names).into()
}

/// The core's limits that the R side applies or documents (sizes in bytes, as
/// doubles: R integers stop at 2^31 - 1).
fn limits() -> Robj {
    use profile_core::formats::pprof;
    use profile_core::io::input;
    use profile_core::resources::limits;
    list!(
        max_size = limits::DEFAULT_MAX_BYTES as f64,
        max_memory = limits::DEFAULT_MAX_MEMORY as f64,
        sniff_bytes = input::SNIFF_BYTES as f64,
        eager_min_bytes = input::EAGER_MIN_BYTES as f64,
        eager_ratio = input::EAGER_RATIO as f64,
        max_stack_depth = limits::DEFAULT_MAX_STACK_DEPTH as f64,
        pprof_frames_per_byte = pprof::MAX_FRAMES_PER_BYTE as f64,
        pprof_min_max_frames = pprof::MIN_MAX_FRAMES as f64,
        pprof_max_values = pprof::MAX_VALUES as f64
    )
    .into()
}

/// The texts of the warnings of an Rprof read, named by their kind: R raises
/// each as a condition of class `profile_warning_<kind>` (R/rprof.R).
fn rprof_warnings() -> Robj {
    use profile_core::formats::rprof;
    list!(
        incomplete = rprof::WARN_INCOMPLETE,
        unexpected = rprof::WARN_UNEXPECTED,
        undefined_file = rprof::WARN_UNDEFINED_FILE
    )
    .into()
}

/// Validates the content of a v2 bundle (keys, NA, depths, version).
/// @noRd
#[extendr]
fn ffi_profile_validate_v2(bundle: Robj) -> Robj {
    envelope(|| {
        let p = bundle::profile_from_r(&bundle)?;
        profile_core::model::validate::validate(&p)?;
        Ok(Robj::from(true))
    })
}

/// Panics inside the envelope, with `message` as the panic message (tests show
/// that a panic in Rust becomes an R error of class `profile_error_internal`).
/// @noRd
#[extendr]
#[allow(
    clippy::panic,
    reason = "the panic is the point: tests show it is caught"
)]
fn ffi_profile_debug_panic(message: Robj) -> Robj {
    // The default hook would print the panic to standard error; this one is
    // expected. (R runs this on one thread, so swapping the hook is safe.)
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let result = envelope(|| {
        let message = args::optional_string(&message, "message")?.unwrap_or_default();
        if message.is_empty() {
            std::panic::panic_any(42_i32);
        }
        panic!("{message}")
    });
    std::panic::set_hook(hook);
    result
}

/// Returns the core's error for a state that cannot happen, with `message`
/// (tests show that it becomes an R error of class `profile_error_internal`).
/// @noRd
#[extendr]
fn ffi_profile_debug_internal(message: Robj) -> Robj {
    envelope(|| {
        let message = args::optional_string(&message, "message")?.unwrap_or_default();
        Err(profile_core::ProfileError::internal(message))
    })
}

/// A new double vector of `length` values (tests show that a vector R cannot
/// allocate is an error of class `profile_error_limit`, not R's own error
/// jumping over Rust's frames).
/// @noRd
#[extendr]
fn ffi_profile_debug_alloc(length: Robj) -> Robj {
    envelope(|| {
        let n = length
            .as_real()
            .filter(|x| x.is_finite() && *x >= 0.0)
            .ok_or_else(|| {
                profile_core::ProfileError::argument("`length` must be a non-negative number")
            })?;
        rapi::dbl_vector_of_length(n as usize)
    })
}

extendr_module! {
    mod profile;
    fn ffi_profile_schema;
    fn ffi_profile_debug_panic;
    fn ffi_profile_debug_internal;
    fn ffi_profile_debug_alloc;
    fn ffi_profile_validate_v2;
    use summary;
    use folded;
    use rprof;
    use rprofmem;
    use pprof;
    use otlp;
    use combine;
    use compact;
    use verbs;
    use view;
    use record;
    use waits;
}
