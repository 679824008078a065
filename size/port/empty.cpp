// SPDX-License-Identifier: Apache-2.0
// Baseline of the footprint table: start-up, vector table, port clock; no weft core.
int main() { return 0; }
