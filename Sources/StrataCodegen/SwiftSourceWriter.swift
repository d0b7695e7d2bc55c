/// Swift source text built line by line, indented by four spaces per level.
struct SwiftSourceWriter {
    private(set) var text = ""
    private var indentation = 0

    /// Appends a line at the current indentation.
    mutating func line(_ content: String) {
        text += String(repeating: "    ", count: indentation) + content + "\n"
    }

    /// Appends an empty line.
    mutating func blankLine() {
        text += "\n"
    }

    /// Appends `header {`, the body one level deeper, and `}`.
    mutating func block(_ header: String, _ body: (inout SwiftSourceWriter) -> Void) {
        line(header + " {")
        indentation += 1
        body(&self)
        indentation -= 1
        line("}")
    }
}
