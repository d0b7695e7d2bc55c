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

    @Test("info's counts equal SQLite's count(*) per entity on every corpus store")
    func corpusCounts() throws {
        guard let stores = try StoreFixtures.corpusStores() else { return }
        var checked = 0
        for name in stores {
            let copy = try StoreFixtures.copyOfCorpusStore(name)
            defer { try? FileManager.default.removeItem(at: copy.deletingLastPathComponent()) }
            var arguments = ["store", "info", copy.path, "--json"]
            if let model = try StoreFixtures.pairedModel(of: name) { arguments += ["--model", model.path] }
            let result = try StrataProgram.run(arguments)
            if result.status != 0 {
                // Only stores Strata cannot open without a model file may fail, and they must say why.
                #expect(result.error.contains("cached model"), "\(name): \(result.error)")
                continue
            }
            let info = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
            for entity in info["entities"] as? [[String: Any]] ?? [] {
                let entityName = entity["name"] as? String ?? ""
                let number = try StoreFixtures.integer("SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = '\(entityName)'", in: copy)
                var root = number
                while true {
                    let parent = try StoreFixtures.integer("SELECT Z_SUPER FROM Z_PRIMARYKEY WHERE Z_ENT = \(root)", in: copy)
                    if parent <= 0 { break }
                    root = parent
                }
                let rootName = "Z" + (try StoreFixtures.string("SELECT Z_NAME FROM Z_PRIMARYKEY WHERE Z_ENT = \(root)", in: copy)).uppercased()
                let rows = try StoreFixtures.integer("SELECT count(*) FROM \(rootName) WHERE Z_ENT = \(number)", in: copy)
                #expect((entity["count"] as? NSNumber)?.intValue == rows, "\(name) \(entityName)")
                checked += 1
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
