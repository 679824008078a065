// SPDX-License-Identifier: Apache-2.0
// A firmware that allocates: the post-link check must refuse it by name
// (built only on request: board_project.cmake expects the failure).
#include <cstdlib>

int main() {
    void* volatile p = std::malloc(16);
    std::free(p);
    return 0;
}
