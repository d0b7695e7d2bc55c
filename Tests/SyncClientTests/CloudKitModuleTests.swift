import CoreData
import Foundation
import StrataSyncProtocol
import Testing

@testable import CloudKit

extension SyncClientTests {
    /// `import CloudKit` without a server: records as Foundation values, errors, containers
    /// that name no server.
    @Suite struct CloudKitModuleTests {
        @Test func recordFieldsReadAsCloudKitsFoundationValues() {
            let state = RecordState(
                recordType: "CD_Habit", recordName: "CD_Habit_1",
                fields: [
                    "CD_title": .string("Run"), "CD_isExample": .bool(true), "CD_streak": .int(4),
                    "CD_createdAt": .date(100.5), "CD_routine": .reference("CD_Routine_9"), "CD_gone": .null,
                    "CD_photo": .asset(AssetReference(sha256: String(repeating: "a", count: 64), size: 3)),
                ], clocks: [:], deleted: false, deleteClock: nil, serverSequence: 3, changedBy: "c")
            let zone = CKRecordZone.ID(zoneName: CKRecordZone.coreDataZoneName)
            let record = CKRecord(state: state, zoneID: zone)
            #expect(record.recordType == "CD_Habit")
            #expect(record.recordID == CKRecord.ID(recordName: "CD_Habit_1", zoneID: zone))
            #expect(record["CD_title"] as? String == "Run")
            #expect((record["CD_isExample"] as? NSNumber)?.boolValue == true)
            #expect((record["CD_streak"] as? NSNumber)?.intValue == 4)
            #expect(record["CD_createdAt"] as? Date == Date(timeIntervalSinceReferenceDate: 100.5))
            #expect(record["CD_routine"] as? String == "CD_Routine_9")
            #expect(record["CD_gone"] == nil)
            #expect((record["CD_photo"] as? CKAsset)?.size == 3)
            #expect(record.allKeys() == ["CD_createdAt", "CD_isExample", "CD_photo", "CD_routine", "CD_streak", "CD_title"])
        }

        @Test func errorsCarryCloudKitCodes() {
            let error = NSError(domain: CKErrorDomain, code: 9, userInfo: [NSLocalizedDescriptionKey: "no token"])
            #expect(CKError(error).code == .notAuthenticated)
            #expect(CKError(error).localizedDescription == "no token")
            #expect(CKError(CocoaError(.fileNoSuchFile)).code == .internalError)
        }

        @Test func aContainerWithoutAServerFailsWithBadContainer() async {
            let container = CKContainer(identifier: "iCloud.nobody.\(UUID().uuidString)")
            let query = CKQuery(recordType: "CD_Habit", predicate: NSPredicate(value: true))
            do {
                _ = try await container.privateCloudDatabase.perform(query, inZoneWith: nil)
                Issue.record("A container without a server answered")
            } catch let error as CKError {
                #expect(error.code == .badContainer)
            } catch {
                Issue.record("Not a CKError: \(error)")
            }
        }

        @Test func withoutAServerTheContainerIsAPlainContainerWithHistory() throws {
            let scratch = Scratch()
            let container = try SyncClientTests.container(at: scratch.file("local.sqlite"), backend: nil)
            try SyncClientTests.change(container) { context in
                NSEntityDescription.insertNewObject(forEntityName: "Habit", into: context).setValue("Local", forKey: "title")
            }
            let store = try #require(container.persistentStoreCoordinator.persistentStores.first)
            #expect(store.options?[NSPersistentHistoryTrackingKey] as? NSNumber == true)
            #expect(container.persistentStoreCoordinator.currentPersistentHistoryToken(fromStores: nil) != nil)
            #expect(container.syncStatus(for: store) == nil)
            #expect(throws: Never.self) { try container.initializeCloudKitSchema(options: []) }
        }
    }
}
