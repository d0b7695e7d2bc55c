import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// HTTP/1.1 requests over a plain socket to a port of 127.0.0.1: the WebDriver client's
/// transport. chromedriver writes its headers without a space after the colon
/// (`Content-Length:249`), which Foundation's URLSession on Linux refuses ("Failed writing
/// header"), so the browser test reads the answers itself.
enum LoopbackHTTP {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Sends the request with `Connection: close` and returns the status and the body. The
    /// socket work runs on a thread of its own, off Swift's cooperative pool.
    static func send(
        _ method: String, port: Int, path: String, body: Data? = nil, timeout: Int = 120
    ) async throws -> (
        status: Int, body: Data
    ) {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(with: Result { try exchange(method, port: port, path: path, body: body, timeout: timeout) })
            }
        }
    }

    /// `count` connections to the port that send nothing, for a server to accept; sockets that
    /// could not connect are left out.
    static func connections(to port: Int, count: Int) -> [Int32] {
        (0..<count).compactMap { _ in connectedSocket(port: port) }
    }

    /// A socket connected to 127.0.0.1:`port`, or `nil`.
    private static func connectedSocket(port: Int) -> Int32? {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return nil }
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
            return nil
        }
        return descriptor
    }

    static func closeAll(_ descriptors: [Int32]) {
        for descriptor in descriptors { close(descriptor) }
    }

    private static func exchange(
        _ method: String, port: Int, path: String, body: Data?, timeout: Int
    ) throws -> (
        status: Int, body: Data
    ) {
        guard let descriptor = connectedSocket(port: port) else {
            throw Failure(description: "cannot connect to 127.0.0.1:\(port): errno \(errno)")
        }
        defer { close(descriptor) }
        var limit = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))

        let payload = body ?? Data()
        var request = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        request += "Content-Type: application/json; charset=utf-8\r\nContent-Length: \(payload.count)\r\n\r\n"
        try write(Data(request.utf8) + payload, to: descriptor)
        return try parse(try readAll(from: descriptor))
    }

    private static func write(_ data: Data, to descriptor: Int32) throws {
        var offset = 0
        while offset < data.count {
            let written = data[offset...].withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            guard written > 0 else { throw Failure(description: "write failed: errno \(errno)") }
            offset += written
        }
    }

    /// Reads until the peer closes, or until the body that Content-Length announces is in.
    private static func readAll(from descriptor: Int32) throws -> Data {
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count == 0 { return data }
            guard count > 0 else { throw Failure(description: "read failed: errno \(errno)") }
            data.append(contentsOf: buffer[0..<count])
            if let (headerEnd, length) = announcedLength(in: data), data.count >= headerEnd + length {
                return data
            }
        }
    }

    /// Where the headers end and the Content-Length they give, once the headers are in.
    private static func announcedLength(in data: Data) -> (headerEnd: Int, length: Int)? {
        guard let end = data.firstRange(of: Data("\r\n\r\n".utf8)) else { return nil }
        let headers = String(decoding: data[..<end.lowerBound], as: UTF8.self).split(separator: "\r\n")
        for header in headers.dropFirst() {
            let parts = header.split(separator: ":", maxSplits: 1)
            if parts.count == 2, parts[0].lowercased() == "content-length",
                let length = Int(parts[1].trimmingCharacters(in: .whitespaces))
            {
                return (end.upperBound - data.startIndex, length)
            }
        }
        return nil
    }

    private static func parse(_ data: Data) throws -> (status: Int, body: Data) {
        guard let end = data.firstRange(of: Data("\r\n\r\n".utf8)) else {
            throw Failure(description: "no HTTP response: \(String(decoding: data, as: UTF8.self))")
        }
        let statusLine = String(decoding: data[..<end.lowerBound], as: UTF8.self).prefix { $0 != "\r" }
        let fields = statusLine.split(separator: " ")
        guard fields.count >= 2, let status = Int(fields[1]) else {
            throw Failure(description: "bad status line: \(statusLine)")
        }
        var body = Data(data[end.upperBound...])
        if let (_, length) = announcedLength(in: data), body.count > length {
            body = body.prefix(length)
        }
        return (status, body)
    }
}
