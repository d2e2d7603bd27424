//! Binding for the core's `rprof` module.

use extendr_api::prelude::*;

extendr_module! {
    mod rprof;
}
