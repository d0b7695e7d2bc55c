import Foundation
import StrataSyncProtocol
import Testing

@testable import Strata
@testable import SyncSimulationSupport

/// The sync client's tests that need no server (issue 24): clocks, record mapping, link
/// names, and the exporter and importer of several stores exchanging records through
/// `MemoryZone`, a few lines that keep records as the server does (per-field last writer
/// wins by clock, a delete drops the fields not newer than it, batches applied once and in
/// order). `MemoryZone`, `Device` and `Scratch` are in SyncSimulationSupport, which the
/// simulation against the real server shares. The tests against the real server are in
/// `CloudKitContainerServerTests`.
@Suite enum SyncTests {}

extension SyncTests {
    /// Items with tags (many-to-many), a list (to-one) and a binary attachment.
    static func model() -> NSManagedObjectModel {
        NSManagedObjectModel {
            Entity("SyncItem") {
                Attribute("title", .stringAttributeType)
                Attribute("rank", .integer64AttributeType, optional: false, defaultValue: Int64(0))
                Attribute("done", .booleanAttributeType, optional: false, defaultValue: false)
                Attribute("due", .dateAttributeType)
                Attribute("attachment", .binaryDataAttributeType)
                Relationship("tags", to: "SyncTag", inverse: "items", toMany: true)
                Relationship("list", to: "SyncList", inverse: "items")
            }
            Entity("SyncTag") {
                Attribute("name", .stringAttributeType)
                Relationship("items", to: "SyncItem", inverse: "tags", toMany: true)
            }
            Entity("SyncList") {
                Attribute("name", .stringAttributeType)
                Relationship("items", to: "SyncItem", inverse: "list", toMany: true)
            }
        }
    }

    static let sharedModel = model()

    /// How two snapshots differ, for a failed comparison's message.
    static func differences(_ one: [String: String], _ other: [String: String]) -> String {
        var lines: [String] = []
        for key in Set(one.keys).union(other.keys).sorted() where one[key] != other[key] {
            lines.append("\(key):\n  \(one[key] ?? "absent")\n  \(other[key] ?? "absent")")
        }
        return lines.joined(separator: "\n")
    }

    /// The objects of an entity whose string attribute equals a value.
    static func objects(
        _ entity: String, _ key: String, _ value: String, in context: NSManagedObjectContext
    ) throws -> [NSManagedObject] {
        try context.fetch(NSFetchRequest<NSManagedObject>(entityName: entity)).filter {
            $0.value(forKey: key) as? String == value
        }
    }
}

extension Device {
    /// A device on the sync tests' model (`SyncTests.model()`).
    convenience init(at url: URL, historyValues: Bool = true) throws {
        try self.init(at: url, model: SyncTests.sharedModel, historyValues: historyValues)
    }
}
