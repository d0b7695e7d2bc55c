import Foundation
import Testing

@testable import Strata

/// `ValueRow`: an object's or row's values stored by their attribute's type. Whatever is stored
/// must read back with the type and value it was stored with, copies must not see each other's
/// changes, and the references it holds must be released with it.
@Suite struct ValueRowTests {
    /// One position of each typed kind, then one that holds anything.
    static let kinds: [ValueShape.Kind] = [.int16, .int32, .int64, .double, .float, .bool, .date, .string, .any]
    static let shape = ValueShape(kinds: kinds)

    static var sample: [Any?] {
        [
            Int16(-7), Int32.max, Int64.min, 2.5, Float(1.25), true,
            Date(timeIntervalSinceReferenceDate: 123_456.75), "crème brûlée",
            UUID(uuid: (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16)),
        ]
    }

    /// A value's type and, where it has one, its equality.
    static func same(_ left: Any?, _ right: Any?) -> Bool {
        switch (left, right) {
        case (nil, nil): return true
        case let (left?, right?):
            guard type(of: left) == type(of: right) else { return false }
            return (left as? AnyHashable) == (right as? AnyHashable)
        default: return false
        }
    }

    @Test func eachKindKeepsItsValuesWithTheirTypes() {
        let row = ValueRow(Self.sample, shape: Self.shape)
        #expect(row.count == Self.kinds.count)
        for index in row.indices {
            #expect(Self.same(row[index], Self.sample[index]), "position \(index): \(String(describing: row[index]))")
        }
        #expect(row[2] as? Int64 == .min)
        #expect(row[7] as? String == "crème brûlée")
    }

    @Test func aNewRowHoldsNothing() {
        let row = ValueRow(shape: Self.shape)
        #expect(row.allSatisfy { $0 == nil })
        for index in row.indices where Self.kinds[index] != .any {
            #expect(row.exactValue(at: index, as: Int64.self) == .some(nil))
        }
    }

    @Test func valuesOfOtherTypesAreKeptAsGiven() throws {
        var row = ValueRow(shape: Self.shape)
        let number = NSNumber(value: 42)
        row[2] = number
        row[0] = Int32(5)
        row[7] = NSNull()
        row[3] = "not a number"
        let stored = row[2] as AnyObject
        #expect(ObjectIdentifier(stored) == ObjectIdentifier(number))
        #expect(row[0] as? Int32 == 5)
        #expect(type(of: try #require(row[0])) == Int32.self)
        #expect(row[7] is NSNull)
        #expect(row[3] as? String == "not a number")
        // Not of the position's type: left to the caller's cast.
        #expect(row.exactValue(at: 2, as: Int64.self) == nil)
        #expect(row.exactValue(at: 0, as: Int16.self) == nil)
        // Back to the position's type, then to nothing.
        row[2] = Int64(7)
        #expect(row.exactValue(at: 2, as: Int64.self) == .some(7))
        #expect(Self.same(row[2], Int64(7)))
        row[2] = nil
        #expect(row[2] == nil)
        row[0] = nil
        #expect(row[0] == nil)
        #expect(row.exactValue(at: 0, as: Int16.self) == .some(nil))
    }

    @Test func typedWritesReadBackInPlace() {
        var row = ValueRow(shape: Self.shape)
        row.set(Int16(3), at: 0)
        row.set(Int64(-9), at: 2)
        row.set("set", at: 7)
        row.set(Int64(12), at: 1)  // not the position's type: kept as given
        #expect(row.exactValue(at: 0, as: Int16.self) == .some(3))
        #expect(row.exactValue(at: 2, as: Int64.self) == .some(-9))
        #expect(row.exactValue(at: 7, as: String.self) == .some("set"))
        #expect(row.exactValue(at: 1, as: Int32.self) == nil)
        #expect(row[1] as? Int64 == 12)
        // Overwriting a string releases the old one and keeps the new.
        row.set("again", at: 7)
        #expect(row[7] as? String == "again")
    }

    @Test func copiesDoNotSeeEachOthersChanges() {
        let original = ValueRow(Self.sample, shape: Self.shape)
        var copy = original
        copy[7] = "changed"
        copy[2] = Int64(1)
        copy[8] = nil
        #expect(original[7] as? String == "crème brûlée")
        #expect(original[2] as? Int64 == .min)
        #expect(original[8] is UUID)
        #expect(copy[7] as? String == "changed")
        #expect(copy[2] as? Int64 == 1)
        #expect(copy[8] == nil)
        // The rest was copied, not dropped.
        #expect(Self.same(copy[6], Self.sample[6]))
        #expect(copy[5] as? Bool == true)
    }

    @Test func aLongStringOutlivesTheRowItWasReadFrom() {
        let long = String(repeating: "ünïcode ", count: 50)
        var row: ValueRow? = ValueRow(shape: Self.shape)
        row?[7] = long
        var copy = row
        let read = row?[7] as? String
        row = nil
        copy?[0] = Int16(1)  // copies the storage, string included
        let fromCopy = copy?[7] as? String
        copy = nil
        #expect(read == long)
        #expect(fromCopy == long)
    }

