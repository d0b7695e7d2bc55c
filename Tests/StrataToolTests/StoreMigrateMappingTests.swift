import Foundation
import Strata
import Testing

/// `strata store migrate --mapping`: an Xcode mapping model from the corpus (JSQCoreDataKit's
/// Version 1 → Version 2, whose Employee mapping sets `companyName` to the constant "Unknown"
/// and `companyDateFounded` to `now()`), run on a store made here with Version 1.
@Suite("strata store migrate with a mapping model")
struct StoreMigrateMappingTests {
    static var models: URL { StoreFixtures.corpus.appendingPathComponent("models/jessesquires__JSQCoreDataKit__ExampleModel") }
    static var mapping: URL {
        StoreFixtures.corpus.appendingPathComponent("mappings/jessesquires__JSQCoreDataKit__Version1_to_Version2.xcmappingmodel")
    }

    @Test("the mapping model's value expressions fill the new attributes; the old values stay; the source is unchanged")
    func mappingModelRuns() throws {
        guard FileManager.default.fileExists(atPath: Self.mapping.path) else {
            print("NOTICE: \(StoreFixtures.corpus.path) is absent; the strata store migrate --mapping test is skipped")
            return
        }
        let folder = try StoreFixtures.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let version1 = Self.models.appendingPathComponent("Version 1.xcdatamodel")
        let version2 = Self.models.appendingPathComponent("Version 2.xcdatamodel")
        let store = folder.appendingPathComponent("Employees.sqlite")
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try NSManagedObjectModel.load(contentsOf: version1))
        let added = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: store)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            for (name, salary) in [("Ada", 120), ("Grace", 130)] {
                let employee = NSEntityDescription.insertNewObject(forEntityName: "Employee", into: context)
                employee.setValue(name, forKey: "name")
                employee.setValue(Date(timeIntervalSinceReferenceDate: 1000), forKey: "birthDate")
                employee.setValue(NSDecimalNumber(value: salary), forKey: "salary")
            }
            try context.save()
        }
        try coordinator.remove(added)
        let before = StoreFixtures.bytes(of: store)
        let output = folder.appendingPathComponent("Migrated.sqlite")
        let started = Date()
        let migrated = try StrataProgram.run([
            "store", "migrate", store.path, "--from", version1.path, "--to", version2.path, "--mapping", Self.mapping.path,
            "--output", output.path,
        ])
        #expect(migrated.status == 0, "\(migrated.error)")
        #expect(StoreFixtures.bytes(of: store) == before, "--output changed the source store")
        let query = try StrataProgram.run([
            "store", "query", output.path, "Employee", "--model", version2.path, "--sort", "name",
            "--keys", "name,salary,companyName,companyDateFounded", "--json",
        ])
        #expect(query.status == 0, "\(query.error)")
        let rows = try #require(
            try JSONSerialization.jsonObject(with: Data(query.output.utf8)) as? [[String: Any]], "\(query.output)")
        #expect(rows.compactMap { $0["name"] as? String } == ["Ada", "Grace"])
        #expect(rows.compactMap { $0["companyName"] as? String } == ["Unknown", "Unknown"])
        // now(): the time of the migration, as a date the tool prints in ISO 8601.
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let founded = rows.compactMap { ($0["companyDateFounded"] as? String).flatMap(formatter.date(from:)) }
        #expect(founded.count == 2, "\(rows)")
        #expect(founded.allSatisfy { $0 >= started.addingTimeInterval(-1) && $0 <= Date().addingTimeInterval(1) }, "\(founded)")
        // Without the mapping model the migration is inferred, and the new attribute stays empty.
        let inferredOutput = folder.appendingPathComponent("Inferred.sqlite")
        let inferred = try StrataProgram.run([
            "store", "migrate", store.path, "--from", version1.path, "--to", version2.path, "--output", inferredOutput.path,
        ])
        #expect(inferred.status == 0, "\(inferred.error)")
        let plain = try StrataProgram.run([
            "store", "query", inferredOutput.path, "Employee", "--model", version2.path, "--keys", "companyName", "--json",
        ])
        let plainRows = try #require(try JSONSerialization.jsonObject(with: Data(plain.output.utf8)) as? [[String: Any]])
        #expect(plainRows.count == 2)
        #expect(plainRows.allSatisfy { $0["companyName"] is NSNull || $0["companyName"] == nil })
    }
}
