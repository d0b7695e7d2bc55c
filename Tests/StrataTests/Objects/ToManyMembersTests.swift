import Foundation
import Testing

@testable import Strata

/// `ToManyMembers`, the in-place storage of a changed to-many relationship, against a plain
/// array doing the same operations: membership, count and order (for ordered relationships)
/// must match through the table's creation, and for ordered relationships through the splits,
/// emptied leaves and rebuilds of their tree (`OrderedMemberTree`), whose bookkeeping is
/// checked along the way.
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

    @Test(arguments: [4, OrderedMemberTree.defaultCapacity])
    func orderedRemovalsKeepTheOthersInOrderAcrossEmptiedLeaves(capacity: Int) throws {
        let all = objects(100)
        let members = ToManyMembers(all, ordered: true, treeCapacity: capacity)
        // Removals empty leaves (with small leaves) and leave the tree sparse enough to be rebuilt.
        let removed = Set(stride(from: 0, to: 100, by: 5).map { ObjectIdentifier(all[$0]) })
            .union((40..<80).map { ObjectIdentifier(all[$0]) })
        for object in all where removed.contains(ObjectIdentifier(object)) { #expect(members.remove(object)) }
        let kept = all.filter { !removed.contains(ObjectIdentifier($0)) }
        #expect(members.count == kept.count)
        #expect(members.objects.map(ObjectIdentifier.init) == kept.map(ObjectIdentifier.init))
        #expect(members.append(all[0]))
        #expect(members.objects.last === all[0])
        #expect(!members.append(kept[3]))
        #expect(try #require(members.orderedTree).bookkeepingErrors() == [])
    }

    /// Thousands of random changes at positions (insert, remove, replace, and reads of the
    /// object at a position and of an object's position), appends and removals by object,
    /// against an array doing the same. With leaves of 4 objects the tree is five or six levels
    /// deep, so every split, emptied node, new root and rebuild is met many times.
    @Test(arguments: zip([4, 4, 5, OrderedMemberTree.defaultCapacity], [1, 2, 3, 4] as [UInt64]))
    func orderedChangesAtPositionsMatchAnArray(capacity: Int, seed: UInt64) throws {
        let pool = objects(3_000)
        var generator = SeededGenerator(seed: seed)
        let members = ToManyMembers([], ordered: true, treeCapacity: capacity)
        let tree = try #require(members.orderedTree)
        var reference: [NSManagedObject] = []
        var absent = pool
        var maximumHeight = 0
        for step in 0..<12_000 {
            // Growing for the first half, shrinking after, so that the tree goes up and down.
            let growing = step < 6_000
            let roll = Int.random(in: 0..<100, using: &generator)
            if !absent.isEmpty && (reference.isEmpty || roll < (growing ? 55 : 25)) {
                let object = absent.remove(at: Int.random(in: 0..<absent.count, using: &generator))
                if roll % 5 == 0 {
                    #expect(members.append(object))
                    reference.append(object)
                } else {
                    let index = Int.random(in: 0...reference.count, using: &generator)
                    #expect(members.insert(object, at: index))
                    reference.insert(object, at: index)
                }
            } else if roll < (growing ? 75 : 70) {
                let index = Int.random(in: 0..<reference.count, using: &generator)
                let removed = try #require(members.remove(at: index))
                #expect(removed === reference[index])
                absent.append(reference.remove(at: index))
            } else if roll < 85 {
                let object = reference[Int.random(in: 0..<reference.count, using: &generator)]
                #expect(members.remove(object))
                reference.removeAll { $0 === object }
                absent.append(object)
            } else if roll < 93, !absent.isEmpty {
                let index = Int.random(in: 0..<reference.count, using: &generator)
                let object = absent.remove(at: Int.random(in: 0..<absent.count, using: &generator))
                let replaced = try #require(members.replace(at: index, with: object))
                #expect(replaced === reference[index])
                absent.append(replaced)
                reference[index] = object
            } else {
                // Duplicates are refused: inserting or replacing with an object already there.
                let index = Int.random(in: 0..<reference.count, using: &generator)
                let present = reference[Int.random(in: 0..<reference.count, using: &generator)]
                #expect(!members.insert(present, at: index))
                #expect(members.replace(at: index, with: present) == nil)
                #expect(!members.append(present))
            }
            #expect(members.count == reference.count)
            if !reference.isEmpty {
                let index = Int.random(in: 0..<reference.count, using: &generator)
                #expect(members.object(at: index) === reference[index])
                #expect(members.index(of: reference[index]) == index)
            }
            if let object = absent.last {
                #expect(!members.contains(object))
                #expect(members.index(of: object) == nil)
            }
            maximumHeight = max(maximumHeight, tree.height)
            if step % 97 == 0 {
                #expect(tree.bookkeepingErrors() == [], "step \(step)")
                #expect(members.objects.map(ObjectIdentifier.init) == reference.map(ObjectIdentifier.init), "step \(step)")
            }
        }
        #expect(tree.bookkeepingErrors() == [])
        #expect(members.objects.map(ObjectIdentifier.init) == reference.map(ObjectIdentifier.init))
        for (index, object) in reference.enumerated() { #expect(members.index(of: object) == index) }
        if capacity == 4 { #expect(maximumHeight >= 5) }
    }

    /// A tree made from many objects at once holds them in order, and finds each one.
    @Test func orderedMembersMadeFromManyObjectsFindEachByPosition() throws {
        let all = objects(10_000)
        let members = ToManyMembers(all, ordered: true, treeCapacity: 8)
        let tree = try #require(members.orderedTree)
        #expect(tree.bookkeepingErrors() == [])
        #expect(tree.height == 5)
        for index in stride(from: 0, to: all.count, by: 37) {
            #expect(members.object(at: index) === all[index])
            #expect(members.index(of: all[index]) == index)
        }
        #expect(members.insert(objects(1)[0], at: 5_000))
        #expect(members.object(at: 5_001) === all[5_000])
        #expect(tree.bookkeepingErrors() == [])
    }

    /// `held(in:)` reads the members out of a value in place: it finds them however they were
    /// boxed, and refuses every other value.
    @Test func heldFindsMembersAndRefusesEverythingElse() {
        let members = ToManyMembers(objects(3), ordered: false)
        let boxed: Any? = members
        let boxedAsObject: Any? = members as AnyObject
        #expect(ToManyMembers.held(in: boxed) === members)
        #expect(ToManyMembers.held(in: boxedAsObject) === members)
        let others: [Any?] = [
            nil, members.objects, NSSet(array: members.objects), members.objects[0], NSNull(), "text", 3,
            Optional<ToManyMembers>.none as Any, [members] as Any,
        ]
        for value in others { #expect(ToManyMembers.held(in: value) == nil) }
        // The members read out are the same object, still alive when the value goes.
        var value: Any? = ToManyMembers(objects(2), ordered: true)
        let read = ToManyMembers.held(in: value)
        value = nil
        #expect(read?.count == 2)
        #expect(read?.isOrdered == true)
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