    final class Token {}

    @Test func referencesAreReleasedWithTheRow() {
        weak var inAny: Token?
        weak var aside: Token?
        weak var replaced: Token?
        do {
            var row = ValueRow(shape: Self.shape)
            let first = Token()
            let second = Token()
            let third = Token()
            inAny = first
            aside = second
            replaced = third
            row[8] = first  // the position that holds anything
            row[2] = second  // a typed position, kept aside
            row[3] = third
            row[3] = 1.5  // replaces the token
            var copy = row
            copy[0] = Int16(2)
            let (held, keptAside) = (copy[8] as AnyObject, copy[2] as AnyObject)
            #expect(ObjectIdentifier(held) == ObjectIdentifier(first))
            #expect(ObjectIdentifier(keptAside) == ObjectIdentifier(second))
        }
        #expect(inAny == nil)
        #expect(aside == nil)
        #expect(replaced == nil)
    }

    @Test func toOnePositionsHoldObjectsAndIDsAndKeepAnythingElseAside() throws {
        let model = NSManagedObjectModel {
            Entity("Pet") {
                Attribute("name", .stringAttributeType)
                Relationship("friend", to: "Pet")
            }
        }
        let entity = try #require(model.entitiesByName["Pet"])
        let shape = ValueShape(kinds: [.string, .object])
        let id = NSManagedObjectID(temporaryFor: entity)
        weak var released: NSManagedObject?
        do {
            var row = ValueRow(shape: shape)
            #expect(row[1] == nil)
            #expect(row.exactValue(at: 1, as: NSManagedObjectID.self) == .some(nil))
            row[1] = id
            #expect(row[1] as? NSManagedObjectID == id)
            // Left to the caller's cast, which finds it.
            #expect(row.exactValue(at: 1, as: NSManagedObjectID.self) == nil)
            let object = NSManagedObject(entity: entity, insertInto: nil)
            released = object
            var copy = row
            copy.setObject(object, at: 1)
            let held = try #require(copy[1] as? NSManagedObject)
            #expect(ObjectIdentifier(held) == ObjectIdentifier(object))
            #expect(row[1] as? NSManagedObjectID == id)
            // Not an object or an ID: kept as given, not bridged (a string stays a `String`).
            copy[1] = "not an object"
            #expect(copy[1] as? String == "not an object")
            #expect(type(of: try #require(copy[1])) == String.self)
            copy[1] = nil
            #expect(copy[1] == nil)
            copy[1] = object
            #expect(copy[1] is NSManagedObject)
        }
        #expect(released == nil)
    }

    @Test func slotsGiveTheTypeOfWhatTheyHold() {
        var row = ValueRow(Self.sample, shape: Self.shape)
        row[1] = nil
        row[3] = NSNumber(value: 1)
        #expect(row.storage.withSlot(at: 0) { _, type in type } == PlainValues.metadata(Int16.self))
        #expect(row.storage.withSlot(at: 0) { slot, _ in slot.load(as: Int16.self) } == -7)
        #expect(row.storage.withSlot(at: 1) { _, type in type } == 0)
        #expect(row.storage.withSlot(at: 3) { _, type in type } == nil)
        #expect(row.storage.withSlot(at: 7) { slot, _ in slot.load(as: String.self) } == "crème brûlée")
        #expect(row.storage.withSlot(at: 8) { _, type in type } == PlainValues.metadata(UUID.self))
    }

    @Test func rowsOfOtherLengthsThanTheShapeHoldAnything() {
        let row = ValueRow([Int64(1), "two"], shape: Self.shape)
        #expect(row.count == 2)
        #expect(row.shape.kinds == [.any, .any])
        #expect(row[0] as? Int64 == 1)
        #expect(row[1] as? String == "two")
    }

    @Test func entitiesStoreAttributesByTheirType() throws {
        let model = NSManagedObjectModel {
            Entity("Owner") {
                Attribute("count", .integer16AttributeType)
                Attribute("name", .stringAttributeType)
                Attribute("born", .dateAttributeType)
                Attribute("price", .decimalAttributeType)
                Attribute("blob", .binaryDataAttributeType)
                Relationship("pets", to: "Pet", inverse: "owner", toMany: true)
            }
            Entity("Pet") {
                Attribute("weight", .doubleAttributeType)
                Relationship("owner", to: "Owner", inverse: "pets")
            }
        }
        let owner = try #require(model.entitiesByName["Owner"]).layout
        let pet = try #require(model.entitiesByName["Pet"]).layout
        let kinds = Dictionary(
            uniqueKeysWithValues: owner.properties.indices.map { (owner.name(at: $0), owner.valueShape.kinds[$0]) })
        #expect(kinds == ["count": .int16, "name": .string, "born": .date, "price": .any, "blob": .any, "pets": .any])
        #expect(pet.valueShape.kinds == pet.properties.map { $0 is NSRelationshipDescription ? .object : .double })
    }
}
