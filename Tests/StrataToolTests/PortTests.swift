import Foundation
import Testing

@Suite("strata port")
struct PortTests {
    /// A copy of a fixture in a new folder, for `--fix` to rewrite.
    static func copy(_ name: String) throws -> (folder: URL, file: String) {
        let folder = try ModelTestFiles.temporaryFolder()
        let file = folder.appendingPathComponent(name).path
        try FileManager.default.copyItem(atPath: ModelTestFiles.port(name), toPath: file)
        return (folder, file)
    }

    /// The expected output of `--fix` on Notebook.swift: PortFixedNotebook.swift (compiled in this
    /// target against `import CoreData`) without its `#if` line (the second) and `#endif` (the last).
    static func expectedNotebook() throws -> String {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("PortFixedNotebook.swift")
        var lines = try String(contentsOf: url, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines[1].hasPrefix("#if !canImport(Darwin)"))
        #expect(lines.dropLast().last == "#endif")
        lines.remove(at: 1)
        return lines.dropLast(2).joined(separator: "\n") + "\n"
    }

    @Test("lists every spot with file:line:column, rule and replacement, and exits 1")
    func listsSpots() throws {
        let path = ModelTestFiles.port("Notebook.swift")
        let before = try String(contentsOfFile: path, encoding: .utf8)
        let result = try StrataProgram.run(["port", "--json", path])
        #expect(result.status == 1)
        let json = try ModelTestFiles.json(result.output)
        let findings = try #require(json["findings"] as? [[String: Any]])
        let spots = findings.map {
            "\($0["line"] ?? 0):\($0["column"] ?? 0) \($0["rule"] ?? "") -> \($0["replacement"] ?? "nil")"
        }
        #expect(
            spots == [
                "6:1 objc -> (removed)",
                "8:5 nsmanaged -> @Managed",
                "9:5 nsmanaged -> @Managed",
                "10:5 nsmanaged -> @Managed",
                "12:5 required-init -> required",
                "17:1 objc -> (removed)",
                "19:5 nsmanaged -> @Managed",
                "20:5 nsmanaged -> @Managed",
                "28:5 objc -> (removed)",
                "29:5 nsmanaged -> func addToTags(…) { mutableSetValue(forKey: \"tags\").add(value) }",
                "31:5 objc -> (removed)",
                "32:5 nsmanaged -> func addToTags(…) { mutableSetValue(forKey: \"tags\").addObjects(from: values.allObjects) }",
                "40:22 keypath -> \"title\"",
                "41:27 selector -> Selector(\"localizedStandardCompare:\")",
                "46:44 fetch-request-cast -> PortNote.fetchRequest()",
                "50:23 fetch-request-cast -> NSFetchRequest<NSFetchRequestResult>(entityName: \"PortNote\")",
                "56:21 nsset-literal -> NSSet(array: [tag])",
                "57:28 nsset-literal -> NSSet()",
                "62:34 keypath-expression -> \"title\"",
            ], "\(spots.joined(separator: "\n"))")
        #expect(json["remaining"] as? Int == spots.count)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == before, "without --fix the file is not touched")
    }

    @Test("--fix rewrites the mechanical spots and gives exactly the hand-fixed file, which compiles against CoreData")
    func fixesNotebook() throws {
        let (folder, file) = try Self.copy("Notebook.swift")
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = try StrataProgram.run(["port", "--fix", folder.path])
        #expect(result.status == 0, "\(result.output)\(result.error)")
        #expect(try String(contentsOfFile: file, encoding: .utf8) == Self.expectedNotebook())
        #expect(result.output.contains("Notebook.swift:8:5: fixed: @NSManaged needs the Objective-C runtime"))
        #expect(result.error.contains("1 file, 19 spots, 19 fixed, 0 to change by hand"))
        let again = try StrataProgram.run(["port", file])
        #expect(again.status == 0, "a fixed file has nothing left: \(again.output)")
        #expect(again.output.isEmpty)
    }

    @Test("spots without a mechanical fix are listed, the rest fixed (overrides moved into their class), exit status 1")
    func handWork() throws {
        let (folder, file) = try Self.copy("Hooks.swift")
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = try StrataProgram.run(["port", "--fix", "--json", file])
        #expect(result.status == 1)
        let json = try ModelTestFiles.json(result.output)
        let findings = try #require(json["findings"] as? [[String: Any]])
        let spots = findings.map {
            "\($0["line"] ?? 0) \($0["rule"] ?? "") \($0["fixed"] as? Bool == true ? "fixed" : "by hand")"
        }
        #expect(
            spots == [
                "3 unavailable-framework by hand",
                "6 nsmanaged fixed",
                "10 objc fixed",
                "10 override-in-extension fixed",
                "15 override-in-extension fixed",
                "21 unavailable-api by hand",
                "28 kvo by hand",
            ], "\(spots)")
        let message = try #require(findings.first { $0["rule"] as? String == "override-in-extension" }?["message"] as? String)
        #expect(message.contains("move it into the declaration of class PortHookNote"))
        let fixed = try String(contentsOfFile: file, encoding: .utf8)
        // The extension held only overrides: they are in the class now, and it is gone.
        #expect(
            fixed.hasPrefix(
                """
                // swift-format-ignore-file
                import CoreData
                import SwiftUI

                class PortHookNote: NSManagedObject {
                    @Managed var title: String?

                    override func awakeFromInsert() {
                        super.awakeFromInsert()
                        title = "Untitled"
                    }

                    override func validateForInsert() throws {
                        try super.validateForInsert()
                    }
                }

                struct PortNoteList: View {

                """), "\(fixed)")
        #expect(fixed.contains("\"@NSManaged in a string is not code, nor is #keyPath(PortHookNote.title)\""))
    }

    @Test("folders are scanned recursively, .build and hidden folders skipped; a clean file exits 0")
    func folders() throws {
        let folder = try ModelTestFiles.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let nested = folder.appendingPathComponent("Sources/App")
        try FileManager.default.createDirectory(at: nested, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: folder.appendingPathComponent(".build"), withIntermediateDirectories: true)
        let spot = "import CoreData\nclass A: NSManagedObject {\n    @NSManaged var name: String?\n}\n"
        try spot.write(to: nested.appendingPathComponent("A.swift"), atomically: true, encoding: .utf8)
        try spot.write(to: folder.appendingPathComponent(".build/B.swift"), atomically: true, encoding: .utf8)
        try "let clean = 1\n".write(to: folder.appendingPathComponent("Clean.swift"), atomically: true, encoding: .utf8)
        let result = try StrataProgram.run(["port", folder.path])
        #expect(result.status == 1)
        #expect(result.output.hasPrefix("\(folder.path)/Sources/App/A.swift:3:5: error: @NSManaged"))
        #expect(!result.output.contains(".build"))
        #expect(result.error.contains("2 files, 1 spot, 1 fixable with --fix, 0 to change by hand"))
        let clean = try StrataProgram.run(["port", folder.appendingPathComponent("Clean.swift").path])
        #expect(clean.status == 0)
    }

    @Test("--fix moves an override, with its comment, from an extension in one file into its class in another")
    func movesOverrideAcrossFiles() throws {
        let folder = try ModelTestFiles.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let classFile = folder.appendingPathComponent("A.swift").path
        let extensionFile = folder.appendingPathComponent("B.swift").path
        try "import CoreData\n\nclass Todo: NSManagedObject {}\n".write(toFile: classFile, atomically: true, encoding: .utf8)
        try """
        import CoreData

        extension Todo {
            /// A new to-do starts open.
            override func awakeFromInsert() {
                super.awakeFromInsert()
            }

            func rename() {}
        }

        """.write(toFile: extensionFile, atomically: true, encoding: .utf8)
        let listed = try StrataProgram.run(["port", folder.path])
        #expect(listed.status == 1)
        #expect(listed.output.contains("B.swift:5:5: error: `override func awakeFromInsert()` in an extension of Todo"))
        #expect(listed.output.contains("replace with: moved into class Todo in \(classFile)"), "\(listed.output)")
        let result = try StrataProgram.run(["port", "--fix", folder.path])
        #expect(result.status == 0, "\(result.output)\(result.error)")
        #expect(
            try String(contentsOfFile: classFile, encoding: .utf8)
                == """
                import CoreData

                class Todo: NSManagedObject {
                    /// A new to-do starts open.
                    override func awakeFromInsert() {
                        super.awakeFromInsert()
                    }
                }

                """)
        #expect(
            try String(contentsOfFile: extensionFile, encoding: .utf8)
                == """
                import CoreData

                extension Todo {
                    func rename() {}
                }

                """)
        let again = try StrataProgram.run(["port", folder.path])
        #expect(again.status == 0, "\(again.output)")
    }

    @Test("an override in an extension of a class Xcode generates says to declare the class")
    func generatedClassOverride() throws {
        let folder = try ModelTestFiles.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("Todo+Hooks.swift").path
        try "import CoreData\n\nextension Todo {\n    override func willSave() {\n        super.willSave()\n    }\n}\n"
            .write(toFile: file, atomically: true, encoding: .utf8)
        let result = try StrataProgram.run(["port", "--json", file])
        #expect(result.status == 1)
        let findings = try #require(try ModelTestFiles.json(result.output)["findings"] as? [[String: Any]])
        #expect(findings.count == 1)
        #expect(findings.first?["rule"] as? String == "override-in-extension")
        #expect(findings.first?["line"] as? Int == 4)
        let message = try #require(findings.first?["message"] as? String)
        #expect(message.contains("`override func willSave()` in an extension of Todo"))
        #expect(message.contains("set the entity's codegen to Category/Extension, declare `class Todo: NSManagedObject`"))
    }

    @Test("a name declared NSSet in one file and Set<Tag> in another is judged by each file's own declaration")
    func swiftSetProperty() throws {
        let folder = try ModelTestFiles.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try "class Note: NSManagedObject {\n    @NSManaged var tags: NSSet?\n}\nfunc f(n: Note, t: Tag) {\n    n.tags = [t]\n}\n"
            .write(to: folder.appendingPathComponent("A.swift"), atomically: true, encoding: .utf8)
        try
            "class Todo: NSManagedObject {\n    @Managed var tags: Set<Tag>\n}\nfunc g(t: Todo, tag: Tag) {\n    t.tags = [tag]\n}\n"
            .write(to: folder.appendingPathComponent("B.swift"), atomically: true, encoding: .utf8)
        let result = try StrataProgram.run(["port", "--json", folder.path])
        let findings = try #require(try ModelTestFiles.json(result.output)["findings"] as? [[String: Any]])
        let spots = findings.map {
            "\(URL(fileURLWithPath: $0["file"] as? String ?? "").lastPathComponent):\($0["line"] ?? 0) \($0["rule"] ?? "")"
        }
        #expect(spots == ["A.swift:2 nsmanaged", "A.swift:5 nsset-literal"])
    }

    @Test("--model names the to-many relationships; ordered ones become NSOrderedSet")
    func modelRelationships() throws {
        let folder = try ModelTestFiles.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("Use.swift").path
        try
            "func f(book: Book, c: Chapter, a: Author) {\n    book.chapters = [c]\n    a.books = []\n    a.name = [\"x\"].joined()\n}\n"
            .write(toFile: file, atomically: true, encoding: .utf8)
        let result = try StrataProgram.run([
            "port", "--fix", "--model", ModelTestFiles.model("Library.xcdatamodeld"), file,
        ])
        #expect(result.status == 0, "\(result.output)")
        #expect(
            try String(contentsOfFile: file, encoding: .utf8)
                == "func f(book: Book, c: Chapter, a: Author) {\n    book.chapters = NSOrderedSet(array: [c])\n    a.books = NSSet()\n"
                + "    a.name = [\"x\"].joined()\n}\n")
    }

    @Test("--fix gives an ordered relationship's accessors bodies that change it through orderedToManyEditor")
    func orderedAccessorBodies() throws {
        let folder = try ModelTestFiles.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("Book+CoreDataProperties.swift").path
        try """
        extension Book {
            @NSManaged public func insertIntoChapters(_ value: Chapter, at idx: Int)
            @NSManaged public func replaceChapters(at idx: Int, with value: Chapter)
            @NSManaged public func addToChapters(_ values: NSOrderedSet)
        }

        """.write(toFile: file, atomically: true, encoding: .utf8)
        let result = try StrataProgram.run([
            "port", "--fix", "--model", ModelTestFiles.model("Library.xcdatamodeld"), file,
        ])
        #expect(result.status == 0, "\(result.output)")
        let fixed = try String(contentsOfFile: file, encoding: .utf8)
        #expect(
            fixed == """
                extension Book {
                    public func insertIntoChapters(_ value: Chapter, at idx: Int) {
                        orderedToManyEditor(forKey: "chapters").insert(value, at: idx)
                    }
                    public func replaceChapters(at idx: Int, with value: Chapter) {
                        orderedToManyEditor(forKey: "chapters").replaceObject(at: idx, with: value)
                    }
                    public func addToChapters(_ values: NSOrderedSet) {
                        let objects = orderedToManyEditor(forKey: "chapters")
                        for value in values.array {
                            objects.add(value)
                        }
                    }
                }

                """, "\(fixed)")
    }

    @Test("bad input: a missing path or a file that is not Swift is one line and exit 1; no path is a usage error")
    func badInput() throws {
        let missing = try StrataProgram.run(["port", "/nonexistent/App"])
        #expect(missing.status == 1)
        #expect(missing.error == "strata: no such file or folder: /nonexistent/App\n")
        let notSwift = try StrataProgram.run(["port", ModelTestFiles.model("Broken.xcdatamodel/contents")])
        #expect(notSwift.status == 1)
        #expect(notSwift.error.hasPrefix("strata: not a Swift file: "))
        let none = try StrataProgram.run(["port"])
        #expect(none.status == 64)
    }
}
