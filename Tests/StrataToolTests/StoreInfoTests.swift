import Foundation
import Testing

/// `strata store info` and `strata store history`, on the shop store and on the corpus.
@Suite("strata store info and history")
struct StoreInfoTests {
    @Test("info names the type, UUID, model version, counts per entity, history and size")
    func shopInfo() throws {
        let folder = try StoreFixtures.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (store, model) = try StoreFixtures.makeShopStore(in: folder)
        let result = try StrataProgram.run(["store", "info", store.path, "--json"])
        #expect(result.status == 0, "\(result.error)")
        let info = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
        #expect(info["type"] as? String == "SQLite")
        #expect(UUID(uuidString: info["uuid"] as? String ?? "") != nil)
        #expect(info["history"] as? Bool == false)
        let counts = Dictionary(
            uniqueKeysWithValues: (info["entities"] as? [[String: Any]] ?? []).map {
                ($0["name"] as? String ?? "", ($0["count"] as? NSNumber)?.intValue ?? -1)
            })
        #expect(counts == ["Box": 1, "Gadget": 1, "Item": 4, "Tag": 3])
        let modelInfo = info["model"] as? [String: Any]
        #expect(modelInfo?["versionIdentifiers"] as? [String] == ["shop"])
        #expect((modelInfo?["source"] as? String)?.contains("cached") == true)
        // The photo's external file counts in the size.
        let size = info["size"] as? [String: Any]
        #expect(((size?["total"] as? NSNumber)?.intValue ?? 0) > 200 * 1024)
        let text = try StrataProgram.run(["store", "info", store.path, "--model", model.path])
        #expect(text.status == 0)
        #expect(text.output.contains("history:    off"))
        #expect(text.output.contains("  Gadget  1  (subentity of Item)"), "\(text.output)")
    }

    @Test(
        "info's counts equal SQLite's count(*) per entity (Z_ENT) on every corpus store",
        .enabled(if: StoreFixtures.corpusIsAvailable, "the corpus is absent"))
    func corpusCounts() throws {
        let stores = try StoreFixtures.corpusStores()
        var checked = 0
        for name in stores {
            let copy = try StoreFixtures.copyOfCorpusStore(name)
            defer { try? FileManager.default.removeItem(at: copy.deletingLastPathComponent()) }
            let arguments = ["store", "info", copy.path, "--json"] + (try StoreFixtures.modelArguments(for: name, copy: copy))
            let result = try StrataProgram.run(arguments)
            if result.status != 0 {
                // Only stores Strata cannot open without a model file may fail, and they must say why.
                #expect(result.error.contains("cached model"), "\(name): \(result.error)")
                continue
            }
            let info = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
            let entities = info["entities"] as? [[String: Any]] ?? []
            let parents = Dictionary(
                uniqueKeysWithValues: entities.map { ($0["name"] as? String ?? "", $0["parent"] as? String) })
            // Each hierarchy's counts, entity by entity, against its table's rows grouped by Z_ENT
            // (entity numbers come from the model, as Core Data assigns them; Z_PRIMARYKEY's names
            // can be stale after a migration, as in CoreDataPlus SampleModel_V2).
            var countsByTable: [String: [Int]] = [:]
            for entity in entities {
                var root = entity["name"] as? String ?? ""
                while let parent = parents[root] ?? nil { root = parent }
                countsByTable["Z" + root.uppercased(), default: []].append((entity["count"] as? NSNumber)?.intValue ?? -1)
            }
            for (table, counts) in countsByTable {
                let rows = try StoreFixtures.integers("SELECT count(*) FROM \(table) GROUP BY Z_ENT", in: copy)
                #expect(counts.filter { $0 > 0 }.sorted() == rows.sorted(), "\(name) \(table)")
                checked += counts.count
            }
        }
        #expect(checked > 50)
    }

    @Test("history lists transactions and changes, after a token, as text and JSON")
    func history() throws {
        let folder = try StoreFixtures.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (store, _) = try StoreFixtures.makeShopStore(in: folder, history: true)
        let result = try StrataProgram.run(["store", "history", store.path, "--json"])
        #expect(result.status == 0, "\(result.error)")
        let transactions = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [[String: Any]])
        #expect(transactions.count == 1)
        #expect(transactions.first?["author"] as? String == "fixture")
        let changes = transactions.first?["changes"] as? [[String: Any]] ?? []
        #expect(changes.count == 9)
        #expect(Set(changes.compactMap { $0["type"] as? String }) == ["insert"])
        let token = (transactions.first?["token"] as? NSNumber)?.intValue ?? -1
        let after = try StrataProgram.run(["store", "history", store.path, "--after", "\(token)"])
        #expect(after.status == 0)
        #expect(after.output == "(0 transactions)\n")
        let text = try StrataProgram.run(["store", "history", store.path, "--limit", "1"])
        #expect(text.output.contains("author fixture"))
        #expect(text.output.contains("  insert Tag/p"))
        let none = try StoreFixtures.folder()
        defer { try? FileManager.default.removeItem(at: none) }
        let plain = try StoreFixtures.makeShopStore(in: none).store
        let missing = try StrataProgram.run(["store", "history", plain.path])
        #expect(missing.status == 1)
        #expect(missing.error.contains("has no persistent history"))
    }
}
