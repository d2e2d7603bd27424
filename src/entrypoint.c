// Registration is done on the Rust side; this forwards R's init call to it so the
// linker keeps the static library's symbols.
void R_init_profile_extendr(void *dll);

void R_init_profile(void *dll) {
    R_init_profile_extendr(dll);
}
