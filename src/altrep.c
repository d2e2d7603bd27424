// Compact columns of v2 profiles, as ALTREP vectors (dev/ARCHITECTURE.md
// describes the idea).
//
// The long tables of a profile repeat what their shape already says. In
// `sample_locations` the rows of one sample follow each other, so `sample_id`
// is a run per sample and `depth` counts 1, 2, ... along each run; in
// `sample_values` every sample usually has one row per sample type, so
// `sample_id` is a run of equal length per sample and `type` and `unit` repeat
// one short pattern. Four kinds of compact column keep that shape (one integer
// per sample, one string per sample type) instead of one value per row, so that
// a profile's size grows with its samples, not with its frames and values:
// `runs` (the run's value for each row), `run_seq` (1, 2, ... within each run),
// `run_steps` (0, s, 2s, ... within each run, with a step of each run's own:
// the time of the samples of each source, whose runs are those of
// `samples$source_id`) and `cycle` (a string pattern repeated). They give R an
// ordinary vector (kept as data2) only when R asks for a pointer to the data;
// element access, regions, subsetting and duplication work on the compact form.
// The methods every kind has alike are written once, as macros
// (COMPACT_METHODS and the ones after it) over each kind's typed accessors:
// its length, its element at a row, its class and, for the numeric kinds, a
// fill of a range of rows.
//
// Written in C, not Rust: R may longjmp out of an allocation made inside these
// methods, which must not cross Rust frames. The Rust binding finds the shapes
// (src/rust/src/compact/) and calls the constructors at the end of this file
// (from src/rust/src/compact/altrep.rs only); they check the shape and return
// NULL when it does not hold, and the caller then sends an ordinary vector.
//
// A fifth kind joins two vectors instead of keeping a shape: `concat` (the
// rows of one vector, then those of another), so that the result of a verb
// that adds rows after those of its input (profile_diff()) holds the input's
// column itself, not a copy. It is made in the same way, and gives R an
// ordinary vector in the same way.
//
// Serialisation: no method is given, so saveRDS() writes ordinary vectors and
// the file can be read without this package.

#include <R.h>
#include <Rinternals.h>
#include <R_ext/Altrep.h>
#include <R_ext/Rdynload.h>

static R_altrep_class_t runs_class;      // the run's value for each row
static R_altrep_class_t run_seq_class;   // 1, 2, ... within each run
static R_altrep_class_t run_steps_class; // 0, s, 2s, ... within each run
static R_altrep_class_t cycle_class;     // a string pattern repeated
static R_altrep_class_t concat_int_class;  // the rows of one vector, then another's
static R_altrep_class_t concat_real_class;
static R_altrep_class_t concat_str_class;

// ---- runs ---------------------------------------------------------------
// data1 (shared by the `sample_id` and `depth` columns of one table):
//   list(values, ends, shape)
//   values: integer, the value of each run; NULL for 1, 2, ..., n_runs
//   ends:   integer, cumulative row counts (where each run ends; an empty run
//           ends where the one before it does); NULL when every run has
//           `each` rows
//   shape:  double c(n_runs, each, length)

typedef struct {
    const int *values;
    const int *ends;
    R_xlen_t n_runs;
    R_xlen_t each;
    R_xlen_t length;
} runs_t;

static runs_t runs_of_data(SEXP data) {
    SEXP values = VECTOR_ELT(data, 0), ends = VECTOR_ELT(data, 1);
    const double *shape = REAL(VECTOR_ELT(data, 2));
    runs_t r;
    r.values = values == R_NilValue ? NULL : INTEGER(values);
    r.ends = ends == R_NilValue ? NULL : INTEGER(ends);
    r.n_runs = (R_xlen_t) shape[0];
    r.each = (R_xlen_t) shape[1];
    r.length = (R_xlen_t) shape[2];
    return r;
}

static runs_t runs_of(SEXP x) {
    return runs_of_data(R_altrep_data1(x));
}

// The run that row `i` (0-based, < length) belongs to.
static R_xlen_t run_of_row(const runs_t *r, R_xlen_t i) {
    if (r->ends == NULL) return i / r->each;
    R_xlen_t lo = 0, hi = r->n_runs - 1; // first run whose end is > i (never an empty one)
    while (lo < hi) {
        R_xlen_t mid = lo + (hi - lo) / 2;
        if ((R_xlen_t) r->ends[mid] > i) hi = mid; else lo = mid + 1;
    }
    return lo;
}

static R_xlen_t run_start(const runs_t *r, R_xlen_t run) {
    if (r->ends == NULL) return run * r->each;
    return run == 0 ? 0 : (R_xlen_t) r->ends[run - 1];
}

static R_xlen_t run_end(const runs_t *r, R_xlen_t run) {
    if (r->ends == NULL) return (run + 1) * r->each;
    return (R_xlen_t) r->ends[run];
}

static int run_value(const runs_t *r, R_xlen_t run) {
    return r->values == NULL ? (int) (run + 1) : r->values[run];
}

