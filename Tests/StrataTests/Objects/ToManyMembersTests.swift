import Foundation
import Testing

@testable import Strata

/// `ToManyMembers`, the in-place storage of a changed to-many relationship, against a plain
/// array doing the same operations: membership, count and order (for ordered relationships)
/// must match through the table's creation, the holes of ordered removals and their
/// compaction.
@Suite struct ToManyMembersTests {
    private static let entity: NSEntityDescription = {
        let model = NSManagedObjectModel {
            Entity("Member") { Attribute("name", .stringAttributeType) }
        }
        return model.entitiesByName["Member"] ?? NSEntityDescription()
    }()

    private func objects(_ count: Int) -> [NSManagedObject] {
        (0..<count).map { _ in NSManagedObject(entity: Self.entity, insertInto: nil) }
    }

    /// Random appends and removals (some of objects already there or absent), checked against
    /// an array after every step.
    private func checkAgainstArray(ordered: Bool, pool: Int, steps: Int, seed: UInt64) {
        let candidates = objects(pool)
        var generator = SeededGenerator(seed: seed)
        let members = ToManyMembers([], ordered: ordered)
        var reference: [NSManagedObject] = []
        for step in 0..<steps {
            let object = candidates[Int.random(in: 0..<pool, using: &generator)]
            // Mostly appends early on, mostly removals later: the relationship grows past the
            // table's threshold, then shrinks through compaction.
            let appending = Int.random(in: 0..<100, using: &generator) < (step < steps / 2 ? 75 : 30)
            if appending {
                let expected = !reference.contains { $0 === object }
                #expect(members.append(object) == expected)
                if expected { reference.append(object) }
            } else {
                let position = reference.firstIndex { $0 === object }
                #expect(members.remove(object) == (position != nil))
                if let position { reference.remove(at: position) }
            }
            #expect(members.count == reference.count)
            #expect(members.contains(object) == reference.contains { $0 === object })
            if step % 7 == 0 {
                let read = members.objects
                if ordered {
                    #expect(read.map(ObjectIdentifier.init) == reference.map(ObjectIdentifier.init))
                } else {
                    #expect(Set(read.map(ObjectIdentifier.init)) == Set(reference.map(ObjectIdentifier.init)))
                    #expect(read.count == reference.count)
                }
            }
        }
        for object in candidates {
            #expect(members.contains(object) == reference.contains { $0 === object })
        }
    }

    @Test(arguments: [1, 2, 3])
    func unorderedMembersMatchAnArray(seed: UInt64) {
        checkAgainstArray(ordered: false, pool: 120, steps: 2_000, seed: seed)
    }

    @Test(arguments: [1, 2, 3])
    func orderedMembersMatchAnArrayInOrder(seed: UInt64) {
        checkAgainstArray(ordered: true, pool: 120, steps: 2_000, seed: seed)
    }

    @Test func orderedRemovalsKeepTheOthersInOrderAcrossCompaction() {
        let all = objects(100)
        let members = ToManyMembers(all, ordered: true)
        // Every removal but the last leaves a hole; 60 of them make the holes more than half.
        let removed = Set(stride(from: 0, to: 100, by: 5).map { ObjectIdentifier(all[$0]) })
            .union((40..<80).map { ObjectIdentifier(all[$0]) })
        for object in all where removed.contains(ObjectIdentifier(object)) { #expect(members.remove(object)) }
        let kept = all.filter { !removed.contains(ObjectIdentifier($0)) }
        #expect(members.count == kept.count)
        #expect(members.objects.map(ObjectIdentifier.init) == kept.map(ObjectIdentifier.init))
        #expect(members.append(all[0]))
        #expect(members.objects.last === all[0])
        #expect(!members.append(kept[3]))
    }

    @Test func aChangeDropsTheObjectsAndTheSetMadeBefore() {
        let all = objects(3)
        let members = ToManyMembers(Array(all.prefix(2)), ordered: false)
        #expect(members.hasObjects)
        members.published = NSSet(array: members.objects)
        members.append(all[2])
        #expect(!members.hasObjects)
        #expect(members.published == nil)
        #expect(members.objects.count == 3)
        #expect(members.hasObjects)
        #expect(!members.remove(NSManagedObject(entity: Self.entity, insertInto: nil)))
        #expect(members.hasObjects)
    }
}

/// A small deterministic generator (SplitMix64), so that a failing sequence can be replayed.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
