/// The objects of a changed ordered to-many relationship, in order, in a B+ tree whose nodes
/// count the objects below them: finding, inserting, removing or replacing the object at a
/// position, and finding an object's position, cost O(log n); appending costs O(1) amortised.
///
/// An array made inserting at a position (`insert(_:at:)` of the mutable ordered set, the
/// generated `insertIntoChapters(_:at:)`) move every object after it, and finding an object's
/// position after removals needed a pass: 100,000 inserts at random positions took 2.5 billion
/// moves. Here a position is found by walking down from the root, adding up counts, and an
/// object's position by walking up from its leaf (each object's leaf is kept in a table), both
/// through at most `capacity` entries per level.
///
/// Appends go to the last leaf without updating its ancestors' counts, which `pending` keeps
/// until the next operation that walks the tree: each append touches one leaf, and a new leaf
/// every `capacity` appends. A leaf splits in half when an insert overfills it (an append starts
/// a new leaf instead, so that appended objects fill their leaves), an inner node when it has
/// too many children, and an emptied node leaves its parent. When removals leave the leaves
/// less than a quarter full on average, the tree is built again from its objects, a cost paid
/// for by those removals.
final class OrderedMemberTree {
    /// A leaf (`objects`) or an inner node (`children`), with the count of objects below it.
    final class Node {
        weak var parent: Node?
        var count = 0
        var objects: [NSManagedObject] = []
        var children: [Node] = []
        let isLeaf: Bool

        init(leaf: Bool) { isLeaf = leaf }
    }

    /// Most objects in a leaf and most children of an inner node.
    let capacity: Int
    private(set) var root: Node
    /// The last leaf, where appends go.
    private var last: Node
    /// Objects appended to `last` that its ancestors do not count yet.
    private var pending = 0
    private var leaves = 1
    /// Each object's leaf, by identity; made when the relationship passes `tableThreshold`
    /// objects (below that, the objects fit one leaf, and a scan is as quick).
    private var leafOf: [ObjectIdentifier: Node]?
    private(set) var count = 0

    static let defaultCapacity = 64

    /// A tree holding `objects`, which are distinct, in their order. A `capacity` below the
    /// default (at least 3) makes deep trees of few objects, for tests.
    init(_ objects: [NSManagedObject], capacity: Int = defaultCapacity) {
        self.capacity = max(3, capacity)
        root = Node(leaf: true)
        last = root
        build(objects)
    }

    /// Whether `object` is among the objects.
    func contains(_ object: NSManagedObject) -> Bool { leaf(of: object) != nil }

    /// The objects in order.
    var objects: [NSManagedObject] {
        var result: [NSManagedObject] = []
        result.reserveCapacity(count)
        func collect(_ node: Node) {
            if node.isLeaf { return result.append(contentsOf: node.objects) }
            for child in node.children { collect(child) }
        }
        collect(root)
        return result
    }

    /// The object at `index`, which is less than `count`.
    func object(at index: Int) -> NSManagedObject {
        let (leaf, offset) = locate(index)
        return leaf.objects[offset]
    }

    /// The position of `object`, or `nil` when it is not there.
    func index(of object: NSManagedObject) -> Int? {
        guard let leaf = leaf(of: object), let offset = leaf.objects.firstIndex(where: { $0 === object }) else {
            return nil
        }
        settle()
        var index = offset
        var node = leaf
        while let parent = node.parent {
            for child in parent.children {
                if child === node { break }
                index += child.count
            }
            node = parent
        }
        return index
    }

    /// Adds `object`, which is not there, at the end.
    func append(_ object: NSManagedObject) {
        if last.objects.count >= capacity {
            settle()
            let leaf = Node(leaf: true)
            attach(leaf, after: last)
            last = leaf
        }
        last.objects.append(object)
        last.count += 1
        pending += 1
        count += 1
        note(object, in: last)
        makeTableIfNeeded()
    }

    /// Inserts `object`, which is not there, at `index` (at most `count`).
    func insert(_ object: NSManagedObject, at index: Int) {
        precondition(index >= 0 && index <= count, "index \(index) beyond bounds [0 .. \(count)]")
        guard index < count else { return append(object) }
        let (leaf, offset) = locate(index)
        leaf.objects.insert(object, at: offset)
        adjustCounts(from: leaf, by: 1)
        count += 1
        note(object, in: leaf)
        if leaf.objects.count > capacity { split(leaf) }
        makeTableIfNeeded()
    }

