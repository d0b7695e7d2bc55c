import Foundation
import Testing

@testable import Strata

/// The B-tree under the fetched results controller: every operation against a plain array
/// doing the same, through enough elements to split and empty nodes on several levels.
@Suite struct CountedTreeTests {
    final class Item: CountedTreeElement {
        let value: Int
        var weight: Int
        init(_ value: Int, weight: Int = 1) {
            self.value = value
            self.weight = weight
        }
        var treeWeight: Int { weight }
    }

    /// A deterministic generator, so that a failure repeats.
    struct Generator: RandomNumberGenerator {
        var state: UInt64
        /// SplitMix64: every bit of the result varies (`Int.random(in:using:)` reads the high ones).
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    @Test func positionsFollowAnArrayThroughRandomInsertsAndRemoves() {
        var random = Generator(state: 7)
        let tree = CountedTree<Item>()
        var model: [Item] = []
        for step in 0..<20_000 {
            if model.isEmpty || Int.random(in: 0..<10, using: &random) < 6 {
                let index = Int.random(in: 0...model.count, using: &random)
                let item = Item(step, weight: Int.random(in: 0..<3, using: &random))
                tree.insert(item, at: index)
                model.insert(item, at: index)
            } else {
                let index = Int.random(in: 0..<model.count, using: &random)
                #expect(tree.remove(at: index) === model.remove(at: index))
            }
            if step % 997 == 0 {
                #expect(tree.all.map(\.value) == model.map(\.value))
                #expect(tree.isConsistent { _, _ in true })
            }
        }
        #expect(tree.count == model.count)
        #expect(tree.totalWeight == model.reduce(0) { $0 + $1.weight })
        for _ in 0..<500 {
            let index = Int.random(in: 0..<model.count, using: &random)
            #expect(tree.element(at: index) === model[index])
            #expect(tree.weight(before: index) == model[..<index].reduce(0) { $0 + $1.weight })
        }
        #expect(tree.firstWeightlessIndex() == model.firstIndex { $0.weight == 0 })
    }

    @Test func locateByWeightSkipsWeightlessElements() {
        let items = [Item(0, weight: 2), Item(1, weight: 0), Item(2, weight: 3), Item(3, weight: 0), Item(4, weight: 1)]
        let tree = CountedTree(items)
        let expected = [0, 0, 2, 2, 2, 4]
        for (offset, value) in expected.enumerated() {
            let found = tree.locate(weight: offset)
            #expect(found?.element.value == value, "offset \(offset)")
        }
        #expect(tree.locate(weight: 6) == nil)
        #expect(tree.locate(weight: 2)?.weightBefore == 2)
        #expect(tree.locate(weight: 2)?.index == 2)
        #expect(tree.firstWeightlessIndex() == 1)
    }

    @Test func adjustingAWeightMovesTheOffsetsAfterIt() {
        let items = (0..<300).map { Item($0, weight: 1) }
        let tree = CountedTree(items)
        items[100].weight = 0
        tree.adjustWeight(at: 100, by: -1)
        #expect(tree.totalWeight == 299)
        #expect(tree.firstWeightlessIndex() == 100)
        #expect(tree.locate(weight: 100)?.element.value == 101)
        items[100].weight = 5
        tree.adjustWeight(at: 100, by: 5)
        #expect(tree.firstWeightlessIndex() == nil)
        #expect(tree.weight(before: 101) == 105)
        #expect(tree.isConsistent { _, _ in true })
    }

    @Test func binarySearchFindsTheFirstPositionAtOrAfterAValue() {
        var random = Generator(state: 11)
        let tree = CountedTree<Item>()
        var model: [Int] = []
        for _ in 0..<5_000 {
            let value = Int.random(in: 0..<2_000, using: &random)
            let index = tree.firstIndex { $0.value >= value }
            #expect(index == model.firstIndex { $0 >= value } ?? model.count)
            tree.insert(Item(value), at: index)
            model.insert(value, at: index)
        }
        #expect(tree.isConsistent { $0.value <= $1.value })
        #expect(tree.firstIndex { $0.value >= 5_000 } == tree.count)
        #expect(tree.firstIndex { _ in true } == 0)
    }

    @Test func bulkBuiltTreesMatchTheirElementsAndEmptyCleanly() {
        let items = (0..<10_000).map { Item($0) }
        let tree = CountedTree(items)
        #expect(tree.count == 10_000)
        #expect(tree.elements(in: 4_990..<5_010).map(\.value) == Array(4_990..<5_010))
        #expect(tree.isConsistent { $0.value < $1.value })
        for _ in 0..<10_000 { tree.remove(at: 0) }
        #expect(tree.isEmpty)
        tree.insert(Item(1), at: 0)
        #expect(tree.all.map(\.value) == [1])
    }
}
