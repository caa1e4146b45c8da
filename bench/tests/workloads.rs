//! Every benchmark workload at a small size: ptxr's CPU result equals the hand-written Rust
//! version's bit for bit. This keeps the benchmark honest and doubles as execution tests of real
//! clang kernels with barriers, shared memory, warp shuffles and atomics.

use ptxr_bench::{run_ptxr, WORKLOADS};

#[test]
fn every_workload_matches_its_hand_written_version() {
    for workload in WORKLOADS {
        // Matrices of 64 x 64: each worker of the hand-written version takes several bands.
        let measurement = (workload.build)(1.0 / 64.0);
        let scratch = tempfile::tempdir().expect("temporary folder");
        let ptxr = run_ptxr(&measurement, scratch.path()).unwrap_or_else(|error| panic!("{}: {error}", workload.name));
        let expected = (measurement.baseline)();
        assert_eq!(ptxr.bytes.len(), expected.bytes.len(), "{}", workload.name);
        assert!(ptxr.bytes == expected.bytes, "{}: ptxr's output differs from the hand-written version", workload.name);
    }
}
