/// An element of a `CountedTree`: its weight is what positions by weight count (a section
/// weighs its number of objects, so that an object's offset finds its section).
protocol CountedTreeElement: AnyObject {
    var treeWeight: Int { get }
}

/// A sequence kept in a B-tree whose nodes know how many elements, how much weight and how
/// many weightless elements they hold, and their last element: the fetched results
/// controller's order of objects and its order of sections.
///
/// Every operation is O(log n): reading, inserting or removing at a position; finding the first
/// position whose element satisfies a predicate that is false and then true along the sequence
/// (a binary search over the sort keys, guided by each child's last element); finding the
/// element that covers a weight offset (the section of the object at an offset); the weight
/// before a position (where a section starts). A Swift array with `insert(_:at:)` would move
/// half of 100,000 references for each change; the tree moves at most a node's worth (64).
///
/// Nodes that empty are removed; nodes that only shrink are not merged with their neighbours,
/// so that the depth is the logarithm of the largest size the tree has had, not of its
/// current size (deletes after a big fetch leave it as deep as it was).
final class CountedTree<Element: CountedTreeElement> {
    /// The most elements a leaf, and the most children an internal node, holds.
    static var capacity: Int { 64 }

    /// A node: a leaf holds elements, an internal node children; both keep their subtree's
    /// summaries.
    final class Node {
        var elements: [Element] = []
        var children: [Node] = []
        let isLeaf: Bool
        var count = 0
        var weight = 0
        /// Elements of weight 0 in the subtree: sections emptied by a change and not yet
        /// taken out are found through it.
        var weightless = 0
        var last: Element?

        init(isLeaf: Bool) { self.isLeaf = isLeaf }

        /// Recomputes the summaries from the elements or children.
        func summarize() {
            if isLeaf {
                count = elements.count
                weight = 0
                weightless = 0
                for element in elements {
                    let w = element.treeWeight
                    weight += w
                    if w == 0 { weightless += 1 }
                }
                last = elements.last
            } else {
                count = 0
                weight = 0
                weightless = 0
                for child in children {
                    count += child.count
                    weight += child.weight
                    weightless += child.weightless
                }
                last = children.last?.last
            }
        }
    }

    private var root = Node(isLeaf: true)

    /// A tree of the elements in the given order, its nodes three quarters full.
    init(_ elements: [Element] = []) {
        guard !elements.isEmpty else { return }
        let fill = Self.capacity * 3 / 4
        var level: [Node] = stride(from: 0, to: elements.count, by: fill).map { start in
            let leaf = Node(isLeaf: true)
            leaf.elements = Array(elements[start..<min(start + fill, elements.count)])
            leaf.summarize()
            return leaf
        }
        while level.count > 1 {
            level = stride(from: 0, to: level.count, by: fill).map { start in
                let node = Node(isLeaf: false)
                node.children = Array(level[start..<min(start + fill, level.count)])
                node.summarize()
                return node
            }
        }
        root = level[0]
    }

    var count: Int { root.count }
    var totalWeight: Int { root.weight }
    var isEmpty: Bool { root.count == 0 }

    /// The element at a position (`0..<count`).
    func element(at index: Int) -> Element {
        var node = root
        var offset = index
        while !node.isLeaf {
            var child = 0
            while child < node.children.count - 1 && offset >= node.children[child].count {
                offset -= node.children[child].count
                child += 1
            }
            node = node.children[child]
        }
        return node.elements[offset]
    }

    /// The first position whose element satisfies `isAtOrAfter` (false, then true, along the
    /// sequence); `count` when none does.
    func firstIndex(where isAtOrAfter: (Element) -> Bool) -> Int {
        var node = root
        var index = 0
        while !node.isLeaf {
            // The first child whose last element is at or after: the position is inside it.
            var low = 0
            var high = node.children.count
            while low < high {
                let middle = (low + high) / 2
                if let last = node.children[middle].last, isAtOrAfter(last) { high = middle } else { low = middle + 1 }
            }
            guard low < node.children.count else { return count }
            for child in node.children[..<low] { index += child.count }
            node = node.children[low]
        }
        var low = 0
        var high = node.elements.count
        while low < high {
            let middle = (low + high) / 2
            if isAtOrAfter(node.elements[middle]) { high = middle } else { low = middle + 1 }
        }
        return index + low
    }

    /// The element whose weight covers `offset` (the first one whose weight, added to the
    /// weights before it, exceeds `offset`), its position and the weight before it; nil when
    /// `offset` is not below the total weight.
    func locate(weight offset: Int) -> (index: Int, element: Element, weightBefore: Int)? {
        guard offset >= 0, offset < root.weight else { return nil }
        var node = root
        var index = 0
        var before = 0
        while !node.isLeaf {
            var child = 0
            while child < node.children.count - 1 && offset >= before + node.children[child].weight {
                before += node.children[child].weight
                index += node.children[child].count
                child += 1
            }
            node = node.children[child]
        }
        for (position, element) in node.elements.enumerated() {
            let weight = element.treeWeight
            if offset < before + weight { return (index + position, element, before) }
            before += weight
        }
        return nil
    }

    /// The sum of the weights of the elements before a position.
    func weight(before index: Int) -> Int {
        var node = root
        var offset = index
        var before = 0
        while !node.isLeaf {
            var child = 0
            while child < node.children.count - 1 && offset >= node.children[child].count {
                offset -= node.children[child].count
                before += node.children[child].weight
                child += 1
            }
            node = node.children[child]
        }
        for element in node.elements[..<offset] { before += element.treeWeight }
        return before
    }

