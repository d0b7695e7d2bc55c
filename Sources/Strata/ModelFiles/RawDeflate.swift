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
        return run(&stream, over: data, limit: limit) { stream in
            CZlib.inflate(&stream, Z_NO_FLUSH)
        } continuing: {
            status, produced, stream in
            // No output and no input left before the end: the stream was cut short.
            status == Z_OK && (produced > 0 || stream.avail_in > 0)
        }
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
        return run(&stream, over: data, limit: Int.max) { stream in
            CZlib.deflate(&stream, Z_FINISH)
        } continuing: {
            status, _, _ in
            status == Z_OK || status == Z_BUF_ERROR
        }
    }

    /// Feeds `data` through a started zlib stream, one 64 KB output buffer at a time, until
    /// `step` reports the end of the stream; `nil` when `continuing` refuses a step's status or
    /// the output passes `limit` bytes.
    private static func run(
        _ stream: inout z_stream, over data: Data, limit: Int, step: (inout z_stream) -> Int32,
        continuing: (_ status: Int32, _ produced: Int, _ stream: z_stream) -> Bool
    ) -> Data? {
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
                    return step(&stream)
                }
                let produced = buffer.count - Int(stream.avail_out)
                output.append(contentsOf: buffer[0..<produced])
                if status == Z_STREAM_END { return true }
                guard output.count <= limit, continuing(status, produced, stream) else { return false }
            }
        }
        return finished && output.count <= limit ? output : nil
    }
}
