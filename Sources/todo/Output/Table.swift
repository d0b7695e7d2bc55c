/// Text in aligned columns, for people: a header row and rows padded to each column's
/// widest cell, the last column left ragged.
struct Table {
    let headers: [String]
    var rows: [[String]] = []

    init(_ headers: String...) {
        self.headers = headers
    }

    mutating func append(_ row: String...) {
        rows.append(row)
    }

    var text: String {
        Self.aligned([headers] + rows)
    }

    /// The rows with their cells padded into columns. Widths count characters as Swift
    /// does (grapheme clusters), so that "Café" takes four places.
    static func aligned(_ rows: [[String]]) -> String {
        let columns = rows.map(\.count).max() ?? 0
        let widths = (0..<columns).map { column in
            rows.map { $0.indices.contains(column) ? $0[column].count : 0 }.max() ?? 0
        }
        return rows.map { row in
            row.enumerated().map { column, cell in
                column == row.count - 1 ? cell : cell + String(repeating: " ", count: widths[column] - cell.count)
            }
            .joined(separator: "  ")
        }
        .joined(separator: "\n")
    }
}
