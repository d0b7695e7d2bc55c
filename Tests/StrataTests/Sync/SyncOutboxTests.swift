import Foundation
import GRDB
import StrataSyncProtocol
import Testing

@testable import Strata
@testable import SyncSimulationSupport

extension SyncTests {
    /// The outbox keeps each batch as the JSON a push carries, with its change count and asset
    /// hashes beside it; the importer reads the fields waiting there with SQLite's JSON functions.
    @Suite struct OutboxTests {
        private let scratch = Scratch()

        private static func change(_ name: String, _ fields: [String: FieldValue]) -> RecordChange {
            let clock = HybridLogicalClock(wallMilliseconds: 5, counter: 0, node: "n")
            return RecordChange(
                recordType: "CD_SyncItem", recordName: name, operation: .upsert, fields: fields,
                clocks: fields.mapValues { _ in clock })
        }

        @Test func anOutboxFromBeforeTheCountColumnsIsUpgradedAndItsBatchesStillPush() throws {
            let url = scratch.file("old.sqlite")
            let asset = AssetReference(sha256: String(repeating: "0f", count: 32), size: 70_000)
            let old = [
                ChangeBatch(batchSequence: 1, changes: [Self.change("a", ["CD_title": .string("A")])]),
                ChangeBatch(
                    batchSequence: 2,
                    changes: [
                        Self.change("b", ["CD_title": .string("B"), "CD_attachment": .asset(asset)]),
                        Self.change("c", ["CD_rank": .int(3)]),
                    ]),
            ]
            do {
                // The outbox as earlier versions made it: no count, no asset column.
                let device = try Device(at: url)
                try device.metadata.write { db in
                    try db.execute(sql: "DROP TABLE \(SyncMetadata.outboxTable)")
                    try db.execute(
                        sql: "CREATE TABLE \(SyncMetadata.outboxTable) (ZBATCH INTEGER PRIMARY KEY, ZBODY BLOB NOT NULL)")
                    for batch in old {
                        try db.execute(
                            sql: "INSERT INTO \(SyncMetadata.outboxTable) (ZBATCH, ZBODY) VALUES (?, ?)",
                            arguments: [batch.batchSequence, try JSONEncoder().encode(batch)])
                    }
                }
                #expect(try device.metadata.read { db in try SyncMetadata.outboxChangeCount(in: db) } == 3)
                try device.close()
            }
            let device = try Device(at: url)
            let columns = try device.metadata.read { db in try db.columns(in: SyncMetadata.outboxTable).map(\.name) }
            #expect(columns == ["ZBATCH", "ZBODY", "ZCOUNT", "ZASSETS"])
            let stored = try device.metadata.read { db in try SyncMetadata.outboxRequest(maximumChanges: 400, in: db) }
            #expect(stored.map(\.batchSequence) == [1, 2])
            #expect(stored.map(\.changeCount) == [1, 2])
            #expect(stored.map(\.assets) == [[], [asset.sha256]])
            #expect(try device.metadata.read { db in try SyncMetadata.outboxChangeCount(in: db) } == 3)
            // The request put together from the stored JSON is the one the batches make.
            let body = try SyncServerClient.pushBody(clientID: "client \"1\"", batches: stored.map(\.body))
            #expect(try JSONDecoder().decode(PushRequest.self, from: body) == PushRequest(clientID: "client \"1\"", batches: old))
            // A batch enqueued now keeps its count, and a mixed outbox counts both kinds.
            try device.metadata.write { db in
                try SyncMetadata.enqueue(
                    ChangeBatch(batchSequence: 3, changes: [Self.change("d", [:]), Self.change("e", [:])]), in: db)
            }
            let count = try device.metadata.read { db in
                try Int.fetchOne(db, sql: "SELECT ZCOUNT FROM \(SyncMetadata.outboxTable) WHERE ZBATCH = 3")
            }
            #expect(count == 2)
            #expect(try device.metadata.read { db in try SyncMetadata.outboxChangeCount(in: db) } == 5)
            try device.close()
        }

