import Foundation
import GRDB
import Testing

@testable import Strata

@Suite struct VersionHashTests {
    @Test func hashesAre32BytesAndDeterministic() throws {
        let a = try #require(todoModel().entitiesByName["Todo"])
        let b = try #require(todoModel().entitiesByName["Todo"])
        #expect(a.versionHash.count == 32)
        #expect(a.versionHash == b.versionHash)
        #expect(a.attributesByName["title"]?.versionHash == b.attributesByName["title"]?.versionHash)
    }

    @Test func whatCountsAndWhatDoesNot() throws {
        func hash(_ change: (NSManagedObjectModel) -> Void) -> Data {
            let model = todoModel()
            change(model)
            return model.entitiesByName["Todo"]?.versionHash ?? Data()
        }
        let base = hash { _ in }
        // Part of the hash: optionality, type, names, modifiers, constraints, to-many ordering.
        #expect(hash { $0.entitiesByName["Todo"]?.attributesByName["dueAt"]?.isOptional = false } != base)
        #expect(hash { $0.entitiesByName["Todo"]?.attributesByName["dueAt"]?.attributeType = .doubleAttributeType } != base)
        #expect(hash { $0.entitiesByName["Todo"]?.versionHashModifier = "2" } != base)
        #expect(hash { $0.entitiesByName["Todo"]?.attributesByName["title"]?.versionHashModifier = "2" } != base)
        #expect(hash { $0.entitiesByName["Todo"]?.uniquenessConstraints = [] } != base)
        #expect(hash { $0.entitiesByName["Todo"]?.relationshipsByName["steps"]?.isOrdered = false } != base)
        // Not part of it: class name, user info, default values, indexes, delete rules, transients.
        #expect(hash { $0.entitiesByName["Todo"]?.managedObjectClassName = "Other" } == base)
        #expect(hash { $0.entitiesByName["Todo"]?.userInfo = ["k": "v"] } == base)
        #expect(hash { $0.entitiesByName["Todo"]?.attributesByName["title"]?.defaultValue = "x" } == base)
        #expect(hash { $0.entitiesByName["Todo"]?.indexes = [] } == base)
        #expect(hash { $0.entitiesByName["Todo"]?.relationshipsByName["steps"]?.deleteRule = .denyDeleteRule } == base)
        #expect(hash { $0.entitiesByName["Todo"]?.attributesByName["scratch"]?.name = "other" } == base)
    }

    @Test func subentityHashCoversTheSuperentity() throws {
        let model = todoModel()
        let before = try #require(model.entitiesByName["Checkbox"]).versionHash
        try #require(model.entitiesByName["Item"]).versionHashModifier = "v2"
        #expect(try #require(model.entitiesByName["Checkbox"]).versionHash != before)
    }

    /// Every store in the corpus records the hashes Apple's framework computed for the model
    /// that wrote it; Strata's hashes for that model must be the same bytes.
    @Test(.enabled(if: TestCorpus.isAvailable)) func matchApplesHashesInEveryCorpusStore() throws {
        var checkedStores = 0
        var checkedEntities = 0
        var usedSecondChoice: [String] = []
        for pair in try TestCorpus.pairs() {
            guard let store = pair["store"], let best = pair["best_model_version"], best.hasSuffix(".xcdatamodel") else {
                continue
            }
            let stored = try storedHashes(of: store)
            // PAIRS.tsv pairs by column sets, which cannot tell apart two versions with the same
            // columns; the second candidate is then the version that wrote the store.
            let candidates = [best, pair["second_best"].map { String($0.prefix { $0 != "(" }) }].compactMap { $0 }
            var matched = false
            for (rank, candidate) in candidates.enumerated() {
                let model = try NSManagedObjectModel.load(contentsOf: TestCorpus.models.appendingPathComponent(candidate))
                let computed = model.entityVersionHashesByName
                if computed == stored {
                    matched = true
                    if rank > 0 { usedSecondChoice.append(store) }
                    #expect(
                        model.isConfiguration(withName: nil, compatibleWithStoreMetadata: [NSStoreModelVersionHashesKey: stored]))
                    break
                }
            }
            #expect(matched, "no candidate model reproduces the hashes of \(store)")
            checkedStores += 1
            checkedEntities += stored.count
        }
        #expect(checkedStores >= 14)
        #expect(checkedEntities >= 95)
        #expect(usedSecondChoice.count <= 1)
        print("version hashes: \(checkedEntities) entity hashes in \(checkedStores) Apple stores reproduced")
    }

    @Test(.enabled(if: TestCorpus.isAvailable)) func checksumMatchesStoreMetadata() throws {
        var compared = 0
        for pair in try TestCorpus.pairs() {
            guard let store = pair["store"], let best = pair["best_model_version"], best.hasSuffix(".xcdatamodel") else {
                continue
            }
            let metadata = try metadataPlist(of: store)
            guard let checksum = metadata["NSStoreModelVersionChecksumKey"] as? String else { continue }
            let model = try NSManagedObjectModel.load(contentsOf: TestCorpus.models.appendingPathComponent(best))
            guard model.entityVersionHashesByName == (metadata[NSStoreModelVersionHashesKey] as? [String: Data]) else { continue }
            #expect(model.versionChecksum == checksum, "\(store)")
            compared += 1
        }
        #expect(compared >= 3)
    }

    private func metadataPlist(of store: String) throws -> [String: Any] {
        let url = try TestCorpus.copyOfStore(named: store)
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let queue = try DatabaseQueue(path: url.path)
        let data = try queue.read { db in try Data.fetchOne(db, sql: "SELECT Z_PLIST FROM Z_METADATA") }
        let plist = try PropertyListSerialization.propertyList(from: try #require(data), format: nil)
        return try #require(plist as? [String: Any])
    }

    private func storedHashes(of store: String) throws -> [String: Data] {
        try #require(try metadataPlist(of: store)[NSStoreModelVersionHashesKey] as? [String: Data])
    }
}
