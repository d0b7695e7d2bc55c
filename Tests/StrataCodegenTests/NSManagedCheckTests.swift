import Foundation
import StrataCodegen
import Testing

/// `@NSManaged` in a target's sources stops the build at its line, naming `@Managed`, instead of
/// failing when linking with undefined `…vg`/`…vs` symbols.
@Suite("@NSManaged check")
struct NSManagedCheckTests {
    @Test("finds the attribute outside comments and strings, with line and column")
    func scanner() {
        let source = """
            import CoreData
            // @NSManaged in a comment is fine
            /* and in a block: @NSManaged var a: String? */
            let text = "@NSManaged in a string"
            final class Todo: NSManagedObject {
                @NSManaged var title: String?
                @NSManagedOther var notIt: Int
                  @NSManaged public var done: Bool
            }
            """
        #expect(
            NSManagedScanner.findings(in: source) == [
                NSManagedScanner.Finding(line: 6, column: 5), NSManagedScanner.Finding(line: 8, column: 7),
            ])
        #expect(NSManagedScanner.findings(in: "@Managed var title: String?").isEmpty)
    }

    @Test("strata-codegen names fails on @NSManaged and prints a compiler error naming @Managed")
    func commandLine() throws {
        let tool = try #require(BuildProducts.codegenTool, "strata-codegen is not built beside the test runner")
        let directory = try TemporaryDirectory()
        let clean = directory.url.appendingPathComponent("Clean.swift")
        let ported = directory.url.appendingPathComponent("Ported.swift")
        try "final class A: NSManagedObject { @Managed var title: String? }\n".write(to: clean, atomically: true, encoding: .utf8)
        try "final class B: NSManagedObject {\n    @NSManaged var title: String?\n}\n".write(
            to: ported, atomically: true, encoding: .utf8)
        let output = directory.url.appendingPathComponent("StrataNames.swift")

        let passing = try ProcessResult.run(tool, ["names", "--output", output.path, clean.path])
        #expect(passing.status == 0, "\(passing.error)")
        #expect(FileManager.default.fileExists(atPath: output.path))

        try FileManager.default.removeItem(at: output)
        let failing = try ProcessResult.run(tool, ["names", "--output", output.path, clean.path, ported.path])
        #expect(failing.status != 0)
        #expect(failing.error.contains("\(ported.path):2:5: error: @NSManaged"))
        #expect(failing.error.contains("write @Managed instead"))
        #expect(!FileManager.default.fileExists(atPath: output.path))
    }
}
