import Foundation
import Testing

/// Every bad input to `strata store …` is one line on standard error naming what is wrong,
/// with exit 1 (or 64 for a usage error), and `strata store migrate` moves a store to a
/// new model version.
@Suite("strata store errors and migrate")
struct StoreErrorTests {
    @Test("a missing store, a file that is not SQLite, a SQLite file that is not a Core Data store")
    func badStores() throws {
        let folder = try StoreFixtures.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let missing = try StrataProgram.run(["store", "info", folder.appendingPathComponent("none.sqlite").path])
        #expect(missing.status == 1)
        #expect(missing.error == "strata: no store at \(folder.appendingPathComponent("none.sqlite").path)\n")
        let text = folder.appendingPathComponent("notes.txt")
        try Data("hello, this is not a database at all".utf8).write(to: text)
        let notSQLite = try StrataProgram.run(["store", "query", text.path, "Item"])
        #expect(notSQLite.status == 1)
        #expect(notSQLite.error == "strata: \(text.path) is not a SQLite file\n")
        let plain = folder.appendingPathComponent("plain.sqlite")
        try StoreFixtures.execute("CREATE TABLE people (name TEXT)", in: plain)
        let notCoreData = try StrataProgram.run(["store", "export", plain.path])
        #expect(notCoreData.status == 1)
        #expect(notCoreData.error.hasPrefix("strata: \(plain.path) is not a Core Data store"), "\(notCoreData.error)")
        #expect(notCoreData.error.split(separator: "\n").count == 1)
        let check = try StrataProgram.run(["store", "check", plain.path])
        #expect(check.status == 1)
        #expect(check.error.contains("is not a Core Data store"))
    }

    @Test("a model that does not match the store names the entities that differ")
    func modelMismatch() throws {
        let folder = try StoreFixtures.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (store, _) = try StoreFixtures.makeShopStore(in: folder)
        let other = try StoreFixtures.writeShopModel(
            in: folder, name: "Shop2", extraAttribute: #"<attribute name="weight" optional="YES" attributeType="Double"/>"#)
        let result = try StrataProgram.run(["store", "info", store.path, "--model", other.path])
        #expect(result.status == 1)
        #expect(result.error.hasPrefix("strata: the model \(other.path) does not match the store"), "\(result.error)")
        #expect(result.error.contains("Gadget, Item"), "\(result.error)")
        let badModel = try StrataProgram.run([
            "store", "info", store.path, "--model", folder.appendingPathComponent("nope.xcdatamodel").path,
        ])
        #expect(badModel.status == 1)
        #expect(badModel.error.contains("no model at"))
    }

    @Test("usage errors exit with 64")
    func usage() throws {
        #expect(try StrataProgram.run(["store", "info"]).status == 64)
        #expect(try StrataProgram.run(["store", "query", "x.sqlite"]).status == 64)
        #expect(try StrataProgram.run(["store", "history", "x.sqlite", "--limit", "-1"]).status == 64)
        #expect(try StrataProgram.run(["store", "migrate", "x.sqlite"]).status == 64)
    }

    @Test("every store subcommand has help with examples")
    func help() throws {
        for command in ["info", "query", "export", "import", "migrate", "check", "history"] {
            let result = try StrataProgram.run(["store", command, "--help"])
            #expect(result.status == 0)
            #expect(result.output.contains("Examples:"), "\(command)")
            #expect(result.output.contains("strata store \(command)"), "\(command)")
        }
    }

    @Test("migrate adds an attribute (lightweight), to a new file or in place; the data stays")
    func migrate() throws {
        let folder = try StoreFixtures.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (store, _) = try StoreFixtures.makeShopStore(in: folder)
        let before = StoreFixtures.bytes(of: store)
        let v2 = try StoreFixtures.writeShopModel(
            in: folder, name: "Shop2", extraAttribute: #"<attribute name="weight" optional="YES" attributeType="Double"/>"#)
        let output = folder.appendingPathComponent("Migrated.sqlite")
        let copied = try StrataProgram.run(["store", "migrate", store.path, "--to", v2.path, "--output", output.path])
        #expect(copied.status == 0, "\(copied.error)")
        #expect(StoreFixtures.bytes(of: store) == before, "--output changed the source store")
        let counted = try StrataProgram.run(["store", "query", output.path, "Item", "--count", "--model", v2.path])
        #expect(counted.output == "5\n", "\(counted.error)")
        let weight = try StrataProgram.run(["store", "query", output.path, "Item", "--keys", "weight", "--limit", "1", "--json"])
        #expect(weight.status == 0, "\(weight.error)")
        let badMapping = try StrataProgram.run([
            "store", "migrate", store.path, "--to", v2.path, "--mapping", "none.xcmappingmodel",
        ])
        #expect(badMapping.status == 1)
        #expect(badMapping.error == "strata: no mapping model at none.xcmappingmodel\n")
        #expect(StoreFixtures.bytes(of: store) == before)
        let inPlace = try StrataProgram.run(["store", "migrate", store.path, "--to", v2.path, "--json"])
        #expect(
            inPlace.output
                == "{\"migrated\":true,\"store\":\(JSONQuote.quote(store.path)),\"model\":\(JSONQuote.quote(v2.path))}\n")
        let again = try StrataProgram.run(["store", "migrate", store.path, "--to", v2.path])
        #expect(again.status == 0)
        #expect(again.output.contains("nothing to do"))
        let export = try StrataProgram.run(["store", "export", store.path])
        #expect(export.output.contains("\"name\":\"item 3, \\\"quoted\\\"\""))
    }
}

/// JSON string literals as the tool writes them (paths here have no characters to escape).
enum JSONQuote {
    static func quote(_ text: String) -> String { "\"" + text + "\"" }
}