    /// The position of the first element of weight 0, if any.
    func firstWeightlessIndex() -> Int? {
        guard root.weightless > 0 else { return nil }
        var node = root
        var index = 0
        while !node.isLeaf {
            guard let child = node.children.firstIndex(where: { $0.weightless > 0 }) else { return nil }
            for sibling in node.children[..<child] { index += sibling.count }
            node = node.children[child]
        }
        return node.elements.firstIndex { $0.treeWeight == 0 }.map { index + $0 }
    }

    /// Tells the tree that the element at a position now weighs `delta` more (or less); the
    /// element's own weight must already be the new one.
    func adjustWeight(at index: Int, by delta: Int) {
        var node = root
        var offset = index
        var path: [Node] = []
        while !node.isLeaf {
            path.append(node)
            var child = 0
            while child < node.children.count - 1 && offset >= node.children[child].count {
                offset -= node.children[child].count
                child += 1
            }
            node = node.children[child]
        }
        path.append(node)
        let now = node.elements[offset].treeWeight
        let before = now - delta
        let weightlessChange = (now == 0 ? 1 : 0) - (before == 0 ? 1 : 0)
        for step in path {
            step.weight += delta
            step.weightless += weightlessChange
        }
    }

    /// Inserts an element at a position (`0...count`).
    func insert(_ element: Element, at index: Int) {
        guard let right = Self.insert(element, weight: element.treeWeight, at: index, into: root) else { return }
        let top = Node(isLeaf: false)
        top.children = [root, right]
        top.summarize()
        root = top
    }

    /// Removes and returns the element at a position (`0..<count`).
    @discardableResult
    func remove(at index: Int) -> Element {
        let removed = Self.remove(at: index, from: root)
        while !root.isLeaf && root.children.count == 1 { root = root.children[0] }
        if !root.isLeaf && root.children.isEmpty { root = Node(isLeaf: true) }
        return removed
    }

    /// The elements at the positions of a range, in order.
    func elements(in range: Range<Int>) -> [Element] {
        var result: [Element] = []
        result.reserveCapacity(range.count)
        Self.collect(range, from: root, offset: 0, into: &result)
        return result
    }

    /// Every element, in order.
    var all: [Element] { elements(in: 0..<count) }

    // MARK: Nodes

    /// Inserts into a subtree; returns the new right sibling when the node had to split.
    private static func insert(_ element: Element, weight: Int, at index: Int, into node: Node) -> Node? {
        if node.isLeaf {
            node.elements.insert(element, at: index)
            node.count += 1
            node.weight += weight
            if weight == 0 { node.weightless += 1 }
            node.last = node.elements.last
            return node.elements.count > capacity ? split(node) : nil
        }
        var offset = index
        var child = 0
        // An index at a child's end goes to that child (appending to it), not to the next one.
        while child < node.children.count - 1 && offset > node.children[child].count {
            offset -= node.children[child].count
            child += 1
        }
        if let right = insert(element, weight: weight, at: offset, into: node.children[child]) {
            node.children.insert(right, at: child + 1)
        }
        node.count += 1
        node.weight += weight
        if weight == 0 { node.weightless += 1 }
        node.last = node.children.last?.last
        return node.children.count > capacity ? split(node) : nil
    }

    /// Moves the upper half of a node into a new right sibling.
    private static func split(_ node: Node) -> Node {
        let right = Node(isLeaf: node.isLeaf)
        if node.isLeaf {
            let half = node.elements.count / 2
            right.elements = Array(node.elements[half...])
            node.elements.removeSubrange(half...)
        } else {
            let half = node.children.count / 2
            right.children = Array(node.children[half...])
            node.children.removeSubrange(half...)
        }
        node.summarize()
        right.summarize()
        return right
    }

    /// Removes from a subtree; a child left empty is taken out of its parent.
    private static func remove(at index: Int, from node: Node) -> Element {
        let removed: Element
        if node.isLeaf {
            removed = node.elements.remove(at: index)
            node.last = node.elements.last
        } else {
            var offset = index
            var child = 0
            while child < node.children.count - 1 && offset >= node.children[child].count {
                offset -= node.children[child].count
                child += 1
            }
            removed = remove(at: offset, from: node.children[child])
            if node.children[child].count == 0 { node.children.remove(at: child) }
            node.last = node.children.last?.last
        }
        let weight = removed.treeWeight
        node.count -= 1
        node.weight -= weight
        if weight == 0 { node.weightless -= 1 }
        return removed
    }

    /// Appends the elements of a subtree (starting at `offset`) that fall in the range.
    private static func collect(_ range: Range<Int>, from node: Node, offset: Int, into result: inout [Element]) {
        if node.isLeaf {
            let low = max(range.lowerBound - offset, 0)
            let high = min(range.upperBound - offset, node.elements.count)
            if low < high { result.append(contentsOf: node.elements[low..<high]) }
            return
        }
        var start = offset
        for child in node.children {
            let end = start + child.count
            if end > range.lowerBound && start < range.upperBound { collect(range, from: child, offset: start, into: &result) }
            if end >= range.upperBound { return }
            start = end
        }
    }

    /// Checks every node's summaries and the order of the elements (tests).
    func isConsistent(ordered areInOrder: (Element, Element) -> Bool) -> Bool {
        func check(_ node: Node) -> Bool {
            let count = node.count
            let weight = node.weight
            let weightless = node.weightless
            let last = node.last
            if !node.isLeaf && !node.children.allSatisfy(check) { return false }
            if node.isLeaf && node.elements.count > Self.capacity { return false }
            if !node.isLeaf && (node.children.count > Self.capacity || node.children.contains { $0.count == 0 }) {
                return false
            }
            node.summarize()
            return node.count == count && node.weight == weight && node.weightless == weightless && node.last === last
        }
        let elements = all
        return check(root) && zip(elements, elements.dropFirst()).allSatisfy(areInOrder)
    }
}
