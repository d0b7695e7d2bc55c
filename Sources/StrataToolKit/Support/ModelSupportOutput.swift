import ArgumentParser
import Foundation

/// A failure the `model` and `port` commands report as one line, `strata: <what is wrong>`,
/// on standard error before exiting with status 1.
///
/// Commands throw it where the problem is found; `ModelSupportOutput.run` prints it, so that
/// every bad input ends the same way whatever command met it.
struct ModelToolFailure: Error, CustomStringConvertible {
    /// What is wrong, in one line (no `strata:` prefix).
    let message: String

    init(_ message: String) { self.message = message }

    var description: String { message }
}

/// Printing for the `model` and `port` commands: JSON for scripts, one-line errors for people.
enum ModelSupportOutput {
    /// Runs a command's work, turning a `ModelToolFailure` (or any other error) into the one
    /// line on standard error and exit status 1. ArgumentParser's own errors (`ExitCode`,
    /// `ValidationError`) pass through, so usage errors keep status 64.
    static func run(_ work: () throws -> Void) throws {
        do {
            try work()
        } catch let exit as ExitCode {
            throw exit
        } catch let usage as ValidationError {
            throw usage
        } catch let failure as ModelToolFailure {
            printError(failure.message)
            throw ExitCode.failure
        } catch {
            printError(oneLine("\(error)"))
            throw ExitCode.failure
        }
    }

    /// Writes `strata: <message>` to standard error.
    static func printError(_ message: String) {
        FileHandle.standardError.write(Data("strata: \(oneLine(message))\n".utf8))
    }

    /// Writes a line to standard error (warnings and notices that are not the result).
    static func printToStandardError(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }

    /// Encodes a value as pretty, key-sorted JSON (stable output that diffs well) and prints it.
    static func printJSON<Value: Encodable>(_ value: Value) throws {
        print(try json(value))
    }

    /// The JSON text `printJSON` prints.
    static func json<Value: Encodable>(_ value: Value) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    /// Writes text to a file, or to standard output when no file is given.
    static func write(_ text: String, to output: String?) throws {
        guard let output else {
            print(text, terminator: text.hasSuffix("\n") ? "" : "\n")
            return
        }
        do {
            try Data(text.utf8).write(to: URL(fileURLWithPath: output), options: .atomic)
        } catch {
            throw ModelToolFailure("cannot write \(output): \(error.localizedDescription)")
        }
    }

    /// Error texts can span lines (nested errors); the tool's contract is one line.
    private static func oneLine(_ text: String) -> String {
        text.split(whereSeparator: \.isNewline).joined(separator: " ")
    }
}
