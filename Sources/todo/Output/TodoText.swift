import Foundation
import TodoKit

/// To-dos as text for people.
enum TodoText {
    /// The list: one row per to-do, with a short id that the other commands accept.
    static func table(_ todos: [TodoModel], ids: ShortIds) -> String {
        var table = Table("ID", "DONE", "TITLE", "TAGS", "PLACE", "UPDATED")
        for todo in todos {
            table.append(
                ids(todo.id), todo.isCompleted ? "[x]" : "[ ]", clipped(todo.title, to: 40),
                todo.tags.map(\.title).joined(separator: ", "), clipped(todo.location.map(place) ?? "", to: 24),
                Printer.date(todo.updatedAt))
        }
        return table.text
    }

    /// One line naming a to-do, for the commands that change one.
    static func line(_ verb: String, _ todo: TodoModel, ids: ShortIds) -> String {
        "\(verb) \(ids(todo.id))  \(todo.title)"
    }

    /// Everything about one to-do.
    static func detail(_ todo: TodoModel) -> String {
        let fields = Table.aligned([
            ["id", todo.id.uuidString.lowercased()],
            ["status", todo.completedAt.map { "done (\(Printer.date($0)))" } ?? "open"],
            ["tags", todo.tags.isEmpty ? "-" : todo.tags.map(\.title).joined(separator: ", ")],
            ["location", todo.location.map(locationDetail) ?? "-"],
            ["created", Printer.date(todo.createdAt)],
            ["updated", Printer.date(todo.updatedAt)],
        ])
        return ([todo.title] + fields.split(separator: "\n").map { "  " + $0 }).joined(separator: "\n")
    }

    /// A location in short: its name, or its coordinates.
    static func place(_ location: LocationModel) -> String {
        location.placeName ?? coordinates(location)
    }

    private static func locationDetail(_ location: LocationModel) -> String {
        guard let name = location.placeName else { return coordinates(location) }
        return "\(name) (\(coordinates(location)))"
    }

    private static func coordinates(_ location: LocationModel) -> String {
        var text = "\(number(location.latitude)), \(number(location.longitude))"
        if let altitude = location.altitude {
            text += ", \(number(altitude)) m"
        }
        return text
    }

    /// A number without a trailing ".0": "35 m", "48.854".
    private static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }

    private static func clipped(_ text: String, to length: Int) -> String {
        text.count <= length ? text : String(text.prefix(length - 1)) + "…"
    }
}
