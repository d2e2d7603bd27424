// R vectors allocated so that a failure comes back as R's NULL instead of an R
// error. R raises its "cannot allocate vector" error by longjmp, which must not
// cross the Rust frames that ask for a vector (src/rust/src/rapi.rs): Rust
// turns the NULL into an error of class profile_error_limit.
#include <R.h>
#include <Rinternals.h>

typedef struct {
    SEXPTYPE type;
    R_xlen_t length;
    SEXP result;
} request_t;

static SEXP allocate(void *data) {
    const request_t *r = (const request_t *) data;
    return Rf_allocVector(r->type, r->length);
}

static void allocate_into(void *data) {
    request_t *r = (request_t *) data;
    r->result = Rf_allocVector(r->type, r->length);
}

static SEXP refuse(SEXP condition, void *data) {
    (void) condition;
    (void) data;
    return R_NilValue;
}

// Vectors shorter than this are allocated under R_ToplevelExec(), which stops
// R's error at little cost but lets R print it; longer ones under
// R_tryCatchError(), which evaluates R's tryCatch() (tens of microseconds, as
// much as copying a column of thousands of values) and keeps the error quiet.
// Only a long vector fails for its own size; a short one fails only when the
// process has no memory left at all, which the read's budget keeps away.
#define SHORT_VECTOR_LENGTH 65536

// A new vector of `type` and `length` (a double: lengths past 2^31), its
// values not written, or R_NilValue if R cannot allocate it. Not protected.
SEXP profile_try_alloc_vector(int type, double length) {
    request_t r = {(SEXPTYPE) type, (R_xlen_t) length, R_NilValue};
    if (length < SHORT_VECTOR_LENGTH) {
        // No R allocation between the vector's and the return: it needs no
        // protection until the caller's.
        return R_ToplevelExec(allocate_into, &r) ? r.result : R_NilValue;
    }
    return R_tryCatchError(allocate, &r, refuse, NULL);
}