        @Test func aPagesClocksObjectsAndLinksAreReadInOneQueryEach() throws {
            let device = try Device(at: scratch.file("page.sqlite"))
            let clock = HybridLogicalClock(wallMilliseconds: 7, counter: 1, node: "n")
            try device.metadata.write { db in
                try SyncMetadata.setClock(clock, field: "CD_title", of: "item-1", in: db)
                try SyncMetadata.setClock(clock, field: "CD_rank", of: "item-1", in: db)
                try SyncMetadata.setClock(clock, field: "CD_name", of: "tag-9", in: db)
                try SyncMetadata.setRecordName("item-1", recordType: "CD_SyncItem", entity: "SyncItem", primaryKey: 4, in: db)
                let item = SyncRecordMapping.LinkEnd(entity: "SyncItem", recordName: "item-1", relationship: "tags")
                let tag = SyncRecordMapping.LinkEnd(entity: "SyncTag", recordName: "tag-9", relationship: "items")
                let other = SyncRecordMapping.LinkEnd(entity: "SyncTag", recordName: "tag-8", relationship: "items")
                try SyncMetadata.setLink("link-a", item, tag, in: db)
                try SyncMetadata.setLink("link-b", other, item, in: db)
            }
            let names = try SyncMetadata.jsonArray(["item-1", "tag-9", "missing \"one\""])
            try device.metadata.read { db in
                let clocks = try SyncMetadata.clocks(ofRecordsIn: names, in: db)
                #expect(clocks == ["item-1": ["CD_title": clock, "CD_rank": clock], "tag-9": ["CD_name": clock]])
                let objects = try SyncMetadata.objects(namedIn: names, in: db)
                #expect(objects.count == 1 && objects["item-1"]?.entity == "SyncItem" && objects["item-1"]?.primaryKey == 4)
                let links = try SyncMetadata.links(ofRecordsIn: names, in: db)
                #expect(links["item-1"]?.map { "\($0.relationship)→\($0.other)" }.sorted() == ["tags→tag-8", "tags→tag-9"])
                #expect(links["tag-9"]?.map { "\($0.relationship)→\($0.other)" } == ["items→item-1"])
                #expect(links["item-1"]?.map(\.name).sorted() == ["link-a", "link-b"])
                #expect(links["missing \"one\""] == nil)
            }
            try device.close()
        }

        @Test func theFieldsWaitingInTheOutboxAreReadFromItsJSON() throws {
            let device = try Device(at: scratch.file("pending.sqlite"))
            try device.metadata.write { db in
                try SyncMetadata.enqueue(
                    ChangeBatch(
                        batchSequence: 1,
                        changes: [
                            Self.change("CD_SyncItem_1", ["CD_title": .string("x"), "CD_rank": .int(1)]),
                            RecordChange(
                                recordType: "CD_SyncItem", recordName: "CD_SyncItem_2", operation: .delete,
                                deleteClock: HybridLogicalClock(wallMilliseconds: 9, counter: 0, node: "n")),
                        ]), in: db)
                try SyncMetadata.enqueue(
                    ChangeBatch(batchSequence: 2, changes: [Self.change("CD_SyncItem_3", ["CD_done": .bool(true)])]), in: db)
            }
            let pending = try device.metadata.read { db in try SyncImporter.pendingFields(in: db) }
            #expect(
                pending == ["CD_SyncItem_1\u{1F}CD_title", "CD_SyncItem_1\u{1F}CD_rank", "CD_SyncItem_3\u{1F}CD_done"])
            try device.metadata.write { db in try SyncMetadata.removeFromOutbox(through: 2, in: db) }
            #expect(try device.metadata.read { db in try SyncImporter.pendingFields(in: db) }.isEmpty)
            try device.close()
        }
    }
}
