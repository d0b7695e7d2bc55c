import StrataToolKit

// The `strata` executable: its commands live in StrataToolKit, a library, so that the fuzzing
// harness (Fuzz/StrataFuzzing) can link the code `strata store import` runs.
@main
extension StrataCommand {}
