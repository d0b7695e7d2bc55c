import Foundation
import StrataSyncProtocol
import Testing

@testable import Strata
@testable import SyncSimulationSupport

extension SyncTests {
    /// Stores exchanging records through a `MemoryZone`: what the exporter sends, what the
    /// importer applies, conflicts, and convergence.
    @Suite struct ExchangeTests {
        private let scratch = Scratch()

        private func devices(_ count: Int, historyValues: Bool = true) throws -> [Device] {
            try (0..<count).map { try Device(at: scratch.file("device\($0).sqlite"), historyValues: historyValues) }
        }

        /// Inserts an item (with a new list and tag when named) and saves.
        private func addItem(
            _ title: String, on device: Device, list: String? = nil, tags: [String] = [], attachment: Data? = nil
        ) throws {
            let context = device.context()
            try context.performAndWait {
                let item = NSEntityDescription.insertNewObject(forEntityName: "SyncItem", into: context)
                item.setValue(title, forKey: "title")
                if let attachment { item.setValue(attachment, forKey: "attachment") }
                if let list {
                    let found = try SyncTests.objects("SyncList", "name", list, in: context).first
                    let object = found ?? NSEntityDescription.insertNewObject(forEntityName: "SyncList", into: context)
                    object.setValue(list, forKey: "name")
                    item.setValue(object, forKey: "list")
                }
                for tag in tags {
                    let found = try SyncTests.objects("SyncTag", "name", tag, in: context).first
                    let object = found ?? NSEntityDescription.insertNewObject(forEntityName: "SyncTag", into: context)
                    object.setValue(tag, forKey: "name")
                    item.mutableSetValue(forKey: "tags").add(object)
                }
                try context.save()
            }
        }

        private func edit(
            _ title: String, on device: Device, _ body: (NSManagedObject, NSManagedObjectContext) throws -> Void
        ) throws {
            let context = device.context()
            try context.performAndWait {
                for object in try SyncTests.objects("SyncItem", "title", title, in: context) { try body(object, context) }
                try context.save()
            }
        }

        @Test func insertsWithToOneAndManyToManyReachAnotherStore() throws {
            let zone = MemoryZone()
            let (a, b) = try {
                let d = try devices(2); return (d[0], d[1])
            }()
            try addItem("Buy milk", on: a, list: "Home", tags: ["errand", "food"])
            try a.sync(with: zone)
            // One item, one list, two tags, two links.
            #expect(zone.records.count == 6)
            let types = zone.records.values.map(\.recordType).sorted()
            #expect(types == ["CDMR", "CDMR", "CD_SyncItem", "CD_SyncList", "CD_SyncTag", "CD_SyncTag"])
            let item = try #require(zone.records.values.first { $0.recordType == "CD_SyncItem" })
            #expect(item.fields["CD_title"] == .string("Buy milk"))
            #expect(item.fields["CD_entityName"] == .string("SyncItem"))
            guard case .reference(let listName) = item.fields["CD_list"] else {
                Issue.record("The list is not a reference: \(String(describing: item.fields["CD_list"]))")
                return
            }
            #expect(zone.records[listName]?.recordType == "CD_SyncList")
            try b.sync(with: zone)
            let (left, right) = (try a.snapshot(), try b.snapshot())
            #expect(left == right, "\(SyncTests.differences(left, right))")
            #expect(right.count == 4)
        }

