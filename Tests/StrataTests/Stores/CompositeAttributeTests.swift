import Foundation
import GRDB
import Testing

@testable import Strata

/// Composite attributes (Apple's `NSCompositeAttributeDescription`, iOS 17): values are
/// dictionaries of the elements' values, nested composites nested dictionaries; the SQLite
/// store keeps each leaf element in a column of the entity's table, and predicates and sorts
/// name leaves by namespaced key paths (`magnitude.richter`), as Apple's documentation shows.
@Suite struct CompositeAttributeTests {
    private let scratch = ObjectGraphTests.ScratchDirectory()

    /// Apple's documentation example (a Quake with a magnitude), with a nested composite.
    static func model() -> NSManagedObjectModel {
        NSManagedObjectModel {
            Entity("Quake") {
                Attribute("code", .stringAttributeType)
                CompositeAttribute("magnitude") {
                    Attribute("richter", .doubleAttributeType)
                    Attribute("depth", .integer64AttributeType)
                    Attribute("reviewed", .booleanAttributeType)
                    CompositeAttribute("origin") {
                        Attribute("place", .stringAttributeType)
                        Attribute("recorded", .dateAttributeType)
                        Attribute("station", .UUIDAttributeType)
                    }
                }
            }
        }
    }

    private let model = Self.model()

    private static let station = UUID(uuidString: "6F9619FF-8B86-D011-B42D-00C04FC964FF") ?? UUID()
    private static let recorded = Date(timeIntervalSinceReferenceDate: 752_000_000)

    /// What the three quakes of `insertQuakes` hold, by code.
    private static var magnitudes: [String: [String: Any]] {
        [
            "ak1": [
                "richter": 4.6, "depth": Int64(12), "reviewed": true,
                "origin": ["place": "Anchorage", "recorded": recorded, "station": station] as [String: Any],
            ],
            "ca2": ["richter": 3.1, "depth": Int64(4), "reviewed": false],
            "hi3": ["richter": 5.2, "origin": ["place": "Hilo"] as [String: Any]],
        ]
    }

    private func insertQuakes(_ context: NSManagedObjectContext) throws {
        for code in Self.magnitudes.keys.sorted() {
            let quake = NSEntityDescription.insertNewObject(forEntityName: "Quake", into: context)
            quake.setValue(code, forKey: "code")
            quake.setValue(Self.magnitudes[code], forKey: "magnitude")
        }
        let unmeasured = NSEntityDescription.insertNewObject(forEntityName: "Quake", into: context)
        unmeasured.setValue("none", forKey: "code")
        try context.save()
    }

    /// Compares a read magnitude with what was written, value by value.
    private static func expectSame(_ read: Any?, _ written: [String: Any]?, _ code: String) {
        guard let written else {
            #expect(read == nil, "\(code): no magnitude was written")
            return
        }
        guard let read = read as? [String: Any] else {
            Issue.record("\(code): the magnitude read is \(String(describing: read))")
            return
        }
        #expect(Set(read.keys) == Set(written.keys), "\(code)")
        #expect(read["richter"] as? Double == written["richter"] as? Double, "\(code)")
        #expect(read["depth"] as? Int64 == written["depth"] as? Int64, "\(code)")
        #expect(read["reviewed"] as? Bool == written["reviewed"] as? Bool, "\(code)")
        let origin = read["origin"] as? [String: Any]
        let writtenOrigin = written["origin"] as? [String: Any]
        #expect(origin?.keys.sorted() == writtenOrigin?.keys.sorted(), "\(code)")
        #expect(origin?["place"] as? String == writtenOrigin?["place"] as? String, "\(code)")
        #expect(origin?["recorded"] as? Date == writtenOrigin?["recorded"] as? Date, "\(code)")
        #expect(origin?["station"] as? UUID == writtenOrigin?["station"] as? UUID, "\(code)")
    }

