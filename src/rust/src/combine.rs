//! Binding for the core's `combine` module.

use extendr_api::prelude::*;

extendr_module! {
    mod combine;
}
