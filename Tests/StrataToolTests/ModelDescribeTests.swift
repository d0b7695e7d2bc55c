import Foundation
import Strata
import Testing

@Suite("strata model describe")
struct ModelDescribeTests {
    @Test("text shows the current version's entities, properties, inheritance, indexes and constraints")
    func describesCurrentVersion() throws {
        let result = try StrataProgram.run(["model", "describe", ModelTestFiles.model("Library.xcdatamodeld")])
        #expect(result.status == 0, "\(result.error)")
        let text = result.output
        #expect(text.contains("version Library 2"))
        #expect(text.contains("versions: Library, Library 2"))
        #expect(text.contains("version identifiers: 2.0"))
        #expect(text.contains("entity Item  abstract  class Item"))
        #expect(text.contains("entity Book  parent Item  class Book"))
        #expect(text.contains("byTitle  (title)"))
        #expect(text.contains("(authorId)"))
        #expect(text.contains("configuration Cloud: Author, Book"))
        #expect(
            text.range(
                of: #"chapters +-> Chapter +to-many ordered +optional +inverse book +delete Cascade +min 1 max -"#,
                options: .regularExpression) != nil)
        #expect(text.range(of: #"portrait +Binary +optional +external storage"#, options: .regularExpression) != nil)
        #expect(text.range(of: #"pageCount +Integer 16 +optional +transient"#, options: .regularExpression) != nil)
        #expect(text.range(of: #"name +String +required +default "Anonymous""#, options: .regularExpression) != nil)
        #expect(
            text.range(of: #"recentBooks +-> Book +where author == \$FETCH_SOURCE AND year > 2000"#, options: .regularExpression)
                != nil)
        #expect(
            text.range(of: #"shelf +-> Shelf +to-one +required +no inverse +delete Nullify"#, options: .regularExpression) != nil)
    }

    @Test("JSON holds the version hashes Strata computes, in base64")
    func jsonVersionHashes() throws {
        let path = ModelTestFiles.model("Library.xcdatamodeld")
        let result = try StrataProgram.run(["model", "describe", "--json", path])
        #expect(result.status == 0, "\(result.error)")
        let json = try ModelTestFiles.json(result.output)
        let model = try NSManagedObjectModel.load(contentsOf: URL(fileURLWithPath: path))
        let entities = try #require(json["entities"] as? [[String: Any]])
        #expect(entities.compactMap { $0["name"] as? String } == ["Author", "Book", "Chapter", "Item", "Shelf"])
        for entity in entities {
            let name = try #require(entity["name"] as? String)
            #expect(entity["versionHash"] as? String == model.entityVersionHashesByName[name]?.base64EncodedString())
        }
        #expect(json["versionIdentifiers"] as? [String] == ["2.0"])
        #expect(json["versionChecksum"] as? String == model.versionChecksum)
        let book = try #require(entities.first { $0["name"] as? String == "Book" })
        #expect(book["parent"] as? String == "Item")
        let chapters = try #require((book["relationships"] as? [[String: Any]])?.first { $0["name"] as? String == "chapters" })
        #expect(chapters["isToMany"] as? Bool == true)
        #expect(chapters["isOrdered"] as? Bool == true)
        #expect(chapters["inverse"] as? String == "book")
        #expect(chapters["minCount"] as? Int == 1)
    }

    @Test("--version reads another version of the bundle")
    func otherVersion() throws {
        let result = try StrataProgram.run(
            ["model", "describe", "--json", "--version", "Library", ModelTestFiles.model("Library.xcdatamodeld")])
        #expect(result.status == 0, "\(result.error)")
        let json = try ModelTestFiles.json(result.output)
        #expect(json["version"] as? String == "Library")
        #expect((json["entities"] as? [[String: Any]])?.compactMap { $0["name"] as? String } == ["Author", "Book"])
        #expect(json["versionIdentifiers"] as? [String] == ["1.0"])
    }

