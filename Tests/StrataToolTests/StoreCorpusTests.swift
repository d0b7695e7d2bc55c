import Foundation
import Testing

/// The corpus of stores Apple's Core Data wrote (../shared/testdata, read from copies): each
/// exports, imports into an empty store with its model, and exports again to the same file.
@Suite("strata store on the corpus")
struct StoreCorpusTests {
    /// Corpus stores (artsy's hand-made test fixtures) whose foreign keys name rows that do not
    /// exist (`strata store check` reports them too).
    static let danglingCorpusStores: Set<String> = [
        "artsy__energy-legacy__ArtsyFolio_Tests__Migrations__ArtsyPartner_1.3.sqlite",
        "artsy__energy-legacy__ArtsyFolio_Tests__Migrations__ArtsyPartner_2.0.sqlite",
    ]

    @Test(
        "export → import into an empty store → export is identical, on every corpus store",
        .enabled(if: StoreFixtures.corpusIsAvailable, "the corpus is absent"))
    func corpusRoundTrip() throws {
        let stores = try StoreFixtures.corpusStores()
        var roundTrips = 0
        var objects = 0
        for name in stores {
            let copy = try StoreFixtures.copyOfCorpusStore(name)
            let folder = copy.deletingLastPathComponent()
            defer { try? FileManager.default.removeItem(at: folder) }
            let modelArguments = try StoreFixtures.modelArguments(for: name, copy: copy)
            let before = StoreFixtures.bytes(of: copy)
            let exported = try StrataProgram.run(["store", "export", copy.path] + modelArguments)
            #expect(StoreFixtures.bytes(of: copy) == before, "\(name): export changed the store")
            if exported.status != 0 {
                // A store without a model file or a readable cached model cannot be opened.
                #expect(exported.error.contains("cached model"), "\(name): \(exported.error)")
                continue
            }
            // The model for the new store: the paired model file, else the cached one exported
            // through a store copy (import needs a model to create a store).
            let target = folder.appendingPathComponent("roundtrip.sqlite")
            var importArguments = ["store", "import", "-", target.path]
            if !modelArguments.isEmpty {
                importArguments += modelArguments
            } else {
                // No model file: an empty store with the cached model is a copy emptied by SQL.
                try FileManager.default.copyItem(at: copy, to: target)
                for suffix in ["-wal", "-shm"] where FileManager.default.fileExists(atPath: copy.path + suffix) {
                    try FileManager.default.copyItem(atPath: copy.path + suffix, toPath: target.path + suffix)
                }
                try StoreFixtures.emptyObjects(of: target)
            }
            let imported = try StrataProgram.run(importArguments, input: Data(exported.output.utf8))
            if Self.danglingCorpusStores.contains(name) {
                // Their rows point at rows that do not exist: the import refuses them whole.
                #expect(imported.status == 1, "\(name)")
                #expect(imported.error.contains("which is not in the file"), "\(name): \(imported.error)")
                continue
            }
            #expect(imported.status == 0, "\(name): \(imported.error)")
            guard imported.status == 0 else { continue }
            let again = try StrataProgram.run(["store", "export", target.path] + modelArguments)
            #expect(again.status == 0, "\(name): \(again.error)")
            #expect(
                again.output == exported.output,
                "\(name): the second export differs at \(StoreFixtures.firstDifference(exported.output, again.output))")
            roundTrips += 1
            objects += exported.output.split(separator: "\n").count
        }
        #expect(roundTrips >= 15)
        #expect(objects > 1000)
    }
}