        @Test func updatesSendOnlyTheChangedFieldsAndDeletesRemoveEverywhere() throws {
            let zone = MemoryZone()
            let (a, b) = try {
                let d = try devices(2); return (d[0], d[1])
            }()
            try addItem("Call mum", on: a, tags: ["family"])
            try a.sync(with: zone)
            try b.sync(with: zone)
            try edit("Call mum", on: a) { item, _ in item.setValue(Int64(5), forKey: "rank") }
            try a.export()
            let batch = try #require(try a.metadata.read { db in try SyncMetadata.outbox(limit: 10, in: db) }.last)
            #expect(batch.changes.count == 1)
            #expect(Set(batch.changes[0].fields.keys) == ["CD_rank"])
            #expect(Set(batch.changes[0].clocks.keys) == ["CD_rank"])
            try a.sync(with: zone)
            try b.sync(with: zone)
            #expect(try b.snapshot() == a.snapshot())
            try edit("Call mum", on: b) { item, context in context.delete(item) }
            try b.sync(with: zone)
            try a.sync(with: zone)
            let items = try a.context().performAndWait {
                try a.context().count(for: NSFetchRequest<NSManagedObject>(entityName: "SyncItem"))
            }
            #expect(items == 0)
            #expect(try b.snapshot() == a.snapshot())
            // The link went with the item.
            let links = zone.records.values.filter { $0.recordType == "CDMR" }
            #expect(links.count == 1)
            #expect(links.allSatisfy { $0.deleted })
        }

        @Test func ownChangesAreNeverSentBackAndImportsAreNeverExported() throws {
            let zone = MemoryZone()
            let (a, b) = try {
                let d = try devices(2); return (d[0], d[1])
            }()
            try addItem("Water plants", on: a, list: "Garden")
            try a.sync(with: zone)
            let applied = zone.appliedChanges
            let beforeEcho = try a.snapshot()
            // Pulling its own records back changes nothing in A's store, and exports nothing.
            try a.sync(with: zone)
            #expect(try a.snapshot() == beforeEcho)
            #expect(zone.appliedChanges == applied)
            // B imports; its importer's transaction is not exported.
            try b.sync(with: zone)
            #expect(try b.export() == 0)
            #expect(zone.appliedChanges == applied)
            let history = try b.context().performAndWait {
                let result = try b.context().execute(
                    NSPersistentHistoryChangeRequest.fetchHistory(after: nil as NSPersistentHistoryToken?))
                return (result as? NSPersistentHistoryResult)?.result as? [NSPersistentHistoryTransaction] ?? []
            }
            #expect(history.map(\.author) == [NSPersistentCloudKitContainer.importAuthor])
        }

        @Test func theLaterFieldEditWinsAndOtherFieldsMerge() throws {
            let zone = MemoryZone()
            let (a, b) = try {
                let d = try devices(2); return (d[0], d[1])
            }()
            try addItem("Plan trip", on: a)
            try a.sync(with: zone)
            try b.sync(with: zone)
            // Both offline: A edits the title, then B edits the title and the rank later.
            try edit("Plan trip", on: a) { item, _ in item.setValue("Plan trip to Rome", forKey: "title") }
            try a.export()
            Thread.sleep(forTimeInterval: 0.005)
            try edit("Plan trip", on: b) { item, _ in
                item.setValue("Plan trip to Oslo", forKey: "title")
                item.setValue(Int64(3), forKey: "rank")
            }
            try b.export()
            try edit("Plan trip to Rome", on: a) { item, _ in item.setValue(true, forKey: "done") }
            // B reconnects first, then A: A's title is older and loses; A's `done` merges.
            try b.sync(with: zone)
            try a.sync(with: zone)
            try b.sync(with: zone)
            #expect(try a.snapshot() == b.snapshot())
            let text = try #require(try a.snapshot().values.first)
            #expect(text.contains("title=Optional(\"Plan trip to Oslo\")"))
            #expect(text.contains("rank=Optional(3)"))
            #expect(text.contains("done=Optional(1)") || text.contains("done=Optional(true)"))
        }

