import Foundation
import Testing

#if canImport(FoundationXML)
    import FoundationXML
#endif

@Suite("strata model diagram")
struct ModelDiagramTests {
    static let library = ModelTestFiles.model("Library.xcdatamodeld")
    static let entities = ["Author", "Book", "Chapter", "Item", "Shelf"]

    @Test("SVG: well-formed XML with a box for every entity, none overlapping, the same bytes every run")
    func svg() throws {
        let result = try StrataProgram.run(["model", "diagram", Self.library, "--format", "svg"])
        #expect(result.status == 0, "\(result.error)")
        let boxes = try SVGBoxes.parse(result.output)
        #expect(boxes.keys.sorted() == Self.entities)
        let rectangles = Array(boxes.values)
        for (index, a) in rectangles.enumerated() {
            for b in rectangles[(index + 1)...] {
                #expect(!a.intersects(b), "\(a) overlaps \(b)")
            }
        }
        for name in ["books", "author", "chapters", "book", "next / previous", "shelf"] {
            #expect(result.output.contains(">\(name)</text>"), "\(name) missing")
        }
        #expect(result.output.contains("url(#inherits)"))
        let again = try StrataProgram.run(["model", "diagram", Self.library, "--format", "svg"])
        #expect(again.output == result.output)
    }

    @Test("Mermaid: an erDiagram naming every entity and relationship, with crow's-foot cardinality")
    func mermaid() throws {
        let result = try StrataProgram.run(["model", "diagram", Self.library, "--format", "mermaid"])
        #expect(result.status == 0, "\(result.error)")
        let text = result.output
        #expect(text.hasPrefix("erDiagram\n"))
        for entity in Self.entities { #expect(text.contains("    \(entity) {")) }
        #expect(text.contains("Author |o--o{ Book : \"books / author\""))
        #expect(text.contains("Book |o--|{ Chapter : \"chapters / book\""))
        #expect(text.contains("Item }o--|| Shelf : \"shelf\""))
        #expect(text.contains("Book }o..|| Item : \"inherits\""))
        try ExternalTool.accept(text, fileExtension: "mmd") { input, output in ["mmdc", "-i", input, "-o", output + ".svg"] }
    }

    @Test("DOT: a digraph naming every entity and relationship, inheritance dashed")
    func dot() throws {
        let output = try ModelTestFiles.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: output) }
        let file = output.appendingPathComponent("library.dot").path
        let result = try StrataProgram.run(["model", "diagram", Self.library, "--format", "dot", "--output", file])
        #expect(result.status == 0, "\(result.error)")
        let text = try String(contentsOfFile: file, encoding: .utf8)
        #expect(text.hasPrefix("digraph \"Library\" {"))
        for entity in Self.entities { #expect(text.contains("    \"\(entity)\" [label=<")) }
        #expect(text.contains("\"Author\" -> \"Book\" [dir=both, arrowhead=crow, arrowtail=tee, label=\"books / author\"];"))
        #expect(text.contains("\"Item\" -> \"Shelf\" [dir=both, arrowhead=tee, arrowtail=none, label=\"shelf\"];"))
        #expect(text.contains("\"Book\" -> \"Item\" [arrowhead=empty, style=dashed];"))
        try ExternalTool.accept(text, fileExtension: "dot") { input, _ in ["dot", "-Tsvg", input] }
    }

    @Test("bad input: an unknown format is a usage error; a missing model one line and exit 1")
    func badInput() throws {
        let format = try StrataProgram.run(["model", "diagram", Self.library, "--format", "png"])
        #expect(format.status == 64)
        #expect(format.error.contains("png"))
        let missing = try StrataProgram.run(["model", "diagram", "/nonexistent.xcdatamodel", "--format", "svg"])
        #expect(missing.status == 1)
        #expect(missing.error == "strata: no such file: /nonexistent.xcdatamodel\n")
    }
}

/// The entity boxes of a diagram the tool drew, read back with an XML parser.
enum SVGBoxes {
    struct Rectangle: CustomStringConvertible {
        var x, y, width, height: Double
        func intersects(_ other: Rectangle) -> Bool {
            x < other.x + other.width && other.x < x + width && y < other.y + other.height && other.y < y + height
        }
        var description: String { "(\(x), \(y), \(width)×\(height))" }
    }

    /// Each `<g class="entity" id="entity-Name">`'s first rectangle, by entity name. Throws when the
    /// text is not well-formed XML or its root is not `<svg>`.
    static func parse(_ text: String) throws -> [String: Rectangle] {
        let delegate = Delegate()
        let parser = XMLParser(data: Data(text.utf8))
        parser.delegate = delegate
        guard parser.parse() else { throw parser.parserError ?? CocoaError(.propertyListReadCorrupt) }
        guard delegate.root == "svg" else { throw CocoaError(.propertyListReadCorrupt) }
        return delegate.boxes
    }

    private final class Delegate: NSObject, XMLParserDelegate {
        var root: String?
        var boxes: [String: Rectangle] = [:]
        private var entity: String?

        func parser(
            _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
            attributes: [String: String] = [:]
        ) {
            if root == nil { root = name }
            if name == "g", attributes["class"] == "entity", let id = attributes["id"] {
                entity = String(id.dropFirst("entity-".count))
            }
            if name == "rect", let entity, boxes[entity] == nil {
                boxes[entity] = Rectangle(
                    x: Double(attributes["x"] ?? "") ?? .nan, y: Double(attributes["y"] ?? "") ?? .nan,
                    width: Double(attributes["width"] ?? "") ?? .nan, height: Double(attributes["height"] ?? "") ?? .nan)
            }
        }

        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
            if name == "g" { entity = nil }
        }
    }
}

/// Graphviz's `dot` and Mermaid's `mmdc`, when installed, check that they accept the text;
/// otherwise the check is skipped with a notice.
enum ExternalTool {
    static func accept(_ text: String, fileExtension: String, arguments: (String, String) -> [String]) throws {
        let folder = try ModelTestFiles.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = folder.appendingPathComponent("diagram.\(fileExtension)").path
        try text.write(toFile: input, atomically: true, encoding: .utf8)
        let command = arguments(input, folder.appendingPathComponent("out").path)
        guard let tool = find(command[0]) else {
            print("NOTICE: \(command[0]) is not installed; its check of the diagram is skipped")
            return
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = Array(command.dropFirst())
        process.standardOutput = FileHandle.nullDevice
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(command[0]) refused the diagram: \(message)")
    }

    private static func find(_ name: String) -> String? {
        let paths = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":")
        return paths.map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }
}
