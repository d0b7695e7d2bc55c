import Foundation
import GRDB
import Testing

@testable import Strata

/// A transformer subclass written for Apple's direction: `NSSecureUnarchiveFromDataTransformer`
/// turns data into values (`transformedValue`) and values into data (`reverseTransformedValue`).
/// This one stores a list of words as one comma-separated string instead of a keyed archive,
/// overriding both methods, as libraries' subclasses do.
final class CommaListTransformer: NSSecureUnarchiveFromDataTransformer, @unchecked Sendable {
    static let name = NSValueTransformerName("StrataTestsCommaListTransformer")

    override func transformedValue(_ value: Any?) -> Any? {
        guard let data = value as? Data else { return nil }
        return String(decoding: data, as: UTF8.self).split(separator: ",").map(String.init)
    }

    override func reverseTransformedValue(_ value: Any?) -> Any? {
        guard let words = value as? [String] else { return nil }
        return Data(words.joined(separator: ",").utf8)
    }
}

@Suite struct TransformerDirectionTests {
    private let scratch = ObjectGraphTests.ScratchDirectory()

    private static let model: NSManagedObjectModel = {
        ValueTransformer.setValueTransformer(CommaListTransformer(), forName: CommaListTransformer.name)
        return NSManagedObjectModel {
            Entity("Shelf") {
                Attribute("words", .transformableAttributeType) { $0.valueTransformerName = CommaListTransformer.name.rawValue }
                Attribute("plain", .transformableAttributeType) {
                    $0.valueTransformerName = "NSSecureUnarchiveFromDataTransformer"
                }
            }
        }
    }()

    @Test func aSubclassStoresThroughReverseAndReadsThroughForward() throws {
        let url = scratch.file("shelves.sqlite")
        let stack = try ObjectGraphTests.Stack(Self.model, at: url)
        let writer = stack.newContext()
        try writer.performAndWait {
            let shelf = NSEntityDescription.insertNewObject(forEntityName: "Shelf", into: writer)
            shelf.setValue(["alpha", "beta"], forKey: "words")
            shelf.setValue(["x": 1], forKey: "plain")
            try writer.save()
        }
        // The column holds what reverseTransformedValue made: the subclass's own format.
        let stored = try DatabaseQueue(path: url.path).read { db in try Data.fetchOne(db, sql: "SELECT ZWORDS FROM ZSHELF") }
        #expect(stored.map { String(decoding: $0, as: UTF8.self) } == "alpha,beta")
        let reader = stack.newContext()
        try reader.performAndWait {
            let shelf = try #require(try reader.fetch(NSFetchRequest<NSManagedObject>(entityName: "Shelf")).first)
            #expect(shelf.value(forKey: "words") as? [String] == ["alpha", "beta"])
            #expect(shelf.value(forKey: "plain") as? [String: Int] == ["x": 1])
        }
    }
}
