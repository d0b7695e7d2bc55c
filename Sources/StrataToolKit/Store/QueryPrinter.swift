import Foundation
import Strata

/// Prints fetched objects as a table (columns as wide as their widest value, capped), CSV
/// (RFC 4180 quoting) or JSON (an array of objects with their ids).
struct QueryPrinter {
    let keyPaths: [QueryKeyPath]
    let labels: QueryLabels
    let output: OutputStream
    /// The widest a table column gets; longer values are cut with an ellipsis.
    var maximumWidth = 40

    /// The cells of one object: each key path's values as text, lists joined by ", ".
    private func cells(_ object: NSManagedObject) -> [String] {
        keyPaths.map { path in
            path.values(from: object).map(display).joined(separator: ", ")
        }
    }

    private func display(_ value: Any) -> String {
        if let object = value as? NSManagedObject { return labels.label(object) }
        return QueryValues.text(value)
    }

    func table<Objects: Collection>(_ objects: Objects) where Objects.Element == NSManagedObject {
        // A table needs every row's width before the first line: the cells are kept as text.
        let rows = objects.map { cells($0).map { clip($0) } }
        var widths = keyPaths.map(\.text.count)
        for row in rows {
            for (index, cell) in row.enumerated() { widths[index] = max(widths[index], cell.count) }
        }
        func line(_ cells: [String]) -> String {
            zip(cells, widths).map { $0.padding(toLength: $1, withPad: " ", startingAt: 0) }.joined(separator: "  ")
                .replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression)
        }
        output.write(line(keyPaths.map(\.text)) + "\n")
        output.write(widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ") + "\n")
        for row in rows { output.write(line(row) + "\n") }
        output.write("(\(rows.count) \(rows.count == 1 ? "object" : "objects"))\n")
    }

    private func clip(_ text: String) -> String {
        let flat = text.replacingOccurrences(of: "\n", with: " ")
        return flat.count <= maximumWidth ? flat : String(flat.prefix(maximumWidth - 1)) + "…"
    }

    func csv<Objects: Collection>(_ objects: Objects) where Objects.Element == NSManagedObject {
        output.write(keyPaths.map { quote($0.text) }.joined(separator: ",") + "\r\n")
        for object in objects {
            output.write(cells(object).map(quote).joined(separator: ",") + "\r\n")
        }
    }

    private func quote(_ field: String) -> String {
        guard field.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return field }
        return "\"" + field.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    func json<Objects: Collection>(_ objects: Objects) where Objects.Element == NSManagedObject {
        output.write("[")
        var first = true
        for object in objects {
            output.write(first ? "\n" : ",\n")
            first = false
            var fields = ["\"@id\":" + JSONText.string(object.objectID.toolIdentifier)]
            for path in keyPaths {
                let values = path.values(from: object).map { value -> String in
                    if let related = value as? NSManagedObject { return JSONText.string(labels.label(related)) }
                    return QueryValues.json(value)
                }
                let text: String
                if path.isList(from: object.entity) {
                    text = "[" + values.joined(separator: ",") + "]"
                } else {
                    text = values.first ?? "null"
                }
                fields.append(JSONText.string(path.text) + ":" + text)
            }
            output.write("{" + fields.joined(separator: ",") + "}")
        }
        output.write(first ? "]\n" : "\n]\n")
    }
}
