// SPDX-License-Identifier: Apache-2.0
// Peer scaffold: the csp workloads on embassy-executor (arch-std) with
// embassy-sync channels are NOT written yet; this binary only proves that
// the dependencies resolve and build. It prints no results.
fn main() {
    eprintln!("embassy peer: workloads not implemented yet (see docs/csp.md)");
}
