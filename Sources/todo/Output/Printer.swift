import Foundation
import TodoKit

/// Printing results: JSON for scripts, text for people.
enum Printer {
    /// Writes the value as the interfaces' JSON (`TodoJSON`), with a final newline.
    static func json(_ value: some Encodable) throws {
        let data = try TodoJSON.encoder().encode(value)
        FileHandle.standardOutput.write(data + Data("\n".utf8))
    }

    /// Writes a line to standard output at once, unbuffered, for a program that reads it while
    /// this one goes on (`todo serve` telling its address).
    static func line(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    /// Writes a line to standard error (notes that must not mix with JSON on standard output).
    static func note(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }

    /// A date as people read it in lists: local time to the minute.
    static func date(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyy-MM-dd HH:mm"
        return formatter.string(from: date)
    }

    /// A number of things in words: "1 to-do", "3 to-dos".
    static func count(_ number: Int, _ noun: String) -> String {
        "\(number) \(noun)\(number == 1 ? "" : "s")"
    }
}

extension Printer {
    /// Reports a to-do a command added or changed: its JSON, or a line naming it.
    static func changed(_ verb: String, _ todo: TodoModel, _ output: OutputOptions, _ session: Session) async throws {
        if output.json {
            try json(todo)
        } else {
            print(TodoText.line(verb, todo, ids: try await session.todoIds()))
        }
    }
}
