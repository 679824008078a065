// SPDX-License-Identifier: Apache-2.0
// Hosted entry point for the freestanding-compiled core check.
int run_freestanding_core();

int main() { return run_freestanding_core(); }
