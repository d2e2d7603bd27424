//! The envelope every function registered with R returns, so that no error and
//! no panic crosses into R through extendr's error path (which treats the
//! message as a printf format in extendr-api 0.9.0): `list(ok = TRUE, value =
//! ...)` or `list(ok = FALSE, kind = ..., message = ...)`, from which the R
//! wrapper (`rust_value()`) raises the classed condition.

use extendr_api::prelude::*;
use profile_core::ProfileError;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// Runs `body`, turning its error or panic into an error envelope.
pub(crate) fn envelope(body: impl FnOnce() -> Result<Robj, ProfileError>) -> Robj {
    let outcome = catch_unwind(AssertUnwindSafe(body));
    let (kind, message) = match outcome {
        Ok(Ok(value)) => return list!(ok = true, value = value).into(),
        Ok(Err(e)) => (e.kind().to_string(), e.to_string()),
        Err(panic) => {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".to_string());
            let e = ProfileError::internal(what);
            (e.kind().to_string(), e.to_string())
        }
    };
    let message = message.replace('\0', "<00>");
    list!(ok = false, kind = kind, message = message).into()
}
