module profilesamples

go 1.19