        /// Issue 33's lost update: the laptop, offline, renames a to-do; the phone later marks
        /// it done through a data layer that writes every field (the title to the value it
        /// already had). The rename is older than the phone's save, but the phone did not change
        /// the title: the rename must survive everywhere.
        /// With and without history values (the first alone tells a value written again from a
        /// change; without, the value last sent or received does).
        @Test(arguments: [true, false])
        func aFieldWrittenWithItsOwnValueDoesNotOutdateAnotherDevicesEdit(historyValues: Bool) throws {
            let zone = MemoryZone()
            let (laptop, phone) = try {
                let d = try devices(2, historyValues: historyValues); return (d[0], d[1])
            }()
            try addItem("Buy oat milk", on: laptop, list: "Home", tags: ["errand"])
            try laptop.sync(with: zone)
            try phone.sync(with: zone)
            laptop.online = false
            try edit("Buy oat milk", on: laptop) { item, _ in item.setValue("Buy oat milk and bread", forKey: "title") }
            Thread.sleep(forTimeInterval: 0.005)
            try edit("Buy oat milk", on: phone) { item, context in
                // Every field as a form holds it: title, list and tags unchanged, done set.
                item.setValue("Buy oat milk", forKey: "title")
                item.setValue(item.value(forKey: "list"), forKey: "list")
                item.setValue(item.value(forKey: "tags"), forKey: "tags")
                item.setValue(Int64(0), forKey: "rank")
                item.setValue(true, forKey: "done")
            }
            try phone.export()
            let batch = try #require(try phone.metadata.read { db in try SyncMetadata.outbox(limit: 10, in: db) }.last)
            #expect(batch.changes.map(\.fields.keys).map(Set.init) == [["CD_done"]])
            try phone.sync(with: zone)
            laptop.online = true
            try laptop.sync(with: zone)
            try phone.sync(with: zone)
            #expect(try laptop.snapshot() == phone.snapshot())
            let text = try #require(try phone.snapshot().values.first { $0.hasPrefix("SyncItem") })
            #expect(text.contains("title=Optional(\"Buy oat milk and bread\")"))
            #expect(text.contains("done=Optional(1)") || text.contains("done=Optional(true)"))
            #expect(text.contains("tags=[\"CD_SyncTag_"))
        }

        /// A value set back to what was last sent is no change either; a value received from
        /// another device counts as sent.
        @Test func onlyValuesThatDifferFromTheLastSentOrReceivedGetClocks() throws {
            let zone = MemoryZone()
            let (a, b) = try {
                let d = try devices(2, historyValues: false); return (d[0], d[1])
            }()
            try addItem("Read book", on: a)
            try a.sync(with: zone)
            try b.sync(with: zone)
            // Changed and changed back between two exports, without history values: it looks
            // like no change, and nothing is sent.
            try edit("Read book", on: a) { item, _ in item.setValue("Read a book", forKey: "title") }
            try edit("Read a book", on: a) { item, _ in item.setValue("Read book", forKey: "title") }
            #expect(try a.export() == 0)
            // B's edit reaches A; A writing the received value again sends nothing.
            try edit("Read book", on: b) { item, _ in item.setValue(Int64(7), forKey: "rank") }
            try b.sync(with: zone)
            try a.sync(with: zone)
            try edit("Read book", on: a) { item, _ in item.setValue(Int64(7), forKey: "rank") }
            #expect(try a.export() == 0)
            // A real change is sent, with its one field.
            try edit("Read book", on: a) { item, _ in item.setValue(Int64(8), forKey: "rank") }
            #expect(try a.export() == 1)
            let batch = try #require(try a.metadata.read { db in try SyncMetadata.outbox(limit: 10, in: db) }.last)
            #expect(batch.changes.map(\.fields) == [["CD_rank": .int(8)]])
        }

