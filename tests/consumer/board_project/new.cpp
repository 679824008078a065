// SPDX-License-Identifier: Apache-2.0
// A firmware that allocates with `new`: the post-link check must point at
// operator new (which this file references), not at the malloc it pulls in
// from the library (built only on request, as heap.cpp).
int main() {
    int* volatile p = new int(7);
    int v = *p;
    delete p;
    return v == 7 ? 0 : 1;
}
