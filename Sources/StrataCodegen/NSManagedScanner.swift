/// Finds `@NSManaged` in Swift source text, outside comments and string literals.
///
/// On Linux `@NSManaged` compiles and then fails only when linking, with undefined symbols
/// ending in `vg` and `vs` that name no cause. Strata's plugin runs this over a target's
/// files so that the build stops at the line instead, naming `@Managed`, Strata's
/// replacement.
public enum NSManagedScanner {
    /// A place in the text: 1-based line and column (in characters).
    public struct Finding: Equatable, Sendable {
        public let line: Int
        public let column: Int

        public init(line: Int, column: Int) {
            self.line = line
            self.column = column
        }
    }

    /// The message of a finding, in the compiler's `file:line:column: error:` form.
    public static func message(file: String, _ finding: Finding) -> String {
        "\(file):\(finding.line):\(finding.column): error: @NSManaged needs Objective-C, which Linux does not have; "
            + "write @Managed instead (Strata's macro: the same stored property, with Core Data's accessors)"
    }

    /// Every `@NSManaged` attribute in the source.
    public static func findings(in source: String) -> [Finding] {
        var findings: [Finding] = []
        let characters = Array(source)
        var index = 0
        var line = 1
        var lineStart = 0
        var blockDepth = 0
        func starts(_ text: String, at position: Int) -> Bool {
            let scalars = Array(text)
            guard position + scalars.count <= characters.count else { return false }
            return characters[position..<position + scalars.count].elementsEqual(scalars)
        }
        while index < characters.count {
            let character = characters[index]
            if character == "\n" {
                line += 1
                lineStart = index + 1
                index += 1
            } else if blockDepth > 0 {
                if starts("*/", at: index) {
                    blockDepth -= 1
                    index += 2
                } else if starts("/*", at: index) {
                    blockDepth += 1
                    index += 2
                } else {
                    index += 1
                }
            } else if starts("//", at: index) {
                while index < characters.count, characters[index] != "\n" { index += 1 }
            } else if starts("/*", at: index) {
                blockDepth = 1
                index += 2
            } else if starts("\"\"\"", at: index) {
                index += 3
                while index < characters.count, !starts("\"\"\"", at: index) {
                    if characters[index] == "\n" {
                        line += 1
                        lineStart = index + 1
                    }
                    index += characters[index] == "\\" ? 2 : 1
                }
                index += 3
            } else if character == "\"" {
                index += 1
                while index < characters.count, characters[index] != "\"", characters[index] != "\n" {
                    index += characters[index] == "\\" ? 2 : 1
                }
                index += 1
            } else if starts("@NSManaged", at: index) {
                let end = index + 10
                let next = end < characters.count ? characters[end] : " "
                if !(next.isLetter || next.isNumber || next == "_") {
                    findings.append(Finding(line: line, column: index - lineStart + 1))
                }
                index = end
            } else {
                index += 1
            }
        }
        return findings
    }
}
