//! Binding for the core's `pprof` module.

use extendr_api::prelude::*;

extendr_module! {
    mod pprof;
}