        /// With history values, a value changed and changed back is the field's latest write: it
        /// wins over an edit another device made before it, though it equals the value last sent.
        @Test func aValueChangedBackIsStillTheLatestWriteWithHistoryValues() throws {
            let zone = MemoryZone()
            let (a, b) = try {
                let d = try devices(2); return (d[0], d[1])
            }()
            try addItem("Read book", on: a)
            try a.sync(with: zone)
            try b.sync(with: zone)
            try edit("Read book", on: b) { item, _ in item.setValue("Read two books", forKey: "title") }
            try b.sync(with: zone)
            Thread.sleep(forTimeInterval: 0.005)
            // A has not pulled B's edit: it renames, then renames back, after B's edit.
            try edit("Read book", on: a) { item, _ in item.setValue("Read a book", forKey: "title") }
            try edit("Read a book", on: a) { item, _ in item.setValue("Read book", forKey: "title") }
            // Each transaction's change is sent, the second with the later clock.
            #expect(try a.export() == 2)
            try a.sync(with: zone)
            try b.sync(with: zone)
            #expect(try a.snapshot() == b.snapshot())
            let text = try #require(try b.snapshot().values.first)
            #expect(text.contains("title=Optional(\"Read book\")"))
        }

        @Test func aDeleteWinsOverTheEditsItRacedWith() throws {
            let zone = MemoryZone()
            let (a, b) = try {
                let d = try devices(2); return (d[0], d[1])
            }()
            try addItem("Fix bike", on: a)
            try a.sync(with: zone)
            try b.sync(with: zone)
            // B edits offline; A deletes later. B's edit reaches the server after the delete
            // and loses to it.
            try edit("Fix bike", on: b) { item, _ in item.setValue(Int64(9), forKey: "rank") }
            try b.export()
            Thread.sleep(forTimeInterval: 0.005)
            try edit("Fix bike", on: a) { item, context in context.delete(item) }
            try a.sync(with: zone)
            try b.sync(with: zone)
            try a.sync(with: zone)
            #expect(try a.snapshot().isEmpty)
            #expect(try b.snapshot().isEmpty)
        }

        @Test func anEditMadeAfterADeleteBringsTheRecordBackTheSameEverywhere() throws {
            let zone = MemoryZone()
            let (a, b) = try {
                let d = try devices(2); return (d[0], d[1])
            }()
            try addItem("Paint fence", on: a)
            try edit("Paint fence", on: a) { item, _ in item.setValue(Int64(4), forKey: "rank") }
            try a.sync(with: zone)
            try b.sync(with: zone)
            try edit("Paint fence", on: a) { item, context in context.delete(item) }
            try a.export()
            Thread.sleep(forTimeInterval: 0.005)
            // B, offline, edits the title after A's delete: only that field outlives it.
            try edit("Paint fence", on: b) { item, _ in item.setValue("Paint the fence", forKey: "title") }
            try a.sync(with: zone)
            try b.sync(with: zone)
            try a.sync(with: zone)
            #expect(try a.snapshot() == b.snapshot())
            let text = try #require(try a.snapshot().values.first)
            #expect(text.contains("title=Optional(\"Paint the fence\")"))
            #expect(text.contains("rank=Optional(0)"))
        }

        @Test func twoDevicesAddingTheSameLinkMakeOneLinkRecord() throws {
            let zone = MemoryZone()
            let (a, b) = try {
                let d = try devices(2); return (d[0], d[1])
            }()
            try addItem("Read book", on: a)
            let tagContext = a.context()
            try tagContext.performAndWait {
                let tag = NSEntityDescription.insertNewObject(forEntityName: "SyncTag", into: tagContext)
                tag.setValue("leisure", forKey: "name")
                try tagContext.save()
            }
            try a.sync(with: zone)
            try b.sync(with: zone)
            for device in [a, b] {
                let context = device.context()
                try context.performAndWait {
                    let tag = try #require(try SyncTests.objects("SyncTag", "name", "leisure", in: context).first)
                    let item = try #require(try SyncTests.objects("SyncItem", "title", "Read book", in: context).first)
                    item.mutableSetValue(forKey: "tags").add(tag)
                    try context.save()
                }
                try device.export()
            }
            try a.sync(with: zone)
            try b.sync(with: zone)
            try a.sync(with: zone)
            let links = zone.records.values.filter { $0.recordType == "CDMR" && !$0.deleted }
            #expect(links.count == 1)
            #expect(try a.snapshot() == b.snapshot())
        }

