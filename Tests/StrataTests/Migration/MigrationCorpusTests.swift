import Foundation
import GRDB
import Testing

@testable import Strata

/// Every Apple-written corpus store whose app has a later model version migrates to the
/// newest version when opened with it: every row of every kept entity is still there, and
/// every kept attribute has its value. Stores are migrated in copies.
@Suite struct MigrationCorpusTests {
    /// Later versions to migrate to besides the bundle's current one: CoreDataPlus's bundles
    /// name their first version current, and their tests migrate to the later ones.
    static let extraTargets: [String: [String]] = [
        "alemar11__CoreDataPlus__Tests__Resources__SampleModel__Fixtures__SampleModel_V1.sqlite": [
            "SampleModel2", "SampleModel3",
        ],
        "alemar11__CoreDataPlus__Tests__Resources__SampleModel__Fixtures__SampleModel_V2.sqlite": ["SampleModel3"],
        "alemar11__CoreDataPlus__Tests__Resources__SampleModel3__Fixtures__SampleModel3_V1.sqlite": [
            "SampleModel3_v2", "SampleModel3_v3",
        ],
    ]

    /// Refused migrations: where Apple would need a mapping model (or fail the same way).
    static let expectedRefusals = 1

    @Test(.enabled(if: TestCorpus.isAvailable))
    func corpusStoresMigrateToTheirAppsNewestModel() throws {
        var totals = CorpusMigrationTotals()
        for pair in try TestCorpus.pairs() {
            guard let store = pair["store"], let path = CorpusStorePairs.modelPath(store: store, pair: pair),
                path.hasSuffix(".xcdatamodel")
            else { continue }
            let bundleURL = TestCorpus.models.appendingPathComponent(path).deletingLastPathComponent()
            let bundle = try XcodeModelBundle(url: bundleURL)
            // The version that wrote the store, found by its hashes as a migration finds it.
            // Read from a copy: even reading metadata may rewrite a WAL store's -shm file.
            let metadataCopy = try TestCorpus.copyOfStore(named: store)
            defer { try? FileManager.default.removeItem(at: metadataCopy.deletingLastPathComponent()) }
            let metadata = try NSPersistentStore.metadataForPersistentStore(with: metadataCopy)
            let hashes = metadata[NSStoreModelVersionHashesKey] as? [String: Any] ?? [:]
            guard
                let sourceName = try bundle.versionNames.first(where: {
                    MigrationSourceModels.matches(try bundle.model(named: $0), hashes)
                })
            else {
                totals.skipped.append("\(store): no version of \(bundleURL.lastPathComponent) has its hashes")
                continue
            }
            var targets = Self.extraTargets[store] ?? []
            if bundle.currentVersionName != sourceName { targets.insert(bundle.currentVersionName, at: 0) }
            if targets.isEmpty { totals.skipped.append("\(store): written with the newest version") }
            for target in targets {
                try check(store: store, bundle: bundle, from: sourceName, to: target, totals: &totals)
            }
        }
        print("Corpus migrations:\n  " + totals.migrated.joined(separator: "\n  "))
        print("Refused as Apple would need a mapping model:\n  " + totals.refused.joined(separator: "\n  "))
        print("Not migrated:\n  " + totals.skipped.joined(separator: "\n  "))
        print("corpus migration: \(totals.migrated.count) migrations, \(totals.rows) rows and \(totals.values) values compared")
        #expect(totals.migrated.count >= 15)
        #expect(totals.refused.count == Self.expectedRefusals)
    }