    /// Replaces the object at `index` (less than `count`) with `object`, which is not there;
    /// returns the object replaced.
    @discardableResult
    func replace(at index: Int, with object: NSManagedObject) -> NSManagedObject {
        let (leaf, offset) = locate(index)
        let replaced = leaf.objects[offset]
        leafOf?[ObjectIdentifier(replaced)] = nil
        leaf.objects[offset] = object
        note(object, in: leaf)
        return replaced
    }

    /// Removes the object at `index` (less than `count`) and returns it.
    @discardableResult
    func remove(at index: Int) -> NSManagedObject {
        let (leaf, offset) = locate(index)
        return remove(offset, of: leaf)
    }

    /// Removes `object`; `false` when it is not there.
    @discardableResult
    func remove(_ object: NSManagedObject) -> Bool {
        guard let leaf = leaf(of: object), let offset = leaf.objects.firstIndex(where: { $0 === object }) else {
            return false
        }
        settle()
        remove(offset, of: leaf)
        return true
    }

    // MARK: Finding

    private func leaf(of object: NSManagedObject) -> Node? {
        if let leafOf { return leafOf[ObjectIdentifier(object)] }
        // Without the table, every object is in the root, a leaf.
        return root.objects.contains { $0 === object } ? root : nil
    }

    /// The leaf holding position `index` (less than `count`) and the position in it.
    private func locate(_ index: Int) -> (leaf: Node, offset: Int) {
        precondition(index >= 0 && index < count, "index \(index) beyond bounds [0 .. \(count - 1)]")
        settle()
        var node = root
        var rest = index
        while !node.isLeaf {
            var next = node.children[node.children.count - 1]
            for child in node.children {
                if rest < child.count {
                    next = child
                    break
                }
                rest -= child.count
            }
            node = next
        }
        return (node, rest)
    }

    // MARK: Changing

    private func note(_ object: NSManagedObject, in leaf: Node) {
        if leafOf != nil { leafOf?[ObjectIdentifier(object)] = leaf }
    }

    /// Makes the leaf table once the objects pass `tableThreshold` or fill more than one leaf.
    private func makeTableIfNeeded() {
        guard leafOf == nil, count > ToManyMembers.tableThreshold || !root.isLeaf else { return }
        var table = [ObjectIdentifier: Node](minimumCapacity: count)
        func add(_ node: Node) {
            if node.isLeaf {
                for object in node.objects { table[ObjectIdentifier(object)] = node }
            } else {
                for child in node.children { add(child) }
            }
        }
        add(root)
        leafOf = table
    }

    /// Counts the appends to the last leaf in its ancestors.
    private func settle() {
        guard pending != 0 else { return }
        let appended = pending
        pending = 0
        var node = last.parent
        while let current = node {
            current.count += appended
            node = current.parent
        }
    }

    private func adjustCounts(from leaf: Node, by change: Int) {
        var node: Node? = leaf
        while let current = node {
            current.count += change
            node = current.parent
        }
    }

    @discardableResult
    private func remove(_ offset: Int, of leaf: Node) -> NSManagedObject {
        let object = leaf.objects.remove(at: offset)
        leafOf?[ObjectIdentifier(object)] = nil
        adjustCounts(from: leaf, by: -1)
        count -= 1
        if leaf.objects.isEmpty && leaf !== root { detach(leaf) }
        if leaves > 1 && count * 4 < leaves * capacity { build(objects) }
        return object
    }

    /// Puts `node` (whose objects its ancestors count already, or none) after `sibling`,
    /// splitting the parent when it overflows; a new root when `sibling` is the root.
    private func attach(_ node: Node, after sibling: Node) {
        if node.isLeaf { leaves += 1 }
        guard let parent = sibling.parent else {
            let top = Node(leaf: false)
            top.children = [sibling, node]
            top.count = sibling.count + node.count
            sibling.parent = top
            node.parent = top
            root = top
            return
        }
        let position = (parent.children.firstIndex { $0 === sibling } ?? parent.children.count - 1) + 1
        parent.children.insert(node, at: position)
        node.parent = parent
        if parent.children.count > capacity { split(parent) }
    }