// How many of the `n` rows from row `i` a vector of `length` rows has (0 when
// `i` is outside it): the rows a Get_region method fills.
static R_xlen_t region_count(R_xlen_t length, R_xlen_t i, R_xlen_t n) {
    if (i < 0 || i >= length) return 0;
    return n < length - i ? n : length - i;
}

// Writes rows [from, from + n) of a compact vector into `out` (int or double).
typedef void (*fill_t)(SEXP x, R_xlen_t from, R_xlen_t n, void *out);

// The expanded vector (data2) of a compact vector of `length` rows of `type`
// (INTSXP or REALSXP), made by `fill` the first time it is asked for.
static SEXP materialise(SEXP x, SEXPTYPE type, R_xlen_t length, fill_t fill) {
    SEXP data2 = R_altrep_data2(x);
    if (data2 == R_NilValue) {
        data2 = PROTECT(allocVector(type, length));
        fill(x, 0, length, type == INTSXP ? (void *) INTEGER(data2) : (void *) REAL(data2));
        R_set_altrep_data2(x, data2);
        UNPROTECT(1);
    }
    return data2;
}

// An index as a 0-based row, or -1 for NA or out of range (R then gives NA).
static R_xlen_t index_row(SEXP indx, R_xlen_t k, R_xlen_t length) {
    if (TYPEOF(indx) == INTSXP) {
        int i = INTEGER_ELT(indx, k);
        return (i == NA_INTEGER || i < 1 || (R_xlen_t) i > length) ? -1 : (R_xlen_t) i - 1;
    }
    double d = REAL_ELT(indx, k);
    return (ISNAN(d) || d < 1 || d >= (double) length + 1) ? -1 : (R_xlen_t) d - 1;
}

// How COMPACT_METHODS writes element `k` of a new vector `out` whose data
// pointer `DEST(out)` (taken once) is `dest`: through the pointer for numbers,
// through R's setter for strings (which have no writable data pointer).
#define INT_DEST(out) ((void *) INTEGER(out))
#define REAL_DEST(out) ((void *) REAL(out))
#define STRING_DEST(out) NULL
#define SET_INT(out, dest, k, v) (((int *) (dest))[k] = (v))
#define SET_REAL(out, dest, k, v) (((double *) (dest))[k] = (v))
#define SET_STRING(out, dest, k, v) SET_STRING_ELT(out, k, v)

// The methods of a compact kind `K` that are alike for every kind, from its
// typed accessors K##_compact_length(x) (rows of the compact form),
// K##_elt_compact(x, i) (row i of the compact form, or the type's NA outside
// it) and K##_class_of(x) (its ALTREP class), for elements of C type `ctype`
// in vectors of `sexptype`, read with R's `ELT` and `RO` (read-only data
// pointer), written with `DEST` and `SET` (see above), NA being `na`. Once R has expanded a vector (its
// data2), Length, Dataptr_or_null and Elt answer from the expansion, and
// Extract_subset and Duplicate leave the work to R.
#define COMPACT_METHODS(K, ctype, sexptype, ELT, RO, DEST, SET, na)              \
    static R_xlen_t K##_Length(SEXP x) {                                         \
        SEXP data2 = R_altrep_data2(x);                                          \
        if (data2 != R_NilValue) return XLENGTH(data2);                          \
        return K##_compact_length(x);                                            \
    }                                                                            \
                                                                                 \
    static const void *K##_Dataptr_or_null(SEXP x) {                             \
        SEXP data2 = R_altrep_data2(x);                                          \
        return data2 == R_NilValue ? NULL : (const void *) RO(data2);            \
    }                                                                            \
                                                                                 \
    static ctype K##_Elt(SEXP x, R_xlen_t i) {                                   \
        SEXP data2 = R_altrep_data2(x);                                          \
        if (data2 != R_NilValue) return ELT(data2, i);                           \
        return K##_elt_compact(x, i);                                            \
    }                                                                            \
                                                                                 \
    static SEXP K##_Extract_subset(SEXP x, SEXP indx, SEXP call) {               \
        if (R_altrep_data2(x) != R_NilValue) return NULL;                        \
        if (TYPEOF(indx) != INTSXP && TYPEOF(indx) != REALSXP) return NULL;      \
        R_xlen_t n = XLENGTH(indx), length = K##_compact_length(x);              \
        SEXP out = PROTECT(allocVector(sexptype, n));                            \
        void *dest = DEST(out);                                                  \
        (void) dest;                                                             \
        for (R_xlen_t k = 0; k < n; k++) {                                       \
            R_xlen_t row = index_row(indx, k, length);                           \
            SET(out, dest, k, row < 0 ? (na) : K##_elt_compact(x, row));         \
        }                                                                        \
        UNPROTECT(1);                                                            \
        return out;                                                              \
    }                                                                            \
                                                                                 \
    /* The compact data is never modified, so a copy can share it. */           \
    static SEXP K##_Duplicate(SEXP x, Rboolean deep) {                           \
        if (R_altrep_data2(x) != R_NilValue) return NULL;                        \
        return R_new_altrep(K##_class_of(x), R_altrep_data1(x), R_NilValue);     \
    }

