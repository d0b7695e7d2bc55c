import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A page's open `GET /api/events` on a served to-do list, read over a plain socket on a
/// thread of its own (URLSession on Linux hands over a body only once it has ended): all that
/// `todo serve`'s shutdown test needs to know is what arrived and whether the stream ended.
final class OpenEventStream: Sendable {
    private let state = Mutex((text: "", ended: false))
    private let descriptor: Int32

    init(port: Int) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
        let request = Array("GET /api/events HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n".utf8)
        guard connected, request.withUnsafeBytes({ write(descriptor, $0.baseAddress, $0.count) }) == request.count else {
            close(descriptor)
            throw POSIXError(.ECONNREFUSED)
        }
        Thread.detachNewThread { [self] in
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                guard count > 0 else { break }
                let text = String(decoding: buffer[0..<count], as: UTF8.self)
                state.withLock { $0.text += text }
            }
            state.withLock { $0.ended = true }
            close(descriptor)
        }
    }

    /// Everything received: headers, then the chunked body as it came.
    var text: String { state.withLock { $0.text } }
    /// The server closed the connection.
    var hasEnded: Bool { state.withLock { $0.ended } }

    /// Waits until `condition` holds; false after `seconds`.
    func wait(within seconds: Double = 30, until condition: (OpenEventStream) -> Bool) async throws -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while !condition(self) {
            guard Date() < deadline else { return false }
            try await Task.sleep(for: .milliseconds(20))
        }
        return true
    }
}
