import Foundation
import Strata
import Testing

/// The tool on every model and store of the shared corpus of real apps' files
/// (`../shared/testdata/coredata`), skipped with a notice where it is absent. The corpus is
/// only read: the tool reads stores from copies, and these tests check no file there changes.
@Suite("strata model on the corpus")
struct ModelCorpusTests {
    @Test(
        "describe, validate and diagram succeed on every corpus model and name every entity",
        arguments: ModelTestFiles.corpusModels)
    func model(path: String) throws {
        let entities = try ModelTestFiles.entityNames(path)
        let describe = try StrataProgram.run(["model", "describe", "--json", path])
        #expect(describe.status == 0, "\(describe.error)")
        let json = try ModelTestFiles.json(describe.output)
        #expect((json["entities"] as? [[String: Any]])?.compactMap { $0["name"] as? String } == entities)

        let validate = try StrataProgram.run(["model", "validate", path])
        #expect(validate.status == 0, "\(validate.output)")
        #expect(!validate.output.contains(": error: "))

        let svg = try StrataProgram.run(["model", "diagram", path, "--format", "svg"])
        #expect(svg.status == 0, "\(svg.error)")
        #expect(try SVGBoxes.parse(svg.output).keys.sorted() == entities)
        for format in ["mermaid", "dot"] {
            let diagram = try StrataProgram.run(["model", "diagram", path, "--format", format])
            #expect(diagram.status == 0, "\(diagram.error)")
            for entity in entities { #expect(diagram.output.contains(entity), "\(format): \(entity) missing") }
        }
    }

    @Test(
        "every corpus store's cached model is described and drawn, and the store is left as it was",
        arguments: ModelTestFiles.corpusStores)
    func store(path: String) throws {
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent()
        let before = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        // The expected entities come from a copy, as the corpus is never opened in place.
        let copyFolder = try ModelTestFiles.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: copyFolder) }
        let copy = copyFolder.appendingPathComponent(URL(fileURLWithPath: path).lastPathComponent)
        try FileManager.default.copyItem(atPath: path, toPath: copy.path)
        let describe = try StrataProgram.run(["model", "describe", "--json", path])
        guard let model = try? NSManagedObjectModel.cachedModel(ofStoreAt: copy) else {
            // A store without a cached model: the tool says so in one line.
            #expect(describe.status == 1)
            #expect(describe.error.hasPrefix("strata: ") && describe.error.filter { $0 == "\n" }.count == 1)
            return
        }
        let entities = model.entities.compactMap(\.name).sorted()

        #expect(describe.status == 0, "\(describe.error)")
        let json = try ModelTestFiles.json(describe.output)
        let described = try #require(json["entities"] as? [[String: Any]])
        #expect(described.compactMap { $0["name"] as? String } == entities)
        for entity in described {
            let name = try #require(entity["name"] as? String)
            #expect(entity["versionHash"] as? String == model.entityVersionHashesByName[name]?.base64EncodedString())
        }
        let svg = try StrataProgram.run(["model", "diagram", path, "--format", "svg"])
        #expect(svg.status == 0, "\(svg.error)")
        #expect(try SVGBoxes.parse(svg.output).keys.sorted() == entities)

        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == bytes)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == before)
    }
}
