# Regenerates NAMESPACE and man/ from the roxygen2 comments. The R files are sourced
# rather than compiled, so this works without building the Rust library.
roxygen2::roxygenise(load_code = roxygen2::load_source)
