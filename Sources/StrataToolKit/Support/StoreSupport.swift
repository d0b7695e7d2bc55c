import ArgumentParser
import Foundation
import Strata

/// A failure of `strata store …` that the user can act on: printed as one line
/// `strata: <message>` on standard error, and the program exits with 1.
struct StoreToolFailure: Error, CustomStringConvertible {
    /// What is wrong, in one line, naming the file, entity or key at fault.
    let message: String
    /// Lines printed after the message (a predicate and a caret under the column at fault).
    var details: [String] = []

    init(_ message: String, details: [String] = []) {
        self.message = message
        self.details = details
    }

    var description: String { message }
}

/// The one place where `strata store` commands turn errors into the tool's conventions: exit 1
/// with one line `strata: …` for a failure, ArgumentParser's exit codes for everything else.
enum StoreTool {
    /// Runs a command's work; a `StoreToolFailure` or any error from Strata ends the program
    /// with status 1 after one line on standard error.
    static func run(_ work: () throws -> Void) throws {
        do {
            try work()
        } catch let failure as StoreToolFailure {
            printError(failure.message)
            for line in failure.details { StandardError.write(line + "\n") }
            throw ExitCode.failure
        } catch let exit as ExitCode {
            throw exit
        } catch let error as ValidationError {
            throw error
        } catch {
            printError(describe(error))
            throw ExitCode.failure
        }
    }

    /// Prints `strata: <message>` on standard error.
    static func printError(_ message: String) {
        StandardError.write("strata: \(message)\n")
    }

    /// A one-line description of an error from Strata or Foundation: Core Data's errors carry
    /// their reason in `NSLocalizedDescriptionKey`; the first line is kept.
    static func describe(_ error: any Error) -> String {
        let nsError = error as NSError
        var text = (nsError.userInfo[NSLocalizedDescriptionKey] as? String) ?? String(describing: error)
        if let underlying = nsError.userInfo[NSUnderlyingErrorKey] as? NSError,
            let reason = underlying.userInfo[NSLocalizedDescriptionKey] as? String, !text.contains(reason)
        {
            text += ": " + reason
        }
        return text.split(separator: "\n", omittingEmptySubsequences: true).first.map(String.init) ?? text
    }
}

/// Standard error, written without buffering so that progress and messages interleave with
/// standard output in the order they happen.
enum StandardError {
    static func write(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }

    /// Whether standard error is a terminal: progress bars are drawn only then.
    static var isTerminal: Bool { isatty(2) != 0 }
}

/// Standard output, written through a buffer of bytes: large exports and query results are
/// written in pieces as they are made, never held whole.
final class OutputStream {
    private let handle: FileHandle
    private var buffer: [UInt8] = []
    private let flushSize = 1 << 16

    init(handle: FileHandle) {
        self.handle = handle
        buffer.reserveCapacity(flushSize + 4096)
    }

    /// Standard output.
    static func standardOutput() -> OutputStream { OutputStream(handle: .standardOutput) }

    /// A new file at `path` (replaced when it exists).
    static func file(atPath path: String) throws -> OutputStream {
        guard FileManager.default.createFile(atPath: path, contents: nil) else {
            throw StoreToolFailure("cannot write \(path)")
        }
        guard let handle = FileHandle(forWritingAtPath: path) else { throw StoreToolFailure("cannot write \(path)") }
        return OutputStream(handle: handle)
    }

    func write(_ text: String) {
        var text = text
        text.withUTF8 { buffer.append(contentsOf: $0) }
        if buffer.count >= flushSize { flush() }
    }

    func write(bytes: [UInt8]) {
        buffer.append(contentsOf: bytes)
        if buffer.count >= flushSize { flush() }
    }

    /// Appends without checking the buffer's size; `flushIfFull()` must follow.
    func append(_ byte: UInt8) { buffer.append(byte) }

    func flushIfFull() {
        if buffer.count >= flushSize { flush() }
    }

    /// Appends a JSON string literal, escaping only what JSON requires.
    func appendJSONString(_ text: String) {
        buffer.append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { bytes in
            var start = 0
            for index in bytes.indices {
                let byte = bytes[index]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                buffer.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<index]))
                switch byte {
                case UInt8(ascii: "\""): buffer.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
                case UInt8(ascii: "\\"): buffer.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
                case 0x0A: buffer.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
                case 0x0D: buffer.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
                case 0x09: buffer.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
                default:
                    let hex = Array("0123456789abcdef".utf8)
                    buffer.append(contentsOf: Array("\\u00".utf8))
                    buffer.append(hex[Int(byte >> 4)])
                    buffer.append(hex[Int(byte & 0xF)])
                }
                start = index + 1
            }
            buffer.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start...]))
        }
        buffer.append(UInt8(ascii: "\""))
    }

    func flush() {
        guard !buffer.isEmpty else { return }
        handle.write(Data(buffer))
        buffer.removeAll(keepingCapacity: true)
    }

    /// Flushes and closes a file (never standard output).
    func close() {
        flush()
        if handle !== FileHandle.standardOutput { try? handle.close() }
    }
}

/// A progress bar on standard error, drawn only when it is a terminal and at most every
/// tenth of a second, so that scripts and logs see nothing of it. A migration's bar is drawn
/// from a timer while the command waits for the migration, never from two threads at once.
final class ProgressBar: @unchecked Sendable {
    private let title: String
    private var total: Int
    private let enabled: Bool
    private var lastDrawn = Date.distantPast
    private var drewAnything = false

    init(_ title: String, total: Int, enabled: Bool = StandardError.isTerminal) {
        self.title = title
        self.total = max(total, 1)
        self.enabled = enabled
    }

    func update(_ done: Int, total newTotal: Int? = nil) {
        guard enabled else { return }
        if let newTotal { total = max(newTotal, 1) }
        let now = Date()
        guard now.timeIntervalSince(lastDrawn) >= 0.1 || done >= total else { return }
        lastDrawn = now
        let fraction = min(1, Double(done) / Double(total))
        let width = 30
        let filled = Int(fraction * Double(width))
        let bar = String(repeating: "#", count: filled) + String(repeating: " ", count: width - filled)
        StandardError.write("\r\(title) [\(bar)] \(Int(fraction * 100))% \(done)/\(total)")
        drewAnything = true
    }

    /// Clears the bar's line.
    func finish() {
        guard enabled, drewAnything else { return }
        StandardError.write("\r\u{1B}[2K")
    }
}
