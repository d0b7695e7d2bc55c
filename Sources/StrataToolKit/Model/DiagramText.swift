import Foundation

/// The text diagrams of `strata model diagram`: Mermaid's `erDiagram` and Graphviz DOT.
enum DiagramText {
    /// A Mermaid entity-relationship diagram. Cardinality uses crow's-foot ends (`o{` zero
    /// or more, `|{` one or more, `o|` zero or one, `||` exactly one); inheritance, which
    /// `erDiagram` has no notation for, is a dotted line labelled "inherits".
    static func mermaid(_ graph: ModelGraph) -> String {
        var lines = ["erDiagram"]
        for entity in graph.entities {
            lines.append("    \(mermaidName(entity.name)) {")
            for attribute in entity.attributes {
                let type = attribute.type.replacingOccurrences(of: " ", with: "").replacingOccurrences(of: "?", with: "")
                let comment = attribute.type.hasSuffix("?") ? " \"optional\"" : ""
                lines.append("        \(type) \(mermaidName(attribute.name))\(comment)")
            }
            lines.append("    }")
        }
        for link in graph.links {
            let left =
                link.backward.map { end in end.isToMany ? (end.isOptional ? "}o" : "}|") : (end.isOptional ? "|o" : "||") }
                ?? "}o"
            let right = link.forward.isToMany ? (link.forward.isOptional ? "o{" : "|{") : (link.forward.isOptional ? "o|" : "||")
            lines.append("    \(mermaidName(link.from)) \(left)--\(right) \(mermaidName(link.to)) : \"\(link.label)\"")
        }
        for entity in graph.entities {
            guard let parent = entity.parent else { continue }
            lines.append("    \(mermaidName(entity.name)) }o..|| \(mermaidName(parent)) : \"inherits\"")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// A Graphviz digraph: entities as HTML-like table nodes, relationships with crow's-foot
    /// (`crow`) and bar (`tee`) ends, inheritance as a dashed line with a hollow arrow.
    static func dot(_ graph: ModelGraph) -> String {
        var lines = [
            "digraph \(dotQuoted(graph.name)) {",
            "    graph [rankdir=LR, nodesep=0.6, ranksep=1.2];",
            "    node [shape=plaintext, fontname=\"Helvetica\", fontsize=11];",
            "    edge [fontname=\"Helvetica\", fontsize=10];",
        ]
        for entity in graph.entities {
            var rows = [
                "<tr><td bgcolor=\"#dde6f3\"><b>\(html(entity.name))</b>\(entity.isAbstract ? " <i>(abstract)</i>" : "")</td></tr>"
            ]
            rows += entity.attributes.map { "<tr><td align=\"left\">\(html($0.name)): \(html($0.type))</td></tr>" }
            lines.append(
                "    \(dotQuoted(entity.name)) [label=<<table border=\"1\" cellborder=\"0\" cellspacing=\"0\" cellpadding=\"4\">"
                    + rows.joined() + "</table>>];")
        }
        for link in graph.links {
            let head = link.forward.isToMany ? "crow" : "tee"
            let tail = link.backward.map { $0.isToMany ? "crow" : "tee" } ?? "none"
            lines.append(
                "    \(dotQuoted(link.from)) -> \(dotQuoted(link.to)) [dir=both, arrowhead=\(head), arrowtail=\(tail), "
                    + "label=\(dotQuoted(link.label))];")
        }
        for entity in graph.entities {
            guard let parent = entity.parent else { continue }
            lines.append("    \(dotQuoted(entity.name)) -> \(dotQuoted(parent)) [arrowhead=empty, style=dashed];")
        }
        lines.append("}")
        return lines.joined(separator: "\n") + "\n"
    }

    /// Mermaid takes names of letters, digits, `_` and `-`; anything else becomes `_`.
    private static func mermaidName(_ name: String) -> String {
        let mapped = name.map { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" ? String($0) : "_" }.joined()
        return mapped.isEmpty ? "_" : mapped
    }

    /// A DOT string literal.
    private static func dotQuoted(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }

    /// Text escaped for XML (Graphviz's HTML-like labels, SVG).
    static func html(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
