import Foundation
import Testing

@testable import Strata

/// `strata store export` and `import`: the whole graph round-trips exactly, import is all or
/// nothing, and exporting never changes the store.
@Suite("strata store export/import")
struct StoreExportTests {
    @Test("export → import into an empty store → export gives the same file, every attribute type included")
    func roundTrip() throws {
        let folder = try StoreFixtures.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (store, model) = try StoreFixtures.makeShopStore(in: folder)
        let first = try StrataProgram.run(["store", "export", store.path])
        #expect(first.status == 0, "\(first.error)")
        // Standard error is not a terminal here: no progress bar, nothing at all.
        #expect(first.error.isEmpty, "\(first.error)")
        let copy = folder.appendingPathComponent("Copy.sqlite")
        let imported = try StrataProgram.run(
            ["store", "import", "-", copy.path, "--model", model.path], input: Data(first.output.utf8))
        #expect(imported.status == 0, "\(imported.error)")
        #expect(imported.error.isEmpty, "\(imported.error)")
        #expect(imported.output.contains("imported 9 objects"), "\(imported.output)")
        let second = try StrataProgram.run(["store", "export", copy.path])
        #expect(second.status == 0, "\(second.error)")
        #expect(second.output == first.output, "\(StoreFixtures.firstDifference(first.output, second.output))")
        #expect(!first.output.isEmpty)
        // The external photo came back as a file of the new store.
        let external = folder.appendingPathComponent(".Copy.sqlite_SUPPORT/_EXTERNAL_DATA")
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: external.path)) ?? []).count == 1)
    }

    @Test("exported values are exact: Decimal digits, 64-bit integers, dates to the microsecond, UUID, URI, base64")
    func exactValues() throws {
        let folder = try StoreFixtures.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (store, _) = try StoreFixtures.makeShopStore(in: folder)
        let result = try StrataProgram.run([
            "store", "export", store.path, "--output", folder.appendingPathComponent("out.json").path,
        ])
        #expect(result.status == 0, "\(result.error)")
        let data = try Data(contentsOf: folder.appendingPathComponent("out.json"))
        let root = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let entities = try #require(root["entities"] as? [String: [[String: Any]]])
        let items = try #require(entities["Item"])
        let first = try #require(items.first { ($0["name"] as? String)?.hasPrefix("item 0") == true })
        #expect(first["amount"] as? String == "1234.5")
        #expect((first["big"] as? NSNumber)?.int64Value == 9_007_199_254_740_993)
        #expect((first["created"] as? NSNumber)?.doubleValue == 737_057_646.841_234)
        #expect(first["blob"] as? String == Data([0, 1, 2, 255, 0]).base64EncodedString())
        #expect(first["link"] as? String == "https://example.com/items/0?q=a%20b")
        #expect(UUID(uuidString: first["identifier"] as? String ?? "") != nil)
        #expect((first["photo"] as? String).flatMap { Data(base64Encoded: $0) }?.count == 200 * 1024)
        #expect(first["name"] as? String == "item 0, \"quoted\"")
        #expect((first["tags"] as? [String])?.count == 1)
        // Relationships by id (Entity/pN); the ordered box keeps its order.
        var names: [String: String] = [:]
        for object in items + (entities["Gadget"] ?? []) {
            if let id = object["@id"] as? String { names[id] = object["name"] as? String }
        }
        let box = try #require(entities["Box"]?.first)
        let boxItems = try #require(box["items"] as? [String])
        #expect(boxItems.compactMap { names[$0]?.prefix(6) } == ["item 4", "item 2", "item 0"])
        #expect(entities["Gadget"]?.count == 1)
        #expect((entities["Gadget"]?.first?["voltage"] as? NSNumber)?.doubleValue == 230.5)
    }

    @Test("an import that fails changes nothing: unknown key, wrong type, dangling id")
    func importIsAllOrNothing() throws {
        let folder = try StoreFixtures.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (store, _) = try StoreFixtures.makeShopStore(in: folder)
        let before = StoreFixtures.bytes(of: store)
        let cases: [(json: String, message: String)] = [
            (
                #"{"format":"strata-store-export","version":1,"entities":{"Tag":[{"@id":"Tag/p9","title":"x","colour":"red"}]}}"#,
                "unknown key 'colour'"
            ),
            (
                #"{"format":"strata-store-export","version":1,"entities":{"Item":[{"@id":"Item/p9","count":"many"}]}}"#,
                "is not a valid Integer 16"
            ),
            (
                #"{"format":"strata-store-export","version":1,"entities":{"Tag":[{"@id":"Tag/p9","items":["Item/p99"]}]}}"#,
                "Item/p99"
            ),
            (
                #"{"format":"strata-store-export","version":1,"entities":{"Planet":[{"@id":"Planet/p1"}]}}"#,
                "unknown entity 'Planet'"
            ),
            (#"{"entities":{}}"#, "not a strata store export"),
            ("not json", "is not JSON"),
        ]
        for (json, message) in cases {
            let result = try StrataProgram.run(["store", "import", "-", store.path], input: Data(json.utf8))
            #expect(result.status == 1, "\(json)")
            #expect(result.error.hasPrefix("strata: "), "\(result.error)")
            #expect(result.error.contains(message), "\(result.error)")
            #expect(StoreFixtures.bytes(of: store) == before, "\(json) changed the store")
        }
    }

    @Test("export, info, query, check and history never change the store's files")
    func readOnlyCommandsKeepBytes() throws {
        let folder = try StoreFixtures.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (store, _) = try StoreFixtures.makeShopStore(in: folder, history: true)
        let before = StoreFixtures.bytes(of: store)
        for arguments in [
            ["store", "export", store.path], ["store", "info", store.path], ["store", "query", store.path, "Item"],
            ["store", "check", store.path], ["store", "history", store.path],
        ] {
            let result = try StrataProgram.run(arguments)
            #expect(result.status == 0, "\(arguments): \(result.error)")
            #expect(StoreFixtures.bytes(of: store) == before, "\(arguments) changed the store")
        }
    }
}
