import Foundation
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A page's `EventSource`, played over a plain socket: `GET /api/events` on 127.0.0.1, read
/// on a thread of its own, the chunked body decoded and cut into events as they arrive.
/// (Foundation's URLSession on Linux hands a body over only once it has ended, and this one
/// does not end.)
final class EventStreamClient: Sendable {
    /// One event (or comment) as the stream carried it.
    struct Event: Equatable, Sendable {
        var name: String?
        var id: String?
        var data: String?
        var retry: Int?
        var comment: String?
    }

    private struct State {
        var status: Int?
        var headers: [String: String] = [:]
        var events: [Event] = []
        /// The server ended the body (its last chunk), or closed the connection.
        var ended = false
    }

    private let state = Mutex(State())
    private let descriptor: Int32

    /// Connects and sends the request; the answer is read as it comes.
    init(port: Int, path: String = "/api/events") throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw LoopbackHTTP.Failure(description: "no socket: errno \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
        guard connected else {
            close(descriptor)
            throw LoopbackHTTP.Failure(description: "cannot connect to 127.0.0.1:\(port): errno \(errno)")
        }
        let request = Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nAccept: text/event-stream\r\n\r\n".utf8)
        let written = request.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        guard written == request.count else {
            close(descriptor)
            throw LoopbackHTTP.Failure(description: "cannot send the request: errno \(errno)")
        }
        Thread.detachNewThread { [self] in
            readUntilTheEnd()
            close(descriptor)
        }
    }

    /// Hangs up, as a closed page does: the socket is shut down, and the reading thread closes it.
    func hangUp() {
        shutdown(descriptor, Int32(SHUT_RDWR))
    }

    var status: Int? { state.withLock { $0.status } }
    var headers: [String: String] { state.withLock { $0.headers } }
    var events: [Event] { state.withLock { $0.events } }
    var hasEnded: Bool { state.withLock { $0.ended } }

    /// The events (not comments) received so far.
    var namedEvents: [Event] { events.filter { $0.comment == nil } }

    /// Waits until `condition` holds for the events received; fails after `seconds`.
    @discardableResult
    func wait(
        for what: String, within seconds: Double = 10, sourceLocation: SourceLocation = #_sourceLocation,
        _ condition: ([Event]) -> Bool
    ) async throws -> [Event] {
        let deadline = Date().addingTimeInterval(seconds)
        while true {
            let (events, ended) = state.withLock { ($0.events, $0.ended) }
            if condition(events) { return events }
            guard Date() < deadline, !ended else {
                Issue.record("The stream never had \(what); it had \(events)", sourceLocation: sourceLocation)
                throw CancellationError()
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Waits until the stream ends; false if it is still open after `seconds`.
    func waitForEnd(within seconds: Double = 10) async throws -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while !hasEnded {
            guard Date() < deadline else { return false }
            try await Task.sleep(for: .milliseconds(20))
        }
        return true
    }

    // MARK: Reading, on the client's thread

    /// Reads until the server ends the body or the socket is closed.
    private func readUntilTheEnd() {
        var received: [UInt8] = []
        var body = ChunkedBody()
        var text = ""
        var buffer = [UInt8](repeating: 0, count: 16384)
        var headersDone = false
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            received += buffer[0..<count]
            if !headersDone {
                guard let end = received.firstRange(of: Array("\r\n\r\n".utf8)) else { continue }
                let head = String(decoding: received[..<end.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
                let status = head.first.flatMap { $0.split(separator: " ").dropFirst().first }.flatMap { Int($0) }
                var headers: [String: String] = [:]
                for line in head.dropFirst() {
                    let parts = line.split(separator: ":", maxSplits: 1)
                    if parts.count == 2 {
                        headers[parts[0].lowercased()] = parts[1].trimmingCharacters(in: .whitespaces)
                    }
                }
                state.withLock {
                    $0.status = status
                    $0.headers = headers
                }
                received.removeSubrange(..<end.upperBound)
                headersDone = true
            }
            let (decoded, finished) = body.decode(&received)
            text += String(decoding: decoded, as: UTF8.self)
            var events: [Event] = []
            while let end = text.range(of: "\n\n") {
                events.append(Self.event(text[..<end.lowerBound]))
                text.removeSubrange(..<end.upperBound)
            }
            state.withLock { $0.events += events }
            if finished { break }
        }
        state.withLock { $0.ended = true }
    }

    /// An event block's fields.
    private static func event(_ block: Substring) -> Event {
        var event = Event()
        for line in block.split(separator: "\n") {
            if line.hasPrefix(":") {
                event.comment = line.dropFirst().trimmingCharacters(in: .whitespaces)
                continue
            }
            let parts = line.split(separator: ":", maxSplits: 1)
            let value = parts.count == 2 ? String(parts[1].drop { $0 == " " }) : ""
            switch parts.first {
            case "event": event.name = value
            case "id": event.id = value
            case "retry": event.retry = Int(value)
            case "data": event.data = event.data.map { $0 + "\n" + value } ?? value
            default: break
            }
        }
        return event
    }
}

/// HTTP/1.1's chunked transfer coding, undone as the bytes arrive.
private struct ChunkedBody {
    /// The bytes left of the chunk being read, or nil between chunks.
    private var remaining: Int?

    /// Takes what it can decode from the front of `bytes`; tells whether the last chunk came.
    mutating func decode(_ bytes: inout [UInt8]) -> (decoded: [UInt8], finished: Bool) {
        var decoded: [UInt8] = []
        while true {
            if let count = remaining {
                // The chunk's data, then its CR LF.
                guard bytes.count >= count + 2 else {
                    let taken = min(count, bytes.count)
                    decoded += bytes[0..<taken]
                    bytes.removeFirst(taken)
                    remaining = count - taken
                    return (decoded, false)
                }
                decoded += bytes[0..<count]
                bytes.removeFirst(count + 2)
                remaining = nil
            }
            guard let lineEnd = bytes.firstRange(of: Array("\r\n".utf8)) else { return (decoded, false) }
            let line = String(decoding: bytes[..<lineEnd.lowerBound], as: UTF8.self)
            let size = Int(line.split(separator: ";").first ?? "", radix: 16) ?? 0
            bytes.removeSubrange(..<lineEnd.upperBound)
            if size == 0 { return (decoded, true) }
            remaining = size
        }
    }
}