// Dataptr and Get_region of a numeric compact kind `K` (`ctype` int or
// double, in vectors of `sexptype`, whose data pointer is `PTR` and whose
// region reader is `GET_REGION`), from its fill K##_fill (see fill_t).
#define COMPACT_NUMERIC_METHODS(K, ctype, sexptype, PTR, GET_REGION)             \
    static void *K##_Dataptr(SEXP x, Rboolean writeable) {                       \
        return PTR(materialise(x, sexptype, K##_compact_length(x), K##_fill));   \
    }                                                                            \
                                                                                 \
    static R_xlen_t K##_Get_region(SEXP x, R_xlen_t i, R_xlen_t n, ctype *buf) { \
        SEXP data2 = R_altrep_data2(x);                                          \
        if (data2 != R_NilValue) return GET_REGION(data2, i, n, buf);            \
        R_xlen_t count = region_count(K##_compact_length(x), i, n);              \
        K##_fill(x, i, count, buf);                                              \
        return count;                                                            \
    }

// Registers the methods of COMPACT_METHODS, Dataptr, No_NA and Inspect of kind
// `K` for the class `cls` of ALTREP type `alt` (altinteger, altreal or
// altstring).
#define SET_COMPACT_METHODS(cls, K, alt)                                         \
    do {                                                                         \
        R_set_altrep_Length_method(cls, K##_Length);                             \
        R_set_altrep_Inspect_method(cls, K##_Inspect);                           \
        R_set_altrep_Duplicate_method(cls, K##_Duplicate);                       \
        R_set_altvec_Dataptr_method(cls, K##_Dataptr);                           \
        R_set_altvec_Dataptr_or_null_method(cls, K##_Dataptr_or_null);          \
        R_set_altvec_Extract_subset_method(cls, K##_Extract_subset);             \
        R_set_##alt##_Elt_method(cls, K##_Elt);                                  \
        R_set_##alt##_No_NA_method(cls, K##_No_NA);                              \
    } while (0)

// Rows [from, from + n) of the column into `out` (int): a walk along the runs.
static void runs_fill(SEXP x, R_xlen_t from, R_xlen_t n, void *dest) {
    int *out = dest;
    if (n <= 0) return;
    runs_t r = runs_of(x);
    int within = R_altrep_inherits(x, run_seq_class);
    R_xlen_t run = run_of_row(&r, from);
    R_xlen_t start = run_start(&r, run), end = run_end(&r, run);
    for (R_xlen_t k = 0; k < n; k++) {
        R_xlen_t row = from + k;
        while (row >= end) {
            run++;
            start = end;
            end = run_end(&r, run);
        }
        out[k] = within ? (int) (row - start + 1) : run_value(&r, run);
    }
}

static int runs_elt_compact(SEXP x, R_xlen_t i) {
    runs_t r = runs_of(x);
    if (i < 0 || i >= r.length) return NA_INTEGER;
    R_xlen_t run = run_of_row(&r, i);
    if (R_altrep_inherits(x, run_seq_class)) return (int) (i - run_start(&r, run) + 1);
    return run_value(&r, run);
}

static R_xlen_t runs_compact_length(SEXP x) {
    return runs_of(x).length;
}

static R_altrep_class_t runs_class_of(SEXP x) {
    return R_altrep_inherits(x, run_seq_class) ? run_seq_class : runs_class;
}

COMPACT_METHODS(runs, int, INTSXP, INTEGER_ELT, INTEGER_RO, INT_DEST, SET_INT, NA_INTEGER)
COMPACT_NUMERIC_METHODS(runs, int, INTSXP, INTEGER, INTEGER_GET_REGION)

static int runs_Is_sorted(SEXP x) {
    // Only known without looking: run values 1..n_runs in order. (Depths
    // restart at each run.)
    if (R_altrep_data2(x) != R_NilValue) return UNKNOWN_SORTEDNESS;
    if (R_altrep_inherits(x, runs_class) && runs_of(x).values == NULL) return SORTED_INCR;
    return UNKNOWN_SORTEDNESS;
}

static int runs_No_NA(SEXP x) {
    if (R_altrep_data2(x) != R_NilValue) return 0;
    // depths are never NA, nor are the implicit values 1..n_runs
    return R_altrep_inherits(x, run_seq_class) || runs_of(x).values == NULL;
}

static Rboolean runs_Inspect(SEXP x, int pre, int deep, int pvec,
                             void (*inspect_subtree)(SEXP, int, int, int)) {
    runs_t r = runs_of(x);
    Rprintf(" profile %s: %.0f rows in %.0f runs%s%s\n",
            R_altrep_inherits(x, run_seq_class) ? "run_seq" : "runs",
            (double) r.length, (double) r.n_runs,
            r.ends == NULL ? " of equal length" : "",
            R_altrep_data2(x) != R_NilValue ? " (expanded)" : "");
    return TRUE;
}

// ---- run_steps -------------------------------------------------------------
// data1: list(runs, steps, divisor): `runs` the data of a runs vector (shared
// with it), `steps` double, one per run, `divisor` a double. Row k (from 0) of
// run r is k * steps[r] / divisor, computed in this order, as the Rust side
// computes the values it compares with (src/rust/src/compact/shape.rs).

typedef struct {
    runs_t runs;
    const double *steps;
    double divisor;
} run_steps_t;

static run_steps_t run_steps_of(SEXP x) {
    SEXP data = R_altrep_data1(x);
    run_steps_t s;
    s.runs = runs_of_data(VECTOR_ELT(data, 0));
    s.steps = REAL(VECTOR_ELT(data, 1));
    s.divisor = REAL(VECTOR_ELT(data, 2))[0];
    return s;
}

static double run_step_value(const run_steps_t *s, R_xlen_t run, R_xlen_t row) {
    return (double) (row - run_start(&s->runs, run)) * s->steps[run] / s->divisor;
}

// Rows [from, from + n) of the column into `out` (double).
static void run_steps_fill(SEXP x, R_xlen_t from, R_xlen_t n, void *dest) {
    double *out = dest;
    if (n <= 0) return;
    run_steps_t s = run_steps_of(x);
    R_xlen_t run = run_of_row(&s.runs, from);
    R_xlen_t end = run_end(&s.runs, run);
    for (R_xlen_t k = 0; k < n; k++) {
        R_xlen_t row = from + k;
        while (row >= end) {
            run++;
            end = run_end(&s.runs, run);
        }
        out[k] = run_step_value(&s, run, row);
    }
}

static double run_steps_elt_compact(SEXP x, R_xlen_t i) {
    run_steps_t s = run_steps_of(x);
    if (i < 0 || i >= s.runs.length) return NA_REAL;
    return run_step_value(&s, run_of_row(&s.runs, i), i);
}

static R_xlen_t run_steps_compact_length(SEXP x) {
    return run_steps_of(x).runs.length;
}

static R_altrep_class_t run_steps_class_of(SEXP x) {
    return run_steps_class;
}

COMPACT_METHODS(run_steps, double, REALSXP, REAL_ELT, REAL_RO, REAL_DEST, SET_REAL, NA_REAL)
COMPACT_NUMERIC_METHODS(run_steps, double, REALSXP, REAL, REAL_GET_REGION)

static int run_steps_No_NA(SEXP x) {
    // finite steps and divisor (checked by the constructor) give no NA
    return R_altrep_data2(x) == R_NilValue;
}

static Rboolean run_steps_Inspect(SEXP x, int pre, int deep, int pvec,
                                  void (*inspect_subtree)(SEXP, int, int, int)) {
    run_steps_t s = run_steps_of(x);
    Rprintf(" profile run_steps: %.0f rows in %.0f runs%s\n",
            (double) s.runs.length, (double) s.runs.n_runs,
            R_altrep_data2(x) != R_NilValue ? " (expanded)" : "");
    return TRUE;
}

// ---- cycle ---------------------------------------------------------------
// data1: list(pattern, shape); pattern: character; shape: double c(length).

static SEXP cycle_pattern(SEXP x) { return VECTOR_ELT(R_altrep_data1(x), 0); }

static R_xlen_t cycle_compact_length(SEXP x) {
    return (R_xlen_t) REAL(VECTOR_ELT(R_altrep_data1(x), 1))[0];
}

static SEXP cycle_elt_compact(SEXP x, R_xlen_t i) {
    SEXP pattern = cycle_pattern(x);
    return STRING_ELT(pattern, i % XLENGTH(pattern));
}

static R_altrep_class_t cycle_class_of(SEXP x) {
    return cycle_class;
}

COMPACT_METHODS(cycle, SEXP, STRSXP, STRING_ELT, STRING_PTR_RO, STRING_DEST, SET_STRING, NA_STRING)

static SEXP cycle_materialise(SEXP x) {
    SEXP data2 = R_altrep_data2(x);
    if (data2 == R_NilValue) {
        R_xlen_t n = cycle_compact_length(x);
        data2 = PROTECT(allocVector(STRSXP, n));
        for (R_xlen_t i = 0; i < n; i++) SET_STRING_ELT(data2, i, cycle_elt_compact(x, i));
        R_set_altrep_data2(x, data2);
        UNPROTECT(1);
    }
    return data2;
}

static void *cycle_Dataptr(SEXP x, Rboolean writeable) {
    return (void *) STRING_PTR_RO(cycle_materialise(x));
}

static void cycle_Set_elt(SEXP x, R_xlen_t i, SEXP value) {
    SET_STRING_ELT(cycle_materialise(x), i, value);
}

static int cycle_No_NA(SEXP x) {
    if (R_altrep_data2(x) != R_NilValue) return 0;
    SEXP pattern = cycle_pattern(x);
    for (R_xlen_t k = 0; k < XLENGTH(pattern); k++)
        if (STRING_ELT(pattern, k) == NA_STRING) return 0;
    return 1;
}

static Rboolean cycle_Inspect(SEXP x, int pre, int deep, int pvec,
                              void (*inspect_subtree)(SEXP, int, int, int)) {
    Rprintf(" profile cycle: %.0f strings repeating %.0f%s\n",
            (double) cycle_compact_length(x), (double) XLENGTH(cycle_pattern(x)),
            R_altrep_data2(x) != R_NilValue ? " (expanded)" : "");
    return TRUE;
}


// ---- concat --------------------------------------------------------------
// data1: list(first, second), two vectors of the vector's type without
// attributes (integer, double or character, any of them ALTREP), never
// modified: row i is row i of `first`, then row i - length(first) of
// `second`. Once R asks for a data pointer, the rows are copied into data2
// and data1 is let go (the parts may be large, and shared with the vectors
// they came from), so every method looks at data2 first.

static SEXP concat_first(SEXP x) { return VECTOR_ELT(R_altrep_data1(x), 0); }
static SEXP concat_second(SEXP x) { return VECTOR_ELT(R_altrep_data1(x), 1); }

static R_xlen_t concat_Length(SEXP x) {
    SEXP data2 = R_altrep_data2(x);
    if (data2 != R_NilValue) return XLENGTH(data2);
    return XLENGTH(concat_first(x)) + XLENGTH(concat_second(x));
}

static const void *concat_Dataptr_or_null(SEXP x) {
    SEXP data2 = R_altrep_data2(x);
    return data2 == R_NilValue ? NULL : DATAPTR_RO(data2);
}

static R_altrep_class_t concat_class_of(SEXP x) {
    return R_altrep_inherits(x, concat_int_class) ? concat_int_class
        : R_altrep_inherits(x, concat_real_class) ? concat_real_class
        : concat_str_class;
}

// The parts are never modified, so a copy can share them.
static SEXP concat_Duplicate(SEXP x, Rboolean deep) {
    if (R_altrep_data2(x) != R_NilValue) return NULL;
    return R_new_altrep(concat_class_of(x), R_altrep_data1(x), R_NilValue);
}

static Rboolean concat_Inspect(SEXP x, int pre, int deep, int pvec,
                               void (*inspect_subtree)(SEXP, int, int, int)) {
    if (R_altrep_data2(x) != R_NilValue) {
        Rprintf(" profile concat: %.0f rows (expanded)\n", (double) XLENGTH(R_altrep_data2(x)));
        return TRUE;
    }
    SEXP first = concat_first(x), second = concat_second(x);
    Rprintf(" profile concat: %.0f + %.0f rows\n", (double) XLENGTH(first),
            (double) XLENGTH(second));
    inspect_subtree(first, pre, deep, pvec);
    inspect_subtree(second, pre, deep, pvec);
    return TRUE;
}

// The methods of the numeric concat classes, for elements of C type `ctype`
// in vectors of `sexptype`, read with R's `ELT`, `GET_REGION` and `NO_NA`,
// written through the data pointer `PTR`, NA being `na`.
#define CONCAT_NUMERIC_METHODS(K, ctype, sexptype, ELT, GET_REGION, NO_NA, PTR, na) \
    /* Rows [i, i + n) of the parts into `buf`; how many there were. */           \
    static R_xlen_t K##_parts_region(SEXP x, R_xlen_t i, R_xlen_t n, ctype *buf) { \
        SEXP first = concat_first(x), second = concat_second(x);                  \
        R_xlen_t n_first = XLENGTH(first);                                        \
        R_xlen_t count = region_count(n_first + XLENGTH(second), i, n);           \
        if (count == 0) return 0;                                                 \
        R_xlen_t done = 0;                                                        \
        if (i < n_first) {                                                        \
            R_xlen_t want = count < n_first - i ? count : n_first - i;            \
            done = GET_REGION(first, i, want, buf);                               \
            if (done < want) return done;                                         \
        }                                                                         \
        if (done < count)                                                         \
            done += GET_REGION(second, i + done - n_first, count - done, buf + done); \
        return done;                                                              \
    }                                                                             \
                                                                                  \
    static R_xlen_t K##_Get_region(SEXP x, R_xlen_t i, R_xlen_t n, ctype *buf) {  \
        SEXP data2 = R_altrep_data2(x);                                           \
        if (data2 != R_NilValue) return GET_REGION(data2, i, n, buf);             \
        return K##_parts_region(x, i, n, buf);                                    \
    }                                                                             \
                                                                                  \
    static ctype K##_elt_parts(SEXP first, SEXP second, R_xlen_t i) {             \
        R_xlen_t n_first = XLENGTH(first);                                        \
        if (i < n_first) return ELT(first, i);                                    \
        return ELT(second, i - n_first);                                          \
    }                                                                             \
                                                                                  \
    static ctype K##_Elt(SEXP x, R_xlen_t i) {                                    \
        SEXP data2 = R_altrep_data2(x);                                           \
        if (data2 != R_NilValue) return ELT(data2, i);                            \
        return K##_elt_parts(concat_first(x), concat_second(x), i);               \
    }                                                                             \
                                                                                  \
    static void *K##_Dataptr(SEXP x, Rboolean writeable) {                        \
        SEXP data2 = R_altrep_data2(x);                                           \
        if (data2 == R_NilValue) {                                                \
            R_xlen_t n = concat_Length(x);                                        \
            data2 = PROTECT(allocVector(sexptype, n));                            \
            if (K##_parts_region(x, 0, n, PTR(data2)) != n)                       \
                error("profile concat: a part gave fewer rows than it has");      \
            R_set_altrep_data2(x, data2);                                         \
            R_set_altrep_data1(x, R_NilValue);                                    \
            UNPROTECT(1);                                                         \
        }                                                                         \
        return (void *) PTR(data2);                                               \
    }                                                                             \
                                                                                  \
    static SEXP K##_Extract_subset(SEXP x, SEXP indx, SEXP call) {                \
        if (R_altrep_data2(x) != R_NilValue) return NULL;                         \
        if (TYPEOF(indx) != INTSXP && TYPEOF(indx) != REALSXP) return NULL;       \
        SEXP first = concat_first(x), second = concat_second(x);                  \
        R_xlen_t n = XLENGTH(indx), length = XLENGTH(first) + XLENGTH(second);    \
        SEXP out = PROTECT(allocVector(sexptype, n));                             \
        ctype *dest = PTR(out);                                                   \
        for (R_xlen_t k = 0; k < n; k++) {                                        \
            R_xlen_t row = index_row(indx, k, length);                            \
            dest[k] = row < 0 ? (na) : K##_elt_parts(first, second, row);         \
        }                                                                         \
        UNPROTECT(1);                                                             \
        return out;                                                               \
    }                                                                             \
                                                                                  \
    static int K##_No_NA(SEXP x) {                                                \
        if (R_altrep_data2(x) != R_NilValue) return 0;                            \
        return NO_NA(concat_first(x)) && NO_NA(concat_second(x));                 \
    }

CONCAT_NUMERIC_METHODS(concat_int, int, INTSXP, INTEGER_ELT, INTEGER_GET_REGION,
                       INTEGER_NO_NA, INTEGER, NA_INTEGER)
CONCAT_NUMERIC_METHODS(concat_real, double, REALSXP, REAL_ELT, REAL_GET_REGION,
                       REAL_NO_NA, REAL, NA_REAL)

static SEXP concat_str_elt_parts(SEXP first, SEXP second, R_xlen_t i) {
    R_xlen_t n_first = XLENGTH(first);
    if (i < n_first) return STRING_ELT(first, i);
    return STRING_ELT(second, i - n_first);
}

static SEXP concat_str_Elt(SEXP x, R_xlen_t i) {
    SEXP data2 = R_altrep_data2(x);
    if (data2 != R_NilValue) return STRING_ELT(data2, i);
    return concat_str_elt_parts(concat_first(x), concat_second(x), i);
}

static SEXP concat_str_materialise(SEXP x) {
    SEXP data2 = R_altrep_data2(x);
    if (data2 == R_NilValue) {
        SEXP first = concat_first(x), second = concat_second(x);
        R_xlen_t n_first = XLENGTH(first), n_second = XLENGTH(second);
        data2 = PROTECT(allocVector(STRSXP, n_first + n_second));
        for (R_xlen_t i = 0; i < n_first; i++) SET_STRING_ELT(data2, i, STRING_ELT(first, i));
        for (R_xlen_t i = 0; i < n_second; i++)
            SET_STRING_ELT(data2, n_first + i, STRING_ELT(second, i));
        R_set_altrep_data2(x, data2);
        R_set_altrep_data1(x, R_NilValue);
        UNPROTECT(1);
    }
    return data2;
}

static void *concat_str_Dataptr(SEXP x, Rboolean writeable) {
    return (void *) STRING_PTR_RO(concat_str_materialise(x));
}

static void concat_str_Set_elt(SEXP x, R_xlen_t i, SEXP value) {
    SET_STRING_ELT(concat_str_materialise(x), i, value);
}

static SEXP concat_str_Extract_subset(SEXP x, SEXP indx, SEXP call) {
    if (R_altrep_data2(x) != R_NilValue) return NULL;
    if (TYPEOF(indx) != INTSXP && TYPEOF(indx) != REALSXP) return NULL;
    SEXP first = concat_first(x), second = concat_second(x);
    R_xlen_t n = XLENGTH(indx), length = XLENGTH(first) + XLENGTH(second);
    SEXP out = PROTECT(allocVector(STRSXP, n));
    for (R_xlen_t k = 0; k < n; k++) {
        R_xlen_t row = index_row(indx, k, length);
        SET_STRING_ELT(out, k, row < 0 ? NA_STRING : concat_str_elt_parts(first, second, row));
    }
    UNPROTECT(1);
    return out;
}

static int concat_str_No_NA(SEXP x) {
    if (R_altrep_data2(x) != R_NilValue) return 0;
    return STRING_NO_NA(concat_first(x)) && STRING_NO_NA(concat_second(x));
}

// Registers the methods of a concat class `cls` of ALTREP type `alt`, kind `K`.
#define SET_CONCAT_METHODS(cls, K, alt)                                          \
    do {                                                                         \
        R_set_altrep_Length_method(cls, concat_Length);                          \
        R_set_altrep_Inspect_method(cls, concat_Inspect);                        \
        R_set_altrep_Duplicate_method(cls, concat_Duplicate);                    \
        R_set_altvec_Dataptr_method(cls, K##_Dataptr);                           \
        R_set_altvec_Dataptr_or_null_method(cls, concat_Dataptr_or_null);       \
        R_set_altvec_Extract_subset_method(cls, K##_Extract_subset);             \
        R_set_##alt##_Elt_method(cls, K##_Elt);                                  \
        R_set_##alt##_No_NA_method(cls, K##_No_NA);                              \
    } while (0)

// ---- registration and constructors ----------------------------------------

static void set_runs_methods(R_altrep_class_t cls) {
    SET_COMPACT_METHODS(cls, runs, altinteger);
    R_set_altinteger_Get_region_method(cls, runs_Get_region);
    R_set_altinteger_Is_sorted_method(cls, runs_Is_sorted);
}

void profile_register_altrep_classes(DllInfo *dll) {
    runs_class = R_make_altinteger_class("profile_runs", "profile", dll);
    set_runs_methods(runs_class);
    run_seq_class = R_make_altinteger_class("profile_run_seq", "profile", dll);
    set_runs_methods(run_seq_class);

    run_steps_class = R_make_altreal_class("profile_run_steps", "profile", dll);
    SET_COMPACT_METHODS(run_steps_class, run_steps, altreal);
    R_set_altreal_Get_region_method(run_steps_class, run_steps_Get_region);

    cycle_class = R_make_altstring_class("profile_cycle", "profile", dll);
    SET_COMPACT_METHODS(cycle_class, cycle, altstring);
    R_set_altstring_Set_elt_method(cycle_class, cycle_Set_elt);

    concat_int_class = R_make_altinteger_class("profile_concat_integer", "profile", dll);
    SET_CONCAT_METHODS(concat_int_class, concat_int, altinteger);
    R_set_altinteger_Get_region_method(concat_int_class, concat_int_Get_region);
    concat_real_class = R_make_altreal_class("profile_concat_double", "profile", dll);
    SET_CONCAT_METHODS(concat_real_class, concat_real, altreal);
    R_set_altreal_Get_region_method(concat_real_class, concat_real_Get_region);
    concat_str_class = R_make_altstring_class("profile_concat_character", "profile", dll);
    SET_CONCAT_METHODS(concat_str_class, concat_str, altstring);
    R_set_altstring_Set_elt_method(concat_str_class, concat_str_Set_elt);
}

// Does `data` describe runs that cover exactly `length` rows? Checked here, in
// the one place that relies on it, rather than trusted.
static int runs_data_valid(SEXP data) {
    if (TYPEOF(data) != VECSXP || XLENGTH(data) != 3) return 0;
    SEXP values = VECTOR_ELT(data, 0), ends = VECTOR_ELT(data, 1), shape = VECTOR_ELT(data, 2);
    if (TYPEOF(shape) != REALSXP || XLENGTH(shape) != 3 || ALTREP(shape)) return 0;
    double n_runs = REAL(shape)[0], each = REAL(shape)[1], length = REAL(shape)[2];
    if (!(n_runs >= 1 && length >= 1 && length <= (double) INT_MAX)) return 0;
    if (values != R_NilValue &&
        (TYPEOF(values) != INTSXP || ALTREP(values) || (double) XLENGTH(values) != n_runs)) return 0;
    if (ends == R_NilValue) return each >= 1 && n_runs * each == length;
    if (TYPEOF(ends) != INTSXP || ALTREP(ends) || (double) XLENGTH(ends) != n_runs) return 0;
    const int *e = INTEGER(ends);
    int previous = 0;
    for (R_xlen_t k = 0; k < XLENGTH(ends); k++) {
        if (e[k] == NA_INTEGER || e[k] < previous) return 0;
        previous = e[k];
    }
    return (double) previous == length;
}

// The run values of `data` per row (within_runs = 0) or the position of each row
// within its run, from 1 (within_runs = 1); NULL if `data` is not valid.
SEXP profile_runs_vector(SEXP data, int within_runs) {
    if (!runs_data_valid(data)) return NULL;
    return R_new_altrep(within_runs ? run_seq_class : runs_class, data, R_NilValue);
}

// 0, s, 2s, ... along each run of the runs `data` (the data of a runs vector),
// with the step `steps[r] / divisor` for run r (see run_step_value()); NULL if
// the arguments do not fit: a step for each run, finite and >= 0, a finite
// divisor > 0.
SEXP profile_run_steps_vector(SEXP data, SEXP steps, double divisor) {
    if (!runs_data_valid(data)) return NULL;
    if (TYPEOF(steps) != REALSXP || ALTREP(steps)) return NULL;
    if ((double) XLENGTH(steps) != REAL(VECTOR_ELT(data, 2))[0]) return NULL;
    if (!(R_FINITE(divisor) && divisor > 0)) return NULL;
    const double *s = REAL(steps);
    for (R_xlen_t k = 0; k < XLENGTH(steps); k++)
        if (!(R_FINITE(s[k]) && s[k] >= 0)) return NULL;
    SEXP box = PROTECT(ScalarReal(divisor));
    SEXP all = PROTECT(allocVector(VECSXP, 3));
    SET_VECTOR_ELT(all, 0, data);
    SET_VECTOR_ELT(all, 1, steps);
    SET_VECTOR_ELT(all, 2, box);
    SEXP out = R_new_altrep(run_steps_class, all, R_NilValue);
    UNPROTECT(2);
    return out;
}

// `pattern` repeated to `length` strings; NULL if the arguments do not fit.
SEXP profile_cycle_vector(SEXP pattern, double length) {
    if (TYPEOF(pattern) != STRSXP || ALTREP(pattern) || XLENGTH(pattern) < 1) return NULL;
    if (!(length >= 1 && length <= (double) R_XLEN_T_MAX)) return NULL;
    SEXP shape = PROTECT(ScalarReal(length));
    SEXP data = PROTECT(allocVector(VECSXP, 2));
    SET_VECTOR_ELT(data, 0, pattern);
    SET_VECTOR_ELT(data, 1, shape);
    SEXP out = R_new_altrep(cycle_class, data, R_NilValue);
    UNPROTECT(2);
    return out;
}

// The pattern of an unexpanded cycle vector, or NULL for any other vector: lets
// the binding read such a column as its pattern instead of string by string.
SEXP profile_cycle_pattern(SEXP x) {
    if (!ALTREP(x) || !R_altrep_inherits(x, cycle_class) || R_altrep_data2(x) != R_NilValue)
        return NULL;
    return cycle_pattern(x);
}

// The rows of `first`, then those of `second`: two vectors of the same type,
// integer, double or character, without attributes. NULL if they are not, or
// if together they are too long for a vector.
SEXP profile_concat_vector(SEXP first, SEXP second) {
    if (TYPEOF(first) != TYPEOF(second) || ATTRIB(first) != R_NilValue ||
        ATTRIB(second) != R_NilValue) return NULL;
    R_altrep_class_t cls;
    switch (TYPEOF(first)) {
    case INTSXP: cls = concat_int_class; break;
    case REALSXP: cls = concat_real_class; break;
    case STRSXP: cls = concat_str_class; break;
    default: return NULL;
    }
    if (XLENGTH(first) > R_XLEN_T_MAX - XLENGTH(second)) return NULL;
    SEXP data = PROTECT(allocVector(VECSXP, 2));
    SET_VECTOR_ELT(data, 0, first);
    SET_VECTOR_ELT(data, 1, second);
    SEXP out = R_new_altrep(cls, data, R_NilValue);
    UNPROTECT(1);
    return out;
}

// The parts of an unexpanded concat vector, list(first, second), or NULL for
// any other vector: lets the binding read such a column part by part (a
// character column's parts by their patterns, where they are cycles).
SEXP profile_concat_parts(SEXP x) {
    if (!ALTREP(x) || R_altrep_data2(x) != R_NilValue) return NULL;
    if (!(R_altrep_inherits(x, concat_int_class) || R_altrep_inherits(x, concat_real_class) ||
          R_altrep_inherits(x, concat_str_class))) return NULL;
    return R_altrep_data1(x);
}

// Which kind of compact column `x` is: 0 none (not one of these classes),
// 1 runs, 2 run_seq, 3 cycle, 4 run_steps, 5 concat; plus 10 once R has
// expanded it. For tests and benchmarks (through ffi_profile_column_form() in
// the binding).
int profile_compact_form(SEXP x) {
    if (!ALTREP(x)) return 0;
    int form = R_altrep_inherits(x, runs_class) ? 1
        : R_altrep_inherits(x, run_seq_class) ? 2
        : R_altrep_inherits(x, cycle_class) ? 3
        : R_altrep_inherits(x, run_steps_class) ? 4
        : (R_altrep_inherits(x, concat_int_class) || R_altrep_inherits(x, concat_real_class) ||
           R_altrep_inherits(x, concat_str_class)) ? 5 : 0;
    return form == 0 ? 0 : form + (R_altrep_data2(x) != R_NilValue ? 10 : 0);
}
