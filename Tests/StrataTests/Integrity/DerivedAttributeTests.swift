import Foundation
import Testing

@testable import Strata

/// Derived attributes (SPEC §3.1, STORE-FORMAT §6.3): computed by the store at save, from the
/// object's own values, a to-one destination, a to-many relationship or the clock; read-only;
/// stale in memory until the object is refreshed. Every store type gives the same values.
@Suite struct DerivedAttributeTests {
    typealias Fixtures = DerivedAttributeFixtures
    typealias StoreKind = DerivedAttributeFixtures.StoreKind

    @discardableResult
    private func insert(
        _ entity: String, _ context: NSManagedObjectContext, _ values: [String: Any] = [:]
    )
        -> NSManagedObject
    {
        Fixtures.insert(entity, into: context, values)
    }

    @Test(arguments: StoreKind.allCases)
    func keyPathsAndStringFunctions(_ kind: StoreKind) throws {
        let stack = try Fixtures.Stack(kind)
        let context = stack.context()
        try context.performAndWait {
            let owner = insert("DAOwner", context, ["name": "Zoë Café"])
            let item = insert("DAItem", context, ["title": "Café", "owner": owner])
            try context.save()
            #expect(Fixtures.stored(item, "titleCopy") as? String == "Café")
            #expect(item.value(forKey: "upperTitle") as? String == "CAFÉ")
            #expect(item.value(forKey: "lowerTitle") as? String == "café")
            #expect(item.value(forKey: "searchTitle") as? String == "cafe")
            #expect(item.value(forKey: "ownerName") as? String == "Zoë Café")
            #expect(item.value(forKey: "searchOwner") as? String == "zoe cafe")
        }
    }

