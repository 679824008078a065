// SPDX-License-Identifier: Apache-2.0
#pragma once
// The same-fringe inputs shared by weft and its peers: seed 004's small
// trees (equal fringes, different shapes) and a large balanced tree.
#include <memory>
#include <vector>

namespace bench {

struct node {
    int value = 0;
    const node* left = nullptr;
    const node* right = nullptr;
    bool leaf() const { return !left && !right; }
};

/// Owns the nodes of a tree built for a benchmark.
struct tree {
    std::vector<std::unique_ptr<node>> nodes;
    const node* root = nullptr;
    node* make(int v, const node* l = nullptr, const node* r = nullptr) {
        nodes.push_back(std::make_unique<node>(node{v, l, r}));
        return nodes.back().get();
    }
};

// Leaves lo..hi-1, split at `mid_bias` so that two trees with the same
// leaves can have different shapes.
inline const node* build(tree& t, int lo, int hi, bool left_heavy) {
    if (hi - lo == 1) return t.make(lo);
    int mid = left_heavy ? lo + (hi - lo + 1) / 2 : lo + (hi - lo) / 2;
    if (mid == lo) mid = lo + 1;
    if (mid == hi) mid = hi - 1;
    // Named, so that every compiler allocates the right subtree first (as
    // GCC always did): the order of a call's arguments is unspecified (GCC
    // goes right to left, Clang left to right), and the nodes' order in
    // memory decides how fast a walk of the large tree is, so every
    // system must walk the same layout.
    const node* right = build(t, mid, hi, left_heavy);
    const node* left = build(t, lo, mid, left_heavy);
    return t.make(0, left, right);
}

inline tree make_tree(int leaves, bool left_heavy) {
    tree t;
    t.root = build(t, 0, leaves, left_heavy);
    return t;
}

}  // namespace bench
