//! Operations on profiles, from the model to the model or to what a user
//! looks at: combining ([`combine`]), the verbs ([`verbs`]), summaries, call
//! trees and flame graphs ([`summary`]), and every sample with its values of
//! several types in display order ([`sample_set`]).

pub mod combine;
pub mod sample_set;
pub mod summary;
pub mod verbs;
