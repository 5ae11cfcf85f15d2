"""Benchmarks run by `make bench`; each writes JSON under build/bench/."""
