internal import CZlib
import Foundation

/// Raw DEFLATE streams (no zlib header or checksum), the form of Core Data's `Z_MODELCACHE`,
/// through zlib.
enum RawDeflate {
    /// The largest inflated size accepted: a model archive is tens of kilobytes, and a stream
    /// from a file must not be able to exhaust memory.
    static let maximumInflatedSize = 256 << 20

    /// Inflates a raw DEFLATE stream; `nil` when it is damaged, incomplete, or would inflate past
    /// `limit` bytes.
    static func inflate(_ data: Data, limit: Int = maximumInflatedSize) -> Data? {
        var stream = z_stream()
        // A negative window size asks for a raw stream.
        guard inflateInit2_(&stream, -15, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            return nil
        }
        defer { inflateEnd(&stream) }
        var input = Array(data)
        var output = Data()
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        let finished: Bool = input.withUnsafeMutableBufferPointer { inputBytes in
            stream.next_in = inputBytes.baseAddress
            stream.avail_in = UInt32(inputBytes.count)
            while true {
                let status: Int32 = buffer.withUnsafeMutableBufferPointer { outputBytes in
                    stream.next_out = outputBytes.baseAddress
                    stream.avail_out = UInt32(outputBytes.count)
                    return CZlib.inflate(&stream, Z_NO_FLUSH)
                }
                let produced = buffer.count - Int(stream.avail_out)
                output.append(contentsOf: buffer[0..<produced])
                if status == Z_STREAM_END { return true }
                guard status == Z_OK, output.count <= limit, produced > 0 || stream.avail_in > 0 else { return false }
            }
        }
        return finished && output.count <= limit ? output : nil
    }

    /// Deflates data into a raw DEFLATE stream at zlib's default level; `nil` only when zlib
    /// cannot start (out of memory).
    static func deflate(_ data: Data) -> Data? {
        var stream = z_stream()
        guard
            deflateInit2_(
                &stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY, zlibVersion(),
                Int32(MemoryLayout<z_stream>.size)) == Z_OK
        else { return nil }
        defer { deflateEnd(&stream) }
        var input = Array(data)
        var output = Data()
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        let finished: Bool = input.withUnsafeMutableBufferPointer { inputBytes in
            stream.next_in = inputBytes.baseAddress
            stream.avail_in = UInt32(inputBytes.count)
            while true {
                let status: Int32 = buffer.withUnsafeMutableBufferPointer { outputBytes in
                    stream.next_out = outputBytes.baseAddress
                    stream.avail_out = UInt32(outputBytes.count)
                    return CZlib.deflate(&stream, Z_FINISH)
                }
                output.append(contentsOf: buffer[0..<buffer.count - Int(stream.avail_out)])
                if status == Z_STREAM_END { return true }
                guard status == Z_OK || status == Z_BUF_ERROR else { return false }
            }
        }
        return finished ? output : nil
    }
}
