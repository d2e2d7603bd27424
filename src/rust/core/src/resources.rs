//! What a read may use of the machine, and how it asks: the limits of a read
//! ([`limits`]), the memory budget charged before each allocation the input
//! decides ([`budget`]), allocations that fail instead of aborting
//! ([`alloc`]), huge pages and the address space left ([`memory`]), threads
//! ([`threads`]). The lowest layer: it knows no profile and no format.

pub(crate) mod alloc;
pub mod budget;
pub mod limits;
pub mod memory;
pub(crate) mod threads;
