// R vectors allocated so that a failure comes back as R's NULL instead of an R
// error. R raises its "cannot allocate vector" error by longjmp, which must not
// cross the Rust frames that ask for a vector (src/rust/src/rapi.rs): Rust
// turns the NULL into an error of class profile_error_limit.
#include <R.h>
#include <Rinternals.h>

typedef struct {
    SEXPTYPE type;
    R_xlen_t length;
} request_t;

static SEXP allocate(void *data) {
    const request_t *r = (const request_t *) data;
    return Rf_allocVector(r->type, r->length);
}

static SEXP refuse(SEXP condition, void *data) {
    (void) condition;
    (void) data;
    return R_NilValue;
}

// A new vector of `type` and `length` (a double: lengths past 2^31), its
// values not written, or R_NilValue if R cannot allocate it. Not protected.
SEXP profile_try_alloc_vector(int type, double length) {
    request_t r = {(SEXPTYPE) type, (R_xlen_t) length};
    return R_tryCatchError(allocate, &r, refuse, NULL);
}
