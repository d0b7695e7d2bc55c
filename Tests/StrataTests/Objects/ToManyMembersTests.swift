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

    /// Membership of objects created before and after the newest member, through the table
    /// made late (at the first search past 16 objects) and brought up to date after appends
    /// and removals: an object created after every member is answered without a search, any
    /// other by the table.
    @Test func membershipByCreationOrderAndTheLateTable() {
        let early = objects(40)
        let members = ToManyMembers(Array(early.prefix(10)), ordered: false)
        let later = objects(40)
        #expect(!members.contains(later[0]))
        #expect(!members.contains(early[20]))
        for object in later.prefix(20) { members.appendAbsent(object) }
        #expect(members.count == 30)
        // The first search past 16 objects makes the table of every slot.
        #expect(members.contains(early[3]))
        #expect(members.contains(later[19]))
        #expect(!members.contains(later[20]))
        #expect(!members.contains(early[30]))
        // Appends after the table exists, then removals (each moves the last object).
        for object in early.suffix(10) { #expect(members.append(object)) }
        #expect(!members.append(later[5]))
        #expect(members.remove(later[0]))
        #expect(members.remove(early.last ?? early[0]))
        #expect(!members.remove(later[0]))
        let expected = Set((Array(early.prefix(10)) + Array(later[1..<20]) + Array(early[30..<39])).map(ObjectIdentifier.init))
        #expect(Set(members.objects.map(ObjectIdentifier.init)) == expected)
        for object in early + later { #expect(members.contains(object) == expected.contains(ObjectIdentifier(object))) }
        // An object created after all of these was never added.
        let newest = objects(1)[0]
        #expect(newest.creationSerial > (early + later).map(\.creationSerial).max() ?? 0)
        #expect(!members.contains(newest))
    }

    /// Positions stay right while the table lags behind appends: bursts of new objects appended
    /// without a search, then removals of the first, a middle and the last object (the last
    /// one not in the table yet; each removal moves the last slot into the hole), then appends
    /// of objects made before the newest member, which only the table can tell apart. A stale
    /// position shows as a removal that fails or takes another object, or a wrong `contains`.
    @Test func positionsStayRightThroughLaggingAppendsAndRemovals() {
        let old = objects(300)
        let members = ToManyMembers([], ordered: false)
        var reference: [NSManagedObject] = []
        var made: [NSManagedObject] = []
        for round in 0..<6 {
            let burst = objects(40 + round * 10)
            made += burst
            for object in burst {
                members.appendAbsent(object)
                reference.append(object)
            }
            for victim in [reference[0], reference[reference.count / 2], reference[reference.count - 1]] {
                #expect(members.remove(victim), "round \(round)")
                reference.removeAll { $0 === victim }
                #expect(!members.remove(victim), "round \(round)")
            }
            for object in old[(round * 50)..<(round * 50 + 30)] {
                #expect(members.append(object), "round \(round)")
                reference.append(object)
            }
            #expect(!members.append(old[round * 50]), "round \(round)")
            #expect(members.count == reference.count, "round \(round)")
            // Every other round, the next burst piles on slots the table does not hold yet.
            guard round % 2 == 1 else { continue }
            let held = Set(reference.map(ObjectIdentifier.init))
            #expect(Set(members.objects.map(ObjectIdentifier.init)) == held, "round \(round)")
            for object in old + made {
                #expect(members.contains(object) == held.contains(ObjectIdentifier(object)), "round \(round)")
            }
        }
        for object in reference { #expect(members.remove(object)) }
        #expect(members.count == 0)
        for object in old + made { #expect(!members.contains(object)) }
    }

    /// Random appends, removals and questions, with new objects made along the way (told apart
    /// by their creation order) among older ones (told by the table), against an array.
    @Test(arguments: [5, 6, 7] as [UInt64])
    func unorderedMembersWithObjectsMadeAlongTheWay(seed: UInt64) {
        var generator = SeededGenerator(seed: seed)
        var pool = objects(60)
        let members = ToManyMembers(Array(pool.prefix(20)), ordered: false)
        var reference = Array(pool.prefix(20))
        for step in 0..<3_000 {
            if step % 8 == 0 { pool += objects(3) }
            let object = pool[Int.random(in: 0..<pool.count, using: &generator)]
            let isHeld = reference.contains { $0 === object }
            switch Int.random(in: 0..<100, using: &generator) {
            case ..<50:
                #expect(members.append(object) == !isHeld, "step \(step)")
                if !isHeld { reference.append(object) }
            case ..<80:
                #expect(members.remove(object) == isHeld, "step \(step)")
                reference.removeAll { $0 === object }
            default:
                #expect(members.contains(object) == isHeld, "step \(step)")
            }
            #expect(members.count == reference.count)
        }
        #expect(reference.count > ToManyMembers.tableThreshold * 4)
        for object in pool { #expect(members.contains(object) == reference.contains { $0 === object }) }
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