    @Test("a compiled .momd (the plugin's) describes as its source bundle, its versions included")
    func compiledModel() throws {
        let folder = try ModelTestFiles.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = ModelTestFiles.model("Library.xcdatamodeld")
        let momd = folder.appendingPathComponent("Library.momd")
        let codegen = try #require(ModelGenerateTests.codegen)
        let process = try Process.run(codegen, arguments: ["compile-model", source, "--output", momd.path])
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        for version in [nil, "Library"] as [String?] {
            let options: [String] = version.map { ["--version", $0] } ?? []
            let compiled = try StrataProgram.run(["model", "describe", "--json", momd.path] + options)
            let original = try StrataProgram.run(["model", "describe", "--json", source] + options)
            #expect(compiled.status == 0, "\(compiled.error)")
            let compiledJSON = try ModelTestFiles.json(compiled.output)
            let originalJSON = try ModelTestFiles.json(original.output)
            #expect(compiledJSON["kind"] as? String == "momd")
            #expect(compiledJSON["versions"] as? [String] == ["Library", "Library 2"])
            #expect(
                (compiledJSON["entities"] as? [[String: Any]])?.compactMap { $0["versionHash"] as? String }
                    == (originalJSON["entities"] as? [[String: Any]])?.compactMap { $0["versionHash"] as? String })
            #expect(compiledJSON["versionChecksum"] as? String == originalJSON["versionChecksum"] as? String)
        }
    }

    @Test("a store's cached model is described from a copy: the store is left byte for byte as it was")
    func storeCachedModel() throws {
        let folder = try ModelTestFiles.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = folder.appendingPathComponent("Library.sqlite")
        let model = try NSManagedObjectModel.load(contentsOf: URL(fileURLWithPath: ModelTestFiles.model("Library.xcdatamodeld")))
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        let added = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: store, options: nil)
        try coordinator.remove(added)
        let before = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        let bytes = try Data(contentsOf: store)
        let result = try StrataProgram.run(["model", "describe", "--json", store.path])
        #expect(result.status == 0, "\(result.error)")
        let json = try ModelTestFiles.json(result.output)
        #expect(json["kind"] as? String == "store")
        let entities = try #require(json["entities"] as? [[String: Any]])
        #expect(entities.compactMap { $0["name"] as? String } == ["Author", "Book", "Chapter", "Item", "Shelf"])
        for entity in entities {
            let name = try #require(entity["name"] as? String)
            #expect(entity["versionHash"] as? String == model.entityVersionHashesByName[name]?.base64EncodedString())
        }
        #expect(try Data(contentsOf: store) == bytes)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == before)
    }

    @Test("bad input: a missing file, a file that is no model, an unknown version, --version on a lone version")
    func badInput() throws {
        let missing = try StrataProgram.run(["model", "describe", "/nonexistent/Model.xcdatamodeld"])
        #expect(missing.status == 1)
        #expect(missing.error == "strata: no such file: /nonexistent/Model.xcdatamodeld\n")

        let notAModel = try StrataProgram.run(["model", "describe", ModelTestFiles.port("Hooks.swift")])
        #expect(notAModel.status == 1)
        #expect(notAModel.error.hasPrefix("strata: "))
        #expect(notAModel.error.filter { $0 == "\n" }.count == 1, "one line: \(notAModel.error)")

        let malformed = try StrataProgram.run(["model", "describe", ModelTestFiles.model("Malformed.xcdatamodel")])
        #expect(malformed.status == 1)
        #expect(malformed.error.contains("Malformed.xcdatamodel/contents:"))
        #expect(malformed.error.filter { $0 == "\n" }.count == 1, "one line: \(malformed.error)")

        let broken = try StrataProgram.run(["model", "describe", ModelTestFiles.model("Broken.xcdatamodel")])
        #expect(broken.status == 1)
        #expect(broken.error.contains("is not a valid model"))

        let version = try StrataProgram.run([
            "model", "describe", "--version", "Nope", ModelTestFiles.model("Library.xcdatamodeld"),
        ])
        #expect(version.status == 1)
        #expect(version.error.contains("has no version \"Nope\" (versions: Library, Library 2)"))

        let lone = try StrataProgram.run(["model", "describe", "--version", "X", ModelTestFiles.model("Broken.xcdatamodel")])
        #expect(lone.status == 64)
    }
}