    @Test(arguments: StoreKind.allCases)
    func copiesFollowTheirSources(_ kind: StoreKind) throws {
        let stack = try Fixtures.Stack(kind)
        let context = stack.context()
        try context.performAndWait {
            let ada = insert("DAOwner", context, ["name": "Ada"])
            let grace = insert("DAOwner", context, ["name": "Grace"])
            let item = insert("DAItem", context, ["title": "one", "owner": ada])
            try context.save()

            item.setValue("Two", forKey: "title")
            try context.save()
            #expect(Fixtures.stored(item, "titleCopy") as? String == "Two")
            #expect(item.value(forKey: "lowerTitle") as? String == "two")

            // The destination's attribute changes; the item itself is not saved.
            ada.setValue("Ada L.", forKey: "name")
            try context.save()
            #expect(Fixtures.stored(item, "ownerName") as? String == "Ada L.")

            item.setValue(grace, forKey: "owner")
            try context.save()
            #expect(Fixtures.stored(item, "ownerName") as? String == "Grace")

            context.delete(grace)
            try context.save()
            #expect(Fixtures.stored(item, "ownerName") == nil)
            #expect(item.value(forKey: "searchOwner") == nil)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func countsAndSumsOverToManyRelationships(_ kind: StoreKind) throws {
        let stack = try Fixtures.Stack(kind)
        let context = stack.context()
        try context.performAndWait {
            let item = insert("DAItem", context, ["title": "cart"])
            let other = insert("DAItem", context, ["title": "other"])
            let lines = [1, 2, 3].map { insert("DALine", context, ["amount": Int64($0), "item": item]) }
            let tags = [0.5, 1.5].map { insert("DATag", context, ["weight": $0]) }
            item.mutableSetValue(forKey: "tags").addObjects(from: tags)
            other.mutableSetValue(forKey: "tags").add(tags[0])
            try context.save()
            #expect(Fixtures.stored(item, "lineCount") as? Int64 == 3)
            #expect(item.value(forKey: "total") as? Int64 == 6)
            #expect(item.value(forKey: "tagCount") as? Int32 == 2)
            #expect(item.value(forKey: "weight") as? Double == 2.0)
            #expect(Fixtures.stored(other, "tagCount") as? Int32 == 1)
            #expect(other.value(forKey: "lineCount") as? Int64 == 0)
            #expect(other.value(forKey: "total") as? Int64 == 0)

            // A line is deleted, one moves to the other item, one changes its amount.
            context.delete(lines[0])
            lines[1].setValue(other, forKey: "item")
            lines[2].setValue(Int64(10), forKey: "amount")
            try context.save()
            #expect(Fixtures.stored(item, "lineCount") as? Int64 == 1)
            #expect(item.value(forKey: "total") as? Int64 == 10)
            #expect(Fixtures.stored(other, "lineCount") as? Int64 == 1)
            #expect(other.value(forKey: "total") as? Int64 == 2)

            // A tag leaves one item, another is deleted, one changes its weight.
            item.mutableSetValue(forKey: "tags").remove(tags[1])
            tags[0].setValue(4.0, forKey: "weight")
            try context.save()
            #expect(Fixtures.stored(item, "tagCount") as? Int32 == 1)
            #expect(item.value(forKey: "weight") as? Double == 4.0)
            context.delete(tags[0])
            try context.save()
            #expect(Fixtures.stored(item, "tagCount") as? Int32 == 0)
            #expect(item.value(forKey: "weight") as? Double == 0)
            #expect(Fixtures.stored(other, "tagCount") as? Int32 == 0)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func nowIsTheTimeOfTheSave(_ kind: StoreKind) throws {
        let stack = try Fixtures.Stack(kind)
        let context = stack.context()
        try context.performAndWait {
            let item = insert("DAItem", context, ["title": "clock"])
            let before = Date()
            try context.save()
            let after = Date()
            let inserted = try #require(Fixtures.stored(item, "touchedAt") as? Date)
            #expect(inserted >= before.addingTimeInterval(-0.001) && inserted <= after.addingTimeInterval(0.001))

            Thread.sleep(forTimeInterval: 0.01)
            item.setValue("clock 2", forKey: "title")
            try context.save()
            let updated = try #require(Fixtures.stored(item, "touchedAt") as? Date)
            #expect(updated > inserted)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func valuesAreStaleUntilRefreshedAndCannotBeSet(_ kind: StoreKind) throws {
        let stack = try Fixtures.Stack(kind)
        let context = stack.context()
        try context.performAndWait {
            let item = insert("DAItem", context, ["title": "stale"])
            insert("DALine", context, ["amount": Int64(5), "item": item])
            try context.save()
            // As Core Data: the save does not change the object; the store has the values.
            #expect(item.value(forKey: "titleCopy") == nil)
            #expect(item.value(forKey: "lineCount") == nil)
            let reader = stack.context()
            try reader.performAndWait {
                let fetched = try #require(
                    try reader.fetch(NSFetchRequest<NSManagedObject>(entityName: "DAItem")).first)
                #expect(fetched.value(forKey: "titleCopy") as? String == "stale")
                #expect(fetched.value(forKey: "lineCount") as? Int64 == 1)
            }
            #expect(Fixtures.stored(item, "lineCount") as? Int64 == 1)

            // Read-only: setting is ignored and makes no change.
            item.setValue("mine", forKey: "titleCopy")
            item.setValue(Int64(99), forKey: "lineCount")
            #expect(item.value(forKey: "titleCopy") as? String == "stale")
            #expect(item.value(forKey: "lineCount") as? Int64 == 1)
            #expect(!context.hasChanges)
        }
    }

    /// The coordinator's row cache gets what the store computed, also for rows the save did
    /// not write (an item whose owner was renamed): a fault fired afterwards is not stale.
    @Test(arguments: StoreKind.allCases)
    func faultsFiredAfterTheSaveSeeTheComputedValues(_ kind: StoreKind) throws {
        let stack = try Fixtures.Stack(kind)
        let context = stack.context()
        let (itemID, ownerID) = try context.performAndWait {
            let owner = insert("DAOwner", context, ["name": "Ada"])
            let item = insert("DAItem", context, ["title": "cached", "owner": owner])
            insert("DALine", context, ["amount": Int64(1), "item": item])
            try context.save()
            return (item.objectID, owner.objectID)
        }
        let first = stack.context()
        first.performAndWait {
            let item = first.object(with: itemID)
            #expect(item.value(forKey: "lineCount") as? Int64 == 1)
            #expect(item.value(forKey: "ownerName") as? String == "Ada")
        }
        try context.performAndWait {
            context.object(with: ownerID).setValue("Grace", forKey: "name")
            try context.save()
        }
        let second = stack.context()
        second.performAndWait {
            #expect(second.object(with: itemID).value(forKey: "ownerName") as? String == "Grace")
        }
    }

    @Test(arguments: StoreKind.allCases)
    func subentityAttributesOnlyForTheirRows(_ kind: StoreKind) throws {
        let stack = try Fixtures.Stack(kind)
        let context = stack.context()
        try context.performAndWait {
            let note = insert("DANote", context, ["title": "note", "memo": "remember"])
            let item = insert("DAItem", context, ["title": "item"])
            try context.save()
            #expect(Fixtures.stored(note, "memoUpper") as? String == "REMEMBER")
            #expect(note.value(forKey: "upperTitle") as? String == "NOTE")
            #expect(Fixtures.stored(item, "upperTitle") as? String == "ITEM")
        }
        if kind == .sqlite {
            let memos = try stack.sql { try String?.fetchAll($0, sql: "SELECT ZMEMOUPPER FROM ZDAITEM ORDER BY Z_PK") }
            #expect(memos == ["REMEMBER", nil])
        }
    }

    @Test func binaryStoreKeepsDerivedValuesInItsFile() throws {
        let stack = try Fixtures.Stack(.binary)
        let context = stack.context()
        try context.performAndWait {
            let item = insert("DAItem", context, ["title": "kept"])
            insert("DALine", context, ["amount": Int64(7), "item": item])
            try context.save()
        }
        try stack.reopen()
        let reader = stack.context()
        try reader.performAndWait {
            let item = try #require(try reader.fetch(NSFetchRequest<NSManagedObject>(entityName: "DAItem")).first)
            #expect(item.value(forKey: "upperTitle") as? String == "KEPT")
            #expect(item.value(forKey: "total") as? Int64 == 7)
        }
    }
}