    /// Moves the second half of a node's objects or children to a new node after it.
    private func split(_ node: Node) {
        let right = Node(leaf: node.isLeaf)
        if node.isLeaf {
            let half = node.objects.count / 2
            right.objects = Array(node.objects[half...])
            node.objects.removeSubrange(half...)
            right.count = right.objects.count
            if leafOf != nil {
                for object in right.objects { leafOf?[ObjectIdentifier(object)] = right }
            }
            if node === last { last = right }
        } else {
            let half = node.children.count / 2
            right.children = Array(node.children[half...])
            node.children.removeSubrange(half...)
            for child in right.children {
                child.parent = right
                right.count += child.count
            }
        }
        node.count -= right.count
        attach(right, after: node)
    }

    /// Takes an emptied node out of its parent, and the parent out of its own when that
    /// empties it; a root left with one child gives way to it.
    private func detach(_ node: Node) {
        guard let parent = node.parent else { return }
        if node.isLeaf { leaves -= 1 }
        parent.children.removeAll { $0 === node }
        node.parent = nil
        if parent.children.isEmpty && parent !== root {
            detach(parent)
        }
        while !root.isLeaf && root.children.count == 1 {
            root = root.children[0]
            root.parent = nil
        }
        if node === last {
            var rightmost = root
            while !rightmost.isLeaf { rightmost = rightmost.children[rightmost.children.count - 1] }
            last = rightmost
        }
    }

    /// Makes the tree anew from `objects`: full leaves, and full inner nodes above them.
    private func build(_ objects: [NSManagedObject]) {
        pending = 0
        count = objects.count
        var level: [Node] = stride(from: 0, to: max(objects.count, 1), by: capacity).map { start in
            let leaf = Node(leaf: true)
            leaf.objects = Array(objects[start..<min(start + capacity, objects.count)])
            leaf.count = leaf.objects.count
            return leaf
        }
        leaves = level.count
        last = level[level.count - 1]
        while level.count > 1 {
            level = stride(from: 0, to: level.count, by: capacity).map { start in
                let node = Node(leaf: false)
                node.children = Array(level[start..<min(start + capacity, level.count)])
                for child in node.children {
                    child.parent = node
                    node.count += child.count
                }
                return node
            }
        }
        root = level[0]
        root.parent = nil
        leafOf = nil
        makeTableIfNeeded()
    }
}

#if DEBUG
    extension OrderedMemberTree {
        /// What is wrong with the tree's bookkeeping (empty when nothing is), for tests: the
        /// counts, parents, leaf table, last leaf and leaf count against the nodes themselves.
        func bookkeepingErrors() -> [String] {
            settle()
            var errors: [String] = []
            var leafCount = 0
            var lastLeaf: Node?
            func check(_ node: Node, depth: Int) -> Int {
                if node.isLeaf {
                    leafCount += 1
                    lastLeaf = node
                    if node.objects.count > capacity { errors.append("leaf over capacity") }
                    if node.objects.isEmpty && node !== root { errors.append("empty leaf") }
                    for object in node.objects where leafOf != nil && leafOf?[ObjectIdentifier(object)] !== node {
                        errors.append("leaf table wrong for an object")
                    }
                    if node.count != node.objects.count { errors.append("leaf count \(node.count) for \(node.objects.count)") }
                    return node.objects.count
                }
                if node.children.isEmpty { errors.append("inner node without children") }
                if node.children.count > capacity { errors.append("inner node over capacity") }
                var total = 0
                for child in node.children {
                    if child.parent !== node { errors.append("wrong parent at depth \(depth + 1)") }
                    total += check(child, depth: depth + 1)
                }
                if total != node.count { errors.append("inner count \(node.count) for \(total) at depth \(depth)") }
                return total
            }
            let total = check(root, depth: 0)
            if root.parent != nil { errors.append("root with a parent") }
            if total != count { errors.append("count \(count) for \(total)") }
            if leafCount != leaves { errors.append("leaves \(leaves) for \(leafCount)") }
            if lastLeaf !== last { errors.append("last leaf is not the rightmost") }
            if let leafOf, leafOf.count != count { errors.append("leaf table of \(leafOf.count) for \(count)") }
            if leafOf == nil && !root.isLeaf { errors.append("several leaves without a leaf table") }
            return errors
        }

        /// The tree's height (1 for a single leaf).
        var height: Int {
            var height = 1
            var node = root
            while !node.isLeaf {
                node = node.children[0]
                height += 1
            }
            return height
        }
    }
#endif
