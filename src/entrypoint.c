// Registration of the Rust functions (the `ffi_` functions of
// R/extendr-wrappers.R) is done on the Rust side; this forwards R's init call to
// it (so the linker keeps the static library's symbols) and registers the
// ALTREP classes of the compact columns (src/altrep.c).
#include <R_ext/Rdynload.h>

void R_init_profile_extendr(void *dll);
void profile_register_altrep_classes(DllInfo *dll);

void R_init_profile(DllInfo *dll) {
    R_init_profile_extendr(dll);
    profile_register_altrep_classes(dll);
}