    /// Migrates a copy of the store from one version to another and compares every row and
    /// kept value; a refusal must leave the copy as it was.
    private func check(
        store: String, bundle: XcodeModelBundle, from sourceName: String, to target: String,
        totals: inout CorpusMigrationTotals
    ) throws {
        let copy = try TestCorpus.copyOfStore(named: store)
        defer { try? FileManager.default.removeItem(at: copy.deletingLastPathComponent()) }
        let source = try bundle.model(named: sourceName)
        let destination = try NSManagedObjectModel.load(contentsOf: bundle.contentsURL(ofVersion: target))
        let before = try CorpusSnapshot(url: copy, model: source)
        do {
            let (coordinator, _) = try MigrationFixtures.open(destination, copy)
            try MigrationFixtures.close(coordinator)
        } catch let error as NSError where [NSInferredMappingModelError, NSMigrationError].contains(error.code) {
            totals.refused.append(
                "\(store) \(sourceName) → \(target): \(error.code) \(error.userInfo["reason"] ?? error)")
            let again = try CorpusSnapshot(url: copy, model: source)
            #expect(again.rows == before.rows, "\(store)")
            return
        }
        let mapping = try NSMappingModel.inferredMappingModel(forSourceModel: source, destinationModel: destination)
        let after = try CorpusSnapshot(url: copy, model: destination)
        let metadata = try NSPersistentStore.metadataForPersistentStore(with: copy)
        #expect(destination.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata), "\(store)")
        for entityMapping in mapping.entityMappings
        where [.copyEntityMappingType, .transformEntityMappingType].contains(entityMapping.mappingType) {
            guard let old = entityMapping.sourceEntityName, let new = entityMapping.destinationEntityName,
                let newEntity = destination.entitiesByName[new]
            else { continue }
            let oldRows = before.rows[old] ?? [:]
            let newRows = after.rows[new] ?? [:]
            #expect(Set(oldRows.keys) == Set(newRows.keys), "\(store): \(old) → \(new) rows")
            totals.rows += oldRows.count
            for property in entityMapping.attributeMappings ?? [] {
                guard let name = property.name, let sourceName = property.sourcePropertyName,
                    let attribute = newEntity.attributesByName[name],
                    source.entitiesByName[old]?.attributesByName[sourceName]?.attributeType == attribute.attributeType
                else { continue }
                // A required attribute with a default takes the default where the value was nil.
                let fallback = attribute.isOptional ? nil : attribute.defaultValue
                for (key, row) in oldRows {
                    totals.values += 1
                    var expected = row[sourceName] ?? .null
                    if expected.isNull, let fallback { expected = try SQLiteValueCodec.encode(fallback, attribute: attribute) }
                    #expect(expected == newRows[key]?[name], "\(store): \(new).\(name) of p\(key)")
                }
            }
        }
        totals.migrated.append("\(store) \(sourceName) → \(target)")
    }
}

struct CorpusMigrationTotals {
    var migrated: [String] = []
    var refused: [String] = []
    var skipped: [String] = []
    var rows = 0
    var values = 0
}

/// The rows of each entity of a store, read raw by the model's schema: entity name → Z_PK
/// → attribute name → stored value.
struct CorpusSnapshot {
    var rows: [String: [Int64: [String: DatabaseValue]]] = [:]

    init(url: URL, model: NSManagedObjectModel) throws {
        let schema = SQLiteSchema(model: model)
        var configuration = Configuration()
        configuration.readonly = true
        let queue = try DatabaseQueue(path: url.path, configuration: configuration)
        defer { try? queue.close() }
        try queue.read { db in
            for entity in schema.orderedEntities {
                let name = entity.name ?? ""
                let table = schema.tableName(for: entity)
                guard try db.tableExists(table), let number = schema.entityNumber(for: entity) else { continue }
                let present = Set(try db.columns(in: table).map(\.name))
                let attributes = entity.properties.compactMap { $0 as? NSAttributeDescription }.compactMap {
                    attribute -> (String, String)? in
                    guard let column = schema.columnName(entity: entity, property: attribute.name), present.contains(column)
                    else { return nil }
                    return (attribute.name, column)
                }
                let hierarchy = schema.orderedEntities.filter { schema.tableName(for: $0) == table }
                let filter = hierarchy.count == 1 ? "" : "WHERE Z_ENT = \(number)"
                let columns = (["Z_PK"] + attributes.map(\.1)).joined(separator: ", ")
                var byKey: [Int64: [String: DatabaseValue]] = [:]
                for row in try Row.fetchAll(db, sql: "SELECT \(columns) FROM \(table) \(filter)") {
                    var values: [String: DatabaseValue] = [:]
                    for (offset, attribute) in attributes.enumerated() { values[attribute.0] = row[offset + 1] }
                    byKey[row[0]] = values
                }
                rows[name] = byKey
            }
        }
    }
}