        @Test func largeBinaryValuesTravelAsAssets() throws {
            let zone = MemoryZone()
            let (a, b) = try {
                let d = try devices(2); return (d[0], d[1])
            }()
            let big = Data((0..<(SyncRecordMapping.assetThreshold + 10)).map { UInt8(truncatingIfNeeded: $0 &* 7) })
            try addItem("Scan", on: a, attachment: big)
            try a.export()
            let batches = try a.metadata.read { db in try SyncMetadata.outbox(limit: 10, in: db) }
            let field = batches.flatMap(\.changes).compactMap { $0.fields["CD_attachment"] }.first
            guard case .asset(let reference) = field else {
                Issue.record("The attachment is not an asset: \(String(describing: field))")
                return
            }
            #expect(reference.size == Int64(big.count))
            // The outbox names the asset beside the batch's JSON, for the push to upload first.
            let stored = try a.metadata.read { db in try SyncMetadata.outboxRequest(maximumChanges: 400, in: db) }
            #expect(stored.map(\.assets) == [[reference.sha256]])
            let kept = try a.metadata.read { db in try SyncMetadata.asset(reference.sha256, in: db) }
            #expect(kept == big)
            try a.push(to: zone)
            try b.pull(from: zone, assets: [reference.sha256: big])
            let context = b.context()
            let data = try context.performAndWait {
                try SyncTests.objects("SyncItem", "title", "Scan", in: context).first?.value(forKey: "attachment") as? Data
            }
            #expect(data == big)
        }

        @Test func aLargeTransactionIsSplitIntoGapFreeBatches() throws {
            let (a, _) = try {
                let d = try devices(1); return (d[0], 0)
            }()
            let context = a.context()
            try context.performAndWait {
                for index in 0..<25 {
                    NSEntityDescription.insertNewObject(forEntityName: "SyncItem", into: context).setValue(
                        "\(index)", forKey: "title")
                }
                try context.save()
            }
            #expect(try a.export(batchSize: 10) == 25)
            let batches = try a.metadata.read { db in try SyncMetadata.outbox(limit: 100, in: db) }
            #expect(batches.map(\.batchSequence) == [1, 2, 3])
            #expect(batches.map(\.changes.count) == [10, 10, 5])
            // A push request takes whole batches up to its limit, counted without decoding them.
            let request = try a.metadata.read { db in try SyncMetadata.outboxRequest(maximumChanges: 20, in: db) }
            #expect(request.map(\.batchSequence) == [1, 2])
            #expect(request.map(\.changeCount) == [10, 10])
            #expect(request.allSatisfy { $0.assets.isEmpty })
            let small = try a.metadata.read { db in try SyncMetadata.outboxRequest(maximumChanges: 3, in: db) }
            #expect(small.map(\.batchSequence) == [1])
            #expect(try a.metadata.read { db in try SyncMetadata.outboxChangeCount(in: db) } == 25)
            // Nothing new: nothing more, and the numbering goes on from 4.
            #expect(try a.export() == 0)
            #expect(try a.metadata.read { db in try SyncMetadata.int(.nextBatch, in: db) } == 4)
        }

        @Test func aRetriedOrRenumberedPushIsAppliedOnce() throws {
            let zone = MemoryZone()
            let (a, _) = try {
                let d = try devices(1); return (d[0], 0)
            }()
            try addItem("One", on: a)
            try a.export()
            let batches = try a.metadata.read { db in try SyncMetadata.outbox(limit: 10, in: db) }
            _ = try zone.push(PushRequest(clientID: a.clientID, batches: batches))
            let applied = zone.appliedChanges
            // The answer was lost: the same push again changes nothing.
            try a.push(to: zone)
            #expect(zone.appliedChanges == applied)
            // A batch numbered past a gap is renumbered from the server's last one.
            try addItem("Two", on: a)
            try a.export()
            try a.metadata.write { db in
                var waiting = try SyncMetadata.outbox(limit: 10, in: db)
                try db.execute(sql: "DELETE FROM \(SyncMetadata.outboxTable)")
                waiting[waiting.count - 1].batchSequence = 9
                for batch in waiting { try SyncMetadata.enqueue(batch, in: db) }
            }
            #expect(throws: NSError.self) { try a.push(to: zone) }
            try a.metadata.write { db in try SyncEngine.renumberOutbox(after: 1, in: db) }
            try a.push(to: zone)
            #expect(zone.records.values.filter { $0.recordType == "CD_SyncItem" }.count == 2)
        }

