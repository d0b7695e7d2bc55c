import Foundation
import Testing

/// `strata store query`: predicates, sort, limit, key paths through relationships, the three
/// formats, `--count`, and errors that point at what is wrong.
@Suite("strata store query")
struct StoreQueryTests {
    /// Runs `strata store query <shop store> <arguments…>` on a fresh shop store.
    private func query(_ arguments: [String]) throws -> StrataProgram.Result {
        let folder = try StoreFixtures.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (store, _) = try StoreFixtures.makeShopStore(in: folder)
        return try StrataProgram.run(["store", "query", store.path] + arguments)
    }

    private func jsonRows(_ result: StrataProgram.Result) throws -> [[String: Any]] {
        try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [[String: Any]], "\(result.output)")
    }

    @Test("a predicate with CONTAINS[cd], a descending sort and a limit")
    func predicateSortLimit() throws {
        let result = try query([
            "Item", "--predicate", #"name CONTAINS[cd] "ITEM" AND count > 0"#, "--sort", "-count", "--limit", "2",
            "--keys", "name,count", "--format", "json",
        ])
        #expect(result.status == 0, "\(result.error)")
        let rows = try jsonRows(result)
        #expect(rows.map { ($0["count"] as? NSNumber)?.intValue } == [25, 18])
        #expect(rows.first?["name"] as? String == "item 4, \"quoted\"")
    }

    @Test("key paths through to-one and to-many relationships; relationships shown by their first string attribute")
    func keyPaths() throws {
        let result = try query(["Item", "--keys", "name,box.label,tags.title,tags", "--sort", "name", "--json"])
        #expect(result.status == 0, "\(result.error)")
        let rows = try jsonRows(result)
        #expect(rows.count == 5)
        #expect(rows.first?["box.label"] as? String == "Box A")
        #expect(rows.first?["tags.title"] as? [String] == ["home"])
        #expect(rows.last?["tags"] as? [String] == ["home", "work"])
        #expect(rows[1]["box.label"] is NSNull)
        let labelled = try query(["Box", "--keys", "items", "--label-key", "count", "--json"])
        #expect(try jsonRows(labelled).first?["items"] as? [String] == ["25", "11", "-3"])
    }

    @Test("a table with a header, a rule and a count; CSV quoting")
    func tableAndCSV() throws {
        let table = try query(["Tag", "--keys", "title", "--sort", "title"])
        #expect(table.status == 0)
        #expect(table.output == "title\n------\ngarden\nhome\nwork\n(3 objects)\n")
        let csv = try query(["Item", "--keys", "name,count", "--sort", "count", "--limit", "1", "--format", "csv"])
        #expect(csv.output == "name,count\r\n\"item 0, \"\"quoted\"\"\",-3\r\n")
    }

    @Test("--count counts through the store, with the predicate; subentities included")
    func count() throws {
        #expect(try query(["Item", "--count"]).output == "5\n")
        #expect(try query(["Gadget", "--count"]).output == "1\n")
        #expect(try query(["Item", "--count", "--predicate", "flag == YES", "--json"]).output == "{\"count\":3}\n")
    }

    @Test("a bad predicate names the column, with a caret under it")
    func badPredicate() throws {
        let result = try query(["Item", "--predicate", "name == 'x' AND AND count > 1"])
        #expect(result.status == 1)
        let lines = result.error.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("strata: predicate: ") == true, "\(result.error)")
        #expect(lines.first?.hasSuffix("at column 17") == true, "\(result.error)")
        #expect(lines.count == 3)
        #expect(lines.last == "  " + String(repeating: " ", count: 16) + "^")
    }

    @Test("an unknown entity or key is named")
    func unknownNames() throws {
        let entity = try query(["Planet"])
        #expect(entity.status == 1)
        #expect(entity.error.hasPrefix("strata: unknown entity 'Planet'"), "\(entity.error)")
        let key = try query(["Item", "--keys", "name,tags.colour"])
        #expect(key.status == 1)
        #expect(key.error == "strata: unknown key 'tags.colour': Tag has no property 'colour'\n")
        let sort = try query(["Item", "--sort", "-weight"])
        #expect(sort.status == 1)
        #expect(sort.error.contains("unknown key 'weight'"))
        let usage = try query(["Item", "--format", "xml"])
        #expect(usage.status == 64)
    }
}