    /// A model built in code declares its composite types, and survives the compiled form a
    /// store keeps its model in (`Z_MODELCACHE`) with every element.
    @Test func modelsBuiltInCodeDeclareTheirTypesAndSurviveCompiling() throws {
        #expect(model.compositeTypes.map(\.name).sorted() == ["Magnitude", "Origin"])
        #expect(model.validationErrors().isEmpty)
        let decoded = NSManagedObjectModel()
        try CompiledModelDecoder.read(CompiledModelEncoder.archive(model), file: nil, into: decoded)
        let magnitude = try #require(
            decoded.entitiesByName["Quake"]?.attributesByName["magnitude"] as? NSCompositeAttributeDescription)
        #expect(
            CompositeValues.leaves(of: magnitude).map(\.keyPath) == [
                "richter", "depth", "reviewed", "origin.place", "origin.recorded", "origin.station",
            ])
        #expect(decoded.entityVersionHashesByName == model.entityVersionHashesByName)
    }

    /// Two composites naming one type with other elements (two Swift types of one name): the
    /// second gets a type of its own, so the compiled model reads back.
    @Test func clashingTypeNamesAreMadeUnique() throws {
        let model = NSManagedObjectModel {
            Entity("House") {
                CompositeAttribute("kitchen", type: "Size") { Attribute("width", .integer64AttributeType) }
                CompositeAttribute("garden", type: "Size") { Attribute("acres", .doubleAttributeType) }
                CompositeAttribute("hall", type: "Size") { Attribute("width", .integer64AttributeType) }
            }
        }
        #expect(model.compositeTypes.map(\.name) == ["Size", "Size2"])
        let attributes = try #require(model.entitiesByName["House"]?.attributesByName)
        #expect(
            ["kitchen", "garden", "hall"].map { (attributes[$0] as? NSCompositeAttributeDescription)?.compositeTypeName }
                == ["Size", "Size2", "Size"])
        let decoded = NSManagedObjectModel()
        try CompiledModelDecoder.read(CompiledModelEncoder.archive(model), file: nil, into: decoded)
        #expect(decoded.compositeTypes.map(\.name).sorted() == ["Size", "Size2"])
    }

    @Test func eachLeafElementHasAColumnOfItsType() throws {
        let url = scratch.file("quakes.sqlite")
        let stack = try ObjectGraphTests.Stack(model, at: url)
        try stack.newContext().performAndWait { try insertQuakes(stack.newContext()) }
        try stack.close()
        let queue = try DatabaseQueue(path: url.path)
        let columns = try queue.read { db in
            try Row.fetchAll(db, sql: "PRAGMA table_info(ZQUAKE)").map { "\($0["name"] as String) \($0["type"] as String)" }
        }
        #expect(
            Set(columns) == [
                "Z_PK INTEGER", "Z_ENT INTEGER", "Z_OPT INTEGER", "ZCODE VARCHAR", "ZMAGNITUDE_RICHTER FLOAT",
                "ZMAGNITUDE_DEPTH INTEGER", "ZMAGNITUDE_REVIEWED INTEGER", "ZMAGNITUDE_ORIGIN_PLACE VARCHAR",
                "ZMAGNITUDE_ORIGIN_RECORDED TIMESTAMP", "ZMAGNITUDE_ORIGIN_STATION BLOB",
            ])
        // The values are in Core Data's column forms: seconds since 2001, 16-byte UUIDs, 0/1.
        let row = try #require(
            try queue.read { db in
                try Row.fetchOne(
                    db,
                    sql: """
                        SELECT ZMAGNITUDE_RICHTER, ZMAGNITUDE_DEPTH, ZMAGNITUDE_REVIEWED, ZMAGNITUDE_ORIGIN_PLACE,
                        ZMAGNITUDE_ORIGIN_RECORDED, ZMAGNITUDE_ORIGIN_STATION FROM ZQUAKE WHERE ZCODE = 'ak1'
                        """)
            })
        #expect(row[0] as Double == 4.6)
        #expect(row[1] as Int64 == 12)
        #expect(row[2] as Int64 == 1)
        #expect(row[3] as String == "Anchorage")
        #expect(row[4] as Double == Self.recorded.timeIntervalSinceReferenceDate)
        #expect(row[5] as Data == withUnsafeBytes(of: Self.station.uuid) { Data($0) })
        let empty = try queue.read { db in
            try Row.fetchOne(
                db,
                sql: "SELECT ZMAGNITUDE_RICHTER, ZMAGNITUDE_ORIGIN_PLACE, ZMAGNITUDE_DEPTH FROM ZQUAKE WHERE ZCODE = 'none'")
        }
        #expect(empty?.databaseValues.allSatisfy(\.isNull) == true)
    }

    @Test func valuesRoundTripThroughTheStore() throws {
        let url = scratch.file("roundtrip.sqlite")
        try ObjectGraphTests.saveAndReopen(model, at: url) { context in
            for code in Self.magnitudes.keys.sorted() {
                let quake = NSEntityDescription.insertNewObject(forEntityName: "Quake", into: context)
                quake.setValue(code, forKey: "code")
                quake.setValue(Self.magnitudes[code], forKey: "magnitude")
            }
            NSEntityDescription.insertNewObject(forEntityName: "Quake", into: context).setValue("none", forKey: "code")
        } read: { context in
            let quakes = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Quake"))
            #expect(quakes.count == 4)
            for quake in quakes {
                let code = quake.value(forKey: "code") as? String ?? "?"
                Self.expectSame(quake.value(forKey: "magnitude"), Self.magnitudes[code], code)
            }
        }
    }

    @Test func predicatesAndSortsNameLeavesByKeyPath() throws {
        let stack = try ObjectGraphTests.Stack(model, at: scratch.file("fetch.sqlite"))
        let context = stack.newContext()
        try context.performAndWait {
            try insertQuakes(context)
            func codes(
                _ predicate: NSPredicate, sort: [NSSortDescriptor] = [NSSortDescriptor(key: "code", ascending: true)]
            ) throws -> [String] {
                let request = NSFetchRequest<NSManagedObject>(entityName: "Quake")
                request.predicate = predicate
                request.sortDescriptors = sort
                return try context.fetch(request).compactMap { $0.value(forKey: "code") as? String }
            }
            func codes(_ format: String) throws -> [String] { try codes(NSPredicate(format: format)) }
            #expect(try codes("magnitude.richter > 4.5") == ["ak1", "hi3"])
            #expect(try codes("magnitude.reviewed == YES") == ["ak1"])
            #expect(try codes("magnitude.origin.place BEGINSWITH 'H'") == ["hi3"])
            #expect(try codes("magnitude.depth == nil") == ["hi3", "none"])
            #expect(try codes(NSPredicate(format: "magnitude.origin.station == %@", Self.station as CVarArg)) == ["ak1"])
            #expect(
                try codes(
                    NSPredicate(format: "magnitude.richter != nil"),
                    sort: [NSSortDescriptor(key: "magnitude.richter", ascending: false)])
                    == ["hi3", "ak1", "ca2"])
            // The same predicates over objects in memory (unsaved changes, `evaluate(with:)`).
            let quakes = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Quake"))
            let strong = quakes.filter { NSPredicate(format: "magnitude.richter > 4.5").evaluate(with: $0) }
            #expect(Set(strong.compactMap { $0.value(forKey: "code") as? String }) == ["ak1", "hi3"])
            #expect(
                quakes.first { $0.value(forKey: "code") as? String == "ak1" }?.value(forKeyPath: "magnitude.origin.place")
                    as? String == "Anchorage")
            // A change not yet saved is seen by a fetch that includes pending changes.
            let ca2 = try #require(quakes.first { $0.value(forKey: "code") as? String == "ca2" })
            var changed = Self.magnitudes["ca2"] ?? [:]
            changed["richter"] = 6.0
            ca2.setValue(changed, forKey: "magnitude")
            #expect(try codes("magnitude.richter > 4.5") == ["ak1", "ca2", "hi3"])
            // Elements set through key paths, as Apple's property-like setters do.
            ca2.setValue("Fresno", forKeyPath: "magnitude.origin.place")
            ca2.setValue(nil, forKeyPath: "magnitude.depth")
            #expect(ca2.value(forKeyPath: "magnitude.origin.place") as? String == "Fresno")
            #expect(ca2.value(forKeyPath: "magnitude.depth") == nil)
            #expect(ca2.value(forKeyPath: "magnitude.richter") as? Double == 6.0)
            #expect(try codes("magnitude.origin.place == 'Fresno'") == ["ca2"])
            try context.save()
            #expect(try codes("magnitude.origin.place == 'Fresno' AND magnitude.depth == nil") == ["ca2"])
        }
    }

    @Test func dictionaryResultsHoldCompositesAndTheirElements() throws {
        let stack = try ObjectGraphTests.Stack(model, at: scratch.file("dictionaries.sqlite"))
        let context = stack.newContext()
        try context.performAndWait {
            try insertQuakes(context)
            let request = NSFetchRequest<NSDictionary>(entityName: "Quake")
            request.resultType = .dictionaryResultType
            request.propertiesToFetch = ["code", "magnitude", "magnitude.origin.place"]
            request.predicate = NSPredicate(format: "magnitude.richter > 4")
            request.sortDescriptors = [NSSortDescriptor(key: "code", ascending: true)]
            let rows = try context.fetch(request).compactMap { $0 as? [String: Any] }
            #expect(rows.map { $0["code"] as? String } == ["ak1", "hi3"])
            #expect(rows.map { $0["magnitude.origin.place"] as? String } == ["Anchorage", "Hilo"])
            for row in rows {
                let code = row["code"] as? String ?? "?"
                Self.expectSame(row["magnitude"], Self.magnitudes[code], code)
            }
            request.propertiesToFetch = ["magnitude.scale"]
            #expect(throws: NSError.self) { try context.fetch(request) }
        }
    }

    @Test func aChangedElementIsSavedAndTheOthersKept() throws {
        let url = scratch.file("update.sqlite")
        let stack = try ObjectGraphTests.Stack(model, at: url)
        let context = stack.newContext()
        try context.performAndWait {
            try insertQuakes(context)
            let request = NSFetchRequest<NSManagedObject>(entityName: "Quake")
            request.predicate = NSPredicate(format: "code IN %@", ["ak1", "ca2"])
            for quake in try context.fetch(request) {
                var magnitude = quake.value(forKey: "magnitude") as? [String: Any] ?? [:]
                magnitude["reviewed"] = true
                magnitude["depth"] = nil
                quake.setValue(magnitude, forKey: "magnitude")
            }
            let none = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Quake")).first {
                $0.value(forKey: "code") as? String == "none"
            }
            none?.setValue(["richter": 1.5], forKey: "magnitude")
            let hi3 = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Quake")).first {
                $0.value(forKey: "code") as? String == "hi3"
            }
            hi3?.setValue(nil, forKey: "magnitude")
            try context.save()
        }
        try stack.close()
        var expected = Self.magnitudes
        for code in ["ak1", "ca2"] {
            expected[code]?["reviewed"] = true
            expected[code]?["depth"] = nil
        }
        expected["none"] = ["richter": 1.5]
        expected["hi3"] = nil
        let reader = try ObjectGraphTests.Stack(model, at: url)
        try reader.newContext().performAndWait {
            let context = reader.newContext()
            for quake in try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Quake")) {
                let code = quake.value(forKey: "code") as? String ?? "?"
                Self.expectSame(quake.value(forKey: "magnitude"), expected[code], code)
            }
        }
    }

    /// A value that is no dictionary of the composite's elements fails the save with Core
    /// Data's validation error naming the attribute; nothing of that save is written.
    @Test func aValueThatIsNoDictionaryOfElementsFailsTheSave() throws {
        let stack = try ObjectGraphTests.Stack(model, at: scratch.file("bad.sqlite"))
        let context = stack.newContext()
        try context.performAndWait { try insertQuakes(context) }
        let bad: [(Any, String)] = [
            ("4.5", "is a dictionary"), (["richter": 4.5, "scale": "ML"] as [String: Any], "\"scale\" is not an element"),
            (["origin": "Hilo"] as [String: Any], "is a dictionary"),
        ]
        for (value, reason) in bad {
            let context = stack.newContext()
            try context.performAndWait {
                NSEntityDescription.insertNewObject(forEntityName: "Quake", into: context).setValue("bad", forKey: "code")
                let ak1 = try #require(
                    try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Quake")).first {
                        $0.value(forKey: "code") as? String == "ak1"
                    })
                ak1.setValue(value, forKey: "magnitude")
                let error = #expect(throws: NSError.self) { try context.save() }
                #expect(error?.domain == NSCocoaErrorDomain)
                #expect(error?.code == NSManagedObjectValidationError, "\(String(describing: error))")
                #expect(error?.localizedDescription.contains(reason) == true, "\(String(describing: error))")
            }
        }
        try stack.newContext().performAndWait {
            let context = stack.newContext()
            let quakes = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Quake"))
            #expect(quakes.count == 4)
            let ak1 = quakes.first { $0.value(forKey: "code") as? String == "ak1" }
            Self.expectSame(ak1?.value(forKey: "magnitude"), Self.magnitudes["ak1"], "ak1")
        }
    }

    @Test func keyPathsThatNameNoLeafAreRefused() throws {
        let stack = try ObjectGraphTests.Stack(model, at: scratch.file("paths.sqlite"))
        let context = stack.newContext()
        try context.performAndWait {
            try insertQuakes(context)
            for (format, reason) in [
                ("magnitude.scale == 1", "not an element"), ("magnitude == nil", "composite attribute"),
            ] {
                let request = NSFetchRequest<NSManagedObject>(entityName: "Quake")
                request.predicate = NSPredicate(format: format)
                let error = #expect(throws: NSError.self) { try context.fetch(request) }
                #expect(error?.localizedDescription.contains(reason) == true, "\(format): \(String(describing: error))")
            }
        }
    }

    // MARK: Other stores, batches, migration, history, sync

    @Test(arguments: [NSBinaryStoreType, NSInMemoryStoreType])
    func otherStoresKeepCompositeValues(type: String) throws {
        let url = type == NSInMemoryStoreType ? nil : scratch.file("quakes.store")
        var stack = try ObjectGraphTests.Stack(model, type: type, at: url)
        try stack.newContext().performAndWait { try insertQuakes(stack.newContext()) }
        if type != NSInMemoryStoreType {
            try stack.close()
            stack = try ObjectGraphTests.Stack(model, type: type, at: url)
        }
        let context = stack.newContext()
        try context.performAndWait {
            let quakes = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Quake"))
            #expect(quakes.count == 4)
            for quake in quakes {
                let code = quake.value(forKey: "code") as? String ?? "?"
                Self.expectSame(quake.value(forKey: "magnitude"), Self.magnitudes[code], code)
            }
            let request = NSFetchRequest<NSManagedObject>(entityName: "Quake")
            request.predicate = NSPredicate(format: "magnitude.origin.place == 'Hilo'")
            #expect(try context.fetch(request).compactMap { $0.value(forKey: "code") as? String } == ["hi3"])
        }
    }

    @Test func batchInsertAndUpdateWriteEveryLeaf() throws {
        let stack = try ObjectGraphTests.Stack(model, at: scratch.file("batch.sqlite"))
        let context = stack.newContext()
        try context.performAndWait {
            let objects: [[String: Any]] = Self.magnitudes.keys.sorted().map {
                ["code": $0, "magnitude": Self.magnitudes[$0] ?? [:]]
            }
            try context.execute(NSBatchInsertRequest(entityName: "Quake", objects: objects))
            let update = NSBatchUpdateRequest(entityName: "Quake")
            update.predicate = NSPredicate(format: "magnitude.richter < 4")
            update.propertiesToUpdate = ["magnitude": ["richter": 3.3, "origin": ["place": "Parkfield"]] as [String: Any]]
            try context.execute(update)
            // A value that is no dictionary of the elements is refused before anything is written.
            let bad = NSBatchUpdateRequest(entityName: "Quake")
            bad.propertiesToUpdate = ["magnitude": ["scale": "ML"]]
            #expect(throws: NSError.self) { try context.execute(bad) }
            let badInsert = NSBatchInsertRequest(entityName: "Quake", objects: [["code": "x", "magnitude": 4.5]])
            #expect(throws: NSError.self) { try context.execute(badInsert) }
        }
        var expected = Self.magnitudes
        expected["ca2"] = ["richter": 3.3, "origin": ["place": "Parkfield"] as [String: Any]]
        let reader = stack.newContext()
        try reader.performAndWait {
            let quakes = try reader.fetch(NSFetchRequest<NSManagedObject>(entityName: "Quake"))
            #expect(quakes.count == 3)
            for quake in quakes {
                let code = quake.value(forKey: "code") as? String ?? "?"
                Self.expectSame(quake.value(forKey: "magnitude"), expected[code], code)
            }
        }
    }

    /// A model file's `<composite>` types, and a lightweight migration that adds an element (with
    /// a default) and a second composite attribute: every row keeps the values it had.
    @Test func modelFilesAndLightweightMigration() throws {
        let v1 = """
            <entity name="Quake" representedClassName="Quake" syncable="YES">
                <attribute name="code" optional="YES" attributeType="String"/>
                <attribute name="magnitude" optional="YES" attributeType="Composite" composite="Magnitude"/>
            </entity>
            <composite name="Magnitude">
                <attribute name="richter" optional="YES" attributeType="Double" defaultValueString="0.0" usesScalarValueType="YES"/>
                <attribute name="place" optional="YES" attributeType="String"/>
            </composite>
            """
        let v2 = """
            <entity name="Quake" representedClassName="Quake" syncable="YES">
                <attribute name="code" optional="YES" attributeType="String"/>
                <attribute name="magnitude" optional="YES" attributeType="Composite" composite="Magnitude"/>
                <attribute name="felt" optional="YES" attributeType="Composite" composite="Felt"/>
            </entity>
            <composite name="Magnitude">
                <attribute name="richter" optional="YES" attributeType="Double" defaultValueString="0.0" usesScalarValueType="YES"/>
                <attribute name="place" optional="YES" attributeType="String"/>
                <attribute name="method" optional="YES" attributeType="String" defaultValueString="ML"/>
            </composite>
            <composite name="Felt">
                <attribute name="reports" optional="YES" attributeType="Integer 64" usesScalarValueType="YES"/>
            </composite>
            """
        let bundle = try MigrationFixtures.bundle(["V1": v1, "V2": v2], current: "V2")
        let url = MigrationFixtures.store(in: bundle)
        let (old, oldContext) = try MigrationFixtures.open(try MigrationFixtures.model(bundle, "V1"), url, options: nil)
        try oldContext.performAndWait {
            for (code, richter, place) in [("a", 4.1, "Napa"), ("b", 5.9, "Ridgecrest")] {
                let quake = NSEntityDescription.insertNewObject(forEntityName: "Quake", into: oldContext)
                quake.setValue(code, forKey: "code")
                quake.setValue(["richter": richter, "place": place], forKey: "magnitude")
            }
            try oldContext.save()
        }
        try MigrationFixtures.close(old)
        let (new, context) = try MigrationFixtures.open(try MigrationFixtures.model(bundle, "V2"), url)
        try context.performAndWait {
            let quakes = try MigrationFixtures.fetch("Quake", in: context, sortedBy: "code")
            #expect(quakes.count == 2)
            let magnitudes = quakes.compactMap { $0.value(forKey: "magnitude") as? [String: Any] }
            #expect(magnitudes.map { $0["richter"] as? Double } == [4.1, 5.9])
            #expect(magnitudes.map { $0["place"] as? String } == ["Napa", "Ridgecrest"])
            #expect(magnitudes.map { $0["method"] as? String } == ["ML", "ML"])
            #expect(quakes.map { $0.value(forKey: "felt") == nil } == [true, true])
            quakes[0].setValue(["reports": Int64(120)], forKey: "felt")
            try context.save()
            let request = NSFetchRequest<NSManagedObject>(entityName: "Quake")
            request.predicate = NSPredicate(format: "felt.reports > 100 AND magnitude.method == 'ML'")
            #expect(try context.fetch(request).compactMap { $0.value(forKey: "code") as? String } == ["a"])
        }
        try MigrationFixtures.close(new)
    }

    /// A composite kept in history after deletion comes back whole in the change's tombstone,
    /// for a context's delete and for a batch delete.
    @Test(arguments: [false, true])
    func deletedCompositesAreKeptInTombstones(batch: Bool) throws {
        let model = Self.model()
        model.entitiesByName["Quake"]?.attributesByName["magnitude"]?.preservesValueInHistoryOnDeletion = true
        let stack = try HistoryTests.Stack(at: scratch.file("history.sqlite"), model: model)
        let context = stack.context()
        try context.performAndWait { try insertQuakes(context) }
        let token = try stack.transactions().last?.token
        try context.performAndWait {
            if batch {
                let delete = NSBatchDeleteRequest(fetchRequest: NSFetchRequest<NSFetchRequestResult>(entityName: "Quake"))
                try context.execute(delete)
            } else {
                for quake in try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Quake")) { context.delete(quake) }
                try context.save()
            }
        }
        let deletes = try stack.transactions(after: token).flatMap { $0.changes ?? [] }.filter { $0.changeType == .delete }
        #expect(deletes.count == 4)
        let tombstones = deletes.compactMap { $0.tombstone?["magnitude"] }
        #expect(tombstones.count == 3)
        let richters = tombstones.compactMap { ($0 as? [String: Any])?["richter"] as? Double }
        #expect(richters.sorted() == [3.1, 4.6, 5.2])
        let ak1 = tombstones.compactMap { $0 as? [String: Any] }.first { $0["richter"] as? Double == 4.6 }
        Self.expectSame(ak1, Self.magnitudes["ak1"], "ak1 tombstone")
    }

    /// Sync sends a composite as one field of bytes that are the same for equal values (a
    /// dictionary's order changes from process to process), and reads it back.
    @Test func syncFieldsAreStableBytesThatReadBack() throws {
        let attribute = try #require(model.entitiesByName["Quake"]?.attributesByName["magnitude"])
        #expect(
            SyncRecordMapping.syncedAttributes(of: try #require(model.entitiesByName["Quake"])).map(\.name).contains("magnitude"))
        let value = try #require(Self.magnitudes["ak1"])
        // The same elements inserted in another order make an equal dictionary.
        var reordered: [String: Any] = [:]
        for key in value.keys.sorted().reversed() { reordered[key] = value[key] }
        let field = try #require(SyncRecordMapping.fieldValue(value, of: attribute))
        #expect(SyncRecordMapping.fieldValue(reordered, of: attribute) == field)
        guard case .bytes = field else {
            Issue.record("a composite travels as bytes, not \(field)")
            return
        }
        Self.expectSame(SyncRecordMapping.attributeValue(field, of: attribute), value, "ak1 from its field")
        #expect(SyncRecordMapping.fieldValue(nil, of: attribute) == .null)
    }
}