        @Test func objectsFromBeforeSyncWasOnAreExportedOnceAsLocalOnly() throws {
            let url = scratch.file("before.sqlite")
            do {
                let coordinator = NSPersistentStoreCoordinator(managedObjectModel: SyncTests.sharedModel)
                let store = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url)
                let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
                context.persistentStoreCoordinator = coordinator
                try context.performAndWait {
                    NSEntityDescription.insertNewObject(forEntityName: "SyncItem", into: context).setValue("old", forKey: "title")
                    try context.save()
                }
                try coordinator.remove(store)
            }
            let device = try Device(at: url)
            #expect(try device.export() == 1)
            #expect(try device.export() == 0)
        }

        /// Three devices make random edits (inserts, updates, deletes, tag links) with random
        /// offline periods; once all are online and synced twice, their stores are identical.
        @Test(arguments: [1, 2, 3, 4, 5, 6])
        func threeDevicesWithRandomEditsAndOfflinePeriodsConverge(seed: UInt64) throws {
            var random = SeededRandom(seed: seed)
            let zone = MemoryZone()
            let all = try devices(3)
            for round in 0..<40 {
                for device in all {
                    if random.next() % 5 == 0 { device.online.toggle() }
                    try randomEdit(on: device, round: round, random: &random)
                    if random.next() % 2 == 0 { try device.sync(with: zone) }
                }
            }
            for device in all { device.online = true }
            for _ in 0..<2 { for device in all { try device.sync(with: zone) } }
            let first = try all[0].snapshot()
            #expect(!first.isEmpty)
            for device in all.dropFirst() {
                let other = try device.snapshot()
                #expect(other == first, "\(SyncTests.differences(first, other))")
            }
        }

        private func randomEdit(on device: Device, round: Int, random: inout SeededRandom) throws {
            let context = device.context()
            let choice = random.next() % 6
            let pick = random.next()
            try context.performAndWait {
                let items = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "SyncItem"))
                let tags = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "SyncTag"))
                switch choice {
                case 0, 1:
                    let item = NSEntityDescription.insertNewObject(forEntityName: "SyncItem", into: context)
                    item.setValue("item \(round)-\(pick % 1000)", forKey: "title")
                case 2 where !items.isEmpty:
                    let item = items[Int(pick % UInt64(items.count))]
                    item.setValue("edited \(round)-\(pick % 1000)", forKey: "title")
                    item.setValue(Int64(pick % 100), forKey: "rank")
                case 3 where !items.isEmpty:
                    context.delete(items[Int(pick % UInt64(items.count))])
                case 4:
                    if tags.count < 4 {
                        NSEntityDescription.insertNewObject(forEntityName: "SyncTag", into: context)
                            .setValue("tag \(round)-\(pick % 100)", forKey: "name")
                    }
                case 5 where !items.isEmpty && !tags.isEmpty:
                    let item = items[Int(pick % UInt64(items.count))]
                    let tag = tags[Int((pick / 7) % UInt64(tags.count))]
                    let set = item.mutableSetValue(forKey: "tags")
                    if set.contains(tag) { set.remove(tag) } else { set.add(tag) }
                default:
                    break
                }
                if context.hasChanges { try context.save() }
            }
        }
    }
}
