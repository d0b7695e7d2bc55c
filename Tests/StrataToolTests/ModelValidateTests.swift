import Foundation
import Testing

@Suite("strata model validate")
struct ModelValidateTests {
    @Test("errors and warnings compiler-style, at their lines; exit 1 when there are errors")
    func brokenModel() throws {
        let path = ModelTestFiles.model("Broken.xcdatamodel")
        let result = try StrataProgram.run(["model", "validate", path])
        #expect(result.status == 1)
        // The tool names files as they were given: relative to the current folder when below it.
        let folder = FileManager.default.currentDirectoryPath + "/"
        let contents = (path.hasPrefix(folder) ? String(path.dropFirst(folder.count)) : path) + "/contents"
        let lines = result.output.split(separator: "\n").map(String.init)
        // Lines 4 to 6 of the file: the default value, then the two missing destinations.
        #expect(lines.contains { $0.hasPrefix("\(contents):4: warning: entity Note, property count: the default value \"YES\"") })
        #expect(
            lines.contains(
                "\(contents):5: error: entity Note, property folder: the destination entity \"Folder\" is not in the model"))
        #expect(
            lines.contains(
                "\(contents):6: error: entity Note, property owner: the destination entity \"Person\" is not in the model"))
        #expect(result.error.hasPrefix("2 errors, "))
    }

    @Test("a clean model exits 0 and still reports what Core Data warns about")
    func warningsOnly() throws {
        let path = ModelTestFiles.model("Library.xcdatamodeld")
        let result = try StrataProgram.run(["model", "validate", "--json", path])
        #expect(result.status == 0, "\(result.output)")
        let json = try ModelTestFiles.json(result.output)
        #expect(json["errors"] as? Int == 0)
        let problems = try #require(json["problems"] as? [[String: Any]])
        let noInverse = try #require(problems.first { $0["rule"] as? String == "no-inverse" })
        #expect(noInverse["entity"] as? String == "Item")
        #expect(noInverse["property"] as? String == "shelf")
        #expect(noInverse["line"] as? Int == 20)
        #expect(noInverse["severity"] as? String == "warning")
        #expect((noInverse["file"] as? String)?.hasSuffix("Library 2.xcdatamodel/contents") == true)
        let note = try #require(problems.first { $0["rule"] as? String == "to-many-without-max" })
        #expect(note["property"] as? String == "chapters")
        #expect(problems.count == 2, "\(problems)")
    }

    @Test("--cloudkit: Apple's documented CloudKit rules are errors, the reported ones warnings")
    func cloudKitRules() throws {
        let path = ModelTestFiles.model("Library.xcdatamodeld")
        let result = try StrataProgram.run(["model", "validate", "--cloudkit", "--json", path])
        #expect(result.status == 1)
        let json = try ModelTestFiles.json(result.output)
        let problems = try #require(json["problems"] as? [[String: Any]])
        let found = Set(
            problems.compactMap { problem -> String? in
                guard problem["severity"] as? String == "error" else { return nil }
                return "\(problem["rule"] ?? ""):\(problem["entity"] ?? ""):\(problem["property"] ?? "-")"
            })
        #expect(
            found == [
                "cloudkit-unique:Author:-", "cloudkit-deny:Author:books", "cloudkit-inverse:Item:shelf",
                "cloudkit-optional:Item:shelf", "cloudkit-configuration:Book:chapters",
            ])
        #expect(json["errors"] as? Int == 5)
        let warnings = Set(
            problems.compactMap { problem -> String? in
                guard problem["severity"] as? String == "warning" else { return nil }
                return "\(problem["rule"] ?? ""):\(problem["entity"] ?? ""):\(problem["property"] ?? "-")"
            })
        #expect(
            warnings == [
                "cloudkit-default:Author:authorId", "cloudkit-default:Item:title", "cloudkit-default:Shelf:label",
                "cloudkit-ordered:Book:chapters",
            ])
    }

    @Test("several models at once; a model that cannot be read is an error at its place, not a crash")
    func severalModels() throws {
        let result = try StrataProgram.run([
            "model", "validate", ModelTestFiles.model("Library.xcdatamodeld"), ModelTestFiles.model("Malformed.xcdatamodel"),
        ])
        #expect(result.status == 1)
        #expect(result.output.contains("Malformed.xcdatamodel/contents"))
        #expect(result.output.contains(": error: malformed model XML"))
        #expect(result.output.contains("property shelf: the relationship has no inverse"))
    }

    @Test("bad input: a missing file is one line and exit 1; no model at all is a usage error")
    func badInput() throws {
        let missing = try StrataProgram.run(["model", "validate", "/nonexistent.xcdatamodel"])
        #expect(missing.status == 1)
        #expect(missing.error == "strata: no such file: /nonexistent.xcdatamodel\n")
        let none = try StrataProgram.run(["model", "validate"])
        #expect(none.status == 64)
    }
}
